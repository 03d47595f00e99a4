package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/render"
)

// Typed casts between DATE, DATETIME(p), strings and YYYYMMDD integers.
// Text in the two canonical forms ('YYYY-MM-DD', 'YYYY-MM-DD hh:mm:ss'
// with an optional fraction) is read by hand; any other text goes through
// parseDatetime, so what is accepted and what it means never differ from
// castValue.

const dayMicros = 86400_000_000

// castTemporal converts in to type to with a typed loop for STRING,
// BIGINT, DATE and DATETIME → DATE or DATETIME, and DATE or DATETIME →
// STRING; ok is false for every other pair.
func castTemporal(env *Env, in arrow.Array, to arrow.DataType) (arrow.Array, bool) {
	n := in.Len()
	valid := validity(in)
	switch to.ID() {
	case arrow.DATE32:
		out := make([]arrow.Date32, n)
		switch x := in.(type) {
		case *array.String:
			for i := range out {
				if valid != nil && !valid[i] {
					continue
				}
				us, ok := parseDatetimeFast(x.Value(i))
				if !ok {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = arrow.Date32(floorDiv(us, dayMicros))
			}
		case *array.Int64:
			for i, v := range x.Int64Values() {
				if valid != nil && !valid[i] {
					continue
				}
				us, ok := intDatetime(v)
				if !ok {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = arrow.Date32(floorDiv(us, dayMicros))
			}
		case *array.Timestamp:
			mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
			for i, v := range x.TimestampValues() {
				out[i] = arrow.Date32(floorDiv(int64(v)*mul/div, dayMicros))
			}
		default:
			return nil, false
		}
		b := array.NewDate32Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	case arrow.TIMESTAMP:
		tt := to.(*arrow.TimestampType)
		tmul, tdiv := toMicros(tt.Unit)
		// Stored as castValue then the appender store it: rounded to the
		// target's precision, then in its unit.
		store := func(us int64) arrow.Timestamp {
			return arrow.Timestamp(roundMicros(us, tt.Unit) * tdiv / tmul)
		}
		out := make([]arrow.Timestamp, n)
		switch x := in.(type) {
		case *array.String:
			for i := range out {
				if valid != nil && !valid[i] {
					continue
				}
				us, ok := parseDatetimeFast(x.Value(i))
				if !ok {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = store(us)
			}
		case *array.Int64:
			for i, v := range x.Int64Values() {
				if valid != nil && !valid[i] {
					continue
				}
				us, ok := intDatetime(v)
				if !ok {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = store(us)
			}
		case *array.Date32:
			for i, v := range x.Date32Values() {
				out[i] = store(int64(v) * dayMicros)
			}
		case *array.Timestamp:
			mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
			for i, v := range x.TimestampValues() {
				out[i] = store(int64(v) * mul / div)
			}
		default:
			return nil, false
		}
		b := array.NewTimestampBuilder(env.Mem, tt)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	case arrow.STRING:
		var appendOne func(buf []byte, i int) []byte
		width := 10
		switch x := in.(type) {
		case *array.Date32:
			appendOne = func(buf []byte, i int) []byte { return render.AppendDate(buf, int32(x.Value(i))) }
		case *array.Timestamp:
			mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
			scale := timestampScale(x.DataType())
			width = 20 + scale
			appendOne = func(buf []byte, i int) []byte {
				return render.AppendDatetime(buf, int64(x.Value(i))*mul/div, scale)
			}
		default:
			return nil, false
		}
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
		b.ReserveData(n * width)
		var buf []byte
		for i := 0; i < n; i++ {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			buf = appendOne(buf[:0], i)
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), true
	}
	return nil, false
}

// parseDatetimeFast is parseDatetime with 'YYYY-MM-DD' and 'YYYY-MM-DD
// hh:mm:ss[.f…]' (a space or 'T' between) read without allocating.
func parseDatetimeFast(s string) (int64, bool) {
	num := func(a, b int) (int, bool) {
		v := 0
		for k := a; k < b; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	sep := func(k int, seps string) bool {
		for j := 0; j < len(seps); j++ {
			if s[k] == seps[j] {
				return true
			}
		}
		return false
	}
	// parseDatetime splits fields on any of "-/: T." alike; the fast
	// forms below are the ones it reads as (y, m, d[, h, mi, s[, frac]]).
	if len(s) == 10 || len(s) >= 19 {
		y, ok1 := num(0, 4)
		mo, ok2 := num(5, 7)
		d, ok3 := num(8, 10)
		if ok1 && ok2 && ok3 && sep(4, "-/: T.") && sep(7, "-/: T.") {
			if len(s) == 10 {
				return civilMicros(y, mo, d, 0, 0, 0, 0)
			}
			h, ok4 := num(11, 13)
			mi, ok5 := num(14, 16)
			sec, ok6 := num(17, 19)
			if ok4 && ok5 && ok6 && sep(10, "-/: T.") && sep(13, "-/: T.") && sep(16, "-/: T.") {
				if len(s) == 19 {
					return civilMicros(y, mo, d, h, mi, sec, 0)
				}
				if s[19] == '.' && len(s) > 20 {
					us, ok := 0, true
					for k := 20; k < 26; k++ {
						us *= 10
						if k < len(s) {
							c := s[k]
							if c < '0' || c > '9' {
								ok = false
								break
							}
							us += int(c - '0')
						}
					}
					if _, digits := num(20, len(s)); ok && digits {
						r, ok := civilMicros(y, mo, d, h, mi, sec, us)
						if ok && len(s) > 26 && s[26] >= '5' {
							r++ // past microseconds MySQL rounds, half up
						}
						return r, ok
					}
				}
			}
		}
	}
	return parseDatetime(s)
}

// intDatetime reads a BIGINT as castValue does: the digits of
// YYYYMMDD or YYYYMMDDhhmmss.
func intDatetime(v int64) (int64, bool) {
	switch {
	case v >= 10_000_000 && v <= 99_999_999:
		return civilMicros(int(v/10000), int(v/100%100), int(v%100), 0, 0, 0, 0)
	case v >= 10_000_000_000_000 && v <= 99_999_999_999_999:
		d, t := v/1_000_000, v%1_000_000
		return civilMicros(int(d/10000), int(d/100%100), int(d%100), int(t/10000), int(t/100%100), int(t%100), 0)
	}
	return parseDatetime(strconv.FormatInt(v, 10)) // never valid; kept so both paths are one rule
}

// civilMicros is the wall-clock instant of a validated date and time in
// microseconds since 1970-01-01, with parseDatetime's range checks.
func civilMicros(y, mo, d, h, mi, sec, us int) (int64, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 || y > 9999 || y < 0 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return ((days*24+int64(h))*60+int64(mi))*60_000_000 + int64(sec)*1_000_000 + int64(us), true
}

// daysFromCivil counts days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar (as time.Date does), via 400-year eras starting in
// March.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
