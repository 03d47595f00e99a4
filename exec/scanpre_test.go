package exec

import (
	"context"

	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestScanPreFilter: a scan whose Filter above it is a typed comparison
// tests it before its runtime filter, which then sees only the rows it
// kept; a predicate without a kernel (arithmetic on the column) leaves
// the runtime filter first. The answer is the join's either way, in the
// scan's order, NULLs dropped by both.
func TestScanPreFilter(t *testing.T) {
	i64, i32 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32
	probeRows := [][]any{{1, 5}, {2, 12}, {3, 15}, {nil, 20}, {3, nil}, {7, 11}, {1, 30}, {9, 3}}
	build := [][]any{{1}, {3}, {7}, {nil}}
	d := expr.Col(1, "d", i32)
	ge := must(expr.Cmp(expr.Ge, d, must(expr.Cast(expr.Int(10), i32))))
	plus := must(expr.Cmp(expr.Ge, must(expr.Arith(expr.Add, d, must(expr.Cast(expr.Int(1), i32)))), must(expr.Cast(expr.Int(11), i32))))
	for _, c := range []struct {
		name   string
		pre    expr.Expr
		kernel bool
		seen   int // rows the runtime filter tests
	}{
		{"comparison first", ge, true, 5},
		{"arithmetic after", plus, false, len(probeRows)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if k := newSelector(c.pre).kern[0] != nil; k != c.kernel {
				t.Fatalf("kernel for %s: %v, want %v", c.pre, k, c.kernel)
			}
			probe := scanOf(sch("k", i64, "d", i32), probeRows[:4], probeRows[4:])
			k := []expr.Expr{expr.Col(0, "k", i64)}
			f := must(NewFilter(probe, c.pre))
			j := must(NewHashJoin(f, scanOf(sch("k", i64), build), InnerJoin, k, k, nil))
			rf := &RuntimeFilter{Kind: RFIn, MaxIn: 1024, Target: "k"}
			if err := j.AddRuntimeFilters(rf); err != nil {
				t.Fatal(err)
			}
			probe.Filters = []ScanFilter{{RF: rf, Column: 0}}
			probe.Pre = c.pre
			var got []string
			for _, r := range run(t, j) {
				got = append(got, strings.Join(r, "|"))
			}
			want := []string{"3|15|3", "7|11|7", "1|30|1"}
			if !slices.Equal(got, want) {
				t.Errorf("join rows %q, want %q", got, want)
			}
			if in := int(rf.Input.Load()); in != c.seen {
				t.Errorf("runtime filter tested %d rows, want %d", in, c.seen)
			}
		})
	}
}

// TestScanPreFilterProbation: a Pre predicate that keeps most rows of the
// first preProbation is dropped, and the runtime filter tests every row
// of the batches after.
func TestScanPreFilterProbation(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	batch := func(from int) [][]any {
		var rows [][]any
		for i := from; i < from+preProbation; i++ {
			rows = append(rows, []any{i % 100, i % 4})
		}
		return rows
	}
	probe := scanOf(sch("k", i64, "d", i64), batch(0), batch(preProbation))
	pre := must(expr.Cmp(expr.Ge, expr.Col(1, "d", i64), expr.Int(1))) // keeps 3 rows in 4
	k := []expr.Expr{expr.Col(0, "k", i64)}
	j := must(NewHashJoin(must(NewFilter(probe, pre)), scanOf(sch("k", i64), [][]any{{7}, {8}}), InnerJoin, k, k, nil))
	rf := &RuntimeFilter{Kind: RFIn, MaxIn: 1024, Target: "k"}
	if err := j.AddRuntimeFilters(rf); err != nil {
		t.Fatal(err)
	}
	probe.Filters = []ScanFilter{{RF: rf, Column: 0}}
	probe.Pre = pre
	// k 7 has d 3, k 8 has d 0: one row in 100 joins. One goroutine: the
	// probation's verdict applies to the batches taken after it, and
	// parallel probe workers may both have taken theirs before it.
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rr, err := j.Open(WithParallelism(context.Background(), 1), env)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rr.Next() {
		got += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	if want := 2 * preProbation / 100; got < want-2 || got > want+2 {
		t.Errorf("%d rows joined, want about %d", got, want)
	}
	if in, want := int(rf.Input.Load()), preProbation*3/4+preProbation; in != want {
		t.Errorf("runtime filter tested %d rows, want %d (3/4 of the first batch, all of the second)", in, want)
	}
}
