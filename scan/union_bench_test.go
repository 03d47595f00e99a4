package scan_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

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

// BenchmarkUnionVsLake: a PK table of N rows tiered and compacted, 1% of
// the keys updated in the tail. Reports the union/lake time ratio, the
// suppression cost per lake row and the tail keys read.
//
//	INLET_BENCH_ROWS=5000000 go test ./scan -run '^$' -bench UnionVsLake -benchtime 3x
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
	if err := hs.c.Upsert(ctx, "db", "bench", upd); err != nil {
		b.Fatal(err)
	}
	p := hs.planRead("bench", nil)
	cols := []int32{0, 1, 2}
	var lakeOnly []*inletpb.Range
	for _, ss := range hs.splitsOf(p) {
		for _, sp := range ss {
			lakeOnly = append(lakeOnly, &inletpb.Range{Type: inletpb.RangeType_LAKE, LakeSplit: sp, Native: true})
		}
	}
	var tLake, tUnion time.Duration
	var st *inletpb.ScanStats
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		t0 := time.Now()
		lr, _ := hs.run(hs.fragment(p, cols, lakeOnly))
		tLake += time.Since(t0)
		t0 = time.Now()
		ur, s := hs.run(hs.fragment(p, cols, hs.unionPK(p)))
		tUnion += time.Since(t0)
		st = s
		if len(lr) != n || len(ur) != n {
			b.Fatalf("lake %d union %d rows, want %d", len(lr), len(ur), n)
		}
	}
	c := st.Counters
	lakeRows := c["FlussLakeRowsReturned"] + c["FlussUnionSuppressedRows"]
	b.ReportMetric(float64(tUnion)/float64(tLake), "union/lake")
	b.ReportMetric(float64(c["FlussUnionSuppressTime"])/float64(lakeRows), "suppress-ns/lake-row")
	b.ReportMetric(float64(c["FlussUnionTailKeysRetained"]), "tail-keys")
	b.ReportMetric(float64(n)*float64(b.N)/tLake.Seconds(), "lake-rows/s")
}

// BenchmarkLogVsLake: rows/s of a log table read from the Fluss log
// (through the emulator) against the same rows from the lake.
//
//	INLET_BENCH_ROWS=1000000 go test ./scan -run '^$' -bench LogVsLake -benchtime 3x
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
	var tLog, tLake time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		t0 := time.Now()
		lr, _ := hs.run(hs.fragment(p, []int32{0, 1, 2}, hs.flussLog(p)))
		tLog += time.Since(t0)
		t0 = time.Now()
		kr, _ := hs.run(hs.fragment(p, []int32{0, 1, 2}, lake))
		tLake += time.Since(t0)
		if len(lr) != n || len(kr) != n {
			b.Fatalf("log %d lake %d rows, want %d", len(lr), len(kr), n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/tLog.Seconds(), "log-rows/s")
	b.ReportMetric(float64(n)*float64(b.N)/tLake.Seconds(), "lake-rows/s")
}
