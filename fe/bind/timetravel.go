package bind

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/internal/tzone"
)

// timeTravel turns a FOR VERSION/TIME AS OF clause into the catalog's form,
// reading a datetime in the session time zone. A table that cannot be read
// at an older snapshot is refused here, before any planning.
func (b *Binder) timeTravel(n *sql.TableRef, t catalog.Table) (*catalog.TimeTravel, error) {
	if n.AsOf == sql.AsOfNone {
		return nil, nil
	}
	name := strings.Join(n.Name, ".")
	tt, ok := t.(catalog.TimeTraveler)
	if !ok {
		return nil, errorf(ErrUnsupported, "time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on table %s; it applies to Paimon catalog tables and to a Fluss table's tbl$lake", name)
	}
	if err := tt.CanTimeTravel(); err != nil {
		return nil, err
	}
	switch n.AsOf {
	case sql.AsOfVersion:
		id, err := strconv.ParseInt(n.AsOfValue, 10, 64)
		if err != nil || id <= 0 {
			return nil, errorf(ErrAnalysis, "FOR VERSION AS OF %s on table %s: a snapshot id is a positive integer", n.AsOfValue, name)
		}
		return &catalog.TimeTravel{SnapshotID: id, Text: "FOR VERSION AS OF " + n.AsOfValue}, nil
	case sql.AsOfTag:
		return &catalog.TimeTravel{Tag: n.AsOfValue, Text: "FOR VERSION AS OF '" + n.AsOfValue + "'"}, nil
	case sql.AsOfTime:
		at, err := parseDatetime(n.AsOfValue, sessionLocation(b.sess.Vars["time_zone"]))
		if err != nil {
			return nil, errorf(ErrAnalysis, "FOR TIME AS OF '%s' on table %s: %v", n.AsOfValue, name, err)
		}
		return &catalog.TimeTravel{TimeMillis: at.UnixMilli(), HasTime: true, Text: "FOR TIME AS OF '" + n.AsOfValue + "'"}, nil
	}
	return nil, errorf(ErrUnsupported, "time travel form %s", n.AsOf)
}

// datetimeLayouts are the forms FOR TIME AS OF accepts, as Doris does for a
// DATETIME literal: a date, or a date and time with up to 9 fraction digits.
var datetimeLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
}

func parseDatetime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range datetimeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a datetime; expected 'YYYY-MM-DD[ HH:MM:SS[.fraction]]'")
}

// sessionLocation resolves time_zone as fe/vars does; the session never
// holds a value that does not resolve, and one that did would read as UTC.
func sessionLocation(v string) *time.Location { return tzone.LocationOrUTC(v) }

// sessionLoc is the session's time zone (UTC without a session).
func (b *Binder) sessionLoc() *time.Location {
	if b.sess == nil {
		return time.UTC
	}
	return sessionLocation(b.sess.Vars["time_zone"])
}
