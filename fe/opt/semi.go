package opt

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// Which side of a semi or anti join to hash. The executor's left semi and
// anti joins hash their right side and stream the left: EXISTS over a
// fact table (TPC-H Q4: 57 K orders of one quarter, EXISTS one of 3.8 M
// late lineitems; Q22: 6 K customers, NOT EXISTS one of 1.5 M orders)
// would hash the big side. Where the right side is estimated at
// buildLeftMin times the left or more (and at buildLeftMinRows rows or
// more), the join is marked BuildLeft: the executor runs it as a RIGHT
// SEMI or RIGHT ANTI JOIN of the swapped inputs, hashing the small,
// preserved side, marking its rows as the big side's rows match them, and
// emitting the marked (or the unmarked) ones at the end; the big side
// streams, filtered at its scan by the small side's keys (fe/physical's
// runtime filters). The answer is the same: each preserved row once, a
// NULL key matching nothing, a residual tested on each pair.
//
// NOT IN (null-aware) stays as it is: its answer depends on whether the
// right side has a NULL key at all, which a probe over it would have to
// find before any row could be emitted.
const (
	buildLeftMin     = 2
	buildLeftMinRows = 10000
)

// markBuildLeft marks p's eligible semi and anti joins, after every
// rewrite (the estimates of the final inputs decide).
func (o *optimizer) markBuildLeft(p bind.Plan) {
	for _, c := range p.Children() {
		o.markBuildLeft(c)
	}
	n, ok := p.(*bind.Join)
	if !ok || (n.Kind != bind.LeftSemiJoin && n.Kind != bind.LeftAntiJoin) || len(n.LeftKeys) == 0 || len(n.LeftKeys) != len(n.RightKeys) {
		return
	}
	l, r := o.est.stats(n.Left), o.est.stats(n.Right)
	n.BuildLeft = l.known && r.known && r.rows >= buildLeftMinRows && r.rows >= buildLeftMin*l.rows
}

// fresh is e rebuilt with new column references, so the copy shares no
// node with the original (the optimiser moves references in place).
func fresh(e expr.Expr) (expr.Expr, bool) {
	return expr.MapColumns(e, func(c *expr.ColumnRef) expr.Expr { return expr.Col(c.Index, c.Name, c.Type) })
}
