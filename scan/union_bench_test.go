package scan_test

import (
	"context"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/typemap"
)

// benchRows is INLET_BENCH_ROWS (default 20000; the figure is 5M).
func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("INLET_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// benchReps is INLET_BENCH_REPS (default 1): read pairs per benchmark
// iteration, so one (costly) table setup yields several timed pairs and
// the spread of their ratios.
func benchReps() int {
	if n, err := strconv.Atoi(os.Getenv("INLET_BENCH_REPS")); err == nil && n > 0 {
		return n
	}
	return 1
}

// peakAlloc tracks the most bytes a read held at once (Arrow buffers only).
type peakAlloc struct {
	memory.Allocator
	cur, peak atomic.Int64
}

func (a *peakAlloc) Allocate(n int) []byte {
	a.note(int64(n))
	return a.Allocator.Allocate(n)
}

func (a *peakAlloc) Reallocate(n int, b []byte) []byte {
	a.note(int64(n - len(b)))
	return a.Allocator.Reallocate(n, b)
}

func (a *peakAlloc) Free(b []byte) {
	a.cur.Add(-int64(len(b)))
	a.Allocator.Free(b)
}

func (a *peakAlloc) note(d int64) {
	c := a.cur.Add(d)
	for p := a.peak.Load(); c > p && !a.peak.CompareAndSwap(p, c); p = a.peak.Load() {
	}
}

// benchSums is what a bench read must return: a row count, the sum of the
// id column (0..n-1, so n(n-1)/2) and the rows whose v is -1 (the updated
// ones). Cheap enough not to hide the scan's cost, strict enough that a
// lost, doubled or stale row shows.
type benchSums struct {
	rows, idSum, updated int64
	peak                 int64 // Arrow bytes held at once
	heap                 int64 // Go heap bytes allocated meanwhile (whole process)
}

func heapAllocs() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// drain runs a fragment whose output is (id BIGINT, name, v DOUBLE), under
// a pprof label naming the phase, so `pprof -tagfocus phase=union` shows
// only the union read's readers (goroutines inherit labels).
func (hs *harness) drain(phase string, f *inletpb.Fragment) benchSums {
	t := hs.t
	t.Helper()
	var s benchSums
	h0 := heapAllocs()
	pprof.Do(context.Background(), pprof.Labels("phase", phase), func(ctx context.Context) {
		checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer checked.AssertSize(t, 0)
		mem := &peakAlloc{Allocator: checked}
		rd, err := hs.ex.Execute(ctx, f, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		for rd.Next() {
			rec := rd.RecordBatch()
			ids := rec.Column(0).(*array.Int64)
			vs := rec.Column(2).(*array.Float64)
			for i := 0; i < int(rec.NumRows()); i++ {
				s.idSum += ids.Value(i)
				if vs.Value(i) == -1 {
					s.updated++
				}
			}
			s.rows += rec.NumRows()
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		s.peak = mem.peak.Load()
	})
	s.heap = heapAllocs() - h0
	return s
}

// BenchmarkUnionVsLake: a PK table of N rows tiered and compacted, 1% of
// the keys updated in the tail. Reports the union/lake time ratio, the
// suppression cost per lake row, the tail keys read and the peak Arrow
// bytes of each read. The two reads alternate which goes first.
//
//	INLET_BENCH_ROWS=5000000 INLET_BENCH_REPS=5 go test ./scan -run '^$' -bench UnionVsLake -benchtime 1x
func BenchmarkUnionVsLake(b *testing.B) {
	n := benchRows()
	hs := newHarness(b)
	ctx := context.Background()
	if _, err := hs.c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "bench", Buckets: 4, PrimaryKey: []string{"id"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt().NotNull()}, {Name: "name", Type: typemap.String()},
			{Name: "v", Type: typemap.Double()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		b.Fatal(err)
	}
	const chunk = 20000
	for i := 0; i < n; i += chunk {
		var rows [][]any
		for j := i; j < min(i+chunk, n); j++ {
			rows = append(rows, []any{int64(j), fmt.Sprintf("name-%d", j), float64(j) / 3})
		}
		if err := hs.c.Upsert(ctx, "db", "bench", rows); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := hs.c.TierLake(ctx, "db", "bench"); err != nil {
		b.Fatal(err)
	}
	if _, err := hs.c.CompactLake(ctx, "db", "bench"); err != nil {
		b.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	var upd [][]any
	for j := 0; j < n; j += 100 {
		upd = append(upd, []any{int64(j), "updated", -1.0})
	}
	for i := 0; i < len(upd); i += chunk {
		if err := hs.c.Upsert(ctx, "db", "bench", upd[i:min(i+chunk, len(upd))]); err != nil {
			b.Fatal(err)
		}
	}
	p := hs.planRead("bench", nil)
	cols := []int32{0, 1, 2}
	var lakeOnly []*inletpb.Range
	for _, ss := range hs.splitsOf(p) {
		for _, sp := range ss {
			lakeOnly = append(lakeOnly, &inletpb.Range{Type: inletpb.RangeType_LAKE, LakeSplit: sp, Native: true})
		}
	}
	wantSum := int64(n) * int64(n-1) / 2
	var tLake, tUnion time.Duration
	var st *inletpb.ScanStats
	var peakLake, peakUnion, heapLake, heapUnion int64
	reps := b.N * benchReps()
	ratioMin, ratioMax := 0.0, 0.0
	b.ResetTimer()
	for it := 0; it < reps; it++ {
		l0, u0 := tLake, tUnion
		lake := func() {
			f := hs.fragment(p, cols, lakeOnly)
			t0 := time.Now()
			s := hs.drain("lake", f)
			tLake += time.Since(t0)
			if s.rows != int64(n) || s.idSum != wantSum || s.updated != 0 {
				b.Fatalf("lake read: %d rows, id sum %d, %d updated; want %d, %d, 0", s.rows, s.idSum, s.updated, n, wantSum)
			}
			peakLake, heapLake = max(peakLake, s.peak), heapLake+s.heap
		}
		union := func() {
			f := hs.fragment(p, cols, hs.unionPK(p))
			t0 := time.Now()
			s := hs.drain("union", f)
			tUnion += time.Since(t0)
			if s.rows != int64(n) || s.idSum != wantSum || s.updated != int64(len(upd)) {
				b.Fatalf("union read: %d rows, id sum %d, %d updated; want %d, %d, %d", s.rows, s.idSum, s.updated, n, wantSum, len(upd))
			}
			peakUnion, heapUnion = max(peakUnion, s.peak), heapUnion+s.heap
		}
		if it%2 == 0 {
			lake()
			union()
		} else {
			union()
			lake()
		}
		r := float64(tUnion-u0) / float64(tLake-l0)
		if it == 0 || r < ratioMin {
			ratioMin = r
		}
		ratioMax = max(ratioMax, r)
	}
	b.StopTimer()
	// The counters of one more union read (the loop's reads are timed only).
	_, st = hs.run(hs.fragment(p, cols, hs.unionPK(p)))
	c := st.Counters
	lakeRows := c["FlussLakeRowsReturned"] + c["FlussUnionSuppressedRows"]
	b.ReportMetric(float64(tUnion)/float64(tLake), "union/lake")
	b.ReportMetric(ratioMin, "union/lake-min")
	b.ReportMetric(ratioMax, "union/lake-max")
	b.ReportMetric(float64(c["FlussUnionSuppressTime"])/float64(lakeRows), "suppress-ns/lake-row")
	b.ReportMetric(float64(c["FlussUnionTailKeysRetained"]), "tail-keys")
	b.ReportMetric(float64(n)*float64(reps)/tLake.Seconds(), "lake-rows/s")
	b.ReportMetric(float64(n)*float64(reps)/tUnion.Seconds(), "union-rows/s")
	b.ReportMetric(float64(peakLake)/(1<<20), "lake-peak-MiB")
	b.ReportMetric(float64(peakUnion)/(1<<20), "union-peak-MiB")
	b.ReportMetric(float64(heapLake)/float64(reps)/(1<<20), "lake-heap-MiB/read")
	b.ReportMetric(float64(heapUnion)/float64(reps)/(1<<20), "union-heap-MiB/read")
	b.ReportMetric(float64(c["FlussUnionTailReadTime"])/1e6, "tail-read-ms")
	b.ReportMetric(float64(c["FlussPkTailRangeReadTime"])/1e6, "pk-tail-ms")
}

// BenchmarkLogVsLake: rows/s of a log table read from the Fluss log
// (through the emulator) against the same rows from the lake.
//
//	INLET_BENCH_ROWS=1000000 INLET_BENCH_REPS=3 go test ./scan -run '^$' -bench LogVsLake -benchtime 1x
func BenchmarkLogVsLake(b *testing.B) {
	n := benchRows()
	hs := newHarness(b)
	ctx := context.Background()
	if _, err := hs.c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "lb", Buckets: 4,
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()},
			{Name: "v", Type: typemap.Double()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 20000 {
		var rows [][]any
		for j := i; j < min(i+20000, n); j++ {
			rows = append(rows, []any{int64(j), fmt.Sprintf("name-%d", j), float64(j) / 3})
		}
		if err := hs.c.Append(ctx, "db", "lb", rows); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := hs.c.TierLake(ctx, "db", "lb"); err != nil {
		b.Fatal(err)
	}
	p := hs.planRead("lb", nil)
	var lake []*inletpb.Range
	for _, ss := range hs.splitsOf(p) {
		for _, sp := range ss {
			lake = append(lake, &inletpb.Range{Type: inletpb.RangeType_LAKE, LakeSplit: sp, Native: true})
		}
	}
	wantSum := int64(n) * int64(n-1) / 2
	var tLog, tLake time.Duration
	reps := b.N * benchReps()
	b.ResetTimer()
	for it := 0; it < reps; it++ {
		t0 := time.Now()
		lr := hs.drain("log", hs.fragment(p, []int32{0, 1, 2}, hs.flussLog(p)))
		tLog += time.Since(t0)
		t0 = time.Now()
		kr := hs.drain("loglake", hs.fragment(p, []int32{0, 1, 2}, lake))
		tLake += time.Since(t0)
		if lr.rows != int64(n) || kr.rows != int64(n) || lr.idSum != wantSum || kr.idSum != wantSum {
			b.Fatalf("log %d rows (id sum %d), lake %d rows (id sum %d), want %d (%d)", lr.rows, lr.idSum, kr.rows, kr.idSum, n, wantSum)
		}
	}
	b.ReportMetric(float64(n)*float64(reps)/tLog.Seconds(), "log-rows/s")
	b.ReportMetric(float64(n)*float64(reps)/tLake.Seconds(), "lake-rows/s")
}
