package orc

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// BenchmarkScan reads whole fixture files from memory (no disk I/O) and
// reports rows/s; SetBytes is the file size, so MB/s is compressed input.
func BenchmarkScan(b *testing.B) {
	cases := []struct {
		name string
		file string
		opts ReadOptions
	}{
		{"demo12/all", "demo-12-zlib.orc", ReadOptions{}},
		{"demo12/2cols", "demo-12-zlib.orc", ReadOptions{Columns: []int{0, 1}}},
		{"seek/all", "TestOrcFile.testSeek.orc", ReadOptions{}},
		{"seek/2cols", "TestOrcFile.testSeek.orc", ReadOptions{ColumnNames: []string{"int1", "string1"}}},
		{"zstd/all", "TestVectorOrcFile.testZstd.0.12.orc", ReadOptions{}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			data, err := os.ReadFile(fixtures.Path(b, "orc", tc.file))
			if err != nil {
				b.Fatal(err)
			}
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			mem := memory.NewGoAllocator()
			opts := tc.opts
			opts.Mem = mem
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var rows int64
			for b.Loop() {
				rr, err := f.NewRecordReader(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				for rr.Next() {
					rows += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkScanGenerated scans a 5M-row file made by the test writer
// (10 flat columns: ints, string, double, boolean, timestamps, date,
// decimal; ZLIB, 20 stripes).
func BenchmarkScanGenerated(b *testing.B) {
	const rows = 5_000_000
	data := writeORC(b, testColumns(), rows, wopts{stripeRows: rows / 20, compression: CompressionZlib,
		blockSize: 256 << 10, tz: "UTC"})
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts ReadOptions
	}{
		{"all", ReadOptions{}},
		{"2cols", ReadOptions{ColumnNames: []string{"id", "name"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opts := tc.opts
			opts.Mem = memory.NewGoAllocator()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				rr, err := f.NewRecordReader(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				for rr.Next() {
					n += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkWrite writes 64K rows of writerSchema (every type, NULLs,
// nested columns) per iteration; SetBytes is the uncompressed encoded
// stream size, rows/s is reported, and peak allocator bytes bound the
// per-stripe memory.
func BenchmarkWrite(b *testing.B) {
	for _, codec := range []string{"none", "zstd", "zlib"} {
		b.Run(codec, func(b *testing.B) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			sc := writerSchema()
			const per, batches = 8192, 8
			recs := make([]arrow.RecordBatch, batches)
			for i := range recs {
				recs[i] = buildRows(mem, sc, i*per, per)
				defer recs[i].Release()
			}
			base := mem.CurrentAlloc()
			var size int64
			peak := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var buf bytes.Buffer
				w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: codec, StripeSize: 4 << 20})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range recs {
					if err := w.Write(r); err != nil {
						b.Fatal(err)
					}
					peak = max(peak, mem.CurrentAlloc()-base)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				size = int64(buf.Len())
			}
			b.ReportMetric(float64(per*batches*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "file-bytes")
			b.ReportMetric(float64(peak), "peak-alloc-bytes")
		})
	}
}
