package arrowval

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestValue reads one non-NULL cell and one NULL cell of every type in both
// forms. Expected values are derived by hand from the stored numbers.
func TestValue(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	tsNano := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	cases := []struct {
		name         string
		typ          arrow.DataType
		json         string // [value, null]
		exact, widen any
	}{
		{"bool", arrow.FixedWidthTypes.Boolean, `[true, null]`, true, true},
		{"int8", arrow.PrimitiveTypes.Int8, `[-8, null]`, int8(-8), int64(-8)},
		{"int16", arrow.PrimitiveTypes.Int16, `[-16, null]`, int16(-16), int64(-16)},
		{"int32", arrow.PrimitiveTypes.Int32, `[-32, null]`, int32(-32), int64(-32)},
		{"int64", arrow.PrimitiveTypes.Int64, `[-64, null]`, int64(-64), int64(-64)},
		{"uint16", arrow.PrimitiveTypes.Uint16, `[65535, null]`, uint16(65535), int64(65535)},
		{"float32", arrow.PrimitiveTypes.Float32, `[1.5, null]`, float32(1.5), float64(1.5)},
		{"float64", arrow.PrimitiveTypes.Float64, `[-2.25, null]`, -2.25, -2.25},
		{"string", arrow.BinaryTypes.String, `["añ", null]`, "añ", "añ"},
		{"large string", arrow.BinaryTypes.LargeString, `["x", null]`, "x", "x"},
		// Binary JSON is base64: "AQI=" is 0x01 0x02.
		{"binary", arrow.BinaryTypes.Binary, `["AQI=", null]`, []byte{1, 2}, "\x01\x02"},
		{"fixed binary", &arrow.FixedSizeBinaryType{ByteWidth: 2}, `["AQI=", null]`, []byte{1, 2}, "\x01\x02"},
		{"decimal", &arrow.Decimal128Type{Precision: 10, Scale: 2}, `["-123.45", null]`,
			Decimal{Unscaled: decimal128.FromI64(-12345), Scale: 2}, decimal128.FromI64(-12345)},
		{"date32", arrow.FixedWidthTypes.Date32, `[-1, null]`, int32(-1), arrow.Date32(-1)},
		// -1 ms is the day before the epoch.
		{"date64", arrow.FixedWidthTypes.Date64, `[-1, null]`, int32(-1), arrow.Date32(-1)},
		{"time32 s", arrow.FixedWidthTypes.Time32s, `[3661, null]`, int32(3661000), arrow.Time64(3661000000)},
		{"time32 ms", arrow.FixedWidthTypes.Time32ms, `[1234, null]`, int32(1234), arrow.Time64(1234000)},
		{"time64 us", arrow.FixedWidthTypes.Time64us, `[1234567, null]`, int32(1234), arrow.Time64(1234567)},
		{"time64 ns", arrow.FixedWidthTypes.Time64ns, `[1234567891, null]`, int32(1234), arrow.Time64(1234567)},
		// 1 ns before the epoch: the millisecond is -1, 999999 ns into it.
		{"timestamp ns before epoch", tsNano, `["1969-12-31T23:59:59.999999999Z", null]`,
			Timestamp{Millis: -1, NanoOfMilli: 999999}, arrow.Timestamp(0)},
		{"timestamp us", &arrow.TimestampType{Unit: arrow.Microsecond}, `[1500, null]`,
			Timestamp{Millis: 1, NanoOfMilli: 500000}, arrow.Timestamp(1500)},
		{"timestamp s zone", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Asia/Shanghai"}, `[2, null]`,
			Timestamp{Millis: 2000}, arrow.Timestamp(2000000)},
		{"list", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, null, 3], null]`,
			[]any{int32(1), nil, int32(3)}, []any{int64(1), nil, int64(3)}},
		{"empty list", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[], null]`, []any{}, []any{}},
		{"map", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int16), `[[{"key": "a", "value": 1}, {"key": "b", "value": null}], null]`,
			Map{Keys: []any{"a", "b"}, Values: []any{int16(1), nil}}, Map{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}},
		{"struct", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true}, arrow.Field{Name: "y", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}),
			`[{"x": null, "y": ["q"]}, null]`, []any{nil, []any{"q"}}, []any{nil, []any{"q"}}},
	}
	for _, c := range cases {
		arr, _, err := array.FromJSON(mem, c.typ, stringsReader(c.json))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, form := range []struct {
			o    *Options
			want any
		}{{nil, c.exact}, {&Options{Widen: true}, c.widen}} {
			got, err := Value(arr, 0, form.o)
			if err != nil || !reflect.DeepEqual(got, form.want) {
				t.Errorf("%s (widen=%v): got %#v, %v; want %#v", c.name, form.o != nil, got, err, form.want)
			}
			if got, err := Value(arr, 1, form.o); got != nil || err != nil {
				t.Errorf("%s: NULL read as %#v, %v", c.name, got, err)
			}
		}
		arr.Release()
	}
}

// TestOptions checks that the caller's own types are built at every level.
func TestOptions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	type myTS struct {
		Millis      int64
		NanoOfMilli int32
	}
	type myMap struct{ Keys, Values []any }
	o := &Options{
		Decimal:   func(d Decimal) any { return d.Unscaled.BigInt().String() + "e-" + string(rune('0'+d.Scale)) },
		Timestamp: func(ts Timestamp) any { return myTS(ts) },
		Map:       func(m Map) any { return myMap(m) },
	}
	typ := arrow.ListOf(arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.StructOf(
		arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 5, Scale: 3}, Nullable: true},
		arrow.Field{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true})))
	arr, _, err := array.FromJSON(mem, typ, stringsReader(`[[[{"key": 7, "value": {"d": "1.250", "t": -5}}]]]`))
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	got, err := Value(arr, 0, o)
	want := []any{myMap{Keys: []any{int32(7)}, Values: []any{[]any{"1250e-3", myTS{Millis: -5}}}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, %v; want %#v", got, err, want)
	}
}

func TestUnsupported(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewMonthIntervalBuilder(mem)
	b.Append(3)
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	for _, o := range []*Options{nil, {Widen: true}} {
		if _, err := Value(arr, 0, o); !errors.Is(err, ErrUnsupported) || err.Error() != "arrowval: unsupported Arrow type: month_interval" {
			t.Errorf("got %v", err)
		}
	}
}

// TestSlot reads a NULL row's stored slot, as vectorized loops do.
func TestSlot(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{5, 9}, []bool{true, false})
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	if v, err := Slot(arr, 1, &Options{Widen: true}); err != nil || v != int64(9) {
		t.Errorf("slot of NULL row: %#v, %v", v, err)
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
