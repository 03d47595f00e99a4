package expr

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/render"
)

// wall turns a canonical DATE or DATETIME into a UTC time.Time holding the
// same wall clock (DATETIME carries no zone).
func wall(v any) time.Time {
	switch x := v.(type) {
	case arrow.Date32:
		return time.Unix(int64(x)*86400, 0).UTC()
	case arrow.Timestamp:
		return time.UnixMicro(int64(x)).UTC()
	}
	return time.Time{}
}

func fromWall(t time.Time) arrow.Timestamp { return arrow.Timestamp(t.UnixMicro()) }

func dateOf(t time.Time) arrow.Date32 { return arrow.Date32(floorDiv(t.Unix(), 86400)) }

// temporalArg keeps DATE and DATETIME arguments as they are and reads
// anything else (strings, numbers) as DATETIME.
func temporalArg(e Expr) Expr {
	if isTemporal(e.DataType()) {
		return e
	}
	return coerce(e, DatetimeT())
}

// literalTemporalType is the type a constant date/time string reads as:
// DATE without a time of day, else DATETIME with as many fraction digits as
// it spells (rounded up to 0, 3 or 6, the precisions Inlet keeps).
func literalTemporalType(l *Literal) arrow.DataType {
	v, _ := l.Value.(string)
	v = strings.TrimSpace(v)
	if !strings.ContainsAny(v, " T") && !(len(v) == 14 && strings.Trim(v, "0123456789") == "") {
		return Date32T()
	}
	switch f := literalFraction(l); {
	case f == 0:
		return &arrow.TimestampType{Unit: arrow.Second}
	case f <= 3:
		return &arrow.TimestampType{Unit: arrow.Millisecond}
	}
	return DatetimeT()
}

func dateFunc(name string, args []Expr) (builder, bool) {
	I, S := Int64T(), StringT()
	part := func(fn func(t time.Time) int64) builder {
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			f := strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				return fn(wall(v[0]))
			})
			f.vec = datePartKernel(fn)
			return f, nil
		}
	}
	switch name {
	case "now", "current_timestamp", "localtime", "localtimestamp", "sysdate":
		return func() (Expr, error) {
			if err := arity(name, args, 0, 1); err != nil {
				return nil, err
			}
			t := arrow.DataType(&arrow.TimestampType{Unit: arrow.Second})
			if len(args) == 1 {
				if l, ok := coerce(args[0], I).(*Literal); ok && l.Value != nil && l.Value.(int64) > 0 {
					t = DatetimeT()
				}
			}
			return &rowFunc{name: name, ret: t, fn: func(env *Env, _ []any) any {
				n := env.Now.In(env.loc())
				w := time.Date(n.Year(), n.Month(), n.Day(), n.Hour(), n.Minute(), n.Second(), n.Nanosecond(), time.UTC)
				if t.(*arrow.TimestampType).Unit == arrow.Second {
					w = w.Truncate(time.Second)
				}
				return fromWall(w)
			}}, nil
		}, true
	case "curdate", "current_date":
		return func() (Expr, error) {
			if err := arity(name, args, 0, 0); err != nil {
				return nil, err
			}
			return &rowFunc{name: name, ret: Date32T(), fn: func(env *Env, _ []any) any {
				n := env.Now.In(env.loc())
				return dateOf(time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC))
			}}, nil
		}, true
	case "year":
		return part(func(t time.Time) int64 { return int64(t.Year()) }), true
	case "quarter":
		return part(func(t time.Time) int64 { return int64(t.Month()-1)/3 + 1 }), true
	case "month":
		return part(func(t time.Time) int64 { return int64(t.Month()) }), true
	case "day", "dayofmonth":
		return part(func(t time.Time) int64 { return int64(t.Day()) }), true
	case "dayofweek":
		return part(func(t time.Time) int64 { return int64(t.Weekday()) + 1 }), true
	case "weekday":
		return part(func(t time.Time) int64 { return (int64(t.Weekday()) + 6) % 7 }), true
	case "dayofyear":
		return part(func(t time.Time) int64 { return int64(t.YearDay()) }), true
	case "hour":
		return part(func(t time.Time) int64 { return int64(t.Hour()) }), true
	case "minute":
		return part(func(t time.Time) int64 { return int64(t.Minute()) }), true
	case "second":
		return part(func(t time.Time) int64 { return int64(t.Second()) }), true
	case "to_date", "date":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return coerce(temporalArg(args[0]), Date32T()), nil
		}, true
	case "datediff":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			a, b := coerce(temporalArg(args[0]), Date32T()), coerce(temporalArg(args[1]), Date32T())
			f := strictFunc(name, []Expr{a, b}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				return int64(v[0].(arrow.Date32)) - int64(v[1].(arrow.Date32))
			})
			f.vec = dateDiffKernel
			return f, nil
		}, true
	case "date_format":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0]), args[1]}, []arrow.DataType{nil, S}, S, func(_ *Env, v []any) any {
				return dateFormat(wall(v[0]), v[1].(string))
			}), nil
		}, true
	case "unix_timestamp":
		return func() (Expr, error) {
			if err := arity(name, args, 0, 1); err != nil {
				return nil, err
			}
			if len(args) == 0 {
				return &rowFunc{name: name, ret: I, fn: func(env *Env, _ []any) any { return env.Now.Unix() }}, nil
			}
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, I, func(env *Env, v []any) any {
				w := wall(v[0])
				t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, env.loc())
				if t.Unix() < 0 {
					return int64(0) // MySQL/Doris: out of range gives 0
				}
				return t.Unix()
			}), nil
		}, true
	case "from_unixtime":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 2); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{I, S}, S, func(env *Env, v []any) any {
				sec := v[0].(int64)
				if sec < 0 || sec > 32536771199 {
					return nil
				}
				t := time.Unix(sec, 0).In(env.loc())
				w := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
				if len(v) == 2 {
					return dateFormat(w, v[1].(string))
				}
				return render.FormatDatetime(w.UnixMicro(), 0)
			}), nil
		}, true
	case "date_trunc":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			dt, unitE := args[0], args[1]
			if l, ok := dt.(*Literal); ok && isString(l.Type) && truncUnit(l.Value) {
				dt, unitE = args[1], args[0] // date_trunc('unit', dt) form
			}
			l, ok := unitE.(*Literal)
			if !ok || !isString(l.Type) || !truncUnit(l.Value) {
				return nil, errorf(ErrType, "date_trunc: unit %s must be one of year, quarter, month, week, day, hour, minute, second", unitE)
			}
			unit := strings.ToLower(l.Value.(string))
			in := temporalArg(dt)
			return strictFunc(name, []Expr{in}, []arrow.DataType{nil}, in.DataType(), func(_ *Env, v []any) any {
				t := truncTime(wall(v[0]), unit)
				if _, isDate := v[0].(arrow.Date32); isDate {
					return dateOf(t)
				}
				return fromWall(t)
			}), nil
		}, true
	case "date_add", "adddate", "days_add", "date_sub", "subdate", "days_sub":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return DateArith(args[0], args[1], "DAY", strings.Contains(name, "sub"))
		}, true
	case "years_add", "months_add", "weeks_add", "hours_add", "minutes_add", "seconds_add",
		"years_sub", "months_sub", "weeks_sub", "hours_sub", "minutes_sub", "seconds_sub":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			unit := strings.TrimSuffix(strings.ToUpper(name[:strings.IndexByte(name, '_')]), "S")
			return DateArith(args[0], args[1], unit, strings.HasSuffix(name, "_sub"))
		}, true
	}
	return nil, false
}

func truncUnit(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch strings.ToLower(s) {
	case "year", "quarter", "month", "week", "day", "hour", "minute", "second":
		return true
	}
	return false
}

func truncTime(t time.Time, unit string) time.Time {
	switch unit {
	case "year":
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(t.Year(), (t.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "week": // weeks start on Monday
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "day":
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case "hour":
		return t.Truncate(time.Hour)
	case "minute":
		return t.Truncate(time.Minute)
	}
	return t.Truncate(time.Second)
}

// DateArith is d + INTERVAL n unit (d - INTERVAL n unit when sub is set).
// unit is one of MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH,
// QUARTER, YEAR. A DATE stays a DATE for units of a day or more; month
// arithmetic clamps to the month's last day (Jan 31 + 1 month = Feb 28).
func DateArith(d, n Expr, unit string, sub bool) (Expr, error) {
	unit = strings.ToUpper(unit)
	switch unit {
	case "MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR":
	default:
		return nil, errorf(ErrUnsupported, "INTERVAL unit %s", unit)
	}
	if !isNumericOrBool(n.DataType()) && !isString(n.DataType()) && !isNull(n.DataType()) {
		return nil, errorf(ErrType, "INTERVAL %s: amount is %s", n, TypeName(n.DataType()))
	}
	in := temporalArg(d)
	if l, ok := d.(*Literal); ok && isString(l.Type) {
		// A constant string is read as what it spells: a date stays a
		// date, a datetime keeps its own precision (MySQL and Doris:
		// date_add('2024-01-31', INTERVAL 1 MONTH) is the DATE
		// 2024-02-29).
		in = coerce(d, literalTemporalType(l))
	}
	outT := in.DataType()
	if ts, ok := outT.(*arrow.TimestampType); ok && unit == "MICROSECOND" && ts.Unit != arrow.Microsecond {
		outT = DatetimeT() // microseconds need six digits to show
		in = coerce(in, outT)
	}
	small := unit == "MICROSECOND" || unit == "SECOND" || unit == "MINUTE" || unit == "HOUR"
	if outT.ID() == arrow.DATE32 && small {
		// A DATE moved by hours, minutes or seconds is a DATETIME with no
		// fraction (MySQL; Doris's DATETIMEV2(0)); by microseconds, one
		// with six digits.
		outT = &arrow.TimestampType{Unit: arrow.Second}
		if unit == "MICROSECOND" {
			outT = DatetimeT()
		}
		in = coerce(in, outT)
	}
	fname := "date_add"
	if sub {
		fname = "date_sub"
	}
	f := strictFunc(fname, []Expr{in, n}, []arrow.DataType{nil, Int64T()}, outT, func(_ *Env, v []any) any {
		t, ok := shifted(wall(v[0]), v[1].(int64), unit, sub)
		if !ok {
			return nil
		}
		if outT.ID() == arrow.DATE32 {
			return dateOf(t)
		}
		return fromWall(t)
	})
	f.show = func() string {
		return fname + "(" + d.String() + ", INTERVAL " + n.String() + " " + unit + ")"
	}
	f.vec = dateArithKernel(unit, sub, outT)
	return f, nil
}

func addInterval(t time.Time, k int64, unit string) time.Time {
	switch unit {
	case "MICROSECOND":
		return t.Add(time.Duration(k) * time.Microsecond)
	case "SECOND":
		return t.Add(time.Duration(k) * time.Second)
	case "MINUTE":
		return t.Add(time.Duration(k) * time.Minute)
	case "HOUR":
		return t.Add(time.Duration(k) * time.Hour)
	case "DAY":
		return t.AddDate(0, 0, int(k))
	case "WEEK":
		return t.AddDate(0, 0, int(7*k))
	}
	months := k
	switch unit {
	case "QUARTER":
		months = 3 * k
	case "YEAR":
		months = 12 * k
	}
	total := int64(t.Year())*12 + int64(t.Month()-1) + months
	y, m := int(total/12), time.Month(total%12+1)
	day := min(t.Day(), daysIn(y, int(m)))
	return time.Date(y, m, day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// dateFormat implements MySQL DATE_FORMAT specifiers.
func dateFormat(t time.Time, f string) string {
	var sb strings.Builder
	p2 := func(v int) { sb.WriteString(pad(v, 2)) }
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 == len(f) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			sb.WriteString(pad(t.Year(), 4))
		case 'y':
			p2(t.Year() % 100)
		case 'm':
			p2(int(t.Month()))
		case 'c':
			sb.WriteString(strconv.Itoa(int(t.Month())))
		case 'd':
			p2(t.Day())
		case 'e':
			sb.WriteString(strconv.Itoa(t.Day()))
		case 'H':
			p2(t.Hour())
		case 'k':
			sb.WriteString(strconv.Itoa(t.Hour()))
		case 'h', 'I':
			p2((t.Hour()+11)%12 + 1)
		case 'l':
			sb.WriteString(strconv.Itoa((t.Hour()+11)%12 + 1))
		case 'i':
			p2(t.Minute())
		case 's', 'S':
			p2(t.Second())
		case 'f':
			sb.WriteString(pad(t.Nanosecond()/1000, 6))
		case 'p':
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'W':
			sb.WriteString(t.Weekday().String())
		case 'a':
			sb.WriteString(t.Weekday().String()[:3])
		case 'M':
			sb.WriteString(t.Month().String())
		case 'b':
			sb.WriteString(t.Month().String()[:3])
		case 'j':
			sb.WriteString(pad(t.YearDay(), 3))
		case 'T':
			sb.WriteString(pad(t.Hour(), 2) + ":" + pad(t.Minute(), 2) + ":" + pad(t.Second(), 2))
		case 'r':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			sb.WriteString(pad((t.Hour()+11)%12+1, 2) + ":" + pad(t.Minute(), 2) + ":" + pad(t.Second(), 2) + " " + ampm)
		case 'w':
			sb.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'D':
			sb.WriteString(strconv.Itoa(t.Day()) + daySuffix(t.Day()))
		case 'U', 'u', 'V', 'v':
			b := map[byte]int{'U': weekFirstWeekday, 'u': weekMondayFirst,
				'V': weekYear | weekFirstWeekday, 'v': weekYear | weekMondayFirst}[f[i]]
			w, _ := calcWeek(t.Year(), int(t.Month()), t.Day(), b)
			p2(w)
		case 'X', 'x':
			b := weekYear | weekFirstWeekday
			if f[i] == 'x' {
				b = weekYear | weekMondayFirst
			}
			_, y := calcWeek(t.Year(), int(t.Month()), t.Day(), b)
			sb.WriteString(pad(y, 4))
		default:
			sb.WriteByte(f[i])
		}
	}
	return sb.String()
}

func pad(v, w int) string {
	s := strconv.Itoa(v)
	for len(s) < w {
		s = "0" + s
	}
	return s
}
