package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// LARGEINT's range is exactly int128: both ends parse, one past either end
// does not, and a sum that wraps 128 bits is detected.
func TestLargeIntRangeHelpers(t *testing.T) {
	const maxV, minV = "170141183460469231731687303715884105727", "-170141183460469231731687303715884105728"
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{maxV, true}, {minV, true}, {"0", true}, {" -1 ", true},
		{"170141183460469231731687303715884105728", false},
		{"-170141183460469231731687303715884105729", false},
		{"1.5", false}, {"", false}, {"x", false},
	} {
		n, ok := ParseLargeInt(c.s)
		if ok != c.ok {
			t.Errorf("ParseLargeInt(%q) ok = %v, want %v", c.s, ok, c.ok)
			continue
		}
		if ok && formatValue(n, LargeIntT()) != strings.TrimSpace(c.s) {
			t.Errorf("ParseLargeInt(%q) = %s", c.s, formatValue(n, LargeIntT()))
		}
	}
	hi, _ := ParseLargeInt(maxV)
	lo, _ := ParseLargeInt(minV)
	one := decimal128.FromI64(1)
	for _, c := range []struct {
		l, r decimal128.Num
		sub  bool
		want bool
	}{
		{hi, one, false, true},                    // max + 1
		{lo, one, true, true},                     // min - 1
		{hi, lo, false, false},                    // max + min = -1
		{lo, one.Negate(), false, true},           // min + (-1)
		{hi, one.Negate(), true, true},            // max - (-1)
		{decimal128.FromI64(0), lo, true, true},   // 0 - min
		{decimal128.FromI64(-1), lo, true, false}, // -1 - min = max
	} {
		res := c.l.Add(c.r)
		if c.sub {
			res = c.l.Sub(c.r)
		}
		if got := AddOverflows(c.l, c.r, res, c.sub); got != c.want {
			t.Errorf("AddOverflows(%s, %s, sub=%v) = %v, want %v", c.l.BigInt(), c.r.BigInt(), c.sub, got, c.want)
		}
	}
	if TypeName(LargeIntT()) != "largeint" || !IsLargeInt(LargeIntT()) || IsLargeInt(DecimalT(38, 0)) {
		t.Errorf("LARGEINT must be told apart from DECIMAL(38,0)")
	}
}
