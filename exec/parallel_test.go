package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// manyProcs lets parallelism(ctx) reach n in this test, whatever the
// machine's core count.
func manyProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// runPar drains op with at most par goroutines per operator.
func runPar(t *testing.T, op Operator, par int) [][]string {
	t.Helper()
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rr, err := op.Open(WithParallelism(context.Background(), par), env)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	rows := [][]string{}
	for rr.Next() {
		b := rr.RecordBatch()
		if err := checkBatch("test", op.Schema(), b); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(b.NumRows()); i++ {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = renderCell(b.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func renderCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return a.ValueStr(i)
}

// parInputs: a probe side of many batches (id with NULLs and duplicates,
// a name, a value) and a build side whose keys repeat and include NULL
// when withNull.
func parInputs(withNull bool) (left, right *Scan) {
	rng := rand.New(rand.NewSource(3))
	var lg [][][]any
	for g := 0; g < 24; g++ {
		var rows [][]any
		for i := 0; i < 250; i++ {
			var id any = rng.Intn(70)
			if rng.Intn(20) == 0 {
				id = nil
			}
			rows = append(rows, []any{id, fmt.Sprintf("n%d", rng.Intn(40)), rng.Intn(1000)})
		}
		lg = append(lg, rows)
	}
	var rg [][][]any
	for g := 0; g < 3; g++ {
		var rows [][]any
		for i := 0; i < 60; i++ {
			var id any = rng.Intn(90)
			if withNull && i == 7 {
				id = nil
			}
			rows = append(rows, []any{id, fmt.Sprintf("n%d", rng.Intn(40)), rng.Intn(1000)})
		}
		rg = append(rg, rows)
	}
	s := func(p string) *arrow.Schema {
		return sch(p+"id", expr.Int64T(), p+"name", expr.StringT(), p+"v", expr.Int64T())
	}
	return scanOf(s("l"), lg...), scanOf(s("r"), rg...)
}

// TestParallelJoinMatchesSerial runs every join type over a probe side
// with a Filter and a Project under the join, on one goroutine and on
// four: the same rows in the same order (HashJoin promises left row
// order). The inner join is also checked against a nested loop in Go.
func TestParallelJoinMatchesSerial(t *testing.T) {
	manyProcs(t, 4)
	for _, withNull := range []bool{false, true} {
		left, right := parInputs(withNull)
		lcol := func(i int) expr.Expr { return expr.Col(i, left.Schema().Field(i).Name, left.Schema().Field(i).Type) }
		// SELECT lid, lname, lv * 2 FROM l WHERE lv % 7 <> 0
		filtered := must(NewFilter(left, must(expr.Cmp(expr.Ne, must(expr.Arith(expr.Mod, lcol(2), expr.Int(7))), expr.Int(0)))))
		probe := must(NewProject(filtered, []expr.Expr{lcol(0), lcol(1), must(expr.Arith(expr.Mul, lcol(2), expr.Int(2)))}, []string{"lid", "lname", "lv2"}))
		// The build side runs its filter in parallel too.
		rcol := func(i int) expr.Expr { return expr.Col(i, right.Schema().Field(i).Name, right.Schema().Field(i).Type) }
		build := must(NewFilter(right, must(expr.Cmp(expr.Gt, rcol(2), expr.Int(50)))))
		keys := []struct {
			name   string
			lk, rk []expr.Expr
		}{
			{"int", []expr.Expr{lcol(0)}, []expr.Expr{rcol(0)}},
			{"string", []expr.Expr{lcol(1)}, []expr.Expr{rcol(1)}},
			{"int+string", []expr.Expr{lcol(0), lcol(1)}, []expr.Expr{rcol(0), rcol(1)}},
		}
		// Over the joined row (lid, lname, lv2, rid, rname, rv): lv2 > rv.
		residual := must(expr.Cmp(expr.Gt, expr.Col(2, "lv2", expr.Int64T()), expr.Col(5, "rv", expr.Int64T())))
		for _, k := range keys {
			for _, typ := range []JoinType{InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin, NullAwareLeftAntiJoin, FullOuterJoin} {
				for _, res := range []expr.Expr{nil, residual} {
					if res != nil && typ == NullAwareLeftAntiJoin {
						continue
					}
					name := fmt.Sprintf("%s/%s/nullkey=%v/residual=%v", k.name, typ, withNull, res != nil)
					t.Run(name, func(t *testing.T) {
						j := must(NewHashJoin(probe, build, typ, k.lk, k.rk, res))
						serial := runPar(t, j, 1)
						par := runPar(t, j, 4)
						if fmtRows(serial) != fmtRows(par) {
							t.Fatalf("parallel differs from serial:\nserial %d rows\n%s\nparallel %d rows\n%s", len(serial), firstRows(serial), len(par), firstRows(par))
						}
						if typ == InnerJoin && res == nil && k.name == "int" {
							if want := nestedLoopCount(t, probe, build); len(par) != want || want == 0 {
								t.Fatalf("%d rows, nested loop gives %d", len(par), want)
							}
						}
					})
				}
			}
		}
	}
}

func firstRows(rows [][]string) string {
	if len(rows) > 20 {
		rows = rows[:20]
	}
	return fmtRows(rows)
}

// nestedLoopCount counts pairs with equal non-NULL first columns.
func nestedLoopCount(t *testing.T, l, r Operator) int {
	lr, rr := runPar(t, l, 1), runPar(t, r, 1)
	n := 0
	for _, a := range lr {
		for _, b := range rr {
			if a[0] != "NULL" && a[0] == b[0] {
				n++
			}
		}
	}
	return n
}

// TestParallelAggregateMatchesSerial groups the probe side's rows (NULL
// keys included) with every kind of aggregate, order-dependent ones
// (GROUP_CONCAT) and DISTINCT too, on one goroutine and on four, with the
// helper goroutine of a grouped aggregate started early.
func TestParallelAggregateMatchesSerial(t *testing.T) {
	manyProcs(t, 4)
	old := aggParallelAfter
	aggParallelAfter = 500
	t.Cleanup(func() { aggParallelAfter = old })
	left, _ := parInputs(false)
	col := func(i int) expr.Expr { return expr.Col(i, left.Schema().Field(i).Name, left.Schema().Field(i).Type) }
	filtered := must(NewFilter(left, must(expr.Cmp(expr.Lt, col(2), expr.Int(900)))))
	dec := must(expr.Cast(col(2), expr.DecimalT(10, 2)))
	aggSets := map[string][]AggCall{
		"merging": {
			{Func: CountStar, Name: "n"}, {Func: Sum, Arg: col(2), Name: "s"}, {Func: Min, Arg: col(1), Name: "mi"},
			{Func: Max, Arg: col(2), Name: "ma"}, {Func: Avg, Arg: dec, Name: "av"}, {Func: Sum, Arg: dec, Name: "sd"},
		},
		"distinct": {{Func: Count, Arg: col(1), Distinct: true, Name: "cd"}, {Func: Sum, Arg: col(2), Distinct: true, Name: "sd"}},
		"ordered":  {{Func: GroupConcat, Arg: col(1), Name: "gc"}, {Func: AnyValue, Arg: col(2), Name: "av"}},
	}
	for name, aggs := range aggSets {
		for _, byKey := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/groupby=%v", name, byKey), func(t *testing.T) {
				var gb []expr.Expr
				var gn []string
				if byKey {
					gb, gn = []expr.Expr{col(0)}, []string{"lid"}
				}
				agg := must(NewHashAggregate(filtered, gb, gn, aggs, AggSingle))
				serial, par := runPar(t, agg, 1), runPar(t, agg, 4)
				if name != "ordered" {
					// Groups may come out in another order.
					sortRows(serial)
					sortRows(par)
				}
				if fmtRows(serial) != fmtRows(par) {
					t.Fatalf("parallel differs from serial:\n%s\n---\n%s", firstRows(serial), firstRows(par))
				}
			})
		}
	}
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i], "|") < strings.Join(rows[j], "|") })
}

// endless is a source of batches of (id, v) without end, for
// cancellation.
func endless() *Scan {
	s := sch("id", expr.Int64T(), "v", expr.Int64T())
	return NewScan("", "endless", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		i := int64(0)
		next := func() (arrow.RecordBatch, error) {
			rows := make([][]any, 512)
			for k := range rows {
				rows[k] = []any{i % 100, i}
				i++
			}
			return mkBatch(mem, s, rows), nil
		}
		return newPullReader(ctx, s, next, nil), nil
	}))
}

// TestParallelJoinCancelAndEarlyRelease: a parallel probe over an endless
// input stops when the statement is cancelled (its error, not a hang) and
// when the consumer lets go after one batch (a LIMIT); either way every
// batch is released and no goroutine outlives the reader.
func TestParallelJoinCancelAndEarlyRelease(t *testing.T) {
	manyProcs(t, 4)
	right := scanOf(sch("rid", expr.Int64T()), [][]any{{1}, {2}, {3}, {50}})
	for _, mode := range []string{"cancel", "release"} {
		t.Run(mode, func(t *testing.T) {
			before := runtime.NumGoroutine()
			env, mem := newEnv(t)
			ctx, cancel := context.WithCancel(WithParallelism(context.Background(), 4))
			defer cancel()
			probe := must(NewFilter(endless(), must(expr.Cmp(expr.Ge, expr.Col(1, "v", expr.Int64T()), expr.Int(0)))))
			j := must(NewHashJoin(probe, right, InnerJoin,
				[]expr.Expr{expr.Col(0, "id", expr.Int64T())}, []expr.Expr{expr.Col(0, "rid", expr.Int64T())}, nil))
			rr, err := j.Open(ctx, env)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if !rr.Next() {
					t.Fatalf("ended early: %v", rr.Err())
				}
			}
			if mode == "cancel" {
				cancel()
				for rr.Next() {
				}
				if !errors.Is(rr.Err(), context.Canceled) {
					t.Fatalf("error %v, want context canceled", rr.Err())
				}
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
		})
	}
}

// TestParallelJoinMemLimit: a parallel probe whose output passes the
// statement's limit ends with the limit error and gives back every byte.
func TestParallelJoinMemLimit(t *testing.T) {
	manyProcs(t, 4)
	left, right := parInputs(false)
	col := func(s *arrow.Schema, i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	probe := must(NewFilter(left, must(expr.Cmp(expr.Ge, col(left.Schema(), 2), expr.Int(0)))))
	j := must(NewHashJoin(probe, right, InnerJoin, []expr.Expr{col(left.Schema(), 1)}, []expr.Expr{col(right.Schema(), 1)}, nil))
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	mem := memlimit.New(parent, 64<<10, "exec_mem_limit")
	rr, err := j.Open(WithParallelism(context.Background(), 4), &Env{Mem: mem})
	if err == nil {
		for rr.Next() {
		}
		err = rr.Err()
		rr.Release()
	}
	if !errors.Is(err, memlimit.ErrExceeded) {
		t.Fatalf("error %v, want the memory limit", err)
	}
	mem.Sweep()
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still held", mem.Used())
	}
}

// TestParallelJoinRetained: a parallel probe's reader retained and
// released once keeps its build side until the last release.
func TestParallelJoinRetained(t *testing.T) {
	manyProcs(t, 4)
	left, right := parInputs(false)
	col := func(s *arrow.Schema, i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	j := must(NewHashJoin(left, right, InnerJoin, []expr.Expr{col(left.Schema(), 0)}, []expr.Expr{col(right.Schema(), 0)}, nil))
	want := runPar(t, j, 1)
	env, mem := newEnv(t)
	rr, err := j.Open(WithParallelism(context.Background(), 4), env)
	if err != nil {
		t.Fatal(err)
	}
	rr.Retain()
	rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil || n != len(want) {
		t.Fatalf("%d rows (%v), want %d", n, err, len(want))
	}
	rr.Release()
	mem.AssertSize(t, 0)
}

// TestParallelMapWorkersAndRoom: a refused allocation in a worker ends
// the reader with the limit error; with no room left in the statement's
// account every batch is transformed by the reading goroutine (w =
// workers) instead of queued for a worker.
func TestParallelMapWorkersAndRoom(t *testing.T) {
	manyProcs(t, 4)
	left, _ := parInputs(false)
	open := func(t *testing.T) array.RecordReader {
		in, err := left.Open(context.Background(), &Env{Mem: memory.DefaultAllocator})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	t.Run("refused in a worker", func(t *testing.T) {
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer parent.AssertSize(t, 0)
		lim := memlimit.New(parent, 1<<10, "exec_mem_limit")
		var used [5]bool
		r := parallelMap(context.Background(), memory.DefaultAllocator, open(t), left.Schema(), 4, func(w int, b arrow.RecordBatch) (arrow.RecordBatch, error) {
			used[w] = true
			buf := memory.NewResizableBuffer(lim)
			defer buf.Release()
			buf.Resize(1 << 20) // past the limit: panics, as a strict allocation does
			return nil, nil
		}, nil)
		for r.Next() {
		}
		err := r.Err()
		r.Release()
		if !errors.Is(err, memlimit.ErrExceeded) {
			t.Fatalf("error %v, want the memory limit", err)
		}
		if used[4] {
			t.Fatal("the reading goroutine transformed a batch with room to spare")
		}
		lim.Sweep()
	})
	t.Run("no room", func(t *testing.T) {
		lim := memlimit.New(memory.NewGoAllocator(), 1<<10, "exec_mem_limit")
		var who []int
		r := parallelMap(context.Background(), lim, open(t), left.Schema(), 4, func(w int, b arrow.RecordBatch) (arrow.RecordBatch, error) {
			who = append(who, w) // only the reading goroutine runs, so no race
			b.Retain()
			return b, nil
		}, nil)
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Release()
		if n != 24 || len(who) != 24 {
			t.Fatalf("%d batches out, %d transformed, want 24", n, len(who))
		}
		for _, w := range who {
			if w != 4 {
				t.Fatalf("worker %d transformed a batch with no room in the account", w)
			}
		}
	})
}
