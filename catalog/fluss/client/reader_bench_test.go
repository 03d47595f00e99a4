package client

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/minifluss"
)

// BenchmarkLogReaderEmulator reads one bucket of an ARROW log table
// (200k rows of (BIGINT, STRING, DOUBLE) in 1000-row batches) from the
// minifluss emulator over loopback TCP. Reports rows/s; SetBytes uses the
// fetched log bytes so MB/s is wire throughput.
func BenchmarkLogReaderEmulator(b *testing.B) {
	emu, err := minifluss.Start(context.Background(), minifluss.Config{DataDir: b.TempDir(), TabletServers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer emu.Close()
	ctx := context.Background()
	if err := emu.CreateDatabase(ctx, "db"); err != nil {
		b.Fatal(err)
	}
	info, err := emu.CreateTable(ctx, logSpec("bench", 1, nil))
	if err != nil {
		b.Fatal(err)
	}
	// INLET_BENCH_LOG_ROWS sets the table size (default 200k rows; the
	// closing-note figure uses 1M).
	batches, size := 200, 1000
	if v, err := strconv.Atoi(os.Getenv("INLET_BENCH_LOG_ROWS")); err == nil && v >= size {
		batches = v / size
	}
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
	f, _ := ti.Descriptor.LogFormat()
	cols := ti.Descriptor.Schema.TypeColumns()
	// Wire bytes: one full fetch sequence measured up front.
	var wire int64
	for off := int64(0); off < int64(batches*size); {
		res, err := cl.FetchLog(ctx, FetchRequest{Bucket: TableBucket{Table: ti.Path, TableID: info.ID}, Offset: off, MaxBytes: 4 << 20})
		if err != nil {
			b.Fatal(err)
		}
		wire += int64(len(res.Records))
		off = nextOffsetAfter(res.Records, off)
	}
	b.SetBytes(wire)
	b.ResetTimer()
	start := time.Now()
	var rows int64
	for i := 0; i < b.N; i++ {
		lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: ti.Path, TableID: info.ID}, Start: 0, Stop: int64(batches * size), Columns: cols, Format: f}, memory.NewGoAllocator())
		if err != nil {
			b.Fatal(err)
		}
		for lr.Next() {
			rows += lr.RecordBatch().NumRows()
		}
		if lr.Err() != nil {
			b.Fatal(lr.Err())
		}
		lr.Release()
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
}

// nextOffsetAfter returns the offset after the last whole batch in blob.
func nextOffsetAfter(blob []byte, off int64) int64 {
	it := record.ReadBatches(blob, record.DecodeOptions{SkipCRC: true})
	for it.Next() {
		off = it.Batch().Header.NextOffset()
	}
	return off
}

// BenchmarkPKReaderEmulator reads one primary-key bucket of 100k keys from
// the emulator over loopback: SCAN_KV paging (4 MiB pages) and value-batch
// decoding into Arrow. The emulator's scan sits at the high watermark, so
// the changelog tail is empty here; the merge is measured by the tests.
func BenchmarkPKReaderEmulator(b *testing.B) {
	emu, err := minifluss.Start(context.Background(), minifluss.Config{DataDir: b.TempDir(), TabletServers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer emu.Close()
	ctx := context.Background()
	if err := emu.CreateDatabase(ctx, "db"); err != nil {
		b.Fatal(err)
	}
	if _, err := emu.CreateTable(ctx, pkSpec("pkb", 1)); err != nil {
		b.Fatal(err)
	}
	const keys = 100_000
	for i := 0; i < keys; i += 1000 {
		rows := make([][]any, 1000)
		for r := range rows {
			rows[r] = []any{int32(i + r), fmt.Sprintf("name-%08d", i+r), int64(i + r)}
		}
		if err := emu.Upsert(ctx, "db", "pkb", rows); err != nil {
			b.Fatal(err)
		}
	}
	cfg, _ := ConfigFromProperties(map[string]string{PropBootstrapServers: emu.BootstrapAddr()})
	cl, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ti, err := cl.GetTableInfo(ctx, TablePath{"db", "pkb"})
	if err != nil {
		b.Fatal(err)
	}
	lf, _ := ti.Descriptor.LogFormat()
	kf, _ := ti.Descriptor.KvFormat()
	r := PKRange{Bucket: TableBucket{Table: ti.Path, TableID: ti.TableID}, Columns: ti.Descriptor.Schema.TypeColumns(), SchemaID: ti.SchemaID,
		PrimaryKey: []int{0}, KvFormat: kf, LogFormat: lf, Stop: -1}
	b.ResetTimer()
	start := time.Now()
	var rows int64
	for i := 0; i < b.N; i++ {
		pr, err := cl.NewPKReader(ctx, r, memory.NewGoAllocator())
		if err != nil {
			b.Fatal(err)
		}
		for pr.Next() {
			rows += pr.RecordBatch().NumRows()
		}
		if pr.Err() != nil {
			b.Fatal(pr.Err())
		}
		pr.Release()
	}
	if rows != int64(b.N)*keys {
		b.Fatalf("read %d rows, want %d", rows, int64(b.N)*keys)
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
}
