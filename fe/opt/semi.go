package opt

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// Flipping a semi join. The executor's semi join hashes its right side and
// probes it with the left: EXISTS over a fact table (TPC-H Q4: orders of
// one quarter, 57 K rows, EXISTS a late lineitem, 3.8 M) hashes the big
// side. Where the right side is estimated at flipMin times the left or
// more and the left is a copyable scan (filters and projections over one
// table), the join becomes
//
//	π_L( L ⋈ δ_k( R ⋉ π_k(L') ) )
//
// with L' a second read of L: R is probed against L's keys (a hash of the
// small side, which the executor also turns into a runtime filter), the
// keys that matched are made distinct, and L is joined to them. Each L row
// meets its key at most once in the distinct set, and a NULL key matches
// nowhere on either path, so the rows are exactly the semi join's. Only
// joins without a residual condition and with keys that compare as they
// group (no floating point: -0 and 0, NaN) are flipped.
const (
	flipMin     = 4
	flipMinRows = 10000
)

// flipSemis rewrites p's eligible semi joins, bottom-up.
func (o *optimizer) flipSemis(p bind.Plan) bind.Plan {
	switch n := p.(type) {
	case *bind.Filter:
		n.Input = o.flipSemis(n.Input)
	case *bind.Project:
		n.Input = o.flipSemis(n.Input)
	case *bind.Aggregate:
		n.Input = o.flipSemis(n.Input)
	case *bind.Join:
		n.Left, n.Right = o.flipSemis(n.Left), o.flipSemis(n.Right)
		if q := o.flipSemi(n); q != nil {
			return q
		}
	case *bind.Sort:
		n.Input = o.flipSemis(n.Input)
	case *bind.Limit:
		n.Input = o.flipSemis(n.Input)
	case *bind.Union:
		for i, c := range n.Inputs {
			n.Inputs[i] = o.flipSemis(c)
		}
	case *bind.Repeat:
		n.Input = o.flipSemis(n.Input)
	case *bind.Window:
		n.Input = o.flipSemis(n.Input)
	}
	return p
}

func (o *optimizer) flipSemi(n *bind.Join) bind.Plan {
	if n.Kind != bind.LeftSemiJoin || n.Residual != nil || len(n.LeftKeys) == 0 || len(n.LeftKeys) != len(n.RightKeys) {
		return nil
	}
	l, r := o.est.stats(n.Left), o.est.stats(n.Right)
	if !l.known || !r.known || r.rows < flipMinRows || r.rows < flipMin*l.rows {
		return nil
	}
	for i, k := range n.LeftKeys {
		t := k.DataType()
		if arrow.IsFloating(t.ID()) || !arrow.TypeEqual(t, n.RightKeys[i].DataType()) {
			return nil
		}
	}
	again, ok := copyChain(n.Left)
	if !ok {
		return nil
	}
	// π_k(L'): the left keys over the copy.
	nk := len(n.LeftKeys)
	kexprs := make([]expr.Expr, nk)
	kcols := make([]bind.Column, nk)
	for i, k := range n.LeftKeys {
		e, ok := fresh(k)
		if !ok {
			return nil
		}
		kexprs[i] = e
		kcols[i] = bind.Column{Name: keyName(k, i), Type: k.DataType(), Nullable: true}
	}
	keys := &bind.Project{Input: again, Exprs: kexprs, Out: kcols}
	// R ⋉ π_k(L').
	rk := make([]expr.Expr, nk)
	kref := make([]expr.Expr, nk)
	for i, k := range n.RightKeys {
		e, ok := fresh(k)
		if !ok {
			return nil
		}
		rk[i] = e
		kref[i] = expr.Col(i, kcols[i].Name, kcols[i].Type)
	}
	probe := &bind.Join{Kind: bind.LeftSemiJoin, Left: n.Right, Right: keys, LeftKeys: rk, RightKeys: kref,
		Out: append([]bind.Column{}, n.Right.Columns()...)}
	// δ_k: the distinct matched keys.
	groups := make([]expr.Expr, nk)
	for i, k := range n.RightKeys {
		e, ok := fresh(k)
		if !ok {
			return nil
		}
		groups[i] = e
	}
	dcols := make([]bind.Column, nk)
	for i, k := range n.RightKeys {
		dcols[i] = bind.Column{Name: keyName(k, i), Type: k.DataType(), Nullable: true}
	}
	distinct := &bind.Aggregate{Input: probe, Groups: groups, Out: dcols}
	// L ⋈ δ_k, then L's columns alone.
	lcols := n.Left.Columns()
	dref := make([]expr.Expr, nk)
	for i := range dcols {
		dref[i] = expr.Col(i, dcols[i].Name, dcols[i].Type)
	}
	join := &bind.Join{Kind: bind.InnerJoin, Left: n.Left, Right: distinct, LeftKeys: n.LeftKeys, RightKeys: dref,
		Out: append(append([]bind.Column{}, lcols...), dcols...)}
	out := make([]expr.Expr, len(lcols))
	for i, c := range lcols {
		out[i] = expr.Col(i, c.Name, c.Type)
	}
	return &bind.Project{Input: join, Exprs: out, Out: n.Out}
}

// keyName names the column a key expression becomes: the column's own
// name where it is one.
func keyName(k expr.Expr, i int) string {
	if c, ok := k.(*expr.ColumnRef); ok {
		return c.Name
	}
	return fmt.Sprintf("k%d", i)
}

// fresh is e rebuilt with new column references, so the copy shares no
// node with the original (the optimiser moves references in place).
func fresh(e expr.Expr) (expr.Expr, bool) {
	return expr.MapColumns(e, func(c *expr.ColumnRef) expr.Expr { return expr.Col(c.Index, c.Name, c.Type) })
}

// copyChain copies filters and projections over one scan: a second read
// of the same rows. ok is false for anything else.
func copyChain(p bind.Plan) (bind.Plan, bool) {
	switch n := p.(type) {
	case *bind.Scan:
		c := *n
		return &c, true
	case *bind.Filter:
		in, ok := copyChain(n.Input)
		if !ok {
			return nil, false
		}
		cond, ok := fresh(n.Cond)
		if !ok {
			return nil, false
		}
		return &bind.Filter{Input: in, Cond: cond}, true
	case *bind.Project:
		in, ok := copyChain(n.Input)
		if !ok {
			return nil, false
		}
		exprs := make([]expr.Expr, len(n.Exprs))
		for i, e := range n.Exprs {
			x, ok := fresh(e)
			if !ok {
				return nil, false
			}
			exprs[i] = x
		}
		return &bind.Project{Input: in, Exprs: exprs, Out: n.Out}, true
	}
	return nil, false
}
