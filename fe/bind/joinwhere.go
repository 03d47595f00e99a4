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
	for _, c := range conjuncts(where) {
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
