package render

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestFloat(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-2.5, "-2.5"}, {100, "100"},
		{add(0.1, 0.2), "0.30000000000000004"}, {1234567, "1234567"}, {1e15, "1000000000000000"},
		{1e16, "1e+16"}, {1.5e-5, "0.000015"}, {1e-6, "1e-06"}, {123456789.125, "123456789.125"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		if got := FormatFloat64(c.f); got != c.want {
			t.Errorf("FormatFloat64(%v) = %s, want %s", c.f, got, c.want)
		}
	}
	if got := FormatFloat32(0.1); got != "0.1" {
		t.Errorf("FormatFloat32(0.1) = %s", got)
	}
	if got := FormatFloat32(3.4e38); got != "3.4e+38" {
		t.Errorf("FormatFloat32(3.4e38) = %s", got)
	}
}

func TestDatetime(t *testing.T) {
	us := int64(1704164645_000123) // 2024-01-02 03:04:05.000123
	cases := []struct {
		us    int64
		scale int
		want  string
	}{
		{us, 6, "2024-01-02 03:04:05.000123"},
		{us, 3, "2024-01-02 03:04:05.000"},
		{us, 0, "2024-01-02 03:04:05"},
		{-1, 6, "1969-12-31 23:59:59.999999"},
		{-62135596800_000000, 0, "0001-01-01 00:00:00"},
	}
	for _, c := range cases {
		if got := FormatDatetime(c.us, c.scale); got != c.want {
			t.Errorf("FormatDatetime(%d, %d) = %s, want %s", c.us, c.scale, got, c.want)
		}
	}
	if got := FormatDate(19724); got != "2024-01-02" {
		t.Errorf("FormatDate = %s", got)
	}
	if got := FormatDate(-719162); got != "0001-01-01" {
		t.Errorf("FormatDate(min) = %s", got)
	}
}

func TestAppendValueTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	build := func(dt arrow.DataType, fill func(b array.Builder)) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		fill(b)
		return b.NewArray()
	}
	dec := func(s string, scale int32) decimal128.Num {
		n, err := decimal128.FromString(s, 38, scale)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	mapT := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	structT := arrow.StructOf(arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "g", Type: arrow.BinaryTypes.String}, arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32})
	cases := []struct {
		name string
		arr  arrow.Array
		want []string // "NULL" = SQL NULL
	}{
		{"bool", build(arrow.FixedWidthTypes.Boolean, func(b array.Builder) {
			b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
			b.AppendNull()
		}), []string{"1", "0", "NULL"}},
		{"int8", build(arrow.PrimitiveTypes.Int8, func(b array.Builder) { b.(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil) }), []string{"-128", "127"}},
		{"uint64", build(arrow.PrimitiveTypes.Uint64, func(b array.Builder) { b.(*array.Uint64Builder).Append(math.MaxUint64) }), []string{"18446744073709551615"}},
		{"decimal", build(&arrow.Decimal128Type{Precision: 10, Scale: 3}, func(b array.Builder) {
			db := b.(*array.Decimal128Builder)
			db.Append(dec("1.5", 3))
			db.Append(dec("-0.001", 3))
			db.Append(dec("0", 3))
		}), []string{"1.500", "-0.001", "0.000"}},
		{"decimal scale 0", build(&arrow.Decimal128Type{Precision: 38, Scale: 0}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(dec("12345678901234567890123456789", 0))
		}), []string{"12345678901234567890123456789"}},
		{"double", build(arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).AppendValues([]float64{1.0, 2.25}, nil) }), []string{"1", "2.25"}},
		{"string", build(arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"", `a"b`}, nil) }), []string{"", `a"b`}},
		{"date", build(arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).Append(19724) }), []string{"2024-01-02"}},
		{"datetime(6)", build(&arrow.TimestampType{Unit: arrow.Microsecond}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(1704164645_000000)
		}), []string{"2024-01-02 03:04:05.000000"}},
		{"datetime", build(&arrow.TimestampType{Unit: arrow.Second}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1704164645) }), []string{"2024-01-02 03:04:05"}},
		{"datetime(3)", build(&arrow.TimestampType{Unit: arrow.Millisecond}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1704164645_120) }), []string{"2024-01-02 03:04:05.120"}},
		{"time(3)", build(&arrow.Time32Type{Unit: arrow.Millisecond}, func(b array.Builder) {
			b.(*array.Time32Builder).AppendValues([]arrow.Time32{3_723_004, 0}, nil)
		}), []string{"01:02:03.004", "00:00:00.000"}},
		{"time(0)", build(&arrow.Time32Type{Unit: arrow.Second}, func(b array.Builder) { b.(*array.Time32Builder).Append(86399) }), []string{"23:59:59"}},
		{"time(6)", build(arrow.FixedWidthTypes.Time64us, func(b array.Builder) { b.(*array.Time64Builder).Append(1_000_001) }), []string{"00:00:01.000001"}},
		{"time(9)", build(arrow.FixedWidthTypes.Time64ns, func(b array.Builder) { b.(*array.Time64Builder).Append(1_000_001_999) }), []string{"00:00:01.000001"}},
		{"binary(2)", build(&arrow.FixedSizeBinaryType{ByteWidth: 2}, func(b array.Builder) { b.(*array.FixedSizeBinaryBuilder).Append([]byte("hi")) }), []string{"hi"}},
		{"datetime(9)", build(&arrow.TimestampType{Unit: arrow.Nanosecond}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(-1) }), []string{"1969-12-31 23:59:59.999999"}},
		{"date64", build(arrow.FixedWidthTypes.Date64, func(b array.Builder) { b.(*array.Date64Builder).Append(86_400_000) }), []string{"1970-01-02"}},
		{"float32", build(arrow.PrimitiveTypes.Float32, func(b array.Builder) { b.(*array.Float32Builder).Append(0.1) }), []string{"0.1"}},
		{"large string", build(arrow.BinaryTypes.LargeString, func(b array.Builder) { b.(*array.LargeStringBuilder).Append("big") }), []string{"big"}},
		{"array<time>", build(arrow.ListOf(&arrow.Time32Type{Unit: arrow.Second}), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Time32Builder).Append(61)
		}), []string{`["00:01:01"]`}},
		{"array", build(arrow.ListOf(arrow.PrimitiveTypes.Int64), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Int64Builder)
			lb.Append(true)
			vb.AppendValues([]int64{1, 2}, nil)
			vb.AppendNull()
			lb.Append(true)
			lb.AppendNull()
		}), []string{"[1, 2, null]", "[]", "NULL"}},
		{"array<string>", build(arrow.ListOf(arrow.BinaryTypes.String), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", `q"`}, nil)
		}), []string{`["a", "q\""]`}},
		{"array<date>", build(arrow.ListOf(arrow.FixedWidthTypes.Date32), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Date32Builder).Append(19724)
		}), []string{`["2024-01-02"]`}},
		{"map", build(mapT, func(b array.Builder) {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).AppendValues([]string{"k", "k2"}, nil)
			ib := mb.ItemBuilder().(*array.Int32Builder)
			ib.Append(1)
			ib.AppendNull()
			mb.AppendNull()
		}), []string{`{"k":1, "k2":null}`, "NULL"}},
		{"struct", build(structT, func(b array.Builder) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(1)
			sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
			sb.FieldBuilder(2).(*array.Date32Builder).Append(0)
			sb.AppendNull()
		}), []string{`{"f":1, "g":"x", "d":"1970-01-01"}`, "NULL"}},
	}
	for _, c := range cases {
		for i, w := range c.want {
			got := String(c.arr, i)
			if got != w {
				t.Errorf("%s[%d] = %s, want %s", c.name, i, got, w)
			}
			b, ok := AppendValue([]byte("x"), c.arr, i)
			if ok != (w != "NULL") || (ok && string(b) != "x"+w) {
				t.Errorf("%s[%d]: AppendValue = %q, %v", c.name, i, b, ok)
			}
		}
		c.arr.Release()
	}
}

// add defeats constant folding, which would compute 0.1+0.2 exactly.
func add(a, b float64) float64 { return a + b }
