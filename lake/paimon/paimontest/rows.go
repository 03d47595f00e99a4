package paimontest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Rows builds a record batch of the table schema's Arrow form from rows of
// Go values (int for integer, DATE, TIMESTAMP and DECIMAL columns — the
// last two in their unit and unscaled —, string, []byte, bool, float64
// for FLOAT and DOUBLE, []int for ARRAY<INT>, nil for NULL), so reader and
// writer tests write their small inputs the same way.
func Rows(tb testing.TB, mem memory.Allocator, s *paimon.TableSchema, rows ...[]any) arrow.RecordBatch {
	tb.Helper()
	sch, err := paimon.ArrowSchema(s.Fields)
	if err != nil {
		tb.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, r := range rows {
		if len(r) != len(s.Fields) {
			tb.Fatalf("paimontest.Rows: row %v has %d values for %d columns", r, len(r), len(s.Fields))
		}
		for i, v := range r {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			case *array.Int8Builder:
				x.Append(int8(v.(int)))
			case *array.Int16Builder:
				x.Append(int16(v.(int)))
			case *array.Float32Builder:
				x.Append(float32(v.(float64)))
			case *array.Int32Builder:
				x.Append(int32(v.(int)))
			case *array.Int64Builder:
				x.Append(int64(v.(int)))
			case *array.StringBuilder:
				x.Append(v.(string))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.BinaryBuilder:
				x.Append(v.([]byte))
			case *array.Date32Builder:
				x.Append(arrow.Date32(v.(int)))
			case *array.TimestampBuilder:
				x.Append(arrow.Timestamp(v.(int)))
			case *array.Decimal128Builder:
				x.Append(decimal128.FromI64(int64(v.(int))))
			case *array.ListBuilder:
				x.Append(true)
				for _, e := range v.([]int) {
					x.ValueBuilder().(*array.Int32Builder).Append(int32(e))
				}
			default:
				tb.Fatalf("paimontest.Rows: column %d: unsupported builder %T", i, fb)
			}
		}
	}
	return b.NewRecordBatch()
}
