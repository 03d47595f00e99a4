package scan

import (
	"testing"
	"time"
)

// The BE reads every time_zone the FE accepts (the FE's fe/vars rules).
func TestSessionZone(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		tz     string
		offset int // seconds east of UTC at `at`
		ok     bool
	}{
		{"UTC", 0, true}, {"SYSTEM", 0, true}, {"+08:00", 8 * 3600, true}, {"-05:30", -(5*3600 + 30*60), true},
		{"Asia/Shanghai", 8 * 3600, true}, {"America/New_York", -5 * 3600, true},
		{"+25:00", 0, false}, {"Mars/Olympus", 0, false},
	} {
		loc, err := sessionZone(c.tz)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v", c.tz, err)
			continue
		}
		if !c.ok {
			continue
		}
		if _, off := at.In(loc).Zone(); off != c.offset {
			t.Errorf("%s: offset %d, want %d", c.tz, off, c.offset)
		}
	}
}
