package dispatch_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/scan"
)

// BenchmarkFlightFragment reads one LOG fragment (INLET_BENCH_ROWS rows,
// default 200 000, 4 buckets) from the emulator through a scan executor,
// once in process and once over Flight on loopback (one BE, two BEs), so
// the difference is the transport. MB/s counts Arrow bytes delivered.
//
//	INLET_BENCH_ROWS=1000000 go test ./dispatch -run '^$' -bench FlightFragment -benchtime 5x
func BenchmarkFlightFragment(b *testing.B) {
	rows := 200_000
	if s := os.Getenv("INLET_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		rows = n
	}
	lt := newLogTable(b, rows, 4096, 4)
	ex := scan.NewExecutor(scan.Config{Name: "local"})
	defer ex.Close()
	one := startBE(b, testSecret)
	two := startBE(b, testSecret)
	cases := []struct {
		name string
		bes  []dispatch.Backend
	}{
		{"in-process", []dispatch.Backend{dispatch.BackendFunc("local", ex.Execute)}},
		{"flight-1BE", flightBackends(b, testSecret, one)},
		{"flight-2BE", flightBackends(b, testSecret, one, two)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			d := dispatch.New(dispatch.Config{Backends: c.bes})
			var bytes, n int64
			for b.Loop() {
				r, err := d.Run(context.Background(), lt.fragment(b), memory.NewGoAllocator())
				if err != nil {
					b.Fatal(err)
				}
				bytes, n = 0, 0
				for r.Next() {
					rec := r.RecordBatch()
					n += rec.NumRows()
					for _, col := range rec.Columns() {
						for _, buf := range col.Data().Buffers() {
							if buf != nil {
								bytes += int64(buf.Len())
							}
						}
					}
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				r.Release()
				if n != int64(rows) {
					b.Fatalf("%d rows, want %d", n, rows)
				}
			}
			b.SetBytes(bytes)
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
