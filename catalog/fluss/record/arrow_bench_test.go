package record_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// benchCols is a realistic 8-column event table.
var benchCols = []typemap.Column{
	{Name: "id", Type: typemap.BigInt().NotNull()},
	{Name: "ts", Type: typemap.TimestampLTZ(3)},
	{Name: "user", Type: typemap.String()},
	{Name: "amount", Type: typemap.Decimal(12, 2)},
	{Name: "qty", Type: typemap.Int()},
	{Name: "price", Type: typemap.Double()},
	{Name: "flag", Type: typemap.Boolean()},
	{Name: "note", Type: typemap.String()},
}

const benchRows = 4096

func benchRecord(tb testing.TB, mem memory.Allocator) arrow.RecordBatch {
	schema, err := typemap.ArrowSchema(benchCols)
	if err != nil {
		tb.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range benchRows {
		b.Field(0).(*array.Int64Builder).Append(int64(1_000_000 + i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(i)*37))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("user-%06d", i%5000))
		b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*137) % 1_000_000))
		b.Field(4).(*array.Int32Builder).Append(int32(i % 17))
		b.Field(5).(*array.Float64Builder).Append(float64(i%1000) * 0.25)
		b.Field(6).(*array.BooleanBuilder).Append(i%3 == 0)
		if i%7 == 0 {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("note for order %d: shipped via lane %d", i, i%11))
		}
	}
	return b.NewRecordBatch()
}

// BenchmarkArrowDecode measures ARROW log batch decoding (header, CRC-32C,
// change types, body copy or decompression, array construction and
// validation) on one 4096-row, 8-column batch. MB/s is of batch bytes.
func BenchmarkArrowDecode(b *testing.B) {
	for _, c := range []struct {
		name string
		comp record.ArrowCompression
	}{{"none", record.CompressionNone}, {"zstd", record.CompressionZstd}, {"lz4", record.CompressionLZ4Frame}} {
		b.Run(c.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			rec := benchRecord(b, mem)
			defer rec.Release()
			enc, err := record.NewArrowEncoder(c.comp, 0)
			if err != nil {
				b.Fatal(err)
			}
			cts := make([]record.ChangeType, benchRows)
			for i := range cts {
				cts[i] = record.Insert
			}
			batch, err := enc.AppendBatch(nil, record.BatchParams{WriterID: -1, BatchSequence: -1}, rec, cts)
			enc.Close()
			if err != nil {
				b.Fatal(err)
			}
			d, err := record.NewArrowDecoder(benchCols, mem, record.ArrowOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				lb, err := record.DecodeLogBatch(batch, record.DecodeOptions{})
				if err != nil {
					b.Fatal(err)
				}
				out, _, err := d.Decode(&lb)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(len(batch)), "batch-bytes")
		})
	}
}

// BenchmarkArrowEncode measures the encoder the emulator uses.
func BenchmarkArrowEncode(b *testing.B) {
	for _, c := range []struct {
		name string
		comp record.ArrowCompression
	}{{"none", record.CompressionNone}, {"zstd", record.CompressionZstd}} {
		b.Run(c.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			rec := benchRecord(b, mem)
			defer rec.Release()
			enc, err := record.NewArrowEncoder(c.comp, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer enc.Close()
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf, err = enc.AppendBatch(buf[:0], record.BatchParams{WriterID: -1, BatchSequence: -1}, rec, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkCompactedLogDecode measures COMPACTED batches into Arrow.
func BenchmarkCompactedLogDecode(b *testing.B) {
	mem := memory.NewGoAllocator()
	rows := make([][]any, benchRows)
	for i := range rows {
		rows[i] = []any{int64(i), record.Timestamp{Millis: 1_700_000_000_000 + int64(i)}, fmt.Sprintf("user-%06d", i),
			decimal128.FromI64(int64(i)), int32(i % 17), float64(i) / 4, i%3 == 0, "note for order"}
	}
	batch, err := record.AppendRowLogBatch(nil, record.BatchParams{WriterID: -1, BatchSequence: -1}, record.RowCompacted, record.Types(benchCols), rows, nil)
	if err != nil {
		b.Fatal(err)
	}
	d, err := record.NewRowDecoder(benchCols, record.RowCompacted, mem)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		lb, err := record.DecodeLogBatch(batch, record.DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		out, _, err := d.DecodeLogBatch(&lb)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
