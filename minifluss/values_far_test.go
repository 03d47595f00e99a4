package minifluss

import (
	"testing"

	"github.com/inlet-db/inlet/typemap"
)

// TestCoerceTimestampFarFromEpoch: timestamps outside 1678..2262 (where
// int64 nanoseconds overflow) keep their value. Expected milliseconds are
// hand-derived (proleptic Gregorian days × 86,400,000).
func TestCoerceTimestampFarFromEpoch(t *testing.T) {
	cases := []struct {
		in     string
		millis int64
		nano   int32
	}{
		{"1500-01-01 00:00:00", -14831769600000, 0},
		{"2500-06-01 12:00:00", 16738315200000, 0},
		{"1969-12-31 23:59:59.999999999", -1, 999999},
		{"0001-01-01 00:00:00.000001", -62135596800000, 1000},
	}
	for _, c := range cases {
		got, err := coerce(typemap.Timestamp(9), c.in, "ts")
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if v := got.(tsValue); v.Millis != c.millis || v.NanoOfMilli != c.nano {
			t.Errorf("%s: got %d ms + %d ns, want %d ms + %d ns", c.in, v.Millis, v.NanoOfMilli, c.millis, c.nano)
		}
	}
}
