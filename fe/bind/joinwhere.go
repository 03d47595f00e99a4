package bind

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Moving WHERE conjuncts into a FROM clause of joins. A conjunct goes to
// the lowest place that sees every column it reads:
//   - below a join, onto one input, when all its columns come from that
//     input and the join cannot turn that input's rows into NULL-extended
//     ones (either input of an inner or cross join, the left input of a
//     LEFT, semi or anti join, the right input of a RIGHT join);
//   - into an inner or cross join whose two inputs it spans, as a hash key
//     pair (left expression = right expression) or else a join filter;
//   - above a leaf or a join it cannot enter, as a Filter.
//
// Anything else stays in WHERE: conjuncts spanning both inputs of an outer
// join, conjuncts with subqueries, conjuncts that read no column or do not
// bind over the FROM columns (their error is reported by WHERE itself).
// Nothing moves below a FULL join or onto a null-supplying input, so every
// row the join produces meets exactly the conditions it met before.

// pushWhere moves the conjuncts of where into input (the bound FROM clause)
// and returns the new input and the conjuncts left for WHERE.
func (b *Binder) pushWhere(input Plan, where sql.Expr) (Plan, sql.Expr, error) {
	if _, ok := input.(*Join); !ok || where == nil {
		return input, where, nil
	}
	full := &scope{cols: input.Columns()}
	var rest []sql.Expr
	conds := conjuncts(where)
	if ranges := leafRanges(input, 0, nil); len(ranges) > 1 {
		for _, c := range conds {
			conds = append(conds, b.impliedByOr(c, full, ranges)...)
		}
	}
	for _, c := range conds {
		if containsSubquery(c) || containsAgg(c) {
			rest = append(rest, c)
			continue
		}
		e, err := b.bindExpr(c, full, nil)
		if err != nil {
			rest = append(rest, c)
			continue
		}
		used := columnsOf(e, nil)
		if len(used) == 0 {
			rest = append(rest, c)
			continue
		}
		p, ok, err := b.place(input, c, used)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			rest = append(rest, c)
			continue
		}
		input = p
	}
	return input, andSQL(rest), nil
}

// leafRanges appends the [from, to) output columns of each input of p's
// tree of inner and cross joins, offset by off. Any other node, an outer
// join included, is one input.
func leafRanges(p Plan, off int, into [][2]int) [][2]int {
	if j, ok := p.(*Join); ok && (j.Kind == InnerJoin || j.Kind == CrossJoin) {
		into = leafRanges(j.Left, off, into)
		return leafRanges(j.Right, off+len(j.Left.Columns()), into)
	}
	return append(into, [2]int{off, off + len(p.Columns())})
}

// impliedByOr derives, from an OR that reads several join inputs, one
// condition per input that every branch constrains on its own: the OR of
// the branches' conjuncts that read only that input. Each is implied by the
// OR, so it may filter its input before the joins while the OR itself
// stays (TPC-H Q7's two nation names per nation, Q19's part and lineitem
// conditions).
func (b *Binder) impliedByOr(c sql.Expr, full *scope, ranges [][2]int) []sql.Expr {
	branches := disjuncts(c)
	if len(branches) < 2 || containsSubquery(c) || containsAgg(c) {
		return nil
	}
	leafOf := func(used []int) int {
		for k, r := range ranges {
			in := true
			for _, i := range used {
				in = in && i >= r[0] && i < r[1]
			}
			if in {
				return k
			}
		}
		return -1
	}
	whole, err := b.bindExpr(c, full, nil)
	if err != nil || leafOf(columnsOf(whole, nil)) >= 0 {
		return nil // unbound, or already one input's: it moves there itself
	}
	type part struct {
		e    sql.Expr
		leaf int
	}
	per := make([][]part, len(branches))
	for i, br := range branches {
		for _, x := range conjuncts(br) {
			e, err := b.bindExpr(x, full, nil)
			if err != nil {
				return nil
			}
			if used := columnsOf(e, nil); len(used) > 0 {
				if k := leafOf(used); k >= 0 {
					per[i] = append(per[i], part{x, k})
				}
			}
		}
	}
	var out []sql.Expr
	for k := range ranges {
		var or sql.Expr
		for i := range branches {
			var mine []sql.Expr
			for _, p := range per[i] {
				if p.leaf == k {
					mine = append(mine, p.e)
				}
			}
			if len(mine) == 0 {
				or = nil
				break
			}
			if br := andSQL(mine); or == nil {
				or = br
			} else {
				or = &sql.BinaryExpr{Op: "OR", L: or, R: br}
			}
		}
		if or != nil {
			out = append(out, or)
		}
	}
	return out
}

// columnsOf appends the input column indexes e reads.
func columnsOf(e expr.Expr, into []int) []int {
	if c, ok := e.(*expr.ColumnRef); ok {
		return append(into, c.Index)
	}
	for _, x := range e.Children() {
		into = columnsOf(x, into)
	}
	return into
}

// place puts conjunct c, which reads the columns used of p's output, into
// the join p, and reports whether it could.
func (b *Binder) place(p Plan, c sql.Expr, used []int) (Plan, bool, error) {
	j, ok := p.(*Join)
	if !ok {
		return p, false, nil
	}
	nl := len(j.Left.Columns())
	allLeft, allRight := true, true
	for _, i := range used {
		allLeft = allLeft && i < nl
		allRight = allRight && i >= nl
	}
	switch {
	case allLeft && j.Kind != RightJoin && j.Kind != FullJoin:
		l, err := b.sink(j.Left, c, used)
		if err != nil {
			return nil, false, err
		}
		j.Left = l
		return j, true, nil
	case allRight && (j.Kind == InnerJoin || j.Kind == CrossJoin || j.Kind == RightJoin):
		shifted := make([]int, len(used))
		for k, i := range used {
			shifted[k] = i - nl
		}
		r, err := b.sink(j.Right, c, shifted)
		if err != nil {
			return nil, false, err
		}
		j.Right = r
		return j, true, nil
	case !allLeft && !allRight && (j.Kind == InnerJoin || j.Kind == CrossJoin):
		if err := b.attach(j, c); err != nil {
			return nil, false, err
		}
		return j, true, nil
	}
	return p, false, nil
}

// sink puts c into p, or as a Filter over p when p cannot take it.
func (b *Binder) sink(p Plan, c sql.Expr, used []int) (Plan, error) {
	if q, ok, err := b.place(p, c, used); ok || err != nil {
		return q, err
	}
	e, err := b.bindExpr(c, &scope{cols: p.Columns()}, nil)
	if err != nil {
		return nil, err
	}
	if e, err = asBool(e); err != nil {
		return nil, err
	}
	if f, ok := p.(*Filter); ok {
		cond, err := expr.And(f.Cond, e)
		if err != nil {
			return nil, err
		}
		return &Filter{Input: f.Input, Cond: cond}, nil
	}
	return &Filter{Input: p, Cond: e}, nil
}

// attach makes c, which spans both inputs of the inner or cross join j, a
// key pair when it is an equality of one expression per input, else a join
// filter.
func (b *Binder) attach(j *Join, c sql.Expr) error {
	ls, rs := &scope{cols: j.Left.Columns()}, &scope{cols: j.Right.Columns()}
	if be, ok := c.(*sql.BinaryExpr); ok && be.Op == "=" {
		for _, lr := range [][2]sql.Expr{{be.L, be.R}, {be.R, be.L}} {
			le, lerr := b.bindExpr(lr[0], ls, nil)
			re, rerr := b.bindExpr(lr[1], rs, nil)
			if lerr == nil && rerr == nil && len(columnsOf(le, nil)) > 0 && len(columnsOf(re, nil)) > 0 {
				if j.addEq(le, re) == nil {
					j.Kind = InnerJoin
					return nil
				}
				// Keys without a common type: compared as WHERE does.
				break
			}
		}
	}
	e, err := b.bindExpr(c, &scope{cols: j.Out}, nil)
	if err != nil {
		return err
	}
	if e, err = asBool(e); err != nil {
		return err
	}
	if j.Residual != nil {
		if e, err = expr.And(j.Residual, e); err != nil {
			return err
		}
	}
	j.Residual = e
	j.Kind = InnerJoin
	return nil
}
