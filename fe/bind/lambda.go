package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// bindLambdaCall binds Doris's higher-order array functions, f(x -> body,
// arr, ...). array_map is the one node that evaluates a lambda; the others
// are their forms over the lambda's results: array_filter(arr,
// array_map(...)), array_count(array_map(...)), and so on.
func (b *Binder) bindLambdaCall(name string, lam *sql.Lambda, rest []sql.Expr, sc *scope, st *aggState) (expr.Expr, error) {
	if len(rest) == 0 {
		return nil, errorf(ErrAnalysis, "%s: a lambda needs an array argument", name)
	}
	switch name {
	case "array_sort":
		return b.bindSortComparator(lam, rest, sc, st)
	case "array_reduce":
		return b.bindReduce(lam, rest, sc, st)
	}
	if len(lam.Params) != len(rest) {
		return nil, errorf(ErrAnalysis, "%s: the lambda has %d parameter(s) for %d array(s)", name, len(lam.Params), len(rest))
	}
	arrays := make([]expr.Expr, len(rest))
	params := make([]Column, len(rest))
	for i, a := range rest {
		x, et, err := b.bindArrayArg(name, a, sc, st)
		if err != nil {
			return nil, err
		}
		arrays[i] = x
		params[i] = Column{Name: lam.Params[i], Type: et, Nullable: true}
	}
	body, captures, err := b.bindLambdaBody(lam, params, sc)
	if err != nil {
		return nil, err
	}
	m, err := expr.ArrayMap(arrays, captures, body, lam.String())
	if err != nil {
		return nil, err
	}
	switch name {
	case "array_map":
		return m, nil
	case "array_filter", "array_sortby", "array_split", "array_reverse_split":
		return expr.Func(name, arrays[0], m)
	case "array_first", "array_last":
		f, err := expr.Func("array_filter", arrays[0], m)
		if err != nil {
			return nil, err
		}
		at := int64(1)
		if name == "array_last" {
			at = -1
		}
		return expr.Func("element_at", f, expr.Int(at))
	case "array_count", "array_exists", "array_first_index", "array_last_index", "array_match_all", "array_match_any":
		return expr.Func(name, m)
	}
	return nil, errorf(ErrAnalysis, "%s does not take a lambda", name)
}

// bindArrayArg binds an array argument of a lambda call and gives its
// element type; [] and [NULL] are taken as ARRAY<BIGINT>, an untyped NULL
// is an error, as in Doris.
func (b *Binder) bindArrayArg(name string, a sql.Expr, sc *scope, st *aggState) (expr.Expr, arrow.DataType, error) {
	x, err := b.bindExpr(a, sc, st)
	if err != nil {
		return nil, nil, err
	}
	if x.DataType().ID() == arrow.NULL {
		return nil, nil, errorf(ErrAnalysis, "%s: lambda argument must be array but is NULL", name)
	}
	et, err := expr.ArrayElem(name, x)
	if err != nil {
		return nil, nil, err
	}
	if et.ID() == arrow.NULL {
		et = expr.Int64T()
		if x, err = expr.Cast(x, arrow.ListOf(et)); err != nil {
			return nil, nil, err
		}
	}
	return x, et, nil
}

// bindLambdaBody binds a lambda's body over its parameters (which shadow
// outer columns of the same name, as a subquery's own columns do) and the
// outer columns, then renumbers its references against the batch the
// lambda is evaluated over: the parameters first, then each outer column
// the body reads (returned as captures, to be evaluated over the input).
func (b *Binder) bindLambdaBody(lam *sql.Lambda, params []Column, sc *scope) (expr.Expr, []expr.Expr, error) {
	nOuter := len(sc.cols)
	ls := &scope{cols: append(append([]Column{}, sc.cols...), params...), inner: nOuter}
	body, err := b.bindExpr(lam.Body, ls, nil)
	if err != nil {
		return nil, nil, err
	}
	var captures []expr.Expr
	capIdx := map[int]int{}
	// A node may appear twice in a bound tree (NULLIF reads its operand
	// twice): each is renumbered once.
	done := map[*expr.ColumnRef]bool{}
	var renumber func(e expr.Expr)
	renumber = func(e expr.Expr) {
		if c, ok := e.(*expr.ColumnRef); ok {
			if done[c] {
				return
			}
			done[c] = true
			switch {
			case c.Index >= nOuter:
				c.Index -= nOuter
			default:
				j, ok := capIdx[c.Index]
				if !ok {
					j = len(captures)
					capIdx[c.Index] = j
					captures = append(captures, expr.Col(c.Index, c.Name, c.Type))
				}
				c.Index = len(params) + j
			}
			return
		}
		for _, k := range e.Children() {
			renumber(k)
		}
	}
	renumber(body)
	return body, captures, nil
}

// bindSortComparator is array_sort((x, y) -> cmp, arr).
func (b *Binder) bindSortComparator(lam *sql.Lambda, rest []sql.Expr, sc *scope, st *aggState) (expr.Expr, error) {
	if len(lam.Params) != 2 || len(rest) != 1 {
		return nil, errorf(ErrAnalysis, "array_sort: a comparator is a lambda of two parameters over one array")
	}
	arr, et, err := b.bindArrayArg("array_sort", rest[0], sc, st)
	if err != nil {
		return nil, err
	}
	params := []Column{{Name: lam.Params[0], Type: et, Nullable: true}, {Name: lam.Params[1], Type: et, Nullable: true}}
	body, captures, err := b.bindLambdaBody(lam, params, sc)
	if err != nil {
		return nil, err
	}
	if body, err = expr.Cast(body, expr.Int64T()); err != nil {
		return nil, err
	}
	return &expr.ArraySortByExpr{Array: arr, Captures: captures, Body: body, Show: lam.String()}, nil
}

// bindReduce is array_reduce((s, x) -> body, arr, init). The state takes
// the body's type: bound first with init's type, again with the body's
// when that differs (s + x over INT elements and an INT init is BIGINT).
func (b *Binder) bindReduce(lam *sql.Lambda, rest []sql.Expr, sc *scope, st *aggState) (expr.Expr, error) {
	if len(lam.Params) != 2 || len(rest) != 2 {
		return nil, errorf(ErrAnalysis, "array_reduce takes (s, x) -> body, an array and an initial value")
	}
	arr, et, err := b.bindArrayArg("array_reduce", rest[0], sc, st)
	if err != nil {
		return nil, err
	}
	init, err := b.bindExpr(rest[1], sc, st)
	if err != nil {
		return nil, err
	}
	if init.DataType().ID() == arrow.NULL {
		if init, err = expr.Cast(init, et); err != nil {
			return nil, err
		}
	}
	var body expr.Expr
	var captures []expr.Expr
	stateT := init.DataType()
	for try := 0; ; try++ {
		params := []Column{{Name: lam.Params[0], Type: stateT, Nullable: true}, {Name: lam.Params[1], Type: et, Nullable: true}}
		if body, captures, err = b.bindLambdaBody(lam, params, sc); err != nil {
			return nil, err
		}
		if try == 1 || arrow.TypeEqual(body.DataType(), stateT) {
			break
		}
		stateT = body.DataType()
	}
	// The body was bound with a state of stateT; its value is kept in that
	// type (a DECIMAL sum that widens each step stays at the second width).
	if !arrow.TypeEqual(body.DataType(), stateT) {
		if body, err = expr.Cast(body, stateT); err != nil {
			return nil, err
		}
	}
	if init, err = expr.Cast(init, stateT); err != nil {
		return nil, err
	}
	return &expr.ArrayReduceExpr{Array: arr, Init: init, Captures: captures, Body: body, Show: lam.String()}, nil
}
