package exec

import (
	"context"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

const benchBatch = 64 * 1024

// genSource generates rows (k = i % groups, v = pseudo-random 0..999,
// f = v / 10) batch by batch, so the input is never held in memory.
func genSource(rows, groups int64) Source {
	s := sch("k", expr.Int64T(), "v", expr.Int64T(), "f", expr.Float64T())
	return SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		var done int64
		rng := rand.New(rand.NewSource(1))
		next := func() (arrow.RecordBatch, error) {
			if done >= rows {
				return nil, nil
			}
			n := min(benchBatch, rows-done)
			kb, vb, fb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem)
			defer kb.Release()
			defer vb.Release()
			defer fb.Release()
			ks, vs, fs := make([]int64, n), make([]int64, n), make([]float64, n)
			for i := range ks {
				ks[i] = (done + int64(i)) % groups
				vs[i] = rng.Int63n(1000)
				fs[i] = float64(vs[i]) / 10
			}
			kb.AppendValues(ks, nil)
			vb.AppendValues(vs, nil)
			fb.AppendValues(fs, nil)
			done += n
			cols := []arrow.Array{kb.NewArray(), vb.NewArray(), fb.NewArray()}
			b := array.NewRecordBatch(s, cols, n)
			releaseArrays(cols)
			return b, nil
		}
		return newPullReader(ctx, s, next, nil), nil
	})
}

func drain(b *testing.B, op Operator, wantRows int64) {
	b.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	env := &Env{Mem: mem}
	rr, err := op.Open(context.Background(), env)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	rr.Release()
	mem.AssertSize(b, 0)
	if wantRows >= 0 && n != wantRows {
		b.Fatalf("%d output rows, want %d", n, wantRows)
	}
}

// reportRows reports wall-clock rows/s and, because the benchmark machine
// is shared, rows per CPU second of this process (user+system), which is
// what the executor itself costs. Call startCPU before the loop.
func reportRows(b *testing.B, rows int64, cpu0 time.Duration) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(rows)*float64(b.N)/cpu.Seconds(), "rows/cpu-s")
	}
	b.SetBytes(rows * 24) // 3 eight-byte columns per row
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSumGroupBy: SELECT k, SUM(v), COUNT(*) FROM gen(10M) GROUP BY k.
func BenchmarkSumGroupBy(b *testing.B) {
	const rows = 10_000_000
	for _, groups := range []int64{1000, 1_000_000} {
		b.Run(map[int64]string{1000: "groups=1K", 1_000_000: "groups=1M"}[groups], func(b *testing.B) {
			scan := NewScan("", "gen", genSource(rows, groups))
			agg := must(NewHashAggregate(scan, []expr.Expr{expr.Col(0, "k", expr.Int64T())}, []string{"k"},
				[]AggCall{{Func: Sum, Arg: expr.Col(1, "v", expr.Int64T()), Name: "s"}, {Func: CountStar, Name: "n"}}, AggSingle))
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				drain(b, agg, groups)
			}
			reportRows(b, rows, cpu0)
		})
	}
}

// BenchmarkFilterProject: SELECT k, v * 2 + 1, f FROM gen(10M) WHERE v > 500 AND k < 900.
func BenchmarkFilterProject(b *testing.B) {
	const rows = 10_000_000
	scan := NewScan("", "gen", genSource(rows, 1000))
	k, v, f := expr.Col(0, "k", expr.Int64T()), expr.Col(1, "v", expr.Int64T()), expr.Col(2, "f", expr.Float64T())
	pred := must(expr.And(must(expr.Cmp(expr.Gt, v, expr.Int(500))), must(expr.Cmp(expr.Lt, k, expr.Int(900)))))
	calc := must(expr.Arith(expr.Add, must(expr.Arith(expr.Mul, v, expr.Int(2))), expr.Int(1)))
	p := must(NewProject(must(NewFilter(scan, pred)), []expr.Expr{k, calc, f}, []string{"k", "c", "f"}))
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		drain(b, p, -1)
	}
	reportRows(b, rows, cpu0)
}

// BenchmarkSort: ORDER BY v DESC, k over 1M rows (two keys, generic path)
// and ORDER BY k over 1M rows (single BIGINT key fast path).
func BenchmarkSort(b *testing.B) {
	const rows = 1_000_000
	scan := NewScan("", "gen", genSource(rows, 999_983))
	k, v := expr.Col(0, "k", expr.Int64T()), expr.Col(1, "v", expr.Int64T())
	for name, keys := range map[string][]SortKey{
		"two-keys": {{Expr: v, Desc: true}, {Expr: k}},
		"one-key":  {{Expr: v}},
	} {
		b.Run(name, func(b *testing.B) {
			s := must(NewSort(scan, keys))
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				drain(b, s, rows)
			}
			reportRows(b, rows, cpu0)
		})
	}
}

// BenchmarkTopN: ORDER BY f DESC, k LIMIT 100 over 10M rows.
func BenchmarkTopN(b *testing.B) {
	const rows = 10_000_000
	scan := NewScan("", "gen", genSource(rows, 1_000_000))
	top := must(NewTopN(scan, []SortKey{{Expr: expr.Col(2, "f", expr.Float64T()), Desc: true}, {Expr: expr.Col(0, "k", expr.Int64T())}}, 0, 100))
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		drain(b, top, 100)
	}
	reportRows(b, rows, cpu0)
}

// BenchmarkHashJoin: gen(10M) JOIN gen(100K) ON k = k (every probe row
// matches one build row).
func BenchmarkHashJoin(b *testing.B) {
	const rows, buildRows = 10_000_000, 100_000
	probe := NewScan("", "probe", genSource(rows, buildRows))
	build := NewScan("", "build", genSource(buildRows, buildRows))
	k := expr.Col(0, "k", expr.Int64T())
	j := must(NewHashJoin(probe, build, InnerJoin, []expr.Expr{k}, []expr.Expr{k}, nil))
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		drain(b, j, rows)
	}
	reportRows(b, rows, cpu0)
}
