package exec

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
)

// TestPruneJoinColumns: a join under a projection that reads some of its
// columns, for every join type, with and without a residual over a
// column nobody above reads, over several probe batches with duplicate
// and NULL keys; each input is itself a (left outer) join, whose columns
// are pruned in turn. The pruned plan returns the rows the same plan returns
// unpruned, the join is told the columns read above it, and the columns
// the join itself reads (keys, residual) stay available below it.
func TestPruneJoinColumns(t *testing.T) {
	ls := sch("k", expr.Int64T(), "ls", expr.StringT(), "lv", expr.Int64T())
	rs := sch("rk", expr.Int64T(), "rs", expr.StringT(), "rv", expr.Int64T())
	lrows := [][][]any{
		{{1, "a", 10}, {2, "b", 20}, {nil, "n", 30}},
		{{3, "c", 40}, {1, "a2", 50}, {4, "d", 60}},
	}
	rrows := [][][]any{{{1, "x", 100}, {3, "y", 200}, {1, "z", 300}, {nil, "w", 400}, {5, "v", 500}}}
	ds := sch("dk", expr.Int64T(), "dv", expr.StringT())
	// Two rows a key: the inner joins' rows are not their probe rows, so
	// a placeholder read by mistake shows.
	dim := [][]any{{1, "one"}, {2, "two"}, {3, "three"}, {4, "four"}, {5, "five"}, {5, "cinq"}, {4, "quatre"}, {3, "trois"}, {2, "deux"}, {1, "un"}}
	// Output columns: k ls lv dk dv | rk rs rv dk dv.
	// rv > 150: the residual reads rv, which no projection reads.
	res := must(expr.Cmp(expr.Gt, expr.Col(7, "rv", expr.Int64T()), expr.Int(150)))
	withDim := func(s *arrow.Schema, rows [][][]any) Operator {
		k := []expr.Expr{expr.Col(0, s.Field(0).Name, expr.Int64T())}
		return must(NewHashJoin(scanOf(s, rows...), scanOf(ds, dim), LeftOuterJoin, k, []expr.Expr{expr.Col(0, "dk", expr.Int64T())}, nil))
	}
	for _, c := range []struct {
		typ      JoinType
		residual bool
		proj     []int // join output columns the projection reads
		want     []int // the join's outNeed
	}{
		{InnerJoin, false, []int{1, 6}, []int{1, 6}},
		{InnerJoin, true, []int{2, 9}, []int{2, 9}},
		{LeftOuterJoin, false, []int{0, 4, 6}, []int{0, 4, 6}},
		{LeftOuterJoin, true, []int{1, 5}, []int{1, 5}},
		{RightOuterJoin, false, []int{1, 6}, []int{1, 6}},
		{FullOuterJoin, true, []int{2, 3}, []int{2, 3}},
		{LeftSemiJoin, true, []int{1}, []int{1}},
		{LeftAntiJoin, true, []int{4}, []int{4}},
		{NullAwareLeftAntiJoin, false, []int{1}, []int{1}},
	} {
		t.Run(c.typ.String(), func(t *testing.T) {
			plan := func() (*Project, *HashJoin) {
				var r expr.Expr
				if c.residual {
					r = res
				}
				j := must(NewHashJoin(withDim(ls, lrows), withDim(rs, rrows), c.typ,
					[]expr.Expr{expr.Col(0, "k", expr.Int64T())}, []expr.Expr{expr.Col(0, "rk", expr.Int64T())}, r))
				var es []expr.Expr
				var names []string
				for _, col := range c.proj {
					f := j.Schema().Field(col)
					es, names = append(es, expr.Col(col, f.Name, f.Type)), append(names, f.Name)
				}
				return must(NewProject(j, es, names)), j
			}
			ref, _ := plan()
			want := run(t, ref)
			p, j := plan()
			PruneJoinColumns(p)
			if !slices.Equal(j.outNeed, c.want) {
				t.Errorf("join told columns %v are read, want %v", j.outNeed, c.want)
			}
			if got := run(t, p); fmtRows(got) != fmtRows(want) {
				t.Errorf("pruned:\n%s\nunpruned:\n%s", fmtRows(got), fmtRows(want))
			}
		})
	}
}

// TestPruneJoinColumnsShared: an operator two readers reach (a shared
// subplan) keeps every column, whatever each reader reads; an operator
// the analysis does not know passes every column to its inputs.
func TestPruneJoinColumnsShared(t *testing.T) {
	s := sch("k", expr.Int64T(), "v", expr.Int64T())
	k := []expr.Expr{expr.Col(0, "k", expr.Int64T())}
	inner := must(NewHashJoin(scanOf(s, [][]any{{1, 10}}), scanOf(s, [][]any{{1, 20}}), InnerJoin, k, k, nil))
	p1 := must(NewProject(inner, []expr.Expr{expr.Col(1, "v", expr.Int64T())}, []string{"v"}))
	p2 := must(NewProject(inner, []expr.Expr{expr.Col(3, "v", expr.Int64T())}, []string{"v"}))
	top := must(NewHashJoin(p1, p2, InnerJoin, []expr.Expr{expr.Col(0, "v", expr.Int64T())}, []expr.Expr{expr.Col(0, "v", expr.Int64T())}, nil))
	PruneJoinColumns(top)
	if inner.outNeed != nil {
		t.Errorf("shared join told only columns %v are read", inner.outNeed)
	}
	j2 := must(NewHashJoin(scanOf(s), scanOf(s), InnerJoin, k, k, nil))
	lim2 := NewLimit(j2, 0, 1)
	PruneJoinColumns(must(NewProject(lim2, []expr.Expr{expr.Col(0, "k", expr.Int64T())}, []string{"k"})))
	if j2.outNeed != nil {
		t.Errorf("join under a limit told only columns %v are read", j2.outNeed)
	}
}
