package record_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// fillAllTypes appends n deterministic rows to every column of b, with a
// null every 5th row in nullable columns.
func fillAllTypes(b *array.RecordBuilder, n int) {
	for ci, f := range b.Schema().Fields() {
		for r := range n {
			fillValue(b.Field(ci), f, r, ci)
		}
	}
}

func fillValue(bld array.Builder, f arrow.Field, r, salt int) {
	if f.Nullable && (r+salt)%5 == 0 {
		bld.AppendNull()
		return
	}
	switch bb := bld.(type) {
	case *array.BooleanBuilder:
		bb.Append(r%2 == 0)
	case *array.Int8Builder:
		bb.Append(int8(r - 10))
	case *array.Int16Builder:
		bb.Append(int16(r * -300))
	case *array.Int32Builder:
		bb.Append(int32(r*1000 - 7))
	case *array.Int64Builder:
		bb.Append(int64(r) * -1234567891)
	case *array.Float32Builder:
		bb.Append(float32(r) / 3)
	case *array.Float64Builder:
		bb.Append(float64(r) * 1.5)
	case *array.StringBuilder:
		bb.Append(fmt.Sprintf("v%d-%s", r, string(rune('a'+r%26))))
	case *array.BinaryBuilder:
		bb.Append([]byte{byte(r), 0xff, byte(r * 3)})
	case *array.FixedSizeBinaryBuilder:
		bb.Append([]byte{byte(r), byte(r + 1)})
	case *array.Decimal128Builder:
		bb.Append(decimal128.FromI64(int64(r)*1000003 - 50))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(19000 + r))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(r * 1000))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(r * 1000000))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(1700000000000 + int64(r)*1001))
	case *array.MapBuilder:
		bb.Append(true)
		mt := f.Type.(*arrow.MapType)
		for k := range r % 3 {
			fillValue(bb.KeyBuilder(), mt.KeyField(), r*10+k, 1)
			fillValue(bb.ItemBuilder(), mt.ItemField(), r+k, salt+k)
		}
	case *array.ListBuilder:
		bb.Append(true)
		lt := f.Type.(*arrow.ListType)
		for k := range r % 4 {
			fillValue(bb.ValueBuilder(), lt.ElemField(), r+k, salt+k+1)
		}
	case *array.StructBuilder:
		bb.Append(true)
		st := f.Type.(*arrow.StructType)
		for i, cf := range st.Fields() {
			fillValue(bb.FieldBuilder(i), cf, r, salt+i+1)
		}
	default:
		panic(fmt.Sprintf("fillValue: builder %T", bld))
	}
}
