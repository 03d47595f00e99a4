package writer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// BenchmarkWriteAppend1M streams 1 M rows (BIGINT, STRING, DOUBLE) in
// 10 000-row batches into one Parquet data file of an append table and
// commits; MB/s counts the Arrow input bytes.
//
//	go test -run XXX -bench WriteAppend1M -benchtime 3x ./lake/paimon/writer
func BenchmarkWriteAppend1M(b *testing.B) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	fields := []paimon.DataField{{ID: 0, Name: "id", Type: i64(false)}, {ID: 1, Name: "name", Type: str(true)}, {ID: 2, Name: "v", Type: paimon.DataType{Root: paimon.Double, Nullable: true}}}
	sc, err := paimon.ArrowSchema(fields)
	if err != nil {
		b.Fatal(err)
	}
	const total, per = 1_000_000, 10_000
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	var bytes int64
	var batches []arrow.RecordBatch
	for base := 0; base < total; base += per {
		for i := base; i < base+per; i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%1000))
			rb.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
		}
		rec := rb.NewRecordBatch()
		for _, c := range rec.Columns() {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					bytes += int64(buf.Len())
				}
			}
		}
		batches = append(batches, rec)
	}
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	b.SetBytes(bytes)
	b.ResetTimer()
	var dur time.Duration
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "t")
		if err := writer.CreateTable(ctx, fileio.Local{}, path, &paimon.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1"}}, time.Now()); err != nil {
			b.Fatal(err)
		}
		w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		c := w.NewCommit()
		fw, err := c.NewFile(ctx, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range batches {
			if err := fw.Write(r, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := fw.Close(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Commit(ctx, nil); err != nil {
			b.Fatal(err)
		}
		dur += time.Since(start)
	}
	b.ReportMetric(float64(total*b.N)/dur.Seconds(), "rows/s")
}
