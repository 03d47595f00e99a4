package exec

import (
	"github.com/inlet-db/inlet/exec/expr"
)

// A hash join outputs every column of both inputs, and copies each one
// for every output row (gatherPairs), though the operators above often
// read a few: TPC-H Q9 carries p_name and n_name through four joins of
// lineitem rows to an aggregate that reads neither. PruneJoinColumns
// tells each join of a finished plan which of its output columns some
// operator above reads; the others come out as placeholders (zero-copy
// slices or NULLs of the right type and length) that nobody reads.
//
// A scan whose source is a ColumnPruner is told the same: its source may
// then leave the other columns out of what it fetches (a BE-read lake
// scan's filter-only columns) and hand placeholders in their place.
//
// The analysis is conservative: only Project, Filter, a single-phase
// HashAggregate and HashJoin say what they read; any other operator
// (sorts, limits, sinks, unions, wrappers) is taken to read every column
// of its inputs, and an operator reached along two paths (a shared
// subplan) every column of its own output.

// PruneJoinColumns marks, in the plan rooted at root, the output columns
// of each hash join that nothing above it reads. It must run once, after
// the plan is built and before it is opened.
func PruneJoinColumns(root Operator) {
	p := &pruner{seen: map[Operator]bool{}}
	p.visit(root, nil)
}

type pruner struct {
	// seen: true once an operator was visited with every column needed;
	// false once with some.
	seen map[Operator]bool
}

// visit propagates need (the columns of op's output some operator above
// reads; nil: all) into op and below it.
func (p *pruner) visit(op Operator, need []bool) {
	switch op.(type) {
	case *HashJoin, *Project, *Filter, *HashAggregate, *Scan:
		all, ok := p.seen[op]
		if ok && all {
			return
		}
		if ok {
			need = nil // a second reader: everything
		}
		p.seen[op] = need == nil
	}
	switch x := op.(type) {
	case *Project:
		n := x.Input.Schema().NumFields()
		var reads []expr.Expr
		for i, e := range x.Exprs {
			// An unread output that only passes a column on costs nothing
			// and reads nothing; any other expression is evaluated anyway,
			// so what it reads must be there.
			if _, ref := e.(*expr.ColumnRef); ref && need != nil && !need[i] {
				continue
			}
			reads = append(reads, e)
		}
		p.visit(x.Input, colSet(n, columnsRead(reads)))
	case *Filter:
		x.outNeed = nil
		if need == nil {
			p.visit(x.Input, nil)
			return
		}
		x.outNeed = []int{}
		for c, w := range need {
			if w {
				x.outNeed = append(x.outNeed, c)
			}
		}
		in := colSet(len(need), columnsRead([]expr.Expr{x.Pred}))
		for i, w := range need {
			in[i] = in[i] || w
		}
		p.visit(x.Input, in)
	case *HashAggregate:
		if x.Mode != AggSingle || x.splitKeys != nil {
			p.visitAll(op)
			return
		}
		reads := append([]expr.Expr{}, x.GroupBy...)
		for _, a := range x.Aggs {
			reads = append(reads, a.Arg)
		}
		p.visit(x.Input, colSet(x.Input.Schema().NumFields(), columnsRead(reads)))
	case *HashJoin:
		x.prune(p, need)
	case *Scan:
		x.pruneColumns(need)
	default:
		p.visitAll(op)
	}
}

// visitAll visits op's children with every column needed.
func (p *pruner) visitAll(op Operator) {
	for _, c := range op.Children() {
		p.visit(c, nil)
	}
}

// prune records which output columns are read (need) and passes on what
// the join itself reads: its keys, its residual and the output columns.
func (j *HashJoin) prune(p *pruner, need []bool) {
	nl, nr := j.Left.Schema().NumFields(), j.Right.Schema().NumFields()
	j.outNeed = nil
	if need != nil {
		j.outNeed = []int{}
		for c, w := range need {
			if w {
				j.outNeed = append(j.outNeed, c)
			}
		}
	}
	left, right := make([]bool, nl), make([]bool, nr)
	for _, c := range columnsRead(j.lk) {
		left[c] = true
	}
	for _, c := range columnsRead(j.rk) {
		right[c] = true
	}
	if j.Residual != nil {
		for _, c := range columnsRead([]expr.Expr{j.Residual}) {
			if c < nl {
				left[c] = true
			} else {
				right[c-nl] = true
			}
		}
	}
	for c := range nl + nr {
		if c >= len(j.schema.Fields()) {
			break // semi and anti joins output one side's columns only
		}
		if need != nil && !need[c] {
			continue
		}
		switch {
		case j.Type.buildOnly():
			right[c] = true
		case c < nl:
			left[c] = true
		default:
			right[c-nl] = true
		}
	}
	p.visit(j.Left, left)
	p.visit(j.Right, right)
}

// colSet is the columns cols of n as a set.
func colSet(n int, cols []int) []bool {
	s := make([]bool, n)
	for _, c := range cols {
		if c >= 0 && c < n {
			s[c] = true
		}
	}
	return s
}

// ColumnPruner is a Source that can leave out the output columns nothing
// above its scan reads. PruneColumns gets, per output column, whether it
// is read (nil: all are, which undoes an earlier call); the source's
// batches keep its schema, with placeholders of the right type and length
// in the unread columns. It is called after the plan is built, before it
// is opened, possibly more than once (the last call holds).
type ColumnPruner interface {
	PruneColumns(need []bool)
}

// pruneColumns tells a ColumnPruner source what is read of the scan: the
// columns above need, plus what the scan's own runtime filters and their
// pre-test read.
func (s *Scan) pruneColumns(need []bool) {
	cp, ok := s.Src.(ColumnPruner)
	if !ok {
		return
	}
	if need != nil {
		need = append([]bool(nil), need...)
		for _, f := range s.Filters {
			if f.Column >= 0 && f.Column < len(need) {
				need[f.Column] = true
			}
		}
		if s.Pre != nil {
			for _, c := range columnsRead([]expr.Expr{s.Pre}) {
				if c >= 0 && c < len(need) {
					need[c] = true
				}
			}
		}
	}
	cp.PruneColumns(need)
}
