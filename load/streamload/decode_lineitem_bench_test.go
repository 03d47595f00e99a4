package streamload

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/internal/tpch"
)

// BenchmarkDecodeLineitem measures decoding alone (no HTTP, no table) of
// generated TPC-H lineitem at SF 0.05 (about 300 k rows of 16 columns).
// With -cpu 1 the body is decoded by one goroutine; with more, plain CSV
// is decoded on that many cores (parallel.go). cpu-ns/row is the process's
// CPU time per row, which a busy machine blurs less than wall time.
//
//	go test -run '^$' -bench DecodeLineitem -cpu 1,2 ./load/streamload
func BenchmarkDecodeLineitem(b *testing.B) {
	dir := b.TempDir()
	if err := tpch.Generate(dir, 0.05); err != nil {
		b.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "lineitem.tbl"))
	if err != nil {
		b.Fatal(err)
	}
	n := strings.Count(string(body), "\n")
	var sch catalog.Schema
	for _, t := range tpch.Tables {
		if t.Name != "lineitem" {
			continue
		}
		for _, c := range t.Columns {
			var typ arrow.DataType
			switch {
			case c[1] == "BIGINT":
				typ = arrow.PrimitiveTypes.Int64
			case c[1] == "INT":
				typ = arrow.PrimitiveTypes.Int32
			case c[1] == "DATE":
				typ = arrow.FixedWidthTypes.Date32
			case strings.HasPrefix(c[1], "DECIMAL"):
				typ = &arrow.Decimal128Type{Precision: 15, Scale: 2}
			default:
				typ = arrow.BinaryTypes.String
			}
			sch.Columns = append(sch.Columns, catalog.Column{Name: c[0], Type: typ})
		}
	}
	p, err := ParseParams(http.Header{"Column_separator": {"|"}})
	if err != nil {
		b.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	b.SetBytes(int64(len(body)))
	cpu0 := benchCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pl, err := newPlan(context.Background(), &p, sch, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		dec := newCSVReader(strings.NewReader(string(body)), &p, 1<<20)
		r := newLoadReader(context.Background(), mem, &expr.Env{Mem: mem, Now: time.Now()}, dec, pl, &p, &errLog{})
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		if r.Err() != nil || rows != n {
			b.Fatal(r.Err(), rows)
		}
		r.Release()
	}
	b.StopTimer()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(benchCPU()-cpu0)/float64(n*b.N), "cpu-ns/row")
}

func benchCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
