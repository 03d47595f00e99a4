package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// Key encodings (ROW/encode/*KeyEncoder.java), chosen by table.datalake.format:
//
//	none, lance  CompactedKeyEncoder: CompactedRow field encoding, no null
//	             bitmap, fields in key order, NULL forbidden.
//	paimon       Paimon BinaryRow: [8·ceil((arity+8)/64) null-bit bytes, byte 0
//	             = RowKind 0, null bit of field i at bit i+8][8-byte slot per
//	             field][variable part, pieces padded to 8]. Slots hold LE
//	             primitives; strings/bytes ≤ 7 bytes inline (top byte 0x80|len),
//	             longer ones offset<<32|len; DECIMAL p>18 16 reserved bytes;
//	             TIMESTAMP p>3 millis in the variable part, slot offset<<32|nanos.
//	iceberg      exactly one key column, no length prefix: INT/DATE → int64 LE,
//	             BIGINT int64 LE, FLOAT/DOUBLE raw LE, TIME µs int64 LE,
//	             TIMESTAMP µs int64 LE, STRING/CHAR UTF-8, BINARY/BYTES raw,
//	             DECIMAL unscaled big-endian minimal two's complement.
//	hudi         4-byte big-endian Java List<String>.hashCode() of the
//	             stringified key values.

// EncodeCompactedKey appends the CompactedKeyEncoder bytes of values.
func EncodeCompactedKey(dst []byte, types []typemap.DataType, values []any) ([]byte, error) {
	if len(types) != len(values) {
		return dst, fmt.Errorf("%w: %d key values for %d key columns", ErrInvalid, len(values), len(types))
	}
	var err error
	for i, t := range types {
		if values[i] == nil {
			return dst, fmt.Errorf("%w: key column %d is NULL", ErrInvalid, i)
		}
		if dst, err = appendCompactedValue(dst, t, values[i], fmt.Sprintf("key column %d", i)); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// DecodeCompactedKey decodes CompactedKeyEncoder bytes.
func DecodeCompactedKey(b []byte, types []typemap.DataType) ([]any, error) {
	c := &cursor{b: b}
	out := make([]any, len(types))
	for i, t := range types {
		v, err := readCompactedValue(c, t, 0, fmt.Sprintf("key column %d", i))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if c.p != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes after %d key columns", ErrCorrupt, len(b)-c.p, len(types))
	}
	return out, nil
}

// EncodeKey appends the key bytes of values (key columns in key order) as
// the key encoder of lake format f produces them.
func EncodeKey(dst []byte, f LakeFormat, types []typemap.DataType, values []any) ([]byte, error) {
	if len(types) != len(values) {
		return dst, fmt.Errorf("%w: %d key values for %d key columns", ErrInvalid, len(values), len(types))
	}
	switch f {
	case LakeNone, LakeLance:
		return EncodeCompactedKey(dst, types, values)
	case LakePaimon:
		return encodePaimonKey(dst, types, values)
	case LakeIceberg:
		return encodeIcebergKey(dst, types, values)
	case LakeHudi:
		return encodeHudiKey(dst, types, values)
	}
	return dst, fmt.Errorf("%w: lake format %d", ErrUnsupported, f)
}

func encodePaimonKey(dst []byte, types []typemap.DataType, values []any) ([]byte, error) {
	n := len(types)
	nullBytes := 8 * ((n + 8 + 63) / 64)
	fixed := nullBytes + 8*n
	start := len(dst)
	dst = append(dst, make([]byte, fixed)...)
	le := binary.LittleEndian
	varPiece := func(b []byte, pad int) uint64 {
		off := len(dst) - start
		dst = append(dst, b...)
		for len(dst)-start < off+pad {
			dst = append(dst, 0)
		}
		for (len(dst)-start)%8 != 0 {
			dst = append(dst, 0)
		}
		return uint64(off)<<32 | uint64(len(b))
	}
	for i, t := range types {
		v := values[i]
		name := fmt.Sprintf("key column %d", i)
		p := start + nullBytes + 8*i
		if v == nil {
			bit := i + 8
			dst[start+bit/8] |= 1 << (bit % 8)
			continue
		}
		if fixed, err := putFixedSlot(dst[p:], name, t, v); err != nil {
			return dst, err
		} else if fixed {
			continue
		}
		switch t.Root {
		case typemap.RootChar, typemap.RootString, typemap.RootBinary, typemap.RootBytes:
			b, err := stringBytesOf(name, t, v)
			if err != nil {
				return dst, err
			}
			if !putInlineBytes(dst[p:], b) {
				s := varPiece(b, 0) // appends: take the slot after dst may have moved
				le.PutUint64(dst[start+nullBytes+8*i:], s)
			}
		case typemap.RootDecimal:
			x, ok := v.(decimal128.Num)
			if !ok || !checkDecimal(x, t.Precision) {
				return dst, invalid(name, t, v)
			}
			if t.IsCompactDecimal() {
				le.PutUint64(dst[p:], x.LowBits())
			} else {
				s := varPiece(decimalBytes(x), 16)
				le.PutUint64(dst[start+nullBytes+8*i:], s)
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			x, ok := v.(Timestamp)
			if !ok {
				return dst, invalid(name, t, v)
			}
			if t.IsCompactTimestamp() {
				le.PutUint64(dst[p:], uint64(x.Millis))
			} else {
				var ms [8]byte
				le.PutUint64(ms[:], uint64(x.Millis))
				s := varPiece(ms[:], 8)
				le.PutUint64(dst[start+nullBytes+8*i:], s&^0xffffffff|uint64(uint32(x.NanoOfMilli)))
			}
		default:
			return dst, fmt.Errorf("%w: %s: type %v in a Paimon key", ErrUnsupported, name, t)
		}
	}
	return dst, nil
}

// stringBytesOf returns the bytes of a CHAR/STRING (Go string) or
// BINARY/BYTES ([]byte) value; any other pairing is invalid.
func stringBytesOf(name string, t typemap.DataType, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		if t.Root == typemap.RootChar || t.Root == typemap.RootString {
			return []byte(x), nil
		}
	case []byte:
		if t.Root == typemap.RootBinary || t.Root == typemap.RootBytes {
			return x, nil
		}
	}
	return nil, invalid(name, t, v)
}

func encodeIcebergKey(dst []byte, types []typemap.DataType, values []any) ([]byte, error) {
	if len(types) != 1 {
		return dst, fmt.Errorf("%w: Iceberg keys have exactly one column, got %d", ErrUnsupported, len(types))
	}
	t, v := types[0], values[0]
	name := "key column 0"
	if v == nil {
		return dst, fmt.Errorf("%w: %s is NULL", ErrInvalid, name)
	}
	le := binary.LittleEndian
	switch t.Root {
	case typemap.RootInt, typemap.RootDate:
		x, ok := v.(int32)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint64(dst, uint64(int64(x))), nil
	case typemap.RootBigInt:
		x, ok := v.(int64)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint64(dst, uint64(x)), nil
	case typemap.RootFloat:
		x, ok := v.(float32)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint32(dst, math.Float32bits(x)), nil
	case typemap.RootDouble:
		x, ok := v.(float64)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint64(dst, math.Float64bits(x)), nil
	case typemap.RootTime:
		x, ok := v.(int32)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint64(dst, uint64(int64(x)*1000)), nil
	case typemap.RootTimestamp:
		x, ok := v.(Timestamp)
		if !ok {
			return dst, invalid(name, t, v)
		}
		return le.AppendUint64(dst, uint64(x.Millis*1000+int64(x.NanoOfMilli)/1000)), nil
	case typemap.RootChar, typemap.RootString, typemap.RootBinary, typemap.RootBytes:
		b, err := stringBytesOf(name, t, v)
		if err != nil {
			return dst, err
		}
		return append(dst, b...), nil
	case typemap.RootDecimal:
		x, ok := v.(decimal128.Num)
		if !ok || !checkDecimal(x, t.Precision) {
			return dst, invalid(name, t, v)
		}
		return append(dst, decimalBytes(x)...), nil
	}
	return dst, fmt.Errorf("%w: %s: type %v is not a valid Iceberg key type", ErrUnsupported, name, t)
}

func encodeHudiKey(dst []byte, types []typemap.DataType, values []any) ([]byte, error) {
	h := int32(1)
	for i, t := range types {
		var s *string
		if values[i] == nil {
			if len(types) == 1 {
				ph := "__null__"
				s = &ph
			}
		} else {
			str, err := HudiKeyString(t, values[i])
			if err != nil {
				return dst, fmt.Errorf("key column %d: %w", i, err)
			}
			s = &str
		}
		eh := int32(0)
		if s != nil {
			eh = javaStringHash(*s)
		}
		h = 31*h + eh
	}
	return binary.BigEndian.AppendUint32(dst, uint32(h)), nil
}

// javaStringHash is Java String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// HudiKeyString renders a key value the way Fluss's HudiKeyEncoder does
// before hashing: Java toString forms (LocalDateTime/Instant for
// timestamps, integer days/ms for DATE/TIME). BINARY/BYTES are refused
// (their string form is not pinned down by any upstream test).
func HudiKeyString(t typemap.DataType, v any) (string, error) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int8:
		return strconv.Itoa(int(x)), nil
	case int16:
		return strconv.Itoa(int(x)), nil
	case int32:
		return strconv.Itoa(int(x)), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float32:
		return JavaFloatString(float64(x), 32), nil
	case float64:
		return JavaFloatString(x, 64), nil
	case string:
		return x, nil
	case decimal128.Num:
		if t.Root != typemap.RootDecimal {
			break
		}
		return javaBigDecimalString(x, t.Scale), nil
	case Timestamp:
		tm := time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli))
		if t.Root == typemap.RootTimestampLTZ {
			return javaInstantString(tm), nil
		}
		return javaLocalDateTimeString(tm), nil
	}
	return "", fmt.Errorf("%w: %T value of %v in a Hudi key", ErrUnsupported, v, t)
}

func fraction(nanos int) string {
	switch {
	case nanos == 0:
		return ""
	case nanos%1_000_000 == 0:
		return fmt.Sprintf(".%03d", nanos/1_000_000)
	case nanos%1000 == 0:
		return fmt.Sprintf(".%06d", nanos/1000)
	}
	return fmt.Sprintf(".%09d", nanos)
}

// javaLocalDateTimeString is LocalDateTime.toString: seconds omitted when
// zero together with the fraction; fraction in 3/6/9 digits.
func javaLocalDateTimeString(t time.Time) string {
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute())
	if t.Second() != 0 || t.Nanosecond() != 0 {
		s += fmt.Sprintf(":%02d", t.Second()) + fraction(t.Nanosecond())
	}
	return s
}

// javaInstantString is Instant.toString (ISO_INSTANT): seconds always,
// fraction in 3/6/9 digits, "Z".
func javaInstantString(t time.Time) string {
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second()) +
		fraction(t.Nanosecond()) + "Z"
}

// javaBigDecimalString is BigDecimal.toString of unscaled×10^-scale.
func javaBigDecimalString(n decimal128.Num, scale int32) string {
	neg := n.Sign() < 0
	digits := n.Abs().BigInt().String()
	adjusted := len(digits) - 1 - int(scale)
	var s string
	if scale >= 0 && adjusted >= -6 {
		if scale == 0 {
			s = digits
		} else {
			for len(digits) <= int(scale) {
				digits = "0" + digits
			}
			s = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
		}
	} else {
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "E"
		if adjusted >= 0 {
			s += "+"
		}
		s += strconv.Itoa(adjusted)
	}
	if neg {
		return "-" + s
	}
	return s
}

// JavaFloatString is Float.toString/Double.toString (shortest repr digits):
// decimal form for 1e-3 ≤ |x| < 1e7 with at least one fractional digit,
// otherwise d.dddE±n; NaN, Infinity, -Infinity.
func JavaFloatString(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(x)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'e', -1, bits) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
