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
	colOf := func(e expr.Expr) (*expr.ColumnRef, string, bool) {
		if w, ok := e.(*expr.CastExpr); ok && w.To.ID() == arrow.INT64 && isInt(w.Arg.DataType()) {
			// int_col IN (1, 2) compares as BIGINT: a widening the BE's
			// literal conversion to the column type agrees with, as long
			// as the constants fit (matches checks each one).
			e = w.Arg
		}
		c, ok := e.(*expr.ColumnRef)
		if !ok || c.Index < 0 || c.Index >= len(sc.Projection) || !exactType(c.Type) {
			return nil, "", false
		}
		p := sc.Projection[c.Index]
		if p < 0 || p >= len(cols) || !arrow.TypeEqual(c.Type, bind.Schema(sc).Field(c.Index).Type) {
			return nil, "", false
		}
		return c, cols[p].Name, true
	}
	// matches finds a pushed predicate on column name with operator op
	// whose values, converted as the BE converts them, are vals.
	matches := func(name, op string, t arrow.DataType, vals []*expr.Literal) bool {
		for _, p := range sc.Predicates {
			if !strings.EqualFold(p.Column, name) || p.Op != op || len(p.Values) != len(vals) {
				continue
			}
			same := true
			for i, v := range p.Values {
				l, err := expr.Lit(v, t)
				if err != nil || vals[i].Value == nil || !sameValue(l.Value, vals[i].Value) ||
					!(arrow.TypeEqual(vals[i].Type, t) || isInt(t) && vals[i].Type.ID() == arrow.INT64) {
					same = false
					break
				}
			}
			if same {
				return true
			}
		}
		return false
	}
	flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	for _, c := range expr.Conjuncts(f.Cond) {
		ok := false
		switch n := c.(type) {
		case *expr.CmpExpr:
			op := n.Op.String()
			if _, known := flip[op]; !known {
				break
			}
			col, name, isCol := colOf(n.L)
			lit, isLit := n.R.(*expr.Literal)
			if !isCol {
				col, name, isCol = colOf(n.R)
				lit, isLit = n.L.(*expr.Literal)
				op = flip[op]
			}
			ok = isCol && isLit && matches(name, op, col.Type, []*expr.Literal{lit})
		case *expr.InExpr:
			col, name, isCol := colOf(n.Arg)
			op := "IN"
			if n.Negated {
				op = "NOT IN"
			}
			ok = isCol && matches(name, op, col.Type, n.List)
		case *expr.IsNullExpr:
			_, name, isCol := colOf(n.Arg)
			op := "IS NULL"
			if n.Negated {
				op = "IS NOT NULL"
			}
			ok = isCol && matches(name, op, nil, nil)
		}
		if !ok {
			return false
		}
	}
	return true
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
