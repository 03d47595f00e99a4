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
	if name == "array_sort" {
		return nil, errorf(ErrUnsupported, "array_sort with a comparator lambda")
	}
	if len(lam.Params) != len(rest) {
		return nil, errorf(ErrAnalysis, "%s: the lambda has %d parameter(s) for %d array(s)", name, len(lam.Params), len(rest))
	}
	arrays := make([]expr.Expr, len(rest))
	params := make([]Column, len(rest))
	for i, a := range rest {
		x, err := b.bindExpr(a, sc, st)
		if err != nil {
			return nil, err
		}
		et, err := expr.ArrayElem(name, x)
		if err != nil {
			return nil, err
		}
		if et.ID() == arrow.NULL {
			// [] or an untyped NULL: the body sees BIGINT parameters.
			et = expr.Int64T()
			if x, err = expr.Cast(x, arrow.ListOf(et)); err != nil {
				return nil, err
			}
		}
		arrays[i] = x
		params[i] = Column{Name: lam.Params[i], Type: et, Nullable: true}
	}
	// The parameters are resolved before the outer columns (they shadow a
	// column of the same name), as a subquery's own columns are.
	nOuter := len(sc.cols)
	ls := &scope{cols: append(append([]Column{}, sc.cols...), params...), inner: nOuter}
	body, err := b.bindExpr(lam.Body, ls, nil)
	if err != nil {
		return nil, err
	}
	// Renumber the body's references against the batch array_map builds:
	// parameters first, then each outer column it reads (a capture).
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
