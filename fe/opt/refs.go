package opt

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// Reordering moves the column references of join conditions in place
// (expressions have no generic copy). That is only safe for a reference no
// other expression holds: uses counts every appearance in the plan, and a
// region whose conditions share one with anything outside them stays as
// bound.

func countUses(p bind.Plan, uses map[*expr.ColumnRef]int) {
	add := func(es ...expr.Expr) {
		for _, e := range es {
			if e == nil {
				continue
			}
			for _, c := range refsOf(e, nil) {
				uses[c]++
			}
		}
	}
	switch n := p.(type) {
	case *bind.Values:
		for _, r := range n.Rows {
			add(r...)
		}
	case *bind.Filter:
		add(n.Cond)
	case *bind.Project:
		add(n.Exprs...)
	case *bind.Aggregate:
		add(n.Groups...)
		for _, a := range n.Aggs {
			add(a.Arg)
		}
	case *bind.Join:
		add(n.LeftKeys...)
		add(n.RightKeys...)
		add(n.Residual)
	case *bind.Sort:
		for _, k := range n.Keys {
			add(k.Expr)
		}
	case *bind.Repeat:
		for _, s := range n.Sets {
			add(s...)
		}
	case *bind.Window:
		add(n.PartitionBy...)
		for _, k := range n.OrderBy {
			add(k.Expr)
		}
		for _, c := range n.Calls {
			add(c.Arg, c.Default)
		}
	}
	for _, c := range p.Children() {
		countUses(c, uses)
	}
}
