package streamload

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFastAppenders checks each fast parser against values worked out by
// hand (and, for date-times, against the time package).
func TestFastAppenders(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	wall := func(s string) int64 {
		tm, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMicro()
	}
	tests := []struct {
		typ  arrow.DataType
		in   string
		want string // "" = refused
	}{
		{arrow.PrimitiveTypes.Int8, "127", "127"},
		{arrow.PrimitiveTypes.Int8, "128", ""},
		{arrow.PrimitiveTypes.Int8, " -128 ", "-128"},
		{arrow.PrimitiveTypes.Int32, "1.5", ""},
		{arrow.PrimitiveTypes.Int32, "+42", "42"},
		{arrow.PrimitiveTypes.Int32, "4x", ""},
		{arrow.PrimitiveTypes.Int64, "9223372036854775807", "9223372036854775807"},
		{arrow.PrimitiveTypes.Int64, "-9223372036854775808", "-9223372036854775808"},
		{arrow.PrimitiveTypes.Int64, "9223372036854775808", ""},
		{arrow.PrimitiveTypes.Float64, "1e3", "1000"},
		{arrow.PrimitiveTypes.Float64, "inf", ""},
		{arrow.PrimitiveTypes.Float32, "0.5", "0.5"},
		{dec, "123.45", "123.45"},
		{dec, "-0.5", "-0.5"},
		{dec, "123.450", "123.45"},
		{dec, "123.456", ""},
		{dec, "1234.5", ""},
		{dec, ".5", "0.5"},
		{dec, "1.5e1", "15"},
		{dec, "abc", ""},
		{arrow.FixedWidthTypes.Boolean, "TRUE", "true"},
		{arrow.FixedWidthTypes.Boolean, "0", "false"},
		{arrow.FixedWidthTypes.Boolean, "yes", ""},
		{arrow.FixedWidthTypes.Date32, "2024-02-29", "2024-02-29"},
		{arrow.FixedWidthTypes.Date32, "2023-02-29", ""},
		{arrow.FixedWidthTypes.Date32, "20240102", "2024-01-02"},
		{arrow.FixedWidthTypes.Date32, "2024/1/2 10:00:00", "2024-01-02"},
		// The 'YYYY-MM-DD' fast path: the same rules as the general one.
		{arrow.FixedWidthTypes.Date32, " 1969-12-31 ", "1969-12-31"},
		{arrow.FixedWidthTypes.Date32, "1900-02-29", ""},
		{arrow.FixedWidthTypes.Date32, "2000-02-29", "2000-02-29"},
		{arrow.FixedWidthTypes.Date32, "0001-01-01", "0001-01-01"},
		{arrow.FixedWidthTypes.Date32, "9999-12-31", "9999-12-31"},
		{arrow.FixedWidthTypes.Date32, "2024-13-01", ""},
		{arrow.FixedWidthTypes.Date32, "2024-04-31", ""},
		{arrow.FixedWidthTypes.Date32, "2024-04-00", ""},
		{arrow.FixedWidthTypes.Date32, "2024-0a-01", ""},
		{arrow.FixedWidthTypes.Date32, "2024-01-1x", ""},
		{&arrow.TimestampType{Unit: arrow.Second}, "1969-12-31 23:59:59", "1969-12-31 23:59:59"},
		{&arrow.TimestampType{Unit: arrow.Second}, "2024-01-02T03:04:05.9", "2024-01-02 03:04:05"},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, "2024-01-02 03:04:05.123456789", "2024-01-02 03:04:05.123456"},
		{&arrow.TimestampType{Unit: arrow.Second}, "2024-01-02 24:00:00", ""},
		{&arrow.TimestampType{Unit: arrow.Second}, "2024-01-02 03:04", "2024-01-02 03:04:00"},
		{&arrow.TimestampType{Unit: arrow.Second}, "2024-01-02 03", ""},
		{&arrow.TimestampType{Unit: arrow.Second}, "0001-01-01 00:00:00", "0001-01-01 00:00:00"},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range tests {
		b := array.NewBuilder(mem, tc.typ)
		ok := fastAppender(tc.typ)(b, []byte(tc.in))
		a := b.NewArray()
		b.Release()
		got := ""
		if ok {
			switch x := a.(type) {
			case *array.Timestamp:
				unit := tc.typ.(*arrow.TimestampType).Unit
				got = x.Value(0).ToTime(unit).UTC().Format("2006-01-02 15:04:05.999999")
				if unit == arrow.Second && wall(got) != int64(x.Value(0))*1e6 {
					t.Errorf("%q: %d is not %s", tc.in, x.Value(0), got)
				}
			case *array.Date32:
				got = x.Value(0).ToTime().Format("2006-01-02")
			default:
				got = a.ValueStr(0)
			}
		}
		a.Release()
		if got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.typ, tc.in, got, tc.want)
		}
	}
}
