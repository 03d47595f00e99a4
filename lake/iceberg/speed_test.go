package iceberg_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// TestScanSpeedVsDuckDB (only with INLET_ICEBERG_SPEED=<rows>) times a
// full scan of three columns through lake/iceberg against DuckDB's
// read_parquet of the same data files. It prints figures; it asserts
// nothing about them, the machine being shared.
func TestScanSpeedVsDuckDB(t *testing.T) {
	n, _ := strconv.ParseInt(os.Getenv("INLET_ICEBERG_SPEED"), 10, 64)
	if n <= 0 {
		t.Skip("set INLET_ICEBERG_SPEED=<rows> to measure")
	}
	duck := duckDB(t, 2)
	ctx := context.Background()
	wh := t.TempDir()
	if err := icebergtest.Bulk(ctx, wh, "db", "bulk", n); err != nil {
		t.Fatal(err)
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "bulk"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, iceberg.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, sp := range plan.Splits {
		files = append(files, sp.Path)
	}
	best := func(f func()) time.Duration {
		var b time.Duration
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			f()
			if d := time.Since(t0); i == 0 || d < b {
				b = d
			}
		}
		return b
	}
	var rows int64
	ours := best(func() {
		rows = 0
		mem := memory.NewGoAllocator()
		for i := range plan.Splits {
			rd, err := plan.Open(ctx, &plan.Splits[i], mem, iceberg.ReadOptions{Columns: []string{"id", "amount", "customer"}})
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				rows += rd.RecordBatch().NumRows()
			}
			rd.Release()
		}
	})
	q := "SELECT count(id), sum(amount), count(customer) FROM read_parquet(" + sqlList(files) + ")"
	theirs := best(func() {
		took, _, err := duck.Run(q)
		if err != nil {
			t.Fatal(err)
		}
		// best() times the call; DuckDB's own time excludes the pipe.
		_ = took
	})
	t.Logf("%d rows in %d files: lake/iceberg (one goroutine) %v (%.1f M rows/s), DuckDB read_parquet (2 threads, with the runner's pipe) %v",
		rows, len(files), ours, float64(rows)/ours.Seconds()/1e6, theirs)
}
