package expr

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // convert_tz's named zones resolve on hosts without zoneinfo

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/render"
)

// TIME values: Inlet has Arrow TIME columns (TIME32 in seconds for whole
// seconds, TIME64 in microseconds otherwise); they render as [-]HH:MM:SS[.f]
// with hours beyond 24, and the MySQL wire sends them as text, which is
// what Doris sends for its TIME type.

const (
	usSecond = int64(1_000_000)
	usDay    = 86400 * usSecond
	// maxTimeUs is TIME's range, ±838:59:59 (MySQL's and Doris's).
	maxTimeUs = (838*3600 + 59*60 + 59) * usSecond
)

// minWallUs/maxWallUs bound DATETIME: 0001-01-01 00:00:00 to 9999-12-31
// 23:59:59.999999.
var (
	minWallUs = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxWallUs = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
)

func time32s() arrow.DataType  { return &arrow.Time32Type{Unit: arrow.Second} }
func time64us() arrow.DataType { return &arrow.Time64Type{Unit: arrow.Microsecond} }
func datetime0() arrow.DataType {
	return &arrow.TimestampType{Unit: arrow.Second}
}

// dorisTemporalArg is temporalArg, except that a string constant without
// a fraction of a second becomes DATETIME (scale 0), as Doris types such a
// literal, so results print without a fraction.
func dorisTemporalArg(e Expr) Expr {
	if l, ok := e.(*Literal); ok && isString(l.Type) {
		if s, ok := l.Value.(string); ok && !strings.Contains(s, ".") {
			return coerce(e, datetime0())
		}
	}
	return temporalArg(e)
}

// wallUs is a canonical DATE or DATETIME as microseconds of wall time.
func wallUs(v any) int64 {
	switch x := v.(type) {
	case arrow.Date32:
		return int64(x) * usDay
	case arrow.Timestamp:
		return int64(x)
	}
	return 0
}

// secondScale: does a temporal type carry no fraction of a second?
func secondScale(t arrow.DataType) bool {
	if t.ID() == arrow.DATE32 {
		return true
	}
	tt, ok := t.(*arrow.TimestampType)
	return ok && tt.Unit == arrow.Second
}

func dorisDateFunc(name string, args []Expr) (builder, bool) {
	I, S := Int64T(), StringT()
	switch name {
	case "second_floor", "minute_floor", "hour_floor", "day_floor", "week_floor", "month_floor", "quarter_floor", "year_floor",
		"second_ceil", "minute_ceil", "hour_ceil", "day_ceil", "week_ceil", "month_ceil", "quarter_ceil", "year_ceil":
		unit := name[:strings.IndexByte(name, '_')]
		return func() (Expr, error) { return periodRound(name, unit, strings.HasSuffix(name, "_ceil"), args) }, true
	case "date_floor", "date_ceil":
		// date_floor(dt, INTERVAL n unit) arrives from the binder as
		// date_floor(dt, n, 'unit').
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			l, ok := args[2].(*Literal)
			u, isStr := "", false
			if ok {
				u, isStr = l.Value.(string)
			}
			u = strings.ToLower(u)
			switch u {
			case "second", "minute", "hour", "day", "week", "month", "quarter", "year":
			default:
				if !isStr {
					return nil, errorf(ErrType, "%s: the unit must be a keyword, got %s", name, args[2])
				}
				return nil, errorf(ErrUnsupported, "%s: unit %s (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE or SECOND)", name, u)
			}
			return periodRound(name, u, name == "date_ceil", args[:2])
		}, true
	case "convert_tz":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			in := dorisTemporalArg(args[0])
			out := in.DataType()
			if out.ID() == arrow.DATE32 {
				out = datetime0()
				in = coerce(in, out)
			}
			var zones zoneCache
			return strictFunc(name, []Expr{in, args[1], args[2]}, []arrow.DataType{nil, S}, out, func(_ *Env, v []any) any {
				from, ok1 := zones.get(v[1].(string))
				to, ok2 := zones.get(v[2].(string))
				if !ok1 || !ok2 {
					return nil // MySQL: an unknown zone gives NULL
				}
				w := wall(v[0])
				t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), from).In(to)
				r := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
				if us := r.UnixMicro(); us < minWallUs || us > maxWallUs {
					return nil
				}
				return fromWall(r)
			}), nil
		}, true
	case "from_second", "from_millisecond", "from_microsecond":
		// The instant n units after the epoch, as wall time in the session
		// zone; negative or past 9999-12-31 fails the statement (Doris).
		unit, per := arrow.Second, usSecond
		switch name {
		case "from_millisecond":
			unit, per = arrow.Millisecond, 1000
		case "from_microsecond":
			unit, per = arrow.Microsecond, 1
		}
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{I}, &arrow.TimestampType{Unit: unit}, func(env *Env, v []any) any {
				n := v[0].(int64)
				if n < 0 || n > maxWallUs/per {
					return errorf(ErrOverflow, "%s(%d): out of the DATETIME range", name, n)
				}
				t := time.UnixMicro(n * per).In(env.loc())
				r := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
				if r.Year() > 9999 {
					return errorf(ErrOverflow, "%s(%d): out of the DATETIME range", name, n)
				}
				return fromWall(r)
			}), nil
		}, true
	case "second_timestamp", "millisecond_timestamp", "microsecond_timestamp":
		// The wall time, read in the session zone, as units since the epoch.
		per := usSecond
		switch name {
		case "millisecond_timestamp":
			per = 1000
		case "microsecond_timestamp":
			per = 1
		}
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{dorisTemporalArg(args[0])}, []arrow.DataType{nil}, I, func(env *Env, v []any) any {
				w := wall(v[0])
				t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), env.loc())
				return floorDiv(t.UnixMicro(), per)
			}), nil
		}, true
	case "microseconds_add", "microseconds_sub", "milliseconds_add", "milliseconds_sub":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			n := args[1]
			if strings.HasPrefix(name, "milli") {
				var err error
				if n, err = Arith(Mul, coerce(n, I), Int(1000)); err != nil {
					return nil, err
				}
			}
			in := args[0]
			if t := temporalArg(in).DataType(); !isTemporal(t) || secondScale(t) || t.(*arrow.TimestampType).Unit != arrow.Microsecond {
				in = coerce(temporalArg(in), DatetimeT())
			}
			return DateArith(in, n, "MICROSECOND", strings.HasSuffix(name, "_sub"))
		}, true
	case "milliseconds_diff":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0]), temporalArg(args[1])}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				return (wallUs(v[0]) - wallUs(v[1])) / 1000 // toward zero
			}), nil
		}, true
	case "to_monday":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, Date32T(), func(_ *Env, v []any) any {
				d := floorDiv(wallUs(v[0]), usDay)
				if d >= 0 && d <= 3 { // Doris: 1970-01-01 .. 01-04 give 1970-01-01
					return arrow.Date32(0)
				}
				// 1970-01-05 (day 4) is a Monday.
				return arrow.Date32(d - ((d-4)%7+7)%7)
			}), nil
		}, true
	case "time_to_sec":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			a := args[0]
			t := a.DataType()
			switch {
			case isTime(t):
				// Both TIME widths read as arrow.Time64 microseconds.
				return strictFunc(name, []Expr{a}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
					return int64(v[0].(arrow.Time64)) / usSecond
				}), nil
			case isTemporal(t):
				return strictFunc(name, []Expr{a}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
					us := wallUs(v[0])
					return (us - floorDiv(us, usDay)*usDay) / usSecond
				}), nil
			}
			// A string is read as TIME ([-]h:mm:ss[.f], within ±838:59:59);
			// a datetime string is not a TIME and gives NULL (Doris).
			return strictFunc(name, args, []arrow.DataType{S}, I, func(_ *Env, v []any) any {
				us, ok := parseTimeValue(v[0].(string))
				if !ok {
					return nil
				}
				return us / usSecond
			}), nil
		}, true
	case "sec_to_time":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			clamp := func(us int64) int64 { return max(-maxTimeUs, min(maxTimeUs, us)) }
			if isInt(args[0].DataType()) {
				return strictFunc(name, args, []arrow.DataType{I}, time32s(), func(_ *Env, v []any) any {
					s := v[0].(int64)
					s = max(-maxTimeUs/usSecond, min(maxTimeUs/usSecond, s))
					return arrow.Time64(s * usSecond)
				}), nil
			}
			return strictFunc(name, args, []arrow.DataType{Float64T()}, time64us(), func(_ *Env, v []any) any {
				f := v[0].(float64) * 1e6
				if math.IsNaN(f) {
					return nil
				}
				f = math.Max(-float64(maxTimeUs), math.Min(float64(maxTimeUs), math.Round(f)))
				return arrow.Time64(clamp(int64(f)))
			}), nil
		}, true
	case "timediff":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			a, b := dorisTemporalArg(args[0]), dorisTemporalArg(args[1])
			out := time64us()
			if secondScale(a.DataType()) && secondScale(b.DataType()) {
				out = time32s()
			}
			return strictFunc(name, []Expr{a, b}, []arrow.DataType{nil}, out, func(_ *Env, v []any) any {
				d := wallUs(v[0]) - wallUs(v[1])
				if d > maxTimeUs || d < -maxTimeUs {
					return errorf(ErrOverflow, "%s: the difference of %s and %s is beyond ±838:59:59", name,
						render.FormatDatetime(wallUs(v[0]), 6), render.FormatDatetime(wallUs(v[1]), 6))
				}
				return arrow.Time64(d)
			}), nil
		}, true
	case "curtime", "current_time":
		return func() (Expr, error) {
			if err := arity(name, args, 0, 1); err != nil {
				return nil, err
			}
			out := time32s()
			if len(args) == 1 {
				if l, ok := coerce(args[0], I).(*Literal); ok && l.Value != nil && l.Value.(int64) > 0 {
					out = time64us()
				}
			}
			return &rowFunc{name: name, ret: out, fn: func(env *Env, _ []any) any {
				n := env.Now.In(env.loc())
				us := int64(n.Hour()*3600+n.Minute()*60+n.Second())*usSecond + int64(n.Nanosecond()/1000)
				if out.ID() == arrow.TIME32 {
					us -= us % usSecond
				}
				return arrow.Time64(us)
			}}, nil
		}, true
	case "to_iso8601":
		// DATE: YYYY-MM-DD; DATETIME: YYYY-MM-DDTHH:MM:SS.000000 with the
		// fraction rounded to whole seconds (Doris manual).
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				if d, ok := v[0].(arrow.Date32); ok {
					return render.FormatDate(int32(d))
				}
				us := wallUs(v[0])
				us = floorDiv(us+usSecond/2, usSecond) * usSecond
				if us > maxWallUs {
					return nil
				}
				s := render.FormatDatetime(us, 6)
				return s[:10] + "T" + s[11:]
			}), nil
		}, true
	case "from_iso8601_date":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, Date32T(), func(_ *Env, v []any) any {
				t, ok := parseISODate(strings.TrimSpace(v[0].(string)))
				if !ok {
					return nil
				}
				return dateOf(t)
			}), nil
		}, true
	case "timestamp":
		// timestamp(dt) is dt as DATETIME; timestamp(dt, time) adds a TIME
		// ('hh:mm:ss[.f]', up to ±838:59:59) to it.
		return func() (Expr, error) {
			if err := arity(name, args, 1, 2); err != nil {
				return nil, err
			}
			in := dorisTemporalArg(args[0])
			out := in.DataType()
			if out.ID() == arrow.DATE32 {
				out = datetime0()
				in = coerce(in, out)
			}
			if len(args) == 1 {
				return strictFunc(name, []Expr{in}, []arrow.DataType{nil}, out, func(_ *Env, v []any) any { return v[0] }), nil
			}
			add := args[1]
			if !isTime(add.DataType()) {
				if l, ok := add.(*Literal); ok {
					if s, ok := l.Value.(string); ok && strings.Contains(s, ".") {
						out = DatetimeT()
						in = coerce(in, out)
					}
				} else {
					out = DatetimeT()
					in = coerce(in, out)
				}
			} else if add.DataType().ID() == arrow.TIME64 {
				out = DatetimeT()
				in = coerce(in, out)
			}
			return strictFunc(name, []Expr{in, add}, []arrow.DataType{nil}, out, func(_ *Env, v []any) any {
				var d int64
				switch x := v[1].(type) {
				case arrow.Time64:
					d = int64(x)
				case string:
					us, ok := parseTimeValue(x)
					if !ok {
						return nil
					}
					d = us
				default:
					return nil
				}
				r := wallUs(v[0]) + d
				if r < minWallUs || r > maxWallUs {
					return nil
				}
				return arrow.Timestamp(r)
			}), nil
		}, true
	}
	return nil, false
}

// periodRound is X_floor / X_ceil (and date_floor / date_ceil) over
// (dt[, period][, origin]): the largest (floor) or smallest (ceil) instant
// origin + k*period units that is <= (>=) dt. The origin defaults to
// 0001-01-01 00:00:00; months, quarters and years count calendar months
// (the origin's day of month, clamped to each month's length). A DATE
// stays a DATE for units of a day or more. A non-positive period or a
// result outside DATETIME's range fails the statement (Doris).
func periodRound(name, unit string, ceil bool, args []Expr) (Expr, error) {
	if err := arity(name, args, 1, 3); err != nil {
		return nil, err
	}
	in := dorisTemporalArg(args[0])
	period := Expr(Int(1))
	var origin Expr
	switch len(args) {
	case 2:
		if t := args[1].DataType(); isNumeric(t) || t.ID() == arrow.NULL {
			period = args[1]
		} else {
			origin = args[1]
		}
	case 3:
		period, origin = args[1], args[2]
	}
	if t := period.DataType(); !isNumeric(t) && t.ID() != arrow.NULL {
		return nil, errorf(ErrType, "%s: the period must be an integer, got %s", name, TypeName(t))
	}
	period = coerce(period, Int64T())
	out := in.DataType()
	calendar := unit == "month" || unit == "quarter" || unit == "year"
	if out.ID() == arrow.DATE32 && !(calendar || unit == "day" || unit == "week") {
		out = datetime0()
	}
	cargs := []Expr{in, period}
	if origin != nil {
		o := dorisTemporalArg(origin)
		if !secondScale(o.DataType()) && secondScale(out) {
			out = DatetimeT() // an origin with a fraction gives a fraction
		}
		if out.ID() == arrow.DATE32 && o.DataType().ID() != arrow.DATE32 {
			out = datetime0()
		}
		cargs = append(cargs, o)
	}
	var step int64
	switch unit {
	case "second":
		step = usSecond
	case "minute":
		step = 60 * usSecond
	case "hour":
		step = 3600 * usSecond
	case "day":
		step = usDay
	case "week":
		step = 7 * usDay
	case "month":
		step = 1
	case "quarter":
		step = 3
	case "year":
		step = 12
	}
	return strictFunc(name, cargs, []arrow.DataType{nil}, out, func(_ *Env, v []any) any {
		t := wallUs(v[0])
		o := minWallUs
		if len(v) == 3 {
			o = wallUs(v[2])
		}
		p := v[1].(int64)
		bad := func() any {
			return errorf(ErrOverflow, "%s of %s, period %d: out of range", name, render.FormatDatetime(t, 6), p)
		}
		if p <= 0 {
			return bad()
		}
		var r int64
		if calendar {
			ot := time.UnixMicro(o).UTC()
			tt := time.UnixMicro(t).UTC()
			months := func(x time.Time) int64 { return int64(x.Year())*12 + int64(x.Month()) - 1 }
			span := p * step
			if p > 12*10000 {
				span = 12 * 10000 // more than the whole range: k is 0 or -1
			}
			k := floorDiv(months(tt)-months(ot), span)
			at := func(k int64) int64 { return addInterval(ot, k*span, "MONTH").UnixMicro() }
			r = at(k)
			if r > t {
				k--
				r = at(k)
			}
			if ceil && r < t {
				r = at(k + 1)
			}
		} else {
			span := step * p
			if p > (maxWallUs-minWallUs)/step {
				span = maxWallUs - minWallUs + 1
			}
			r = o + floorDiv(t-o, span)*span
			if ceil && r < t {
				r += span
			}
		}
		if r < minWallUs || r > maxWallUs {
			return bad()
		}
		if out.ID() == arrow.DATE32 {
			return arrow.Date32(floorDiv(r, usDay))
		}
		return arrow.Timestamp(r)
	}), nil
}

// zoneCache resolves time zone names once per function instance; it is
// safe for the goroutines that evaluate one Expr.
type zoneCache struct{ m sync.Map }

func (c *zoneCache) get(name string) (*time.Location, bool) {
	if l, ok := c.m.Load(name); ok {
		loc, _ := l.(*time.Location)
		return loc, loc != nil
	}
	loc := resolveZone(name)
	c.m.Store(name, loc)
	return loc, loc != nil
}

// resolveZone reads ±h:mm / ±hh:mm offsets (within ±14:00), UTC/GMT in any
// case, and IANA names; nil when unknown.
func resolveZone(name string) *time.Location {
	s := strings.TrimSpace(name)
	if strings.EqualFold(s, "UTC") || strings.EqualFold(s, "GMT") || s == "Z" {
		return time.UTC
	}
	if len(s) >= 5 && (s[0] == '+' || s[0] == '-') {
		h, m, ok := strings.Cut(s[1:], ":")
		hv, err1 := strconv.Atoi(h)
		mv, err2 := strconv.Atoi(m)
		if !ok || err1 != nil || err2 != nil || len(h) > 2 || len(m) != 2 || hv > 14 || mv > 59 || (hv == 14 && mv > 0) {
			return nil
		}
		off := hv*3600 + mv*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off)
	}
	if s == "" || strings.EqualFold(s, "local") {
		return nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil
	}
	return loc
}

// parseTimeValue reads a TIME literal, [-]h[hh]:mm:ss[.ffffff] with minutes
// and seconds below 60 and at most 838:59:59, as microseconds.
func parseTimeValue(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, false
	}
	secPart, frac, _ := strings.Cut(parts[2], ".")
	h, err1 := strconv.ParseInt(parts[0], 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	sec, err3 := strconv.ParseInt(secPart, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || m < 0 || m > 59 || sec < 0 || sec > 59 || len(parts[1]) != 2 || len(secPart) != 2 || h > 838 {
		return 0, false
	}
	var us int64
	if frac != "" {
		if len(frac) > 6 {
			frac = frac[:6]
		}
		f, err := strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
		if err != nil || f < 0 {
			return 0, false
		}
		us = f
	}
	total := (h*3600+m*60+sec)*usSecond + us
	if total > maxTimeUs+usSecond-1 {
		return 0, false
	}
	if neg {
		total = -total
	}
	return total, true
}

// parseISODate reads the ISO 8601 date forms Doris's from_iso8601_date
// takes: YYYY, YYYY-MM, YYYY-MM-DD, YYYY-DDD (day of year), YYYY-Www and
// YYYY-Www-D (ISO weeks: week 1 holds the year's first Thursday).
func parseISODate(s string) (time.Time, bool) {
	num := func(x string, n int) (int, bool) {
		if len(x) != n {
			return 0, false
		}
		for i := 0; i < n; i++ {
			if x[i] < '0' || x[i] > '9' {
				return 0, false
			}
		}
		v, _ := strconv.Atoi(x)
		return v, true
	}
	if len(s) < 4 {
		return time.Time{}, false
	}
	y, ok := num(s[:4], 4)
	if !ok {
		return time.Time{}, false
	}
	rest := s[4:]
	if rest == "" {
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), true
	}
	if rest[0] != '-' {
		return time.Time{}, false
	}
	rest = rest[1:]
	switch {
	case strings.HasPrefix(rest, "W"):
		w, ok := num(rest[1:min(3, len(rest))], 2)
		if !ok || w < 1 || w > 53 {
			return time.Time{}, false
		}
		d := 1
		if len(rest) > 3 {
			if rest[3] != '-' {
				return time.Time{}, false
			}
			if d, ok = num(rest[4:], 1); !ok || d < 1 || d > 7 {
				return time.Time{}, false
			}
		}
		// Monday of week 1: the Monday on or before January 4th.
		jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
		mon := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
		return mon.AddDate(0, 0, (w-1)*7+d-1), true
	case len(rest) == 3:
		doy, ok := num(rest, 3)
		days := 365
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			days = 366
		}
		if !ok || doy < 1 || doy > days {
			return time.Time{}, false
		}
		return time.Date(y, 1, doy, 0, 0, 0, 0, time.UTC), true
	case len(rest) == 2:
		m, ok := num(rest, 2)
		if !ok || m < 1 || m > 12 {
			return time.Time{}, false
		}
		return time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC), true
	case len(rest) == 5 && rest[2] == '-':
		m, ok1 := num(rest[:2], 2)
		d, ok2 := num(rest[3:], 2)
		if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
			return time.Time{}, false
		}
		return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
	}
	return time.Time{}, false
}
