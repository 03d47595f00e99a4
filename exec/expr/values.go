package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
	"github.com/inlet-db/inlet/internal/arrowval"
)

// MapValue is the canonical Go form of one MAP value: keys and values in
// their stored order.
type MapValue = arrowval.Map

// widened reads cells in the evaluator's form (internal/arrowval: one Go
// type per family, times in microseconds).
var widened = &arrowval.Options{Widen: true}

// Getter returns a function reading row i of arr as its canonical Go value
// (nil for NULL, and for a type the evaluator cannot read: Supported says
// which). The conversion itself is internal/arrowval's.
func Getter(arr arrow.Array) func(i int) any {
	return func(i int) any {
		v, _ := arrowval.Value(arr, i, widened)
		return v
	}
}

// getterNoNull is Getter without the validity check, for loops that apply
// the validity bitmap themselves.
func getterNoNull(arr arrow.Array) func(i int) any {
	return func(i int) any {
		v, _ := arrowval.Slot(arr, i, widened)
		return v
	}
}

// roundMicros rounds a wall-clock instant in microseconds to the precision
// of unit, half up, as MySQL and Doris round a DATETIME(6) narrowed to
// DATETIME(p) (10:00:00.999999 becomes 10:00:01.000 at p = 3). Flooring
// first keeps instants before 1970 rounding by their wall-clock fraction.
func roundMicros(us int64, unit arrow.TimeUnit) int64 {
	mul, _ := toMicros(unit)
	if mul > 1 {
		us = floorDiv(us+mul/2, mul) * mul
	}
	return us
}

func toMicros(u arrow.TimeUnit) (mul, div int64) {
	switch u {
	case arrow.Second:
		return 1_000_000, 1
	case arrow.Millisecond:
		return 1000, 1
	case arrow.Nanosecond:
		return 1, 1000
	}
	return 1, 1
}

// Supported reports whether the evaluator can read and build values of t.
// Operators refuse to hash, sort or aggregate other types (rather than
// read them as NULL); they may still pass them through untouched.
func Supported(t arrow.DataType) bool { return supported(t) }

func supported(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY,
		arrow.DATE32, arrow.TIMESTAMP, arrow.DATE64, arrow.FIXED_SIZE_BINARY, arrow.TIME32, arrow.TIME64:
		return true
	case arrow.LIST, arrow.LARGE_LIST:
		return supported(t.(arrow.ListLikeType).Elem())
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return supported(m.KeyType()) && supported(m.ItemType())
	case arrow.STRUCT:
		for _, f := range t.(*arrow.StructType).Fields() {
			if !supported(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// Appender returns a function appending a canonical value of type t (as
// produced by Getter or castValue to t) to b, which must build t.
func Appender(b array.Builder) func(v any) {
	app := appenderNoNull(b)
	return func(v any) {
		if v == nil {
			b.AppendNull()
			return
		}
		app(v)
	}
}

func appenderNoNull(b array.Builder) func(v any) {
	switch bb := b.(type) {
	case *array.NullBuilder:
		return func(any) { bb.AppendNull() }
	case *array.BooleanBuilder:
		return func(v any) { bb.Append(v.(bool)) }
	case *array.Int8Builder:
		return func(v any) { bb.Append(int8(v.(int64))) }
	case *array.Int16Builder:
		return func(v any) { bb.Append(int16(v.(int64))) }
	case *array.Int32Builder:
		return func(v any) { bb.Append(int32(v.(int64))) }
	case *array.Int64Builder:
		return func(v any) { bb.Append(v.(int64)) }
	case *array.Uint8Builder:
		return func(v any) { bb.Append(uint8(v.(int64))) }
	case *array.Uint16Builder:
		return func(v any) { bb.Append(uint16(v.(int64))) }
	case *array.Uint32Builder:
		return func(v any) { bb.Append(uint32(v.(int64))) }
	case *array.Uint64Builder:
		return func(v any) { bb.Append(uint64(v.(int64))) }
	case *array.Float32Builder:
		return func(v any) { bb.Append(float32(v.(float64))) }
	case *array.Float64Builder:
		return func(v any) { bb.Append(v.(float64)) }
	case *array.Decimal128Builder:
		return func(v any) { bb.Append(v.(decimal128.Num)) }
	case *array.StringBuilder:
		return func(v any) { bb.Append(v.(string)) }
	case *array.LargeStringBuilder:
		return func(v any) { bb.Append(v.(string)) }
	case *array.BinaryBuilder:
		return func(v any) { bb.AppendString(v.(string)) }
	case *array.Date32Builder:
		return func(v any) { bb.Append(v.(arrow.Date32)) }
	case *array.Date64Builder:
		return func(v any) { bb.Append(arrow.Date64(int64(v.(arrow.Date32)) * 86400000)) }
	case *array.FixedSizeBinaryBuilder:
		w := bb.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		return func(v any) {
			// A value of another width cannot be stored: it becomes NULL,
			// as a failed cast does.
			if s := v.(string); len(s) == w {
				bb.Append([]byte(s))
			} else {
				bb.AppendNull()
			}
		}
	case *array.Time32Builder:
		mul, div := toMicros(bb.Type().(*arrow.Time32Type).Unit)
		return func(v any) { bb.Append(arrow.Time32(int64(v.(arrow.Time64)) * div / mul)) }
	case *array.Time64Builder:
		mul, div := toMicros(bb.Type().(*arrow.Time64Type).Unit)
		return func(v any) { bb.Append(arrow.Time64(int64(v.(arrow.Time64)) * div / mul)) }
	case *array.TimestampBuilder:
		mul, div := toMicros(bb.Type().(*arrow.TimestampType).Unit)
		return func(v any) { bb.Append(arrow.Timestamp(int64(v.(arrow.Timestamp)) * div / mul)) }
	case *array.MapBuilder:
		ka, va := Appender(bb.KeyBuilder()), Appender(bb.ItemBuilder())
		return func(v any) {
			m := v.(MapValue)
			bb.Append(true)
			for i := range m.Keys {
				ka(m.Keys[i])
				va(m.Values[i])
			}
		}
	case *array.ListBuilder, *array.LargeListBuilder:
		lb := bb.(array.ListLikeBuilder)
		ea := Appender(lb.ValueBuilder())
		return func(v any) {
			lb.Append(true)
			for _, e := range v.([]any) {
				ea(e)
			}
		}
	case *array.StructBuilder:
		fa := make([]func(any), bb.NumField())
		for i := range fa {
			fa[i] = Appender(bb.FieldBuilder(i))
		}
		return func(v any) {
			bb.Append(true)
			for i, e := range v.([]any) {
				fa[i](e)
			}
		}
	}
	return func(any) { b.AppendNull() }
}

// castValue converts canonical v of type from into a canonical value of
// type to. Conversions that fail on this value (an unparsable string, an
// out-of-range number) give NULL, as Doris does outside strict mode; a
// conversion no value could make is an error, reported at bind time by Cast.
func castValue(v any, from, to arrow.DataType, loc *time.Location) any {
	if v == nil {
		return nil
	}
	switch {
	case isInt(to):
		return toInt(v, from, to)
	case isFloat(to):
		f, ok := toFloat(v, from)
		if !ok {
			return nil
		}
		if to.ID() == arrow.FLOAT32 {
			return float64(float32(f))
		}
		return f
	case isDecimal(to):
		p, s := decimalPS(to)
		return toDecimal(v, from, p, s)
	case to.ID() == arrow.BOOL:
		switch x := v.(type) {
		case bool:
			return x
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "1":
				return true
			case "false", "0":
				return false
			}
			f, ok := parseNumberPrefix(x)
			if !ok {
				return nil
			}
			return f != 0
		}
		f, ok := toFloat(v, from)
		if !ok {
			return nil
		}
		return f != 0
	case isString(to):
		return formatValue(v, from)
	case to.ID() == arrow.TIME32 || to.ID() == arrow.TIME64:
		switch x := v.(type) {
		case arrow.Time64:
			return x
		case arrow.Timestamp:
			return arrow.Time64(int64(x) - floorDiv(int64(x), 86400_000_000)*86400_000_000)
		case string:
			us, ok := parseTime(x)
			if !ok {
				return nil
			}
			return arrow.Time64(us)
		}
		return nil
	case to.ID() == arrow.DATE32 || to.ID() == arrow.DATE64:
		switch x := v.(type) {
		case arrow.Date32:
			return x
		case arrow.Timestamp:
			return arrow.Date32(floorDiv(int64(x), 86400_000_000))
		case string:
			ts, ok := parseDatetime(x)
			if !ok {
				return nil
			}
			return arrow.Date32(floorDiv(ts, 86400_000_000))
		case int64:
			// MySQL reads 20240102 as a date.
			ts, ok := parseDatetime(strconv.FormatInt(x, 10))
			if !ok {
				return nil
			}
			return arrow.Date32(floorDiv(ts, 86400_000_000))
		}
		return nil
	case to.ID() == arrow.TIMESTAMP:
		var us int64
		switch x := v.(type) {
		case arrow.Timestamp:
			us = int64(x)
		case arrow.Date32:
			us = int64(x) * 86400_000_000
		case string:
			ts, ok := parseDatetime(x)
			if !ok {
				return nil
			}
			us = ts
		case int64:
			ts, ok := parseDatetime(strconv.FormatInt(x, 10))
			if !ok {
				return nil
			}
			us = ts
		default:
			return nil
		}
		return arrow.Timestamp(roundMicros(us, to.(*arrow.TimestampType).Unit))
	case to.ID() == arrow.NULL:
		return nil
	case to.ID() == from.ID() && (to.ID() == arrow.LIST || to.ID() == arrow.LARGE_LIST):
		fe, te := from.(arrow.ListLikeType).Elem(), to.(arrow.ListLikeType).Elem()
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			out[i] = castValue(e, fe, te, loc)
		}
		return out
	case to.ID() == arrow.MAP && from.ID() == arrow.MAP:
		fm, tm := from.(*arrow.MapType), to.(*arrow.MapType)
		in := v.(MapValue)
		out := MapValue{Keys: make([]any, len(in.Keys)), Values: make([]any, len(in.Values))}
		for i := range in.Keys {
			out.Keys[i] = castValue(in.Keys[i], fm.KeyType(), tm.KeyType(), loc)
			out.Values[i] = castValue(in.Values[i], fm.ItemType(), tm.ItemType(), loc)
		}
		return out
	case to.ID() == arrow.STRUCT && from.ID() == arrow.STRUCT:
		fs, ts := from.(*arrow.StructType).Fields(), to.(*arrow.StructType).Fields()
		in := v.([]any)
		out := make([]any, len(ts))
		for i := range ts {
			if i < len(fs) {
				out[i] = castValue(in[i], fs[i].Type, ts[i].Type, loc)
			}
		}
		return out
	}
	return nil
}

// castable reports whether CAST(from AS to) is defined at all.
func castable(from, to arrow.DataType) bool {
	if isNull(from) || arrow.TypeEqual(from, to) {
		return true
	}
	if isTime(to) {
		return isTime(from) || isString(from) || from.ID() == arrow.TIMESTAMP
	}
	if isTime(from) {
		return isString(to) || isTime(to)
	}
	scalarKind := func(t arrow.DataType) bool {
		return isNumeric(t) || isString(t) || isTemporal(t) || t.ID() == arrow.BOOL
	}
	if scalarKind(to) && scalarKind(from) {
		if isTemporal(to) && (isFloat(from) || isDecimal(from) || from.ID() == arrow.BOOL) {
			return false
		}
		return true
	}
	if isString(to) {
		return supported(from)
	}
	switch {
	case (from.ID() == arrow.LIST || from.ID() == arrow.LARGE_LIST) && (to.ID() == arrow.LIST || to.ID() == arrow.LARGE_LIST):
		return from.ID() == to.ID() && castable(from.(arrow.ListLikeType).Elem(), to.(arrow.ListLikeType).Elem())
	case from.ID() == arrow.MAP && to.ID() == arrow.MAP:
		fm, tm := from.(*arrow.MapType), to.(*arrow.MapType)
		return castable(fm.KeyType(), tm.KeyType()) && castable(fm.ItemType(), tm.ItemType())
	case from.ID() == arrow.STRUCT && to.ID() == arrow.STRUCT:
		fs, ts := from.(*arrow.StructType).Fields(), to.(*arrow.StructType).Fields()
		if len(fs) != len(ts) {
			return false
		}
		for i := range fs {
			if !castable(fs[i].Type, ts[i].Type) {
				return false
			}
		}
		return true
	}
	return false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func intRange(t arrow.DataType) (lo, hi int64) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	case arrow.UINT8:
		return 0, math.MaxUint8
	case arrow.UINT16:
		return 0, math.MaxUint16
	case arrow.UINT32:
		return 0, math.MaxUint32
	case arrow.UINT64:
		return 0, math.MaxInt64
	}
	return math.MinInt64, math.MaxInt64
}

func toInt(v any, from, to arrow.DataType) any {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case bool:
		if x {
			n = 1
		}
	case float64:
		if math.IsNaN(x) {
			return nil
		}
		r := math.Trunc(x)
		if r >= 9.223372036854775807e18 || r < -9.223372036854775808e18 {
			return nil
		}
		n = int64(r)
	case decimal128.Num:
		_, s := decimalPS(from)
		q := x
		if s > 0 {
			q, _ = x.Div(decimal128.GetScaleMultiplier(int(s)))
		}
		if q.HighBits() != 0 && q.HighBits() != -1 {
			return nil
		}
		if q.HighBits() == 0 && q.LowBits() > math.MaxInt64 || q.HighBits() == -1 && q.LowBits() < 1<<63 {
			return nil
		}
		n = int64(q.LowBits())
	case string:
		s := strings.TrimSpace(x)
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil {
				return nil
			}
			return toInt(f, Float64T(), to)
		}
		n = i
	case arrow.Date32:
		// MySQL: DATE as a number is YYYYMMDD.
		t := time.Unix(int64(x)*86400, 0).UTC()
		n = int64(t.Year()*10000 + int(t.Month())*100 + t.Day())
	case arrow.Timestamp:
		t := time.UnixMicro(int64(x)).UTC()
		n = int64(t.Year())*10000000000 + int64(t.Month())*100000000 + int64(t.Day())*1000000 +
			int64(t.Hour())*10000 + int64(t.Minute())*100 + int64(t.Second())
	default:
		return nil
	}
	lo, hi := intRange(to)
	if n < lo || n > hi {
		return nil
	}
	return n
}

func toFloat(v any, from arrow.DataType) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case decimal128.Num:
		_, s := decimalPS(from)
		return decimalToFloat(x, s), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, false
		}
		return f, true
	case arrow.Date32, arrow.Timestamp:
		n := toInt(v, from, Int64T())
		if n == nil {
			return 0, false
		}
		return float64(n.(int64)), true
	}
	return 0, false
}

// parseNumberPrefix reads the leading number of s, as MySQL does when a
// string is used as a number.
func parseNumberPrefix(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && strings.IndexByte("+-0123456789.eE", s[end]) >= 0 {
		end++
	}
	for end > 0 {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f, true
		}
		end--
	}
	return 0, false
}

func toDecimal(v any, from arrow.DataType, p, s int32) any {
	var n decimal128.Num
	switch x := v.(type) {
	case int64:
		n = decimal128.FromI64(x)
	case bool:
		if x {
			n = decimal128.FromI64(1)
		}
	case float64:
		d, ok := floatToDecimal(x, s)
		if !ok {
			return nil
		}
		n = d
	case decimal128.Num:
		_, fs := decimalPS(from)
		switch {
		case fs == s:
			n = x
		case fs < s:
			var ok bool
			if n, ok = scaleUp(x, s-fs); !ok {
				return nil
			}
		default:
			n = scaleDown(x, fs-s)
		}
	case string:
		if p >= LargeIntPrecision {
			if d, ok := ParseLargeInt(x); ok {
				return d
			}
		}
		d, err := decimal128.FromString(strings.TrimSpace(x), 38, s)
		if err != nil {
			return nil
		}
		n = d
	case arrow.Date32, arrow.Timestamp:
		i := toInt(v, from, Int64T())
		if i == nil {
			return nil
		}
		n = decimal128.FromI64(i.(int64))
	default:
		return nil
	}
	switch v.(type) {
	case int64, bool, arrow.Date32, arrow.Timestamp:
		// Integral values are scaled here; beyond 128 bits they cannot
		// fit any DECIMAL(38).
		var ok bool
		if n, ok = scaleUp(n, s); !ok {
			return nil
		}
	}
	if !fitsPrec(n, p) {
		return nil
	}
	return n
}

// formatValue renders canonical v of type t as CAST(v AS STRING) does, the
// same text the MySQL text protocol shows.
func formatValue(v any, t arrow.DataType) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float64:
		if t.ID() == arrow.FLOAT32 {
			return render.FormatFloat32(float32(x))
		}
		return render.FormatFloat64(x)
	case decimal128.Num:
		_, s := decimalPS(t)
		return x.ToString(s)
	case arrow.Date32:
		return render.FormatDate(int32(x))
	case arrow.Timestamp:
		return render.FormatDatetime(int64(x), timestampScale(t))
	case arrow.Time64:
		return render.FormatTime(int64(x), timeScale(t))
	}
	// Nested values print as the renderer prints them.
	b := array.NewBuilder(memory.NewGoAllocator(), t)
	defer b.Release()
	Appender(b)(v)
	arr := b.NewArray()
	defer arr.Release()
	out, _ := render.AppendValue(nil, arr, 0)
	return string(out)
}

func timeScale(t arrow.DataType) int {
	var u arrow.TimeUnit
	switch tt := t.(type) {
	case *arrow.Time32Type:
		u = tt.Unit
	case *arrow.Time64Type:
		u = tt.Unit
	default:
		return 6
	}
	switch u {
	case arrow.Second:
		return 0
	case arrow.Millisecond:
		return 3
	}
	return 6
}

// parseTime reads 'hh:mm:ss[.ffffff]' (hours 0-23) as microseconds.
func parseTime(s string) (int64, bool) {
	us, ok := parseDatetime("2000-01-01 " + strings.TrimSpace(s))
	if !ok {
		return 0, false
	}
	base, _ := parseDatetime("2000-01-01")
	return us - base, true
}

func timestampScale(t arrow.DataType) int {
	tt, ok := t.(*arrow.TimestampType)
	if !ok {
		return 6
	}
	switch tt.Unit {
	case arrow.Second:
		return 0
	case arrow.Millisecond:
		return 3
	}
	return 6
}

// parseDatetime reads the date and datetime literal forms MySQL accepts:
// 'YYYY-MM-DD', 'YYYY-MM-DD hh:mm:ss[.ffffff]', 'YYYY/MM/DD ...',
// 'YYYYMMDD', 'YYYYMMDDhhmmss', an ISO 'T' separator. It returns
// microseconds since the epoch of the wall-clock value.
func parseDatetime(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	var y, mo, d, h, mi, sec, us int
	var roundUp int64
	digitsOnly := true
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			digitsOnly = false
			break
		}
	}
	if digitsOnly {
		if len(s) != 8 && len(s) != 14 {
			return 0, false
		}
		y, _ = strconv.Atoi(s[0:4])
		mo, _ = strconv.Atoi(s[4:6])
		d, _ = strconv.Atoi(s[6:8])
		if len(s) == 14 {
			h, _ = strconv.Atoi(s[8:10])
			mi, _ = strconv.Atoi(s[10:12])
			sec, _ = strconv.Atoi(s[12:14])
		}
	} else {
		// Split into numeric fields.
		var fields []string
		var fracDigits string
		cur := strings.Builder{}
		nfield := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= '0' && c <= '9' {
				cur.WriteByte(c)
				continue
			}
			if cur.Len() == 0 {
				return 0, false
			}
			fields = append(fields, cur.String())
			cur.Reset()
			nfield++
			if c == '.' && nfield == 6 {
				fracDigits = s[i+1:]
				break
			}
			if !(c == '-' || c == '/' || c == ':' || c == ' ' || c == 'T' || c == '.') {
				return 0, false
			}
		}
		if cur.Len() > 0 {
			fields = append(fields, cur.String())
		}
		if len(fields) != 3 && len(fields) != 5 && len(fields) != 6 {
			return 0, false
		}
		vals := make([]int, len(fields))
		for i, f := range fields {
			n, err := strconv.Atoi(f)
			if err != nil {
				return 0, false
			}
			vals[i] = n
		}
		y, mo, d = vals[0], vals[1], vals[2]
		if len(fields) >= 5 {
			h, mi = vals[3], vals[4]
		}
		if len(fields) == 6 {
			sec = vals[5]
		}
		if fracDigits != "" {
			for i := 0; i < len(fracDigits); i++ {
				if fracDigits[i] < '0' || fracDigits[i] > '9' {
					return 0, false
				}
			}
			f := fracDigits
			if len(f) > 6 {
				// Past microseconds MySQL rounds, half up.
				if f[6] >= '5' {
					roundUp = 1
				}
				f = f[:6]
			}
			f += strings.Repeat("0", 6-len(f))
			us, _ = strconv.Atoi(f)
		}
		if len(fields[0]) == 2 {
			// Two-digit years: 70-99 → 19xx, 00-69 → 20xx.
			if y < 70 {
				y += 2000
			} else {
				y += 1900
			}
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 || y > 9999 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, us*1000, time.UTC)
	return t.UnixMicro() + roundUp, true
}

// daysIn is the number of days of month m of year y (proleptic
// Gregorian, as time.Date counts them); a month outside 1..12 is
// normalised as time.Date normalises it.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	case 1, 3, 5, 7, 8, 10, 12:
		return 31
	}
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// compareValues orders two canonical values of the same type t; NULL is
// not handled here.
func compareValues(a, b any, t arrow.DataType) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmp3(x < y, x > y)
	case float64:
		y := b.(float64)
		return cmp3(x < y, x > y)
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		return cmp3(!x && y, x && !y)
	case arrow.Date32:
		y := b.(arrow.Date32)
		return cmp3(x < y, x > y)
	case arrow.Timestamp:
		y := b.(arrow.Timestamp)
		return cmp3(x < y, x > y)
	case arrow.Time64:
		y := b.(arrow.Time64)
		return cmp3(x < y, x > y)
	case []any:
		y := b.([]any)
		var et func(int) arrow.DataType
		switch tt := t.(type) {
		case arrow.ListLikeType:
			et = func(int) arrow.DataType { return tt.Elem() }
		case *arrow.StructType:
			et = func(i int) arrow.DataType { return tt.Field(i).Type }
		default:
			et = func(int) arrow.DataType { return t }
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			switch {
			case x[i] == nil && y[i] == nil:
				continue
			case x[i] == nil:
				return -1
			case y[i] == nil:
				return 1
			}
			if c := compareValues(x[i], y[i], et(i)); c != 0 {
				return c
			}
		}
		return cmp3(len(x) < len(y), len(x) > len(y))
	}
	return 0
}

func cmp3(less, greater bool) int {
	if less {
		return -1
	}
	if greater {
		return 1
	}
	return 0
}

func errorf(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
}

// KeyString is a text form of canonical v of type t that is equal for
// equal values and different for different ones; operators use it to hash
// keys of types without a dedicated fast path.
func KeyString(v any, t arrow.DataType) string {
	if f, ok := v.(float64); ok && f == 0 {
		v = 0.0 // -0 = +0
	}
	return formatValue(v, t)
}

// Compare orders two non-NULL canonical values of type t (-1, 0, 1).
func Compare(a, b any, t arrow.DataType) int { return compareAny(a, b, t) }

// decimalToFloat gives the double nearest to x/10^s. Dividing by a power of
// ten in binary rounds twice; parsing the decimal text rounds once.
func decimalToFloat(x decimal128.Num, s int32) float64 {
	f, err := strconv.ParseFloat(x.ToString(s), 64)
	if err != nil {
		return x.ToFloat64(s)
	}
	return f
}

// floatToDecimal converts f to a decimal of scale s from its shortest
// round-trip text (the digits a client sees), rounding half away from zero
// as every cast to a smaller decimal scale does. ok is false for NaN, ±Inf
// and values beyond 38 digits.
func floatToDecimal(f float64, s int32) (decimal128.Num, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal128.Num{}, false
	}
	txt := strconv.FormatFloat(f, 'f', -1, 64)
	neg := strings.HasPrefix(txt, "-")
	txt = strings.TrimPrefix(txt, "-")
	ip, fp, _ := strings.Cut(txt, ".")
	up := false
	if len(fp) > int(s) {
		up = fp[s] >= '5'
		fp = fp[:s]
	}
	fp += strings.Repeat("0", int(s)-len(fp))
	digits := strings.TrimLeft(ip+fp, "0")
	if digits == "" {
		digits = "0"
	}
	if len(digits) > 38 {
		return decimal128.Num{}, false
	}
	var b big.Int
	if _, ok := b.SetString(digits, 10); !ok {
		return decimal128.Num{}, false
	}
	if up {
		b.Add(&b, big.NewInt(1))
	}
	if neg {
		b.Neg(&b)
	}
	n := decimal128.FromBigInt(&b)
	return n, n.FitsInPrecision(38)
}

// FormatValue is a value as SQL text, as CAST(v AS STRING) prints it
// (DECIMAL with its scale, DATETIME with its fraction digits).
func FormatValue(v any, t arrow.DataType) string { return formatValue(v, t) }
