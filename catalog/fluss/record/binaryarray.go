package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// BinaryArray (ROW/BinaryArray.java, BinaryArrayWriter.java), all LE:
//
//	[num_elements int32]
//	[null bits: 4·ceil(n/32) bytes; bit i of byte i/8 set ⇔ element i NULL]
//	[n fixed slots of elemSize bytes]  (header+slots rounded up to 8)
//	[variable part: pieces each padded to 8]
//
// elemSize: 1 BOOLEAN/TINYINT, 2 SMALLINT, 4 INT/FLOAT/DATE/TIME, 8 others.
// STRING/CHAR/BINARY/BYTES of ≤ 7 bytes live in the slot: top byte 0x80|len,
// data in the low bytes. Longer ones and nested ARRAY/MAP/ROW: slot =
// offset<<32 | size, offset from the array start. DECIMAL p≤18 and
// TIMESTAMP p≤3: the long itself. DECIMAL p>18: 16 bytes in the variable
// part, slot offset<<32 | byte length. TIMESTAMP p>3: millis (8 bytes) in the
// variable part, slot offset<<32 | nano-of-milli.
//
// BinaryMap: [key array size int32][key BinaryArray][value BinaryArray].

func elemSize(t typemap.DataType) int {
	switch t.Root {
	case typemap.RootBoolean, typemap.RootTinyInt:
		return 1
	case typemap.RootSmallInt:
		return 2
	case typemap.RootInt, typemap.RootFloat, typemap.RootDate, typemap.RootTime:
		return 4
	}
	return 8
}

func roundTo8(n int) int { return (n + 7) &^ 7 }

// putFixedSlot writes a fixed-width value (BOOLEAN, TINYINT, SMALLINT, INT,
// DATE, TIME, FLOAT, BIGINT, DOUBLE) little-endian at the start of a zeroed
// slot, as BinaryArray elements and Paimon key fields hold it. It reports
// false when t is not one of these types, and an error when v does not fit t.
func putFixedSlot(slot []byte, name string, t typemap.DataType, v any) (bool, error) {
	le := binary.LittleEndian
	ok := false
	switch t.Root {
	case typemap.RootBoolean:
		var x bool
		if x, ok = v.(bool); ok && x {
			slot[0] = 1
		}
	case typemap.RootTinyInt:
		var x int8
		if x, ok = v.(int8); ok {
			slot[0] = byte(x)
		}
	case typemap.RootSmallInt:
		var x int16
		if x, ok = v.(int16); ok {
			le.PutUint16(slot, uint16(x))
		}
	case typemap.RootInt, typemap.RootDate, typemap.RootTime:
		var x int32
		if x, ok = v.(int32); ok {
			le.PutUint32(slot, uint32(x))
		}
	case typemap.RootFloat:
		var x float32
		if x, ok = v.(float32); ok {
			le.PutUint32(slot, math.Float32bits(x))
		}
	case typemap.RootBigInt:
		var x int64
		if x, ok = v.(int64); ok {
			le.PutUint64(slot, uint64(x))
		}
	case typemap.RootDouble:
		var x float64
		if x, ok = v.(float64); ok {
			le.PutUint64(slot, math.Float64bits(x))
		}
	default:
		return false, nil
	}
	if !ok {
		return true, invalid(name, t, v)
	}
	return true, nil
}

// putInlineBytes stores b inside its 8-byte slot when it has at most 7
// bytes: the data in the low bytes, 0x80|len in the top byte. It reports
// false, writing nothing, when b is longer and belongs in the variable part.
func putInlineBytes(slot, b []byte) bool {
	if len(b) > 7 {
		return false
	}
	var s [8]byte
	copy(s[:], b)
	s[7] = 0x80 | byte(len(b))
	copy(slot, s[:])
	return true
}

func encodeBinaryArray(dst []byte, et typemap.DataType, vals []any, f RowFormat, field string) ([]byte, error) {
	n := len(vals)
	if n > math.MaxInt32/8 {
		return dst, fmt.Errorf("%w: %s: array of %d elements", ErrInvalid, field, n)
	}
	hdr := 4 + 4*((n+31)/32)
	es := elemSize(et)
	fixed := roundTo8(hdr + es*n)
	start := len(dst)
	dst = append(dst, make([]byte, fixed)...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(n))
	le := binary.LittleEndian
	setSlot := func(i int, v uint64) { le.PutUint64(dst[start+hdr+8*i:], v) }
	varPiece := func(b []byte) uint64 {
		off := len(dst) - start
		dst = append(dst, b...)
		for len(dst)%8 != start%8 {
			dst = append(dst, 0)
		}
		return uint64(off)<<32 | uint64(len(b))
	}
	for i, v := range vals {
		name := fmt.Sprintf("%s[%d]", field, i)
		if v == nil {
			if !et.Nullable {
				return dst, fmt.Errorf("%w: %s is NULL but the element type %v is NOT NULL", ErrInvalid, name, et)
			}
			dst[start+4+i/8] |= 1 << (i % 8)
			continue
		}
		p := start + hdr + es*i
		if fixed, err := putFixedSlot(dst[p:], name, et, v); err != nil {
			return dst, err
		} else if fixed {
			continue
		}
		switch et.Root {
		case typemap.RootChar, typemap.RootString, typemap.RootBinary, typemap.RootBytes:
			b, err := stringBytesOf(name, et, v)
			if err != nil {
				return dst, err
			}
			if !putInlineBytes(dst[p:], b) {
				setSlot(i, varPiece(b))
			}
		case typemap.RootDecimal:
			x, ok := v.(decimal128.Num)
			if !ok || !checkDecimal(x, et.Precision) {
				return dst, invalid(name, et, v)
			}
			if et.IsCompactDecimal() {
				le.PutUint64(dst[p:], x.LowBits())
			} else {
				b := decimalBytes(x)
				var area [16]byte
				copy(area[:], b)
				s := varPiece(area[:])
				setSlot(i, s&^0xffffffff|uint64(len(b)))
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			x, ok := v.(Timestamp)
			if !ok || x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
				return dst, invalid(name, et, v)
			}
			if et.IsCompactTimestamp() {
				le.PutUint64(dst[p:], uint64(x.Millis))
			} else {
				var ms [8]byte
				le.PutUint64(ms[:], uint64(x.Millis))
				s := varPiece(ms[:])
				setSlot(i, s&^0xffffffff|uint64(uint32(x.NanoOfMilli)))
			}
		case typemap.RootArray, typemap.RootMap:
			b, err := encodeCollection(et, v, f, name)
			if err != nil {
				return dst, err
			}
			setSlot(i, varPiece(b))
		case typemap.RootRow:
			b, err := encodeNestedRow(nil, et, v, f, name)
			if err != nil {
				return dst, err
			}
			setSlot(i, varPiece(b))
		default:
			return dst, fmt.Errorf("%w: %s: element type %v", ErrUnsupported, name, et)
		}
	}
	return dst, nil
}

// encodeCollection encodes an ARRAY ([]any) as a BinaryArray or a MAP (Map)
// as a BinaryMap, nested values in row format f.
func encodeCollection(t typemap.DataType, v any, f RowFormat, name string) ([]byte, error) {
	switch t.Root {
	case typemap.RootArray:
		x, ok := v.([]any)
		if !ok {
			return nil, invalid(name, t, v)
		}
		return encodeBinaryArray(nil, *t.Elem, x, f, name)
	case typemap.RootMap:
		x, ok := v.(Map)
		if !ok {
			return nil, invalid(name, t, v)
		}
		return encodeBinaryMap(nil, t, x, f, name)
	}
	return nil, fmt.Errorf("%w: %s: %v is not an ARRAY or MAP", ErrUnsupported, name, t)
}

func encodeBinaryMap(dst []byte, t typemap.DataType, m Map, f RowFormat, field string) ([]byte, error) {
	if len(m.Keys) != len(m.Values) {
		return dst, fmt.Errorf("%w: %s: map with %d keys and %d values", ErrInvalid, field, len(m.Keys), len(m.Values))
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	if dst, err = encodeBinaryArray(dst, *t.Key, m.Keys, f, field+".key"); err != nil {
		return dst, err
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return encodeBinaryArray(dst, *t.Value, m.Values, f, field+".value")
}

func decodeBinaryMap(b []byte, t typemap.DataType, f RowFormat, depth int, field string) (any, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: %s: map of %d bytes", ErrCorrupt, field, len(b))
	}
	ks := int32(binary.LittleEndian.Uint32(b))
	if ks < 0 || int(ks) > len(b)-4 {
		return nil, fmt.Errorf("%w: %s: map key array size %d with %d bytes", ErrCorrupt, field, ks, len(b)-4)
	}
	keys, err := decodeBinaryArray(b[4:4+ks], *t.Key, f, depth, field+".key")
	if err != nil {
		return nil, err
	}
	vals, err := decodeBinaryArray(b[4+ks:], *t.Value, f, depth, field+".value")
	if err != nil {
		return nil, err
	}
	if len(keys) != len(vals) {
		return nil, fmt.Errorf("%w: %s: map with %d keys and %d values", ErrCorrupt, field, len(keys), len(vals))
	}
	for i, k := range keys {
		if k == nil {
			return nil, fmt.Errorf("%w: %s: map key %d is NULL", ErrCorrupt, field, i)
		}
	}
	return Map{Keys: keys, Values: vals}, nil
}

func decodeBinaryArray(b []byte, et typemap.DataType, f RowFormat, depth int, field string) ([]any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: %s: values nested deeper than %d", ErrCorrupt, field, maxNesting)
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: %s: array of %d bytes has no element count", ErrCorrupt, field, len(b))
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	es := elemSize(et)
	if n < 0 || 4+4*((n+31)/32)+int64(es)*n > int64(len(b)) {
		return nil, fmt.Errorf("%w: %s: array of %d elements does not fit in %d bytes", ErrCorrupt, field, n, len(b))
	}
	hdr := 4 + 4*int((n+31)/32)
	le := binary.LittleEndian
	out := make([]any, n)
	piece := func(slot uint64, size int, name string) ([]byte, error) {
		off := int(slot >> 32)
		if size < 0 || off < 0 || off > len(b) || size > len(b)-off {
			return nil, fmt.Errorf("%w: %s: variable part at %d size %d outside the %d-byte array", ErrCorrupt, name, off, size, len(b))
		}
		return b[off : off+size], nil
	}
	for i := range int(n) {
		if b[4+i/8]&(1<<(i%8)) != 0 {
			continue
		}
		name := fmt.Sprintf("%s[%d]", field, i)
		p := hdr + es*i
		var v any
		switch et.Root {
		case typemap.RootBoolean:
			v = b[p] != 0
		case typemap.RootTinyInt:
			v = int8(b[p])
		case typemap.RootSmallInt:
			v = int16(le.Uint16(b[p:]))
		case typemap.RootInt, typemap.RootDate, typemap.RootTime:
			v = int32(le.Uint32(b[p:]))
		case typemap.RootFloat:
			v = math.Float32frombits(le.Uint32(b[p:]))
		case typemap.RootBigInt:
			v = int64(le.Uint64(b[p:]))
		case typemap.RootDouble:
			v = math.Float64frombits(le.Uint64(b[p:]))
		case typemap.RootChar, typemap.RootString, typemap.RootBinary, typemap.RootBytes:
			slot := le.Uint64(b[p:])
			var data []byte
			if slot&(1<<63) != 0 {
				l := int(slot >> 56 & 0x7f)
				if l > 7 {
					return nil, fmt.Errorf("%w: %s: inline length %d", ErrCorrupt, name, l)
				}
				data = b[p : p+l]
			} else {
				var err error
				if data, err = piece(slot, int(uint32(slot)), name); err != nil {
					return nil, err
				}
			}
			if et.Root == typemap.RootChar || et.Root == typemap.RootString {
				if !utf8.Valid(data) {
					return nil, fmt.Errorf("%w: %s: invalid UTF-8", ErrCorrupt, name)
				}
				v = string(data)
			} else {
				v = append([]byte{}, data...)
			}
		case typemap.RootDecimal:
			slot := le.Uint64(b[p:])
			x := decimal128.FromI64(int64(slot))
			if !et.IsCompactDecimal() {
				data, err := piece(slot, int(uint32(slot)), name)
				if err != nil {
					return nil, err
				}
				if x, err = decimalFromBytes(data, name); err != nil {
					return nil, err
				}
			}
			var err error
			if v, err = decodedDecimal(x, et, name); err != nil {
				return nil, err
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			slot := le.Uint64(b[p:])
			if et.IsCompactTimestamp() {
				v = Timestamp{Millis: int64(slot)}
			} else {
				data, err := piece(slot, 8, name)
				if err != nil {
					return nil, err
				}
				nanos := int32(uint32(slot))
				if nanos < 0 || nanos > 999_999 {
					return nil, fmt.Errorf("%w: %s: nano-of-millisecond %d", ErrCorrupt, name, nanos)
				}
				v = Timestamp{Millis: int64(le.Uint64(data)), NanoOfMilli: nanos}
			}
		case typemap.RootArray, typemap.RootMap, typemap.RootRow:
			slot := le.Uint64(b[p:])
			data, err := piece(slot, int(uint32(slot)), name)
			if err != nil {
				return nil, err
			}
			if v, err = decodeNested(data, et, f, depth+1, name); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%w: %s: element type %v", ErrUnsupported, name, et)
		}
		out[i] = v
	}
	return out, nil
}
