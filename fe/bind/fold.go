package bind

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// bindExpr binds e and folds its constant subtrees (expr.Fold), so the
// select list, WHERE, HAVING, join conditions and everything planned from
// them see `k < 15` where the statement says `k < 10 + 5`. Every bound
// expression passes here, so group keys and the select items matched
// against them are folded alike. Folding is off when the session has no
// Fold environment.
func (b *Binder) bindExpr(e sql.Expr, sc *scope, st *aggState) (expr.Expr, error) {
	x, err := b.bindExprUnfolded(e, sc, st)
	if err != nil || b.sess == nil || b.sess.Fold == nil {
		return x, err
	}
	return expr.Fold(b.sess.Fold, x), nil
}

// foldWhere returns where with the constant operands of the conjuncts that
// pushPredicates reads (comparisons, IN lists, BETWEEN bounds) replaced by
// the SQL literal of their value, so `k < 10 + 5` reaches the scans as the
// hint `k < 15`. where itself is not changed: the Filter binds the original.
func (b *Binder) foldWhere(where sql.Expr) sql.Expr {
	if where == nil || b.sess == nil || b.sess.Fold == nil {
		return where
	}
	switch n := where.(type) {
	case *sql.BinaryExpr:
		switch n.Op {
		case "AND", "OR":
			return &sql.BinaryExpr{Op: n.Op, L: b.foldWhere(n.L), R: b.foldWhere(n.R)}
		case "=", "!=", "<", "<=", ">", ">=":
			return &sql.BinaryExpr{Op: n.Op, L: b.sqlConstant(n.L), R: b.sqlConstant(n.R)}
		}
	case *sql.InExpr:
		if n.Query != nil {
			return n
		}
		c := *n
		c.List = make([]sql.Expr, len(n.List))
		for i, x := range n.List {
			c.List[i] = b.sqlConstant(x)
		}
		return &c
	case *sql.Between:
		c := *n
		c.Lo, c.Hi = b.sqlConstant(n.Lo), b.sqlConstant(n.Hi)
		return &c
	}
	return where
}

// sqlConstant returns the literal of e's value when e is a constant
// expression that folds to a scalar, else e.
func (b *Binder) sqlConstant(e sql.Expr) sql.Expr {
	if _, ok := e.(*sql.Literal); ok || !constantTree(e) {
		return e
	}
	x, err := b.bindExpr(e, &scope{}, nil)
	if err != nil {
		return e
	}
	l, ok := x.(*expr.Literal)
	if !ok || l.Value == nil {
		return e
	}
	switch v := l.Value.(type) {
	case bool:
		if v {
			return &sql.Literal{Kind: sql.LitBool, Value: "TRUE"}
		}
		return &sql.Literal{Kind: sql.LitBool, Value: "FALSE"}
	case int64:
		return &sql.Literal{Kind: sql.LitInt, Value: strconv.FormatInt(v, 10)}
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return e
		}
		return &sql.Literal{Kind: sql.LitFloat, Value: strconv.FormatFloat(v, 'g', -1, 64)}
	case decimal128.Num:
		return &sql.Literal{Kind: sql.LitDecimal, Value: l.String()}
	case string:
		return &sql.Literal{Kind: sql.LitString, Value: v}
	}
	s := strings.TrimSuffix(strings.TrimPrefix(l.String(), "'"), "'")
	switch l.Type.ID() {
	case arrow.DATE32:
		return &sql.Literal{Kind: sql.LitDate, Value: s}
	case arrow.TIMESTAMP:
		return &sql.Literal{Kind: sql.LitDatetime, Value: s}
	}
	return e
}

// constantTree reports whether e is built only of literals, operators,
// casts and scalar functions: no column, variable, placeholder, subquery,
// aggregate or window, so binding it in an empty scope has no effect.
func constantTree(e sql.Expr) bool {
	switch n := e.(type) {
	case *sql.Literal:
		return n.Kind != sql.LitNull
	case *sql.BinaryExpr:
		return constantTree(n.L) && constantTree(n.R)
	case *sql.UnaryExpr:
		return constantTree(n.X)
	case *sql.Cast:
		return constantTree(n.X)
	case *sql.Interval:
		// date '1994-01-01' + interval '1' year: TPC-H's range bounds.
		return constantTree(n.Value)
	case *sql.FuncCall:
		if n.Star || n.Distinct || n.Over != nil || len(n.OrderBy) > 0 || isAggName(n.Name) {
			return false
		}
		for _, a := range n.Args {
			if !constantTree(a) {
				return false
			}
		}
		return true
	}
	return false
}
