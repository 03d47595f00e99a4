package streamload

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// appender appends one text value to a typed builder, reporting false
// (and appending nothing) when the text is not a value of the type. These
// are the load's fast path for a source column that lands in a table
// column unchanged; their rules are CAST's for the canonical forms, but
// stricter: a value that CAST would truncate (1.5 into INT, 1.005 into
// DECIMAL(3,2) …) is refused, as Doris's load refuses it.
type appender func(b array.Builder, v []byte) bool

// fastAppender returns the appender for t, or nil when t takes the
// general path (CAST through exec/expr).
func fastAppender(t arrow.DataType) appender {
	switch t.ID() {
	case arrow.STRING:
		return func(b array.Builder, v []byte) bool { b.(*array.StringBuilder).BinaryBuilder.Append(v); return true }
	case arrow.BINARY:
		return func(b array.Builder, v []byte) bool { b.(*array.BinaryBuilder).Append(v); return true }
	case arrow.INT8:
		return intAppender(math.MinInt8, math.MaxInt8, func(b array.Builder, n int64) { b.(*array.Int8Builder).Append(int8(n)) })
	case arrow.INT16:
		return intAppender(math.MinInt16, math.MaxInt16, func(b array.Builder, n int64) { b.(*array.Int16Builder).Append(int16(n)) })
	case arrow.INT32:
		return intAppender(math.MinInt32, math.MaxInt32, func(b array.Builder, n int64) { b.(*array.Int32Builder).Append(int32(n)) })
	case arrow.INT64:
		return intAppender(math.MinInt64, math.MaxInt64, func(b array.Builder, n int64) { b.(*array.Int64Builder).Append(n) })
	case arrow.FLOAT32:
		return func(b array.Builder, v []byte) bool {
			f, ok := parseFloat(v, 32)
			if ok {
				b.(*array.Float32Builder).Append(float32(f))
			}
			return ok
		}
	case arrow.FLOAT64:
		return func(b array.Builder, v []byte) bool {
			f, ok := parseFloat(v, 64)
			if ok {
				b.(*array.Float64Builder).Append(f)
			}
			return ok
		}
	case arrow.BOOL:
		return func(b array.Builder, v []byte) bool {
			x, ok := parseBool(trim(v))
			if ok {
				b.(*array.BooleanBuilder).Append(x)
			}
			return ok
		}
	case arrow.DECIMAL128:
		dt := t.(*arrow.Decimal128Type)
		return func(b array.Builder, v []byte) bool {
			n, ok := parseDecimal(trim(v), dt.Precision, dt.Scale)
			if ok {
				b.(*array.Decimal128Builder).Append(n)
			}
			return ok
		}
	case arrow.DATE32:
		return func(b array.Builder, v []byte) bool {
			v = trim(v)
			if d, ok := parseISODate(v); ok {
				b.(*array.Date32Builder).Append(arrow.Date32(d))
				return true
			}
			us, ok := parseDatetime(v)
			if ok {
				b.(*array.Date32Builder).Append(arrow.Date32(floorDiv(us, 86400_000_000)))
			}
			return ok
		}
	case arrow.TIMESTAMP:
		div := int64(1)
		switch t.(*arrow.TimestampType).Unit {
		case arrow.Second:
			div = 1_000_000
		case arrow.Millisecond:
			div = 1000
		case arrow.Nanosecond:
			return nil
		}
		return func(b array.Builder, v []byte) bool {
			us, ok := parseDatetime(trim(v))
			if ok {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(floorDiv(us, div)))
			}
			return ok
		}
	}
	return nil
}

func trim(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\r' || v[0] == '\n') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t' || v[len(v)-1] == '\r' || v[len(v)-1] == '\n') {
		v = v[:len(v)-1]
	}
	return v
}

func intAppender(lo, hi int64, app func(array.Builder, int64)) appender {
	return func(b array.Builder, v []byte) bool {
		n, ok := parseInt(trim(v))
		if !ok || n < lo || n > hi {
			return false
		}
		app(b, n)
		return true
	}
}

func parseInt(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	neg := false
	switch v[0] {
	case '-':
		neg, v = true, v[1:]
	case '+':
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// bytesString views v as a string for a parser that does not keep it.
func bytesString(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	return unsafe.String(&v[0], len(v))
}

func parseFloat(v []byte, bits int) (float64, bool) {
	v = trim(v)
	if len(v) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(bytesString(v), bits)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func parseBool(v []byte) (bool, bool) {
	switch len(v) {
	case 1:
		switch v[0] {
		case '1':
			return true, true
		case '0':
			return false, true
		}
	case 4:
		if (v[0]|0x20) == 't' && (v[1]|0x20) == 'r' && (v[2]|0x20) == 'u' && (v[3]|0x20) == 'e' {
			return true, true
		}
	case 5:
		if (v[0]|0x20) == 'f' && (v[1]|0x20) == 'a' && (v[2]|0x20) == 'l' && (v[3]|0x20) == 's' && (v[4]|0x20) == 'e' {
			return false, true
		}
	}
	return false, false
}

// parseDecimal reads [-+]digits[.digits] exactly: more fraction digits than
// the scale are refused unless they are zeros, as are values over the
// precision. Exponent forms take decimal128.FromString's path.
func parseDecimal(v []byte, prec, scale int32) (decimal128.Num, bool) {
	if len(v) == 0 {
		return decimal128.Num{}, false
	}
	s := v
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	var intPart, frac []byte
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart = s[:i]
	rest := s[i:]
	if len(rest) > 0 && rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		frac, rest = rest[1:j], rest[j:]
	}
	if len(rest) > 0 {
		if rest[0] != 'e' && rest[0] != 'E' {
			return decimal128.Num{}, false
		}
		n, err := decimal128.FromString(bytesString(v), 38, scale)
		if err != nil || !n.FitsInPrecision(prec) {
			return decimal128.Num{}, false
		}
		return n, true
	}
	if len(intPart) == 0 && len(frac) == 0 {
		return decimal128.Num{}, false
	}
	for len(frac) > int(scale) {
		if frac[len(frac)-1] != '0' {
			return decimal128.Num{}, false
		}
		frac = frac[:len(frac)-1]
	}
	for len(intPart) > 1 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	if len(intPart)+int(scale) > int(prec) && !(len(intPart) == 1 && intPart[0] == '0') {
		return decimal128.Num{}, false
	}
	digits := len(intPart) + int(scale)
	if digits <= 18 {
		var u int64
		for _, c := range intPart {
			u = u*10 + int64(c-'0')
		}
		for k := 0; k < int(scale); k++ {
			d := int64(0)
			if k < len(frac) {
				d = int64(frac[k] - '0')
			}
			u = u*10 + d
		}
		if neg {
			u = -u
		}
		return decimal128.FromI64(u), true
	}
	n, err := decimal128.FromString(bytesString(v), 38, scale)
	if err != nil || !n.FitsInPrecision(prec) {
		return decimal128.Num{}, false
	}
	return n, true
}

// parseDatetime reads 'YYYY-MM-DD', 'YYYY-MM-DD hh:mm:ss[.ffffff]' (also
// with '/' and 'T'), 'YYYYMMDD' and 'YYYYMMDDhhmmss' as microseconds since
// the epoch of the wall-clock value, checking every field's range.
func parseDatetime(v []byte) (int64, bool) {
	var f [6]int
	var us int
	n := 0
	if len(v) == 8 || len(v) == 14 {
		digits := true
		for _, c := range v {
			if c < '0' || c > '9' {
				digits = false
				break
			}
		}
		if digits {
			at := func(i, w int) int {
				x := 0
				for _, c := range v[i : i+w] {
					x = x*10 + int(c-'0')
				}
				return x
			}
			f = [6]int{at(0, 4), at(4, 2), at(6, 2)}
			if len(v) == 14 {
				f[3], f[4], f[5] = at(8, 2), at(10, 2), at(12, 2)
			}
			return civil(f, 0)
		}
	}
	i := 0
	for n < 6 {
		start := i
		x := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' && i-start < 4 {
			x = x*10 + int(v[i]-'0')
			i++
		}
		if i == start {
			return 0, false
		}
		f[n] = x
		n++
		if i == len(v) {
			break
		}
		sep := v[i]
		ok := false
		switch n {
		case 1, 2:
			ok = sep == '-' || sep == '/'
		case 3:
			ok = sep == ' ' || sep == 'T'
		case 4, 5:
			ok = sep == ':'
		case 6:
			ok = sep == '.'
		}
		if !ok {
			return 0, false
		}
		i++
		if n == 6 {
			// Fraction: up to 6 digits count, more are cut.
			digits := 0
			for i < len(v) && v[i] >= '0' && v[i] <= '9' {
				if digits < 6 {
					us = us*10 + int(v[i]-'0')
				}
				digits++
				i++
			}
			if digits == 0 || i != len(v) {
				return 0, false
			}
			for ; digits < 6; digits++ {
				us *= 10
			}
		}
	}
	if i != len(v) || !(n == 3 || n == 5 || n == 6) {
		return 0, false
	}
	return civil(f, us)
}

// parseISODate reads exactly 'YYYY-MM-DD', the form nearly every DATE
// value of a load takes, as days since the epoch; anything else (ok false)
// takes parseDatetime's general path.
func parseISODate(v []byte) (int64, bool) {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return 0, false
	}
	for _, i := range [8]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	y := int(v[0]-'0')*1000 + int(v[1]-'0')*100 + int(v[2]-'0')*10 + int(v[3]-'0')
	m := int(v[5]-'0')*10 + int(v[6]-'0')
	d := int(v[8]-'0')*10 + int(v[9]-'0')
	return civilDays(y, m, d)
}

// civil checks a date-time's fields and returns its microseconds since
// 1970-01-01 00:00:00 (days from civil, proleptic Gregorian).
func civil(f [6]int, us int) (int64, bool) {
	h, mi, s := f[3], f[4], f[5]
	if h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	days, ok := civilDays(f[0], f[1], f[2])
	if !ok {
		return 0, false
	}
	return ((days*24+int64(h))*60+int64(mi))*60_000_000 + int64(s)*1_000_000 + int64(us), true
}

// civilDays checks a date and returns its days since 1970-01-01.
func civilDays(y, m, d int) (int64, bool) {
	if y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	mdays := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && (y%4 == 0 && y%100 != 0 || y%400 == 0) {
		mdays = 29
	}
	if d > mdays {
		return 0, false
	}
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
