package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A zone-aware timestamp (Fluss TIMESTAMP_LTZ, Doris timestamptz) holds an
// instant and is shown as wall-clock time in the session zone. A value
// without a zone converted to it (a literal such as '2024-01-15 18:40:00',
// a DATE, a DATETIME) is wall-clock time in that same zone, so the row a
// user sees is the row its shown value finds. Only sessions outside UTC
// shift anything.

// wallClock reports whether t is a zone-less value that names a wall-clock
// time (text, DATE, DATETIME).
func wallClock(t arrow.DataType) bool {
	switch x := t.(type) {
	case *arrow.TimestampType:
		return x.TimeZone == ""
	}
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.DATE32:
		return true
	}
	return false
}

// castToInstant converts in (wallClock) to the zone-aware to, reading it in
// the session zone; ok is false when no shift applies (UTC sessions, other
// inputs), and the caller casts as usual.
func castToInstant(env *Env, in arrow.Array, to arrow.DataType) (arrow.Array, bool) {
	tt, isTS := to.(*arrow.TimestampType)
	if !isTS || tt.TimeZone == "" || env == nil || !wallClock(in.DataType()) {
		return nil, false
	}
	loc := env.loc()
	if loc == time.UTC {
		return nil, false
	}
	wall := castArray(env, in, &arrow.TimestampType{Unit: tt.Unit})
	defer wall.Release()
	ts := wall.(*array.Timestamp)
	mul, div := toMicros(tt.Unit)
	b := array.NewTimestampBuilder(env.Mem, tt)
	defer b.Release()
	b.Reserve(ts.Len())
	for i := 0; i < ts.Len(); i++ {
		if ts.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := int64(ts.Value(i))
		w := time.UnixMicro(v * mul / div).UTC()
		inst := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
		b.Append(arrow.Timestamp(inst.UnixMicro() * div / mul))
	}
	return b.NewArray(), true
}
