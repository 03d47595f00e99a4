package minifluss

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
)

// TestMetricsTruncate checks the string bounds against hand-derived
// truncations (16 characters; the upper bound's last character that can
// be incremented is, skipping the surrogates; none: the whole string).
func TestMetricsTruncate(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	top := string(rune(0x10FFFF))
	cases := []struct{ in, lo, hi string }{
		{"abc", "abc", "abc"},
		{a(16), a(16), a(16)},
		{a(17), a(16), a(15) + "b"},
		{a(16) + "é", a(16), a(15) + "b"},
		{strings.Repeat("é", 17), strings.Repeat("é", 16), strings.Repeat("é", 15) + "ê"},
		{a(15) + "\uD7FF" + "z", a(15) + "\uD7FF", a(15) + "\uE000"},
		{"a" + strings.Repeat(top, 15) + "z", "a" + strings.Repeat(top, 15), "b"},
		{strings.Repeat(top, 17), strings.Repeat(top, 16), strings.Repeat(top, 17)},
	}
	for _, c := range cases {
		if lo := truncateMin(c.in, 16); lo != c.lo {
			t.Errorf("truncateMin(%q) = %q, want %q", c.in, lo, c.lo)
		}
		if hi := truncateMax(c.in, 16); hi != c.hi {
			t.Errorf("truncateMax(%q) = %q, want %q", c.in, hi, c.hi)
		}
	}
}

// TestMetricsSerialize checks single values against the Iceberg spec's
// binary single-value serialization, derived by hand.
func TestMetricsSerialize(t *testing.T) {
	cases := []struct {
		typ   iceberg.Type
		v     any
		upper bool
		want  []byte
	}{
		{iceberg.PrimitiveTypes.Int32, int64(5), false, []byte{5, 0, 0, 0}},
		{iceberg.PrimitiveTypes.Int32, int64(-2), false, []byte{0xfe, 0xff, 0xff, 0xff}},
		{iceberg.PrimitiveTypes.Int64, int64(256), false, []byte{0, 1, 0, 0, 0, 0, 0, 0}},
		{iceberg.PrimitiveTypes.Date, int64(-1), false, []byte{0xff, 0xff, 0xff, 0xff}},
		{iceberg.PrimitiveTypes.Time, int64(1_000_000), false, []byte{0x40, 0x42, 0x0f, 0, 0, 0, 0, 0}},
		{iceberg.PrimitiveTypes.TimestampTz, int64(1), false, []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{iceberg.PrimitiveTypes.Float32, float64(1), false, []byte{0, 0, 0x80, 0x3f}},
		{iceberg.PrimitiveTypes.Float64, float64(-2), false, []byte{0, 0, 0, 0, 0, 0, 0, 0xc0}},
		{iceberg.PrimitiveTypes.Bool, true, false, []byte{1}},
		{iceberg.PrimitiveTypes.Bool, false, true, []byte{0}},
		// -1.50 as decimal(10,2): unscaled -150, two's complement big endian, fewest bytes.
		{iceberg.DecimalTypeOf(10, 2), decimal128.FromI64(-150), false, []byte{0xff, 0x6a}},
		{iceberg.DecimalTypeOf(10, 2), decimal128.FromI64(128), false, []byte{0x00, 0x80}},
		{iceberg.PrimitiveTypes.String, "n1-é", false, []byte("n1-é")},
		{iceberg.PrimitiveTypes.String, strings.Repeat("z", 17), true, []byte(strings.Repeat("z", 15) + "{")},
		{iceberg.PrimitiveTypes.Binary, "x", false, nil},
	}
	for _, c := range cases {
		got, err := serialize(c.typ, c.v, c.upper)
		if err != nil {
			t.Fatalf("%s %v: %v", c.typ, c.v, err)
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s %v: % x, want % x", c.typ, c.v, got, c.want)
		}
	}
}
