package expr

import (
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestDecimalToFloatIsNearest(t *testing.T) {
	for _, c := range []struct {
		unscaled int64
		scale    int32
	}{{1005, 3}, {2675, 3}, {1, 1}, {-123456789, 3}, {7, 0}, {123456789012345678, 18}} {
		x := decimal128.FromI64(c.unscaled)
		want, _ := strconv.ParseFloat(x.ToString(c.scale), 64)
		if got := decimalToFloat(x, c.scale); got != want {
			t.Errorf("%s: got %v, want %v", x.ToString(c.scale), got, want)
		}
	}
}

func TestFloatToDecimalRoundsHalfAwayFromZero(t *testing.T) {
	for _, c := range []struct {
		f    float64
		s    int32
		want string
	}{{2.5, 0, "3"}, {-2.5, 0, "-3"}, {-0.5, 0, "-1"}, {0.4, 0, "0"}, {1.45, 1, "1.5"}, {2.675, 2, "2.68"}, {1e20, 0, "100000000000000000000"}, {0, 2, "0.00"}} {
		n, ok := floatToDecimal(c.f, c.s)
		if !ok || n.ToString(c.s) != c.want {
			t.Errorf("%v to scale %d: got %s, %v; want %s", c.f, c.s, n.ToString(c.s), ok, c.want)
		}
	}
	if _, ok := floatToDecimal(1e40, 0); ok {
		t.Error("1e40 fits in no decimal(38)")
	}
}

func TestTimestampDiffAndStrToDate(t *testing.T) {
	d := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		unit string
		a, b string
		want int64
	}{
		{"MONTH", "2024-01-31 00:00:00", "2024-02-29 00:00:00", 0},
		{"MONTH", "2024-01-31 00:00:00", "2024-03-31 00:00:00", 2},
		{"MONTH", "2024-03-31 00:00:00", "2024-01-31 00:00:01", -1},
		{"YEAR", "2000-02-29 00:00:00", "2001-02-28 00:00:00", 0},
		{"DAY", "2024-01-01 12:00:00", "2024-01-03 11:59:59", 1},
		{"DAY", "2024-01-03 00:00:00", "2024-01-01 00:00:01", -1},
	} {
		if got := timestampDiff(c.unit, d(c.a), d(c.b)); got != c.want {
			t.Errorf("timestampdiff(%s, %s, %s) = %d, want %d", c.unit, c.a, c.b, got, c.want)
		}
	}
	for _, c := range []struct{ s, f, want string }{
		{"31/01/2024", "%d/%m/%Y", "2024-01-31 00:00:00"},
		{"Mar 5 24 3:07:09 PM", "%b %e %y %l:%i:%s %p", "2024-03-05 15:07:09"},
		{"2024-02-30", "%Y-%m-%d", ""},
		{"2024-01-01", "%Y/%m/%d", ""},
	} {
		got, ok := strToDate(c.s, c.f)
		s := ""
		if ok {
			s = got.Format("2006-01-02 15:04:05")
		}
		if s != c.want {
			t.Errorf("str_to_date(%q, %q) = %q, want %q", c.s, c.f, s, c.want)
		}
	}
}
