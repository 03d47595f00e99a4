package opt

import (
	"reflect"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// Totals from groups. A query that compares each group's aggregate with
// a total over the same rows (TPC-H Q11: HAVING sum(v) > (SELECT sum(v) *
// 0.0001 FROM <the same FROM and WHERE>)) binds that FROM twice, and so
// joins and aggregates its rows twice. An aggregate without GROUP BY whose
// input is the same plan as a grouped aggregate's elsewhere in the
// statement, and whose calls are sum, min or max the grouped one computes
// too, is rewritten to total the groups instead:
//
//	γ_{sum(x)}(R)  =  γ_{sum(s)}(γ_{k; s=sum(x)}(R'))
//
// where the inner aggregate is a copy of the grouped one over the total's
// own input R' (the same rows as R), so fe/physical computes it once for
// both readers (shared.go) and R is read once.
//
// Exact: the sum of the groups' sums is the sum (integers and decimals
// add exactly; floating point would round in another order, so it is left
// alone), the min of the groups' mins is the min, a group whose values are
// all NULL gives NULL and is skipped as its rows were, and no rows give no
// groups, whose sum, min or max is NULL as the total's is. count (0 of no
// rows, not NULL), DISTINCT calls and floating-point arguments keep the
// plan as bound.
func totalsFromGroups(p bind.Plan) {
	var grouped, totals []*bind.Aggregate
	var walk func(p bind.Plan)
	walk = func(p bind.Plan) {
		if a, ok := p.(*bind.Aggregate); ok {
			if len(a.Groups) > 0 {
				grouped = append(grouped, a)
			} else {
				totals = append(totals, a)
			}
		}
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(p)
	for _, t := range totals {
		for _, g := range grouped {
			if rollUp(t, g) {
				break
			}
		}
	}
}

// rollUp rewrites total t to aggregate a copy of g when t's input reads
// the same rows as g's (some of its columns) and g computes each of t's
// calls; it reports whether it did.
func rollUp(t, g *bind.Aggregate) bool {
	if len(t.Aggs) == 0 || t.Input == g.Input {
		return false
	}
	m, ok := covers(t.Input, g.Input)
	if !ok {
		return false
	}
	from := make([]int, len(t.Aggs))
	for i, a := range t.Aggs {
		from[i] = -1
		if a.Distinct || a.Arg == nil || !rollsUp(a) {
			return false
		}
		arg, ok := remap(a.Arg, m)
		if !ok {
			return false
		}
		k := exprKey(arg)
		for j, b := range g.Aggs {
			if b.Func == a.Func && !b.Distinct && b.Arg != nil && arrow.TypeEqual(a.Type, b.Type) && k != "" && k == exprKey(b.Arg) {
				from[i] = j
				break
			}
		}
		if from[i] < 0 {
			return false
		}
	}
	copyG, ok := copyPlan(g)
	if !ok {
		return false
	}
	aggs := make([]bind.AggCall, len(t.Aggs))
	for i, a := range t.Aggs {
		col := len(g.Groups) + from[i]
		c := g.Out[col]
		aggs[i] = bind.AggCall{Func: a.Func, Arg: expr.Col(col, c.Name, c.Type), Type: a.Type}
	}
	t.Input, t.Aggs = copyG, aggs
	return true
}

// rollsUp says whether a over all rows equals a over a's values per group.
func rollsUp(a bind.AggCall) bool {
	switch a.Func {
	case bind.AggSum:
		return exactSum(a.Arg.DataType()) && exactSum(a.Type)
	case bind.AggMin, bind.AggMax:
		switch a.Arg.DataType().ID() {
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			return false // NaN and -0 order by the executor's rules, not by value
		}
		return true
	}
	return false
}

func exactSum(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.DECIMAL128:
		return true
	}
	return false
}

// covers says whether plan a computes the rows of plan b with a subset of
// b's columns (the binder reads only the columns a block needs, so the
// same FROM and WHERE bound for a subquery may read fewer), returning the
// position in b of each of a's columns: the same operators over the same
// tables with the same expressions. Only scans, filters, projections,
// joins and aggregates are compared; any other node, or a function whose
// value changes per call (rand), is not taken as the same.
func covers(a, b bind.Plan) ([]int, bool) {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return nil, false
	}
	ac, bc := a.Columns(), b.Columns()
	var m []int
	switch x := a.(type) {
	case *bind.Scan:
		y := b.(*bind.Scan)
		if x == y || x.Table == nil || y.Table == nil || x.Catalog != y.Catalog || x.Database != y.Database || x.Table.Name() != y.Table.Name() ||
			len(x.Pruned) > 0 || len(y.Pruned) > 0 || len(x.Projection) != len(x.Out) || len(y.Projection) != len(y.Out) ||
			!reflect.DeepEqual(x.Vars, y.Vars) || !reflect.DeepEqual(x.Predicates, y.Predicates) ||
			!reflect.DeepEqual(x.OrPredicates, y.OrPredicates) || !reflect.DeepEqual(x.TimeTravel, y.TimeTravel) {
			return nil, false
		}
		m = make([]int, len(x.Projection))
		for i, c := range x.Projection {
			m[i] = -1
			for j, d := range y.Projection {
				if c == d {
					m[i] = j
					break
				}
			}
			if m[i] < 0 {
				return nil, false
			}
		}
	case *bind.Filter:
		y := b.(*bind.Filter)
		in, ok := covers(x.Input, y.Input)
		if !ok || !sameMapped(x.Cond, y.Cond, in) {
			return nil, false
		}
		m = in
	case *bind.Project:
		y := b.(*bind.Project)
		in, ok := covers(x.Input, y.Input)
		if !ok {
			return nil, false
		}
		m = make([]int, len(x.Exprs))
		for i, e := range x.Exprs {
			m[i] = -1
			for j, f := range y.Exprs {
				if sameMapped(e, f, in) {
					m[i] = j
					break
				}
			}
			if m[i] < 0 {
				return nil, false
			}
		}
	case *bind.Join:
		y := b.(*bind.Join)
		if x.Kind != y.Kind || len(x.LeftKeys) != len(y.LeftKeys) || len(x.RightKeys) != len(y.RightKeys) || (x.Residual == nil) != (y.Residual == nil) {
			return nil, false
		}
		ml, ok := covers(x.Left, y.Left)
		if !ok {
			return nil, false
		}
		mr, ok := covers(x.Right, y.Right)
		if !ok {
			return nil, false
		}
		for i := range x.LeftKeys {
			if !sameMapped(x.LeftKeys[i], y.LeftKeys[i], ml) || !sameMapped(x.RightKeys[i], y.RightKeys[i], mr) {
				return nil, false
			}
		}
		nl := len(y.Left.Columns())
		both := append([]int(nil), ml...)
		for _, j := range mr {
			both = append(both, nl+j)
		}
		if x.Residual != nil && !sameMapped(x.Residual, y.Residual, both) {
			return nil, false
		}
		switch x.Kind {
		case bind.LeftSemiJoin, bind.LeftAntiJoin, bind.NullAwareAntiJoin:
			m = ml
		default:
			m = both
		}
	case *bind.Aggregate:
		y := b.(*bind.Aggregate)
		in, ok := covers(x.Input, y.Input)
		if !ok || len(x.Groups) != len(y.Groups) || len(x.Aggs) != len(y.Aggs) {
			return nil, false
		}
		for i := range x.Groups {
			if !sameMapped(x.Groups[i], y.Groups[i], in) {
				return nil, false
			}
		}
		for i := range x.Aggs {
			p, q := x.Aggs[i], y.Aggs[i]
			if p.Func != q.Func || p.Distinct != q.Distinct || p.Sep != q.Sep || !arrow.TypeEqual(p.Type, q.Type) || (p.Arg == nil) != (q.Arg == nil) ||
				p.Arg != nil && !sameMapped(p.Arg, q.Arg, in) {
				return nil, false
			}
		}
		m = make([]int, len(ac))
		for i := range m {
			m[i] = i
		}
	default:
		return nil, false
	}
	if len(m) != len(ac) {
		return nil, false
	}
	for i, j := range m {
		if j < 0 || j >= len(bc) || !sameColumn(ac[i], bc[j]) {
			return nil, false
		}
	}
	return m, true
}

func sameColumn(a, b bind.Column) bool {
	return a.Name == b.Name && a.Qualifier == b.Qualifier && a.Nullable == b.Nullable && arrow.TypeEqual(a.Type, b.Type)
}

// remap moves e's column references to the positions m gives.
func remap(e expr.Expr, m []int) (expr.Expr, bool) {
	bad := false
	r, ok := expr.MapColumns(e, func(c *expr.ColumnRef) expr.Expr {
		if c.Index < 0 || c.Index >= len(m) {
			bad = true
			return c
		}
		return expr.Col(m[c.Index], c.Name, c.Type)
	})
	return r, ok && !bad
}

// sameMapped says whether e, its columns moved by m, is f.
func sameMapped(e, f expr.Expr, m []int) bool {
	r, ok := remap(e, m)
	if !ok {
		return false
	}
	k := exprKey(r)
	return k != "" && k == exprKey(f)
}

// exprKey prints e with each column's position and type, so two columns
// of one name (a self-join) tell apart; "" for an expression that cannot
// be rebuilt or changes per call.
func exprKey(e expr.Expr) string {
	if expr.Volatile(e) {
		return ""
	}
	m, ok := expr.MapColumns(e, func(c *expr.ColumnRef) expr.Expr {
		return expr.Col(c.Index, "$"+strconv.Itoa(c.Index)+":"+c.Name+":"+c.Type.String(), c.Type)
	})
	if !ok {
		return ""
	}
	return m.String() + " " + e.DataType().String()
}

// copyPlan copies p (scans, filters, projections, joins and aggregates)
// with fresh expressions, so the optimiser's in-place moves of one never
// touch the other. ok is false for any other node.
func copyPlan(p bind.Plan) (bind.Plan, bool) {
	freshAll := func(es []expr.Expr) ([]expr.Expr, bool) {
		out := make([]expr.Expr, len(es))
		for i, e := range es {
			f, ok := fresh(e)
			if !ok {
				return nil, false
			}
			out[i] = f
		}
		return out, true
	}
	cols := func(cs []bind.Column) []bind.Column { return append([]bind.Column(nil), cs...) }
	switch n := p.(type) {
	case *bind.Scan:
		c := *n
		c.Out = cols(n.Out)
		c.Projection = append([]int(nil), n.Projection...)
		return &c, true
	case *bind.Filter:
		in, ok := copyPlan(n.Input)
		if !ok {
			return nil, false
		}
		cond, ok := fresh(n.Cond)
		return &bind.Filter{Input: in, Cond: cond}, ok
	case *bind.Project:
		in, ok := copyPlan(n.Input)
		if !ok {
			return nil, false
		}
		exprs, ok := freshAll(n.Exprs)
		return &bind.Project{Input: in, Exprs: exprs, Out: cols(n.Out)}, ok
	case *bind.Join:
		l, ok := copyPlan(n.Left)
		if !ok {
			return nil, false
		}
		r, ok := copyPlan(n.Right)
		if !ok {
			return nil, false
		}
		j := &bind.Join{Kind: n.Kind, Left: l, Right: r, Out: cols(n.Out)}
		if j.LeftKeys, ok = freshAll(n.LeftKeys); !ok {
			return nil, false
		}
		if j.RightKeys, ok = freshAll(n.RightKeys); !ok {
			return nil, false
		}
		if n.Residual != nil {
			if j.Residual, ok = fresh(n.Residual); !ok {
				return nil, false
			}
		}
		return j, true
	case *bind.Aggregate:
		in, ok := copyPlan(n.Input)
		if !ok {
			return nil, false
		}
		a := &bind.Aggregate{Input: in, Out: cols(n.Out)}
		if a.Groups, ok = freshAll(n.Groups); !ok {
			return nil, false
		}
		for _, c := range n.Aggs {
			if c.Arg != nil {
				if c.Arg, ok = fresh(c.Arg); !ok {
					return nil, false
				}
			}
			a.Aggs = append(a.Aggs, c)
		}
		return a, true
	}
	return nil, false
}
