package physical

import (
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// filterIsPushed reports whether the BEs drop exactly the rows f drops:
// every conjunct of f's condition is one of sc's pushed predicates (the
// planner ships each as a BE filter, and the BE compiles it with the same
// expression engine, the constant converted to the column's type). Only
// then may a LIMIT or a per-range Top-N count rows on the BEs: a filter the
// BEs apply more loosely would let them stop on rows the FE then drops.
// The shapes accepted are column op constant (either side), IN lists and
// IS [NOT] NULL, on integer, string, boolean and date columns, where the
// constant's type is the column's; anything else keeps the cap on the FE.
func filterIsPushed(f *bind.Filter, sc *bind.Scan) bool {
	if !planner.Plannable(sc.Table) || len(sc.Predicates) == 0 {
		return false
	}
	cols := sc.Table.Schema().Columns
	// matches finds a pushed predicate on column name with operator op
	// whose values, converted as the BE converts them, are vals.
	matches := func(c *expr.ColumnRef, op string, t arrow.DataType, vals []*expr.Literal) bool {
		name := cols[sc.Projection[c.Index]].Name
		for _, p := range sc.Predicates {
			if !strings.EqualFold(p.Column, name) || p.Op != op || len(p.Values) != len(vals) {
				continue
			}
			if sameConstants(p.Values, t, vals) {
				return true
			}
		}
		return false
	}
	for _, c := range expr.Conjuncts(f.Cond) {
		if !pushedShape(c, sc, false, matches) {
			return false
		}
	}
	return true
}

// exactOnBE reports whether the BEs apply conjunct c exactly: frag (the
// scan's planned fragment) carries it as a filter on the same column with
// the same operator and constants, converted as the BE converts them (to
// the column's output type, which filter_only leaves in place). A scan's
// FE filter need not test such a conjunct again, and a column only such
// conjuncts read need not come back from the BEs (Fragment.filter_only).
func exactOnBE(c expr.Expr, sc *bind.Scan, frag *inletpb.Fragment) bool {
	return pushedShape(c, sc, true, func(col *expr.ColumnRef, op string, t arrow.DataType, vals []*expr.Literal) bool {
		if col.Index >= len(frag.GetProjection()) {
			return false
		}
		tc := frag.GetProjection()[col.Index]
		for _, f := range frag.GetFilters() {
			if f.GetColumn() != tc || f.GetOp() != op || f.GetRuntime() || len(f.GetValues()) != len(vals) {
				continue
			}
			consts := make([]any, len(f.GetValues()))
			ok := true
			for i, v := range f.GetValues() {
				switch x := v.GetV().(type) {
				case *inletpb.Value_Int:
					consts[i] = x.Int
				case *inletpb.Value_Float:
					consts[i] = x.Float
				case *inletpb.Value_Bool:
					consts[i] = x.Bool
				case *inletpb.Value_Text:
					consts[i] = x.Text
				default:
					ok = false
				}
			}
			if ok && sameConstants(consts, t, vals) {
				return true
			}
		}
		return false
	})
}

// sameConstants: the constants pushed (as the BE gets them), converted to
// the column's type t as the BE converts them, are the FE's literals (a
// decimal literal at t's scale: its unscaled value is then the same
// number).
func sameConstants(pushed []any, t arrow.DataType, vals []*expr.Literal) bool {
	for i, v := range pushed {
		l, err := expr.Lit(v, t)
		if err != nil || vals[i].Value == nil || !sameValue(l.Value, vals[i].Value) ||
			!(arrow.TypeEqual(vals[i].Type, t) || isInt(t) && vals[i].Type.ID() == arrow.INT64 || sameScale(t, vals[i].Type)) {
			return false
		}
	}
	return true
}

// widerDecimal: to holds every value of from unchanged (DECIMAL128, same
// scale, at least as many digits).
func widerDecimal(from, to arrow.DataType) bool {
	f, ok1 := from.(*arrow.Decimal128Type)
	t, ok2 := to.(*arrow.Decimal128Type)
	return ok1 && ok2 && f.Scale == t.Scale && t.Precision >= f.Precision
}

// sameScale: two DECIMAL128 types of one scale.
func sameScale(a, b arrow.DataType) bool {
	x, ok1 := a.(*arrow.Decimal128Type)
	y, ok2 := b.(*arrow.Decimal128Type)
	return ok1 && ok2 && x.Scale == y.Scale
}

// pushedShape reports whether c is column op constant (either side), an
// IN list or IS [NOT] NULL over one of sc's columns of an exact type read
// as is (or an integer widened to BIGINT), and matches says the BEs apply
// it (the op as the BE names it, the column's type, the constants). With
// decimals, a DECIMAL column counts too, read as is or widened to more
// digits at its scale (TPC-H Q6's CAST(l_quantity AS decimal(21,2)) < 24):
// matches then compares constants at that scale.
func pushedShape(c expr.Expr, sc *bind.Scan, decimals bool, matches func(col *expr.ColumnRef, op string, t arrow.DataType, vals []*expr.Literal) bool) bool {
	cols := sc.Table.Schema().Columns
	colOf := func(e expr.Expr) (*expr.ColumnRef, bool) {
		if w, ok := e.(*expr.CastExpr); ok && w.To.ID() == arrow.INT64 && isInt(w.Arg.DataType()) {
			// int_col IN (1, 2) compares as BIGINT: a widening the BE's
			// literal conversion to the column type agrees with, as long
			// as the constants fit (matches checks each one).
			e = w.Arg
		} else if ok && decimals && widerDecimal(w.Arg.DataType(), w.To) {
			e = w.Arg
		}
		c, ok := e.(*expr.ColumnRef)
		if !ok || c.Index < 0 || c.Index >= len(sc.Projection) || !(exactType(c.Type) || decimals && c.Type.ID() == arrow.DECIMAL128) {
			return nil, false
		}
		p := sc.Projection[c.Index]
		if p < 0 || p >= len(cols) || !arrow.TypeEqual(c.Type, bind.Schema(sc).Field(c.Index).Type) {
			return nil, false
		}
		return c, true
	}
	flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	switch n := c.(type) {
	case *expr.CmpExpr:
		op := n.Op.String()
		if _, known := flip[op]; !known {
			return false
		}
		col, isCol := colOf(n.L)
		lit, isLit := n.R.(*expr.Literal)
		if !isCol {
			col, isCol = colOf(n.R)
			lit, isLit = n.L.(*expr.Literal)
			op = flip[op]
		}
		return isCol && isLit && matches(col, op, col.Type, []*expr.Literal{lit})
	case *expr.InExpr:
		col, isCol := colOf(n.Arg)
		op := "IN"
		if n.Negated {
			op = "NOT IN"
		}
		return isCol && matches(col, op, col.Type, n.List)
	case *expr.IsNullExpr:
		col, isCol := colOf(n.Arg)
		op := "IS NULL"
		if n.Negated {
			op = "IS NOT NULL"
		}
		return isCol && matches(col, op, nil, nil)
	}
	return false
}

// exactType: the column types whose constants the FE and the BE read alike
// (no time zone, scale or padding in play).
func exactType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.STRING, arrow.LARGE_STRING, arrow.BOOL, arrow.DATE32:
		return true
	}
	return false
}

// scanBelow returns the scan p reads when only projections and a filter
// the BEs apply exactly (filterIsPushed) lie between them, else nil. pos
// maps p's output columns to the scan's (-1: computed).
func scanBelow(p bind.Plan) (sc *bind.Scan, pos []int) {
	ident := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	switch n := p.(type) {
	case *bind.Scan:
		return n, ident(len(n.Out))
	case *bind.Project:
		sc, in := scanBelow(n.Input)
		if sc == nil {
			return nil, nil
		}
		out := make([]int, len(n.Exprs))
		for i, e := range n.Exprs {
			out[i] = -1
			if c, ok := e.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(in) {
				out[i] = in[c.Index]
			}
		}
		return sc, out
	case *bind.Filter:
		sc, ok := n.Input.(*bind.Scan)
		if !ok || !filterIsPushed(n, sc) {
			return nil, nil
		}
		return sc, ident(len(sc.Out))
	}
	return nil, nil
}

// rangeTopN is ORDER BY keys LIMIT n over a scan as each range's Top-N:
// the keys must be columns the scan returns, and the scan's filters exact.
func rangeTopN(st *bind.Sort, n int64) (*bind.Scan, *inletpb.RangeTopN) {
	sc, pos := scanBelow(st.Input)
	if sc == nil || n < 0 || len(st.Keys) == 0 {
		return nil, nil
	}
	top := &inletpb.RangeTopN{Limit: n}
	for _, k := range st.Keys {
		c, ok := k.Expr.(*expr.ColumnRef)
		if !ok || c.Index < 0 || c.Index >= len(pos) || pos[c.Index] < 0 {
			return nil, nil
		}
		top.Keys = append(top.Keys, &inletpb.SortColumn{Column: int32(pos[c.Index]), Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return sc, top
}

func isInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// sameValue compares two literal values, integers by value whatever their
// width.
func sameValue(a, b any) bool {
	x, okA := asInt64(a)
	y, okB := asInt64(b)
	if okA || okB {
		return okA && okB && x == y
	}
	return reflect.DeepEqual(a, b)
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}
