package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// partInput: rows of (i int64, k int64 with NULLs, f float64 with -0, NaN
// and NULLs, s short string, l long string, v int64) in batches of
// batch rows, with about groups distinct k.
func partInput(rows, groups, batch int) *Scan {
	s := sch("i", expr.Int64T(), "k", expr.Int64T(), "f", expr.Float64T(), "s", expr.StringT(), "l", expr.StringT(), "v", expr.Int64T())
	rng := rand.New(rand.NewSource(7))
	var all [][]any
	for i := range rows {
		k := rng.Intn(groups)
		var kv, fv, sv, lv any = int64(k), float64(k) / 4, strconv.FormatInt(int64(k), 36), fmt.Sprintf("a rather long key %d", k)
		switch i % 97 {
		case 5:
			kv, fv, sv, lv = nil, nil, nil, nil
		case 11:
			fv = math.Copysign(0, -1)
		case 13:
			fv = math.NaN()
		}
		all = append(all, []any{int64(i), kv, fv, sv, lv, int64(rng.Intn(1000))})
	}
	var gs [][][]any
	for lo := 0; lo < rows; lo += batch {
		gs = append(gs, all[lo:min(lo+batch, rows)])
	}
	return scanOf(s, gs...)
}

// lowerPartMin lets the tests' estimates of a few thousand groups route
// from the start, and their merging aggregates switch to routing after
// 500 rows.
func lowerPartMin(t *testing.T) {
	oldMin, oldAfter, oldDirect := aggPartMinGroups, aggParallelAfter, cachedDirectMax
	aggPartMinGroups, aggParallelAfter, cachedDirectMax = 100, 500, 0
	t.Cleanup(func() { aggPartMinGroups, aggParallelAfter, cachedDirectMax = oldMin, oldAfter, oldDirect })
}

// TestPartitionedAggMatchesSerial: an aggregate that routes rows by key
// to per-core tables (agg_part.go: from the start for DISTINCT and the
// order-sensitive aggregates, from its second batch on for the merging
// ones, whose first table's groups are routed as partial states at the
// end) gives the serial one's groups and values, for every kind of key (fixed-width, floats
// with -0 and NaN, packed and long strings, several columns, computed
// and decimal keys, NULLs), with and without a Filter below (selBatch
// input), several batch sizes and worker counts; GROUP_CONCAT keeps each
// group's input order.
func TestPartitionedAggMatchesSerial(t *testing.T) {
	manyProcs(t, 4)
	var routed atomic.Int64
	aggPartHook = func() { routed.Add(1) }
	t.Cleanup(func() { aggPartHook = nil })
	lowerPartMin(t)
	const rows, groups = 5000, 1500
	type keys = func(col func(int) expr.Expr) []expr.Expr
	keyCases := []struct {
		name string
		keys keys
	}{
		{"int", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(1)} }},
		{"wide-int", func(c func(int) expr.Expr) []expr.Expr {
			return []expr.Expr{must(expr.Arith(expr.Mul, c(1), must(expr.Lit(int64(0x9E3779B1), expr.Int64T()))))}
		}},
		{"float", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(2)} }},
		{"short-string", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(3)} }},
		{"long-string", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(4)} }},
		{"two-short-strings", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(3), c(3)} }},
		{"int+string", func(c func(int) expr.Expr) []expr.Expr { return []expr.Expr{c(1), c(4)} }},
		{"decimal", func(c func(int) expr.Expr) []expr.Expr {
			return []expr.Expr{must(expr.Cast(c(1), expr.DecimalT(12, 2)))}
		}},
	}
	for _, batch := range []int{7, 1024} {
		raw := partInput(rows, groups, batch)
		rawCol := func(i int) expr.Expr { return expr.Col(i, raw.Schema().Field(i).Name, raw.Schema().Field(i).Type) }
		// A decimal column d = v (an argument on int64 lanes).
		var allCols []expr.Expr
		var colNames []string
		for i := range raw.Schema().NumFields() {
			allCols = append(allCols, rawCol(i))
			colNames = append(colNames, raw.Schema().Field(i).Name)
		}
		in := must(NewProject(raw, append(slices.Clone(allCols), must(expr.Cast(rawCol(5), expr.DecimalT(10, 2)))), append(slices.Clone(colNames), "d")))
		col := func(i int) expr.Expr { return expr.Col(i, in.Schema().Field(i).Name, in.Schema().Field(i).Type) }
		allCols, colNames = append(allCols, col(6)), append(colNames, "d")
		filtered := must(NewFilter(in, must(expr.Cmp(expr.Lt, col(5), expr.Int(700)))))
		dec := col(6)
		aggSets := map[string][]AggCall{
			"merging": {
				{Func: CountStar, Name: "n"}, {Func: Sum, Arg: col(5), Name: "s"}, {Func: Min, Arg: col(4), Name: "mi"},
				{Func: Max, Arg: col(2), Name: "ma"}, {Func: Avg, Arg: dec, Name: "av"}, {Func: Sum, Arg: dec, Name: "sd"},
			},
			// Every argument on int64 lanes: a one-column key is grouped in
			// the filtered batch without a copy (idsSel).
			"lanes":    {{Func: CountStar, Name: "n"}, {Func: Sum, Arg: dec, Name: "sd"}, {Func: Avg, Arg: dec, Name: "ad"}},
			"distinct": {{Func: Count, Arg: col(5), Distinct: true, Name: "cd"}, {Func: Sum, Arg: col(5), Distinct: true, Name: "sd"}},
			"ordered":  {{Func: GroupConcat, Arg: col(0), Name: "gc"}, {Func: AnyValue, Arg: col(0), Name: "av"}},
		}
		for _, kc := range keyCases {
			for setName, aggs := range aggSets {
				for _, input := range []Operator{Operator(in), filtered} {
					name := fmt.Sprintf("batch=%d/%s/%s/filter=%v", batch, kc.name, setName, input == Operator(filtered))
					t.Run(name, func(t *testing.T) {
						gb := kc.keys(col)
						names := make([]string, len(gb))
						for i := range names {
							names[i] = "g" + strconv.Itoa(i)
						}
						// The reference reads the filtered rows copied (a Project
						// on top: no selBatch), one goroutine, no routing.
						ref := input
						if input == Operator(filtered) {
							ref = must(NewProject(filtered, allCols, colNames))
						}
						serial := runPar(t, must(NewHashAggregate(ref, gb, names, aggs, AggSingle)), 1)
						sortRows(serial)
						if len(serial) < groups/2 {
							t.Fatalf("%d groups: the input is not what the test means", len(serial))
						}
						for _, workers := range []int{2, 4} {
							agg := must(NewHashAggregate(input, gb, names, aggs, AggSingle))
							agg.SetEstimate(groups)
							before := routed.Load()
							par := runPar(t, agg, workers)
							if routed.Load() == before {
								t.Fatal("the aggregate did not route its rows")
							}
							sortRows(par)
							if fmtRows(serial) != fmtRows(par) {
								t.Fatalf("%d workers differ from serial:\n%s", workers, rowDiff(serial, par))
							}
						}
					})
				}
			}
		}
	}
}

// TestPartitionedAggPartialFinal: the split aggregation's final half,
// routed, merges the partial states as the serial one does.
func TestPartitionedAggPartialFinal(t *testing.T) {
	manyProcs(t, 4)
	lowerPartMin(t)
	in := partInput(4000, 1000, 500)
	col := func(i int) expr.Expr { return expr.Col(i, in.Schema().Field(i).Name, in.Schema().Field(i).Type) }
	aggs := []AggCall{{Func: CountStar, Name: "n"}, {Func: Avg, Arg: col(5), Name: "a"}, {Func: Min, Arg: col(3), Name: "m"}}
	partial := must(NewHashAggregate(in, []expr.Expr{col(1), col(3)}, []string{"k", "s"}, aggs, AggPartial))
	serial := must(partial.FinalFor(partial))
	routed := must(partial.FinalFor(partial))
	routed.SetEstimate(1000)
	want, got := runPar(t, serial, 1), runPar(t, routed, 4)
	sortRows(want)
	sortRows(got)
	if fmtRows(want) != fmtRows(got) {
		t.Fatalf("routed final differs:\n%s\n---\n%s", firstRows(want), firstRows(got))
	}
}

// TestPartitionedAggCancel: a routed aggregate over an endless input ends
// with the statement's cancellation, every batch released and no worker
// left running.
func TestPartitionedAggCancel(t *testing.T) {
	manyProcs(t, 4)
	lowerPartMin(t)
	before := runtime.NumGoroutine()
	env, mem := newEnv(t)
	ctx, cancel := context.WithCancel(WithParallelism(context.Background(), 4))
	defer cancel()
	in := endless()
	agg := must(NewHashAggregate(in, []expr.Expr{expr.Col(1, "v", expr.Int64T())}, []string{"v"}, []AggCall{{Func: CountStar, Name: "n"}}, AggSingle))
	agg.SetEstimate(1e9)
	rr, err := agg.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	for rr.Next() {
	}
	if !errors.Is(rr.Err(), context.Canceled) {
		t.Fatalf("error %v, want context canceled", rr.Err())
	}
	rr.Release()
	mem.AssertSize(t, 0)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines, %d before", n, before)
	}
}

// TestPartitionedAggMemLimit: the workers' tables are charged to the
// statement: 1 M groups under a small limit end in the memory-limit error
// with nothing left charged, for integer and string keys; an estimate far
// above the truth allocates nothing up front (a small input under the
// same limit passes, routed too).
func TestPartitionedAggMemLimit(t *testing.T) {
	manyProcs(t, 4)
	lowerPartMin(t)
	var routed atomic.Int64
	aggPartHook = func() { routed.Add(1) }
	t.Cleanup(func() { aggPartHook = nil })
	wide := func(b array.Builder, i int) { b.(*array.Int64Builder).Append(int64(i) * 0x9E3779B1) }
	narrow := func(b array.Builder, i int) { b.(*array.Int64Builder).Append(int64(i)) }
	str := func(b array.Builder, i int) { b.(*array.StringBuilder).Append("k" + strconv.Itoa(i)) }
	anyValue := []AggCall{{Func: CountStar, Name: "n"}, {Func: AnyValue, Arg: expr.Col(1, "v", expr.Int64T()), Name: "a"}}
	sum := []AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: expr.Col(1, "v", expr.Int64T()), Name: "s"}}
	for _, c := range []struct {
		name  string
		typ   arrow.DataType
		key   func(array.Builder, int)
		rows  int
		aggs  []AggCall
		limit int64
		ok    bool
	}{
		// ANY_VALUE: no merging states, so the rows are routed from the
		// first (the estimate is large).
		{"wide-int", expr.Int64T(), wide, 1 << 20, anyValue, 2 << 20, false},
		{"narrow-int", expr.Int64T(), narrow, 1 << 20, anyValue, 2 << 20, false},
		{"string", expr.StringT(), str, 1 << 20, anyValue, 2 << 20, false},
		{"small-wide-int", expr.Int64T(), wide, 5000, anyValue, 2 << 20, true},
		{"small-string", expr.StringT(), str, 5000, anyValue, 2 << 20, true},
		// SUM: one table for the first batch (64 K groups), then routed.
		{"switching-wide-int", expr.Int64T(), wide, 1 << 20, sum, 16 << 20, false},
		{"switching-string", expr.StringT(), str, 1 << 20, sum, 16 << 20, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer parent.AssertSize(t, 0)
			mem := memlimit.New(parent, c.limit, "exec_mem_limit")
			agg := must(NewHashAggregate(genKeys(c.typ, c.rows, c.key), []expr.Expr{expr.Col(0, "k", c.typ)}, []string{"k"}, c.aggs, AggSingle))
			agg.SetEstimate(1e9)
			rr, err := agg.Open(WithParallelism(context.Background(), 4), &Env{Mem: mem})
			n := 0
			if err == nil {
				for rr.Next() {
					n += int(rr.RecordBatch().NumRows())
				}
				err = rr.Err()
				rr.Release()
			}
			if routed.Swap(0) == 0 {
				t.Fatal("the aggregate did not route its rows")
			}
			if c.ok {
				if err != nil || n != c.rows {
					t.Fatalf("%d groups, err %v; want %d", n, err, c.rows)
				}
			} else if !errors.Is(err, memlimit.ErrExceeded) {
				t.Fatalf("err = %v, want the memory limit error", err)
			}
			mem.Sweep()
			if u := mem.Used(); u != 0 {
				t.Errorf("%d bytes still charged", u)
			}
		})
	}
}

// TestPartitionedAggVsDuckDB: a high-cardinality GROUP BY (50 K groups of
// 200 K rows, NULL keys among them), routed over 2 and 4 workers, gives
// DuckDB's rows for the same table built from range().
func TestPartitionedAggVsDuckDB(t *testing.T) {
	manyProcs(t, 4)
	lowerPartMin(t)
	d := spillDuck(t)
	const rows, groups = 200_000, 50_000
	// k = (i*7919) % groups, NULL where i % 1000 = 3; v = i % 1000;
	// s = 'x' || (i % 77).
	s := sch("k", expr.Int64T(), "v", expr.Int64T(), "s", expr.StringT())
	in := NewScan("", "gen", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		done := 0
		next := func() (arrow.RecordBatch, error) {
			if done >= rows {
				return nil, nil
			}
			n := min(3000, rows-done)
			kb, vb, sb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewStringBuilder(mem)
			defer kb.Release()
			defer vb.Release()
			defer sb.Release()
			for i := done; i < done+n; i++ {
				if i%1000 == 3 {
					kb.AppendNull()
				} else {
					kb.Append(int64(i*7919) % groups)
				}
				vb.Append(int64(i % 1000))
				sb.Append("x" + strconv.Itoa(i%77))
			}
			done += n
			cols := []arrow.Array{kb.NewArray(), vb.NewArray(), sb.NewArray()}
			defer releaseArrays(cols)
			return array.NewRecordBatch(s, cols, int64(n)), nil
		}
		return newPullReader(ctx, s, next, nil), nil
	}))
	k, v, str := expr.Col(0, "k", expr.Int64T()), expr.Col(1, "v", expr.Int64T()), expr.Col(2, "s", expr.StringT())
	want := duckRows(t, d, fmt.Sprintf(`SELECT k, count(*), sum(v), min(v), max(s), count(DISTINCT s) FROM
		(SELECT CASE WHEN i %% 1000 = 3 THEN NULL ELSE (i * 7919) %% %d END AS k, i %% 1000 AS v, 'x' || (i %% 77) AS s FROM range(%d) r(i)) GROUP BY k`, groups, rows))
	sortRows(want)
	for _, workers := range []int{2, 4} {
		agg := must(NewHashAggregate(in, []expr.Expr{k}, []string{"k"}, []AggCall{
			{Func: CountStar, Name: "n"}, {Func: Sum, Arg: v, Name: "sv"}, {Func: Min, Arg: v, Name: "mv"},
			{Func: Max, Arg: str, Name: "ms"}, {Func: Count, Arg: str, Distinct: true, Name: "ds"},
		}, AggSingle))
		agg.SetEstimate(groups)
		got := runPar(t, agg, workers)
		sortRows(got)
		if fmtRows(got) != fmtRows(want) {
			t.Fatalf("%d workers: Inlet\n%s\nDuckDB\n%s", workers, firstRows(got), firstRows(want))
		}
	}
}

// rowDiff shows the first rows where two sorted row sets differ.
func rowDiff(want, got [][]string) string {
	out := ""
	for i := 0; i < max(len(want), len(got)) && len(out) < 2000; i++ {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = fmtRows(want[i : i+1])
		}
		if i < len(got) {
			g = fmtRows(got[i : i+1])
		}
		if w != g {
			out += "want " + w + " got  " + g
		}
	}
	return out
}
