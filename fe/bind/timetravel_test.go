package bind

import (
	"testing"
	"time"
)

// TestParseDatetimeInSessionZone checks FOR TIME AS OF text against instants
// written out by hand.
func TestParseDatetimeInSessionZone(t *testing.T) {
	for _, c := range []struct {
		text, zone string
		want       int64 // epoch ms
		bad        bool
	}{
		{text: "2024-01-02 03:04:05", zone: "UTC", want: 1704164645000},
		{text: "2024-01-02 03:04:05.123", zone: "", want: 1704164645123},
		{text: "2024-01-02 11:04:05.123", zone: "+08:00", want: 1704164645123},
		{text: "2024-01-01 22:04:05", zone: "-05:00", want: 1704164645000},
		{text: "2024-01-02T11:04:05", zone: "Asia/Shanghai", want: 1704164645000},
		{text: "2024-01-02", zone: "UTC", want: 1704153600000},
		{text: " 2024-01-02 03:04 ", zone: "UTC", want: 1704164640000},
		{text: "2024-13-02", zone: "UTC", bad: true},
		{text: "yesterday", zone: "UTC", bad: true},
		{text: "", zone: "UTC", bad: true},
	} {
		got, err := parseDatetime(c.text, sessionLocation(c.zone))
		if c.bad {
			if err == nil {
				t.Errorf("%q accepted as %v", c.text, got)
			}
			continue
		}
		if err != nil || got.UnixMilli() != c.want {
			t.Errorf("%q in %q: got %v (%d) %v, want %d (%v)", c.text, c.zone, got, got.UnixMilli(), err, c.want, time.UnixMilli(c.want).UTC())
		}
	}
}
