package bind

import (
	"slices"
	"sort"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Join order in the binder: only what needs no statistics. A FROM clause
// of inner, cross and comma joins only (no outer, semi or anti join, no
// USING) keeps its order, except that an input no equality joins to what
// is already there waits until no joined one is left, so no cross product
// is built where an equi-condition exists. The ON conditions then join the
// WHERE conjuncts, which pushWhere places at the lowest join that sees
// their columns, so every equality becomes a hash key, and a projection
// puts the columns back in FROM order. The order by estimated cost is
// fe/opt's, on the bound plan.

// inputStats is one FROM input with its estimate.
type inputStats struct {
	plan  Plan
	first int // its first column in FROM order
	rows  float64
}

// flattenInner lists the inputs and ON conditions of a FROM clause made of
// inner joins only; ok is false for anything else.
func flattenInner(t sql.TableExpr) (leaves []sql.TableExpr, ons []sql.Expr, ok bool) {
	j, isJoin := t.(*sql.Join)
	if !isJoin {
		return []sql.TableExpr{t}, nil, true
	}
	switch j.Kind {
	case sql.InnerJoin, sql.CrossJoin, sql.CommaJoin:
	default:
		return nil, nil, false
	}
	if len(j.Using) > 0 || (j.On != nil && containsSubquery(j.On)) {
		return nil, nil, false
	}
	l, lo, ok := flattenInner(j.Left)
	if !ok {
		return nil, nil, false
	}
	r, ro, ok := flattenInner(j.Right)
	if !ok {
		return nil, nil, false
	}
	ons = append(append(lo, ro...), conjuncts0(j.On)...)
	return append(l, r...), ons, true
}

func conjuncts0(e sql.Expr) []sql.Expr {
	if e == nil {
		return nil
	}
	return conjuncts(e)
}

// reorderJoins binds a FROM clause in the order estimates favour. ok is
// false when it does not apply (the caller binds FROM as written); where
// then comes back unchanged. Otherwise the ON conditions are part of the
// returned WHERE and the plan's joins carry no condition yet.
func (b *Binder) reorderJoins(from sql.TableExpr, where sql.Expr) (Plan, sql.Expr, bool, error) {
	leaves, ons, ok := flattenInner(from)
	if !ok || len(leaves) < 3 {
		return nil, where, false, nil
	}
	conds := append(append([]sql.Expr{}, ons...), conjuncts0(where)...)
	inputs := make([]*inputStats, len(leaves))
	first := 0
	for i, l := range leaves {
		p, err := b.bindFrom(l)
		if err != nil {
			return nil, where, false, err
		}
		// Equal estimates: chooseOrder keeps FROM order among them.
		inputs[i] = &inputStats{plan: p, first: first, rows: 1}
		first += len(p.Columns())
	}
	// Which inputs an equality joins.
	linked := make([][]bool, len(inputs))
	for i := range linked {
		linked[i] = make([]bool, len(inputs))
	}
	for _, c := range conds {
		be, ok := c.(*sql.BinaryExpr)
		if !ok || be.Op != "=" {
			continue
		}
		li, ri := b.ownerOf(be.L, inputs), b.ownerOf(be.R, inputs)
		if li >= 0 && ri >= 0 && li != ri {
			linked[li][ri], linked[ri][li] = true, true
		}
	}
	order := chooseOrder(inputs, linked)
	if slices.IsSorted(order) {
		return nil, where, false, nil // FROM order: bind as written
	}
	var plan Plan = inputs[order[0]].plan
	for _, k := range order[1:] {
		r := inputs[k].plan
		plan = &Join{Kind: CrossJoin, Left: plan, Right: r, Out: append(append([]Column{}, plan.Columns()...), r.Columns()...)}
	}
	// Back to FROM order: pos[i] is where FROM column i sits in plan.
	var cols []Column
	for _, in := range inputs {
		cols = append(cols, in.plan.Columns()...)
	}
	pos := make([]int, len(cols))
	at := 0
	for _, k := range order {
		for c := range inputs[k].plan.Columns() {
			pos[inputs[k].first+c] = at
			at++
		}
	}
	w := andSQL(conds)
	pushPredicates(from, plan, b.foldWhere(w), b.sessionLoc())
	plan, w, err := b.pushWhere(plan, w)
	if err != nil {
		return nil, where, false, err
	}
	exprs := make([]expr.Expr, len(cols))
	pc := plan.Columns()
	for i, c := range cols {
		exprs[i] = expr.Col(pos[i], pc[pos[i]].Name, c.Type)
	}
	return &Project{Input: plan, Exprs: exprs, Out: cols}, w, true, nil
}

// chooseOrder: the largest input first, then the smallest linked one.
func chooseOrder(inputs []*inputStats, linked [][]bool) []int {
	n := len(inputs)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	// Stable: equal estimates keep FROM order.
	sort.SliceStable(idx, func(a, b int) bool { return inputs[idx[a]].rows < inputs[idx[b]].rows })
	start := idx[n-1]
	for _, i := range idx {
		if inputs[i].rows == inputs[start].rows {
			start = i // the first in FROM order among the largest
			break
		}
	}
	used := make([]bool, n)
	used[start] = true
	order := []int{start}
	for len(order) < n {
		next := -1
		for _, i := range idx {
			if used[i] {
				continue
			}
			connected := false
			for _, o := range order {
				connected = connected || linked[o][i]
			}
			if connected {
				next = i
				break
			}
		}
		if next < 0 {
			for _, i := range idx {
				if !used[i] {
					next = i
					break
				}
			}
		}
		used[next] = true
		order = append(order, next)
	}
	return order
}

// ownerOf is the input an expression reads all its columns from, or -1.
func (b *Binder) ownerOf(e sql.Expr, inputs []*inputStats) int {
	owner := -1
	for i, in := range inputs {
		x, err := b.bindExpr(e, &scope{cols: in.plan.Columns()}, nil)
		if err != nil || len(columnsOf(x, nil)) == 0 {
			continue
		}
		if owner >= 0 {
			return -1 // ambiguous: the name fits several inputs
		}
		owner = i
	}
	return owner
}
