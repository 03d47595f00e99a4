package expr

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// moreDateFunc holds the date functions whose result type or argument
// handling needs more than a part extractor: UNIX_TIMESTAMP of a
// fractional DATETIME, TIMESTAMPDIFF, LAST_DAY, TO_DAYS, STR_TO_DATE.
func moreDateFunc(name string, args []Expr) (builder, bool) {
	switch name {
	case "unix_timestamp":
		// Only a DATETIME(n>0) argument gives a decimal; dateFunc handles
		// the rest.
		if len(args) != 1 {
			return nil, false
		}
		arg := args[0]
		var scale int32
		if ts, ok := arg.DataType().(*arrow.TimestampType); ok {
			switch ts.Unit {
			case arrow.Millisecond:
				scale = 3
			case arrow.Microsecond, arrow.Nanosecond:
				scale = 6
			}
		} else if l, ok := arg.(*Literal); ok && isString(l.Type) {
			// A constant string keeps as many fraction digits as it
			// has, as in MySQL: '2024-01-05 10:00:00.5' gives
			// 1704448800.5.
			scale = literalFraction(l)
			arg = temporalArg(arg)
		}
		if scale == 0 {
			return nil, false
		}
		div := int64(1) // microseconds per unit of the result
		for range 6 - scale {
			div *= 10
		}
		return func() (Expr, error) {
			return strictFunc(name, []Expr{arg}, []arrow.DataType{nil}, DecimalT(18, scale), func(env *Env, v []any) any {
				w := wall(v[0])
				t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), env.loc())
				if t.Unix() < 0 {
					return decimal128.Num{} // MySQL/Doris: out of range gives 0
				}
				return decimal128.FromI64(t.UnixMicro() / div)
			}), nil
		}, true
	case "timestampdiff":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			l, ok := args[0].(*Literal)
			unit, _ := l.Value.(string)
			unit = strings.ToUpper(unit)
			if !ok || !diffUnit(unit) {
				return nil, errorf(ErrType, "timestampdiff: unit %s is not one of MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR", args[0])
			}
			a, b := temporalArg(args[1]), temporalArg(args[2])
			f := strictFunc(name, []Expr{a, b}, []arrow.DataType{nil}, Int64T(), func(_ *Env, v []any) any {
				return timestampDiff(unit, wall(v[0]), wall(v[1]))
			})
			f.show = func() string { return name + "(" + unit + ", " + args[1].String() + ", " + args[2].String() + ")" }
			return f, nil
		}, true
	case "last_day":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, Date32T(), func(_ *Env, v []any) any {
				t := wall(v[0])
				return dateOf(time.Date(t.Year(), t.Month(), daysIn(t.Year(), int(t.Month())), 0, 0, 0, 0, time.UTC))
			}), nil
		}, true
	case "to_days":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, Int64T(), func(_ *Env, v []any) any {
				// MySQL's day numbers, which Doris uses: 0000-01-01 is
				// day 1 and year 0 has no 29 February.
				t := wall(v[0])
				return dayNumber(t.Year(), int(t.Month()), t.Day())
			}), nil
		}, true
	case "str_to_date":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			// The result is a DATE when a constant format has no time
			// specifiers, a DATETIME otherwise.
			// DATETIME(6) only when the format reads microseconds.
			ret := DatetimeT()
			if l, ok := args[1].(*Literal); ok {
				if f, ok := l.Value.(string); ok {
					switch specs := timeSpecs(f); {
					case !strings.ContainsAny(specs, "HhIiklrSsTfp"):
						ret = Date32T()
					case !strings.Contains(specs, "f"):
						ret = &arrow.TimestampType{Unit: arrow.Second}
					}
				}
			}
			return strictFunc(name, args, []arrow.DataType{StringT()}, ret, func(_ *Env, v []any) any {
				t, ok := strToDate(v[0].(string), v[1].(string))
				if !ok {
					return nil
				}
				if ret.ID() == arrow.DATE32 {
					return dateOf(t)
				}
				return fromWall(t)
			}), nil
		}, true
	}
	return nil, false
}

// DiffUnit reports whether unit (upper case) is a TIMESTAMPDIFF unit, so
// the binder can read a bare unit name as a unit rather than a column.
func DiffUnit(unit string) bool { return diffUnit(strings.ToUpper(unit)) }

func diffUnit(unit string) bool {
	switch unit {
	case "MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR":
		return true
	}
	return false
}

// timestampDiff is b - a in whole units, truncated toward zero. Month-based
// units count calendar months and drop the last one when b's day and time
// of month are before a's (MySQL).
func timestampDiff(unit string, a, b time.Time) int64 {
	us := b.Sub(a).Microseconds()
	switch unit {
	case "MICROSECOND":
		return us
	case "SECOND":
		return us / 1e6
	case "MINUTE":
		return us / 60e6
	case "HOUR":
		return us / 3600e6
	case "DAY":
		return us / 86400e6
	case "WEEK":
		return us / (7 * 86400e6)
	}
	months := int64(b.Year()-a.Year())*12 + int64(b.Month()-a.Month())
	// Offsets within the month, to compare day-and-time of month.
	off := func(t time.Time) int64 {
		return int64(t.Day())*86400e6 + int64(t.Hour())*3600e6 + int64(t.Minute())*60e6 + int64(t.Second())*1e6 + int64(t.Nanosecond()/1000)
	}
	if months > 0 && off(b) < off(a) {
		months--
	} else if months < 0 && off(b) > off(a) {
		months++
	}
	switch unit {
	case "QUARTER":
		return months / 3
	case "YEAR":
		return months / 12
	}
	return months
}

// timeSpecs returns the specifier letters of a MySQL format string.
func timeSpecs(f string) string {
	var sb strings.Builder
	for i := 0; i+1 < len(f); i++ {
		if f[i] == '%' {
			i++
			sb.WriteByte(f[i])
		}
	}
	return sb.String()
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// strToDate parses s by a MySQL STR_TO_DATE format. ok is false when s does
// not match the format or names an invalid date.
func strToDate(s, f string) (time.Time, bool) {
	year, month, day, hour, minute, sec, micro := 0, 1, 1, 0, 0, 0, 0
	pm, h12 := false, false
	pos := 0
	skipSpace := func() {
		for pos < len(s) && s[pos] == ' ' {
			pos++
		}
	}
	num := func(maxDigits int) (int, bool) {
		skipSpace()
		start := pos
		for pos < len(s) && pos-start < maxDigits && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
		if pos == start {
			return 0, false
		}
		n, err := strconv.Atoi(s[start:pos])
		return n, err == nil
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 == len(f) {
			if c == ' ' {
				skipSpace()
				continue
			}
			if pos >= len(s) || s[pos] != c {
				return time.Time{}, false
			}
			pos++
			continue
		}
		i++
		var ok bool
		switch f[i] {
		case 'Y':
			year, ok = num(4)
		case 'y':
			year, ok = num(2)
			if year < 70 {
				year += 2000
			} else {
				year += 1900
			}
		case 'm', 'c':
			month, ok = num(2)
		case 'd', 'e':
			day, ok = num(2)
		case 'H', 'k':
			hour, ok = num(2)
		case 'h', 'I', 'l':
			hour, ok = num(2)
			h12 = true
		case 'i':
			minute, ok = num(2)
		case 's', 'S':
			sec, ok = num(2)
		case 'f':
			start := pos
			micro, ok = num(6)
			for d := pos - start; ok && d < 6; d++ {
				micro *= 10
			}
		case 'p':
			skipSpace()
			if pos+2 <= len(s) {
				switch strings.ToUpper(s[pos : pos+2]) {
				case "AM":
					ok = true
				case "PM":
					ok, pm = true, true
				}
				pos += 2
			}
		case 'M', 'b':
			skipSpace()
			rest := strings.ToLower(s[pos:])
			for k, m := range monthNames {
				name := m
				if f[i] == 'b' {
					name = m[:3]
				}
				if strings.HasPrefix(rest, name) {
					month, ok = k+1, true
					pos += len(name)
					break
				}
			}
		case 'T':
			return strToDateTail(s[pos:], "%H:%i:%s", year, month, day)
		case '%':
			ok = pos < len(s) && s[pos] == '%'
			pos++
		default:
			return time.Time{}, false
		}
		if !ok {
			return time.Time{}, false
		}
	}
	if h12 {
		if hour < 1 || hour > 12 {
			return time.Time{}, false
		}
		hour %= 12
		if pm {
			hour += 12
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 || year > 9999 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, micro*1000, time.UTC), true
}

// strToDateTail parses the rest of s by format f on the given date.
func strToDateTail(s, f string, year, month, day int) (time.Time, bool) {
	t, ok := strToDate(s, f)
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, t.Hour(), t.Minute(), t.Second(), 0, time.UTC), true
}

// literalFraction is the number of fraction-of-second digits (at most 6)
// of a constant datetime string, 0 when it has none or is not one.
func literalFraction(l *Literal) int32 {
	v, _ := l.Value.(string)
	v = strings.TrimSpace(v)
	sp := strings.IndexAny(v, " T")
	dot := strings.LastIndexByte(v, '.')
	if sp < 0 || dot < sp {
		return 0
	}
	n := int32(0)
	for _, c := range v[dot+1:] {
		if c < '0' || c > '9' {
			return 0
		}
		n++
	}
	return min(n, 6)
}
