// Package tzone resolves a session time_zone value the one way the FE, the
// BE and the catalogs' system tables all read it: SYSTEM (the process's
// local zone), an offset such as +08:00 or -05:30, or an IANA name. Keeping
// one reader means the BE never refuses a zone the FE accepted.
package tzone

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ParseOffset reads ±hh:mm (hours up to 14) as seconds east of UTC.
func ParseOffset(v string) (int, error) {
	if len(v) != 6 || (v[0] != '+' && v[0] != '-') || v[3] != ':' {
		return 0, errors.New("not an offset")
	}
	h, err1 := strconv.Atoi(v[1:3])
	m, err2 := strconv.Atoi(v[4:6])
	if err1 != nil || err2 != nil || h > 14 || m > 59 {
		return 0, errors.New("not an offset")
	}
	s := h*3600 + m*60
	if v[0] == '-' {
		s = -s
	}
	return s, nil
}

// Location resolves a time_zone value.
func Location(v string) (*time.Location, error) {
	if strings.EqualFold(v, "SYSTEM") {
		return time.Local, nil
	}
	if off, err := ParseOffset(v); err == nil {
		return time.FixedZone(v, off), nil
	}
	return time.LoadLocation(v)
}

// LocationOrUTC is Location for values the session already validated: one
// that does not resolve reads as UTC.
func LocationOrUTC(v string) *time.Location {
	if l, err := Location(v); err == nil {
		return l
	}
	return time.UTC
}
