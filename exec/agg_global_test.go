package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// slowSource yields its batches with a pause before each, so that the
// goroutines of a parallel aggregate all get some of them.
type slowSource struct {
	memSource
	pause time.Duration
}

func (s slowSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	rr, err := s.memSource.Open(ctx, mem)
	if err != nil {
		return nil, err
	}
	return &slowReader{RecordReader: rr, pause: s.pause}, nil
}

type slowReader struct {
	array.RecordReader
	pause time.Duration
}

func (r *slowReader) Next() bool {
	time.Sleep(r.pause)
	return r.RecordReader.Next()
}

// globalRow is one generated row; nil pointers are NULLs.
type globalRow struct {
	id  int64
	k   *int32
	v   *int64
	d   float64
	dec int64 // hundredths
	s   string
}

// globalRows draws n rows: k = id%10 (NULL every 13th), v = id%101 - 50
// (NULL every 7th), d = id%5, dec = id%1000 hundredths, s = "s" + id%37.
func globalRows(n int) []globalRow {
	out := make([]globalRow, n)
	for id := range n {
		r := globalRow{id: int64(id), d: float64(id % 5), dec: int64(id % 1000), s: fmt.Sprintf("s%02d", id%37)}
		if id%13 != 0 {
			k := int32(id % 10)
			r.k = &k
		}
		if id%7 != 0 {
			v := int64(id%101 - 50)
			r.v = &v
		}
		out[id] = r
	}
	return out
}

var globalSchema = sch("id", expr.Int64T(), "k", expr.Int32T(), "v", expr.Int64T(), "d", expr.Float64T(), "dec", expr.DecimalT(10, 2), "s", expr.StringT())

func globalGroups(rows []globalRow, per int) [][][]any {
	var groups [][][]any
	for i := 0; i < len(rows); i += per {
		var g [][]any
		for _, r := range rows[i:min(i+per, len(rows))] {
			var k, v any
			if r.k != nil {
				k = int64(*r.k)
			}
			if r.v != nil {
				v = *r.v
			}
			g = append(g, []any{r.id, k, v, r.d, decimal128.FromI64(r.dec), r.s})
		}
		groups = append(groups, g)
	}
	return groups
}

// globalWant computes count(*), count(v), sum(v), min(v), max(v), avg(d),
// sum(dec), min(s), max(k), max(id), min(d), sum(k), avg(v), sum(v+1),
// sum(CAST(k AS BIGINT)) over the rows
// keep accepts, as the MySQL text
// protocol shows them.
func globalWant(rows []globalRow, keep func(globalRow) bool) []string {
	var n, nv, sv, sd, sdec int64
	var minV, maxV int64 = math.MaxInt64, math.MinInt64
	var maxK int32 = math.MinInt32
	minS, seenK := "", false
	for _, r := range rows {
		if !keep(r) {
			continue
		}
		n++
		if r.v != nil {
			nv++
			sv += *r.v
			minV, maxV = min(minV, *r.v), max(maxV, *r.v)
		}
		if r.k != nil {
			maxK, seenK = max(maxK, *r.k), true
		}
		sd += int64(r.d)
		sdec += r.dec
		if minS == "" || r.s < minS {
			minS = r.s
		}
	}
	maxID, minD, sumK, nk := int64(-1), math.Inf(1), int64(0), 0
	for _, r := range rows {
		if !keep(r) {
			continue
		}
		maxID, minD = max(maxID, r.id), math.Min(minD, r.d)
		if r.k != nil {
			sumK += int64(*r.k)
			nk++
		}
	}
	if n == 0 {
		return []string{"0", "0", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}
	}
	out := []string{fmt.Sprint(n), fmt.Sprint(nv)}
	if nv == 0 {
		out = append(out, "NULL", "NULL", "NULL")
	} else {
		out = append(out, fmt.Sprint(sv), fmt.Sprint(minV), fmt.Sprint(maxV))
	}
	out = append(out, fmt.Sprint(float64(sd)/float64(n)), fmt.Sprintf("%d.%02d", sdec/100, sdec%100), minS)
	if seenK {
		out = append(out, fmt.Sprint(maxK))
	} else {
		out = append(out, "NULL")
	}
	out = append(out, fmt.Sprint(maxID), fmt.Sprint(minD))
	if nk > 0 {
		out = append(out, fmt.Sprint(sumK))
	} else {
		out = append(out, "NULL")
	}
	if nv > 0 {
		out = append(out, fmt.Sprint(float64(sv)/float64(nv)), fmt.Sprint(sv+nv))
	} else {
		out = append(out, "NULL", "NULL")
	}
	if nk > 0 {
		out = append(out, fmt.Sprint(sumK))
	} else {
		out = append(out, "NULL")
	}
	return out
}

func globalAggs() []AggCall {
	col := func(i int) expr.Expr {
		f := globalSchema.Field(i)
		return expr.Col(i, f.Name, f.Type)
	}
	return []AggCall{
		{Func: CountStar, Name: "c"},
		{Func: Count, Arg: col(2), Name: "cv"},
		{Func: Sum, Arg: col(2), Name: "sv"},
		{Func: Min, Arg: col(2), Name: "minv"},
		{Func: Max, Arg: col(2), Name: "maxv"},
		{Func: Avg, Arg: col(3), Name: "avgd"},
		{Func: Sum, Arg: col(4), Name: "sdec"},
		{Func: Min, Arg: col(5), Name: "mins"},
		{Func: Max, Arg: col(1), Name: "maxk"},
		{Func: Max, Arg: col(0), Name: "maxid"},
		{Func: Min, Arg: col(3), Name: "mind"},
		{Func: Sum, Arg: col(1), Name: "sumk"},
		{Func: Avg, Arg: col(2), Name: "avgv"},
		// An argument that is not a plain column: evaluated over the
		// selected rows of just the columns it reads.
		{Func: Sum, Arg: mustExpr(expr.Arith(expr.Add, col(2), mustExpr(expr.Lit(int64(1), expr.Int64T())))), Name: "sumv1"},
		// The binder's widening CAST around an argument: folded from the
		// column itself.
		{Func: Sum, Arg: mustExpr(expr.Cast(col(1), expr.Int64T())), Name: "sumk2"},
	}
}

func mustExpr(e expr.Expr, err error) expr.Expr {
	if err != nil {
		panic(err)
	}
	return e
}

// TestGlobalAggregate: aggregates without GROUP BY, over a scan and over
// filters (direct kernels and evaluated conjuncts), on one goroutine and
// on several, against sums worked out row by row from the generator.
func TestGlobalAggregate(t *testing.T) {
	k := expr.Col(1, "k", expr.Int32T())
	v := expr.Col(2, "v", expr.Int64T())
	s := expr.Col(5, "s", expr.StringT())
	lit := func(x any, ty arrow.DataType) expr.Expr {
		l, err := expr.Lit(x, ty)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	kLt3 := mustExpr(expr.Cmp(expr.Lt, k, lit(int64(3), expr.Int64T())))
	vGt10 := mustExpr(expr.Cmp(expr.Gt, v, lit(int64(10), expr.Int64T())))
	kPlus := mustExpr(expr.Arith(expr.Add, k, lit(int64(1), expr.Int64T())))
	kPlusLt4 := mustExpr(expr.Cmp(expr.Lt, kPlus, lit(int64(4), expr.Int64T())))
	sEq := mustExpr(expr.Cmp(expr.Eq, s, lit("s05", expr.StringT())))
	or := mustExpr(expr.Or(kPlusLt4, sEq))
	id := expr.Col(0, "id", expr.Int64T())
	d := expr.Col(3, "d", expr.Float64T())
	cmpID := func(op expr.CmpOp, x int64) expr.Expr { return mustExpr(expr.Cmp(op, id, lit(x, expr.Int64T()))) }
	cases := []struct {
		name    string
		pred    expr.Expr // nil: no filter
		kernels int       // conjuncts served by a kernel
		keep    func(globalRow) bool
	}{
		{"no filter", nil, 0, func(globalRow) bool { return true }},
		{"k < 3 (kernel, NULL keys)", kLt3, 1, func(r globalRow) bool { return r.k != nil && *r.k < 3 }},
		{"k < 3 AND v > 10 (two kernels)", mustExpr(expr.And(kLt3, vGt10)), 2, func(r globalRow) bool { return r.k != nil && *r.k < 3 && r.v != nil && *r.v > 10 }},
		{"k < 3 AND v < 5 (NULL v stored as 0)", mustExpr(expr.And(kLt3, mustExpr(expr.Cmp(expr.Lt, v, lit(int64(5), expr.Int64T()))))), 2, func(r globalRow) bool { return r.k != nil && *r.k < 3 && r.v != nil && *r.v < 5 }},
		{"v > 10 AND k + 1 < 4 (kernel then evaluated)", mustExpr(expr.And(vGt10, kPlusLt4)), 1, func(r globalRow) bool { return r.k != nil && *r.k < 3 && r.v != nil && *r.v > 10 }},
		{"k + 1 < 4 OR s = 's05' (evaluated)", or, 0, func(r globalRow) bool { return (r.k != nil && *r.k < 3) || r.s == "s05" }},
		{"k < 3 OR s = 's05' (OR kernel)", mustExpr(expr.Or(kLt3, sEq)), 1, func(r globalRow) bool { return (r.k != nil && *r.k < 3) || r.s == "s05" }},
		{"nothing passes", mustExpr(expr.Cmp(expr.Lt, k, lit(int64(-5), expr.Int64T()))), 1, func(globalRow) bool { return false }},
		{"everything passes", cmpID(expr.Ge, 0), 1, func(globalRow) bool { return true }},
		{"id < 12345 (kernel, no NULLs)", cmpID(expr.Lt, 12345), 1, func(r globalRow) bool { return r.id < 12345 }},
		{"id <= 12345", cmpID(expr.Le, 12345), 1, func(r globalRow) bool { return r.id <= 12345 }},
		{"id > 29000", cmpID(expr.Gt, 29000), 1, func(r globalRow) bool { return r.id > 29000 }},
		{"id = 777", cmpID(expr.Eq, 777), 1, func(r globalRow) bool { return r.id == 777 }},
		{"id != 777 AND id <=> 778", mustExpr(expr.And(cmpID(expr.Ne, 777), cmpID(expr.NullSafeEq, 778))), 2, func(r globalRow) bool { return r.id == 778 }},
		{"d = 2 AND id >= 100", mustExpr(expr.And(mustExpr(expr.Cmp(expr.Eq, d, lit(2.0, expr.Float64T()))), cmpID(expr.Ge, 100))), 2, func(r globalRow) bool { return r.d == 2 && r.id >= 100 }},
	}
	data := globalRows(30_000)
	groups := globalGroups(data, 500)
	for _, par := range []bool{false, true} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/parallel=%v", tc.name, par), func(t *testing.T) {
				var per []int
				if par {
					// Two Ps even on one core: the helpers must run.
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
					aggParallelAfter = 0
					defer func() { aggParallelAfter = 1 << 18 }()
					var mu sync.Mutex
					globalFoldHook = func(b []int) { mu.Lock(); per = b; mu.Unlock() }
					defer func() { globalFoldHook = nil }()
				}
				if tc.pred != nil {
					n := 0
					for _, k := range newSelector(tc.pred).kern {
						if k != nil {
							n++
						}
					}
					if n != tc.kernels {
						t.Fatalf("%d conjuncts with a kernel, want %d", n, tc.kernels)
					}
				}
				var in Operator = NewScan("VOlapScanNode", "t", slowSource{memSource: memSource{schema: globalSchema, groups: groups}, pause: 200 * time.Microsecond})
				if tc.pred != nil {
					f, err := NewFilter(in, tc.pred)
					if err != nil {
						t.Fatal(err)
					}
					in = f
				}
				agg, err := NewHashAggregate(in, nil, nil, globalAggs(), AggSingle)
				if err != nil {
					t.Fatal(err)
				}
				got := run(t, agg)
				want := globalWant(data, tc.keep)
				if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(want, "|") {
					t.Fatalf("got %v\nwant %v", got, want)
				}
				if par && (len(per) < 2 || per[1] == 0) {
					// The merge of partial states is what this case tests.
					t.Fatalf("batches per goroutine %v: the helper folded none", per)
				}
			})
		}
	}
}

// TestGlobalAggregateEmpty: no input rows at all gives one row.
func TestGlobalAggregateEmpty(t *testing.T) {
	agg, err := NewHashAggregate(scanOf(globalSchema), nil, nil, globalAggs(), AggSingle)
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, agg)
	want := globalWant(nil, nil)
	if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestGlobalAggregateOverflow: a BIGINT sum out of range fails, whether
// one goroutine's partial sum overflows or only their merge does.
func TestGlobalAggregateOverflow(t *testing.T) {
	s := sch("v", expr.Int64T())
	big := func(n int) [][]any {
		var g [][]any
		for range n {
			g = append(g, []any{int64(math.MaxInt64 / 64)})
		}
		return g
	}
	for _, tc := range []struct {
		name     string
		batches  int
		per      int
		overflow bool
	}{
		{"in range", 8, 8, false},    // 64 × MaxInt64/64 fits
		{"out of range", 9, 8, true}, // 72 × MaxInt64/64 does not
	} {
		for _, par := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/parallel=%v", tc.name, par), func(t *testing.T) {
				if par {
					aggParallelAfter = 0
					defer func() { aggParallelAfter = 1 << 18 }()
				}
				var groups [][][]any
				for range tc.batches {
					groups = append(groups, big(tc.per))
				}
				src := slowSource{memSource: memSource{schema: s, groups: groups}, pause: 200 * time.Microsecond}
				agg, err := NewHashAggregate(NewScan("VOlapScanNode", "t", src), nil, nil, []AggCall{{Func: Sum, Arg: expr.Col(0, "v", expr.Int64T()), Name: "s"}}, AggSingle)
				if err != nil {
					t.Fatal(err)
				}
				env, mem := newEnv(t)
				defer mem.AssertSize(t, 0)
				got, err := runEnv(env, agg)
				if tc.overflow {
					if !errors.Is(err, ErrOverflow) {
						t.Fatalf("got %v, %v; want an overflow", got, err)
					}
					return
				}
				want := fmt.Sprint(int64(tc.batches*tc.per) * (math.MaxInt64 / 64))
				if err != nil || len(got) != 1 || got[0][0] != want {
					t.Fatalf("got %v, %v; want %s", got, err, want)
				}
			})
		}
	}
}

// TestGlobalAggregateCancel: a cancelled context stops the goroutines and
// fails the aggregate.
func TestGlobalAggregateCancel(t *testing.T) {
	aggParallelAfter = 0
	defer func() { aggParallelAfter = 1 << 18 }()
	groups := globalGroups(globalRows(20_000), 500)
	src := slowSource{memSource: memSource{schema: globalSchema, groups: groups}, pause: time.Millisecond}
	agg, err := NewHashAggregate(NewScan("VOlapScanNode", "t", src), nil, nil, globalAggs(), AggSingle)
	if err != nil {
		t.Fatal(err)
	}
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	rr, err := agg.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
	}
	err = rr.Err()
	rr.Release()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
}

// TestGlobalAggregateMemLimit: an allocation refused on any goroutine of
// the aggregate (the predicate's mask, the gathered argument) fails the
// statement with the limit's error, and everything is given back.
func TestGlobalAggregateMemLimit(t *testing.T) {
	aggParallelAfter = 0
	defer func() { aggParallelAfter = 1 << 18 }()
	k, s := expr.Col(1, "k", expr.Int32T()), expr.Col(5, "s", expr.StringT())
	or := mustExpr(expr.Or(mustExpr(expr.Cmp(expr.Lt, k, mustExpr(expr.Lit(int64(3), expr.Int64T())))),
		mustExpr(expr.Cmp(expr.Eq, s, mustExpr(expr.Lit("s05", expr.StringT()))))))
	groups := globalGroups(globalRows(20_000), 500)
	src := slowSource{memSource: memSource{schema: globalSchema, groups: groups}, pause: 100 * time.Microsecond}
	agg, err := NewHashAggregate(must(NewFilter(NewScan("VOlapScanNode", "t", src), or)), nil, nil, globalAggs(), AggSingle)
	if err != nil {
		t.Fatal(err)
	}
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	mem := memlimit.New(parent, 2<<10, "exec_mem_limit")
	_, err = runEnv(&Env{Mem: mem, Now: time.Now()}, agg)
	if !errors.Is(err, memlimit.ErrExceeded) {
		t.Fatalf("got %v, want the limit's error", err)
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still charged", mem.Used())
	}
}
