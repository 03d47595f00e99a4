package orc

import (
	"bytes"
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkLakebenchColumns reads each lakebench column type alone from an
// ORC file written by Writer (ZSTD or uncompressed, 1M rows), so per-type costs show
// without the Paimon layer: ns/row and allocs per scan; "none" leaves
// decompression out, so only the column decoders are measured.
func BenchmarkLakebenchColumns(b *testing.B) {
	for _, codec := range []string{"zstd", "none"} {
		b.Run(codec, func(b *testing.B) { benchLakebenchColumns(b, codec) })
	}
}

func benchLakebenchColumns(b *testing.B, codec string) {
	const rows = 1_000_000
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	}, nil)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: codec})
	if err != nil {
		b.Fatal(err)
	}
	for lo := int64(0); lo < rows; lo += 65536 {
		rb := array.NewRecordBuilder(mem, sc)
		for i := lo; i < min(lo+65536, rows); i++ {
			rb.Field(0).(*array.Int64Builder).Append(i)
			rb.Field(1).(*array.Int32Builder).Append(int32(i % 1000))
			if i%97 == 0 {
				rb.Field(2).AppendNull()
			} else {
				rb.Field(2).(*array.Float64Builder).Append(float64(i%4001) * 0.25)
			}
			rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("s-%014d", i%50021))
			rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + i*1_000_000))
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	for ci, name := range []string{"id", "k", "v", "s", "ts"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				rr, err := f.NewRecordReader(context.Background(), ReadOptions{Columns: []int{ci}, Mem: mem, TimestampUnit: Microseconds})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rr.Next() {
					n += int(rr.RecordBatch().NumRows())
				}
				if err := rr.Err(); err != nil || n != rows {
					b.Fatal(n, err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
			// process CPU (GC included) is steadier than wall time on a shared machine
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/rows, "cpu-ns/row")
		})
	}
}

// processCPU is the process's user+system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
