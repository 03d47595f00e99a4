package render

import (
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// AppendValue appends the text form of row i of arr to dst. ok is false
// when the value is NULL (nothing is appended).
func AppendValue(dst []byte, arr arrow.Array, i int) (out []byte, ok bool) {
	if arr.IsNull(i) {
		return dst, false
	}
	out = appendValue(dst, arr, i, false)
	if out == nil {
		// An empty value must stay distinguishable from NULL: callers slice
		// the buffer per column, and a slice of a nil buffer is nil, which
		// the wire layer sends as NULL.
		out = noBytes
	}
	return out, true
}

// noBytes is a non-nil empty buffer.
var noBytes = make([]byte, 0)

// String is AppendValue for callers that want a string; NULL gives "NULL".
func String(arr arrow.Array, i int) string {
	b, ok := AppendValue(nil, arr, i)
	if !ok {
		return "NULL"
	}
	return string(b)
}

func appendValue(dst []byte, arr arrow.Array, i int, nested bool) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(dst, '1')
		}
		return append(dst, '0')
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10)
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10)
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64)
	case *array.Decimal128:
		return append(dst, a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)...)
	case *array.String:
		return appendStr(dst, a.Value(i), nested)
	case *array.LargeString:
		return appendStr(dst, a.Value(i), nested)
	case *array.Binary:
		return appendStr(dst, string(a.Value(i)), nested)
	case *array.FixedSizeBinary:
		return appendStr(dst, string(a.Value(i)), nested)
	case *array.Time32:
		v, scale := int64(a.Value(i)), 0
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Millisecond {
			v, scale = v*1000, 3
		} else {
			v *= 1_000_000
		}
		return quoted(dst, nested, func(d []byte) []byte { return AppendTime(d, v, scale) })
	case *array.Time64:
		v, scale := int64(a.Value(i)), 6
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			v /= 1000
		}
		return quoted(dst, nested, func(d []byte) []byte { return AppendTime(d, v, scale) })
	case *array.LargeBinary:
		return appendStr(dst, string(a.Value(i)), nested)
	case *array.Date32:
		return quoted(dst, nested, func(d []byte) []byte { return AppendDate(d, int32(a.Value(i))) })
	case *array.Date64:
		return quoted(dst, nested, func(d []byte) []byte { return AppendDate(d, int32(int64(a.Value(i))/86400000)) })
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		us, scale := int64(a.Value(i)), 6
		switch unit {
		case arrow.Second:
			us, scale = us*1_000_000, 0
		case arrow.Millisecond:
			us, scale = us*1000, 3
		case arrow.Nanosecond:
			us = floorDiv(us, 1000)
		}
		return quoted(dst, nested, func(d []byte) []byte { return AppendDatetime(d, us, scale) })
	case *array.List:
		s, e := a.ValueOffsets(i)
		return appendList(dst, a.ListValues(), int(s), int(e))
	case *array.LargeList:
		s, e := a.ValueOffsets(i)
		return appendList(dst, a.ListValues(), int(s), int(e))
	case *array.Map:
		offs := a.Offsets()
		j := i + a.Data().Offset()
		dst = append(dst, '{')
		for k := int(offs[j]); k < int(offs[j+1]); k++ {
			if k > int(offs[j]) {
				dst = append(dst, ", "...)
			}
			dst = appendValue(dst, a.Keys(), k, true)
			dst = append(dst, ':')
			dst = appendValue(dst, a.Items(), k, true)
		}
		return append(dst, '}')
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				dst = append(dst, ", "...)
			}
			dst = strconv.AppendQuote(dst, st.Field(f).Name)
			dst = append(dst, ':')
			dst = appendValue(dst, a.Field(f), i, true)
		}
		return append(dst, '}')
	case *array.Null:
		return append(dst, "null"...)
	}
	// Types the engine does not produce still print something readable.
	return append(dst, arr.ValueStr(i)...)
}

func appendList(dst []byte, vals arrow.Array, s, e int) []byte {
	dst = append(dst, '[')
	for k := s; k < e; k++ {
		if k > s {
			dst = append(dst, ", "...)
		}
		dst = appendValue(dst, vals, k, true)
	}
	return append(dst, ']')
}

func appendStr(dst []byte, s string, nested bool) []byte {
	if !nested {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

func quoted(dst []byte, nested bool, f func([]byte) []byte) []byte {
	if !nested {
		return f(dst)
	}
	dst = append(dst, '"')
	dst = f(dst)
	return append(dst, '"')
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		// -0 prints as 0, as Doris does.
		return append(dst, '0')
	}
	a := math.Abs(f)
	if a >= 1e-5 && a < 1e16 {
		return strconv.AppendFloat(dst, f, 'f', -1, bits)
	}
	return strconv.AppendFloat(dst, f, 'e', -1, bits)
}

// FormatFloat64 prints a DOUBLE the way Doris does.
func FormatFloat64(f float64) string { return string(appendFloat(nil, f, 64)) }

// FormatFloat32 prints a FLOAT the way Doris does.
func FormatFloat32(f float32) string { return string(appendFloat(nil, float64(f), 32)) }

// AppendDate appends days since 1970-01-01 as YYYY-MM-DD.
func AppendDate(dst []byte, days int32) []byte {
	t := time.Unix(int64(days)*86400, 0).UTC()
	return appendYMD(dst, t)
}

// FormatDate prints a DATE.
func FormatDate(days int32) string { return string(AppendDate(nil, days)) }

// AppendDatetime appends microseconds since the epoch (wall clock, no zone)
// as YYYY-MM-DD hh:mm:ss followed by scale fractional digits (0..6).
func AppendDatetime(dst []byte, us int64, scale int) []byte {
	sec := floorDiv(us, 1_000_000)
	frac := us - sec*1_000_000
	t := time.Unix(sec, 0).UTC()
	dst = appendYMD(dst, t)
	dst = append(dst, ' ')
	dst = pad2(dst, t.Hour())
	dst = append(dst, ':')
	dst = pad2(dst, t.Minute())
	dst = append(dst, ':')
	dst = pad2(dst, t.Second())
	return appendFrac(dst, frac, scale)
}

// AppendTime appends microseconds since midnight as hh:mm:ss followed by
// scale fractional digits (0..6).
func AppendTime(dst []byte, us int64, scale int) []byte {
	if us < 0 {
		dst = append(dst, '-')
		us = -us
	}
	sec := us / 1_000_000
	h := sec / 3600
	if h < 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, h, 10)
	dst = append(dst, ':')
	dst = pad2(dst, int(sec/60%60))
	dst = append(dst, ':')
	dst = pad2(dst, int(sec%60))
	return appendFrac(dst, us%1_000_000, scale)
}

// FormatTime prints a TIME(scale).
func FormatTime(us int64, scale int) string { return string(AppendTime(nil, us, scale)) }

func appendFrac(dst []byte, frac int64, scale int) []byte {
	if scale <= 0 {
		return dst
	}
	if scale > 6 {
		scale = 6
	}
	dst = append(dst, '.')
	var buf [6]byte
	for k := 5; k >= 0; k-- {
		buf[k] = byte('0' + frac%10)
		frac /= 10
	}
	return append(dst, buf[:scale]...)
}

// FormatDatetime prints a DATETIME(scale).
func FormatDatetime(us int64, scale int) string { return string(AppendDatetime(nil, us, scale)) }

func appendYMD(dst []byte, t time.Time) []byte {
	y := t.Year()
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	for p := 1000; p > 1 && y < p; p /= 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, int64(y), 10)
	dst = append(dst, '-')
	dst = pad2(dst, int(t.Month()))
	dst = append(dst, '-')
	return pad2(dst, t.Day())
}

func pad2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
