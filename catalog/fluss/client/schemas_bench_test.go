package client

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// BenchmarkLogReaderSchemaEvolution reads 200k rows of an ARROW log table
// over loopback TCP, written in 1000-row batches, with the table's schema
// ("same") and after ALTER TABLE ADD COLUMN ("evolved": every batch is of
// the older schema id, decoded with it and mapped by column id, the new
// column NULL). Reports rows/s; the difference is the cost of evolution.
func BenchmarkLogReaderSchemaEvolution(b *testing.B) {
	for _, evolved := range []bool{false, true} {
		name := "same"
		if evolved {
			name = "evolved"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			emu, err := minifluss.Start(ctx, minifluss.Config{DataDir: b.TempDir(), TabletServers: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer emu.Close()
			if err := emu.CreateDatabase(ctx, "db"); err != nil {
				b.Fatal(err)
			}
			if _, err := emu.CreateTable(ctx, logSpec("bench", 1, nil)); err != nil {
				b.Fatal(err)
			}
			const batches, size = 200, 1000
			for i := 0; i < batches; i++ {
				rows := make([][]any, size)
				for r := range rows {
					id := i*size + r
					rows[r] = []any{int64(id), fmt.Sprintf("name-%08d", id), float64(id)}
				}
				if err := emu.AppendToBucket(ctx, "db", "bench", 0, rows); err != nil {
					b.Fatal(err)
				}
			}
			if evolved {
				if _, err := emu.AddColumns(ctx, "db", "bench", []minifluss.Column{{Name: "extra", Type: typemap.String()}}); err != nil {
					b.Fatal(err)
				}
			}
			cfg, _ := ConfigFromProperties(map[string]string{PropBootstrapServers: emu.BootstrapAddr(), PropFetchBucketBytes: "4mb"})
			cl, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			ti, err := cl.GetTableInfo(ctx, TablePath{"db", "bench"})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			var rows int64
			for i := 0; i < b.N; i++ {
				lr, err := ti.LogRange(nil, 0, 0, batches*size)
				if err != nil {
					b.Fatal(err)
				}
				rd, err := cl.NewLogReader(ctx, lr, memory.NewGoAllocator())
				if err != nil {
					b.Fatal(err)
				}
				for rd.Next() {
					rec := rd.RecordBatch()
					if int(rec.NumCols()) != len(lr.Columns) {
						b.Fatalf("%d columns", rec.NumCols())
					}
					rows += rec.NumRows()
				}
				if rd.Err() != nil {
					b.Fatal(rd.Err())
				}
				rd.Release()
			}
			b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
		})
	}
}
