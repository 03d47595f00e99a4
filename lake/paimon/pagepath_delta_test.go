package paimon

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestPlanPageColumnsDeltaStrings: files whose string columns are
// DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY (Parquet v2 writers) take
// the page path instead of going whole through pqarrow.
func TestPlanPageColumnsDeltaStrings(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	defer b.Release()
	for i := 0; i < 1000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("key-%06d", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, enc := range []parquet.Encoding{parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray} {
		var buf bytes.Buffer
		props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Zstd), parquet.WithEncodingFor("s", enc),
			parquet.WithEncodingFor("id", parquet.Encodings.DeltaBinaryPacked))
		w, err := pqarrow.NewFileWriter(sch, &buf, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		pc := planPageColumns("delta.parquet", pf, []int{0, 1}, []string{"id", "s"},
			[]arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, []int{0})
		if pc == nil {
			t.Errorf("%s: a file with %s strings is left to pqarrow", enc, enc)
		}
		pf.Close()
	}
}
