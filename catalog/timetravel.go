package catalog

import "fmt"

// TimeTravel pins a read of a lake table to one snapshot: FOR VERSION AS OF
// <snapshot id>, FOR VERSION AS OF '<tag>' or FOR TIME AS OF '<datetime>'.
// Exactly one of SnapshotID (> 0), Tag and HasTime is set.
type TimeTravel struct {
	SnapshotID int64
	Tag        string
	// TimeMillis is the instant of FOR TIME AS OF (epoch milliseconds, the
	// datetime read in the session time zone); the read is the last
	// snapshot committed at or before it.
	TimeMillis int64
	HasTime    bool
	// Text is the clause as the user wrote it, for errors and EXPLAIN.
	Text string
}

// String returns the clause as written.
func (t *TimeTravel) String() string {
	if t == nil {
		return ""
	}
	if t.Text != "" {
		return t.Text
	}
	switch {
	case t.HasTime:
		return fmt.Sprintf("FOR TIME AS OF %d", t.TimeMillis)
	case t.Tag != "":
		return fmt.Sprintf("FOR VERSION AS OF '%s'", t.Tag)
	}
	return fmt.Sprintf("FOR VERSION AS OF %d", t.SnapshotID)
}

// TimeTraveler is a Table that may be read at an older snapshot. CanTimeTravel
// returns nil when it can, or an error wrapping ErrUnsupported that says why
// not (a Fluss table itself: only its lake half has snapshots).
type TimeTraveler interface {
	CanTimeTravel() error
}
