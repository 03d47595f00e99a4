package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// CompactedRow (ROW/compacted/CompactedRowWriter.java):
//
//	[null bitmap: ceil(n/8) bytes, bit i of byte i/8 set ⇔ field i is NULL]
//	[values of the non-null fields in column order]
//
// Per type: BOOLEAN, TINYINT 1 byte; SMALLINT 2 bytes LE; INT, DATE, TIME
// varint32; BIGINT varint64; FLOAT, DOUBLE IEEE LE; CHAR, STRING, BINARY,
// BYTES varint32 length + bytes; DECIMAL p≤18 varint64 unscaled, p>18
// varint32 length + big-endian two's complement; TIMESTAMP(_LTZ) p≤3 varint64
// millis, p>3 varint64 millis + varint32 nano-of-milli; ARRAY varint32
// length + BinaryArray; MAP varint32 length + BinaryMap; ROW varint32 length
// + nested CompactedRow. Varints are unsigned LEB128 of the two's-complement
// bits (no zig-zag).

// RowFormat is the binary row format of COMPACTED/INDEXED log records and
// of KV values.
type RowFormat uint8

// Row formats.
const (
	RowCompacted RowFormat = iota
	RowIndexed
)

func (f RowFormat) String() string {
	if f == RowIndexed {
		return "INDEXED"
	}
	return "COMPACTED"
}

// RowFormat is the row format of a KV format.
func (f KvFormat) RowFormat() RowFormat {
	if f == KvFormatIndexed {
		return RowIndexed
	}
	return RowCompacted
}

// EncodeRow encodes a row in the given format.
func EncodeRow(dst []byte, f RowFormat, types []typemap.DataType, row []any) ([]byte, error) {
	if f == RowIndexed {
		return EncodeIndexedRow(dst, types, row)
	}
	return EncodeCompactedRow(dst, types, row)
}

// DecodeRow decodes a row in the given format.
func DecodeRow(b []byte, f RowFormat, types []typemap.DataType) ([]any, error) {
	if f == RowIndexed {
		return DecodeIndexedRow(b, types)
	}
	return DecodeCompactedRow(b, types)
}

// EncodeCompactedRow appends the CompactedRow of row (one value per type) to dst.
func EncodeCompactedRow(dst []byte, types []typemap.DataType, row []any) ([]byte, error) {
	return encodeCompactedRow(dst, types, row, "")
}

func fieldName(prefix string, i int) string {
	if prefix == "" {
		return fmt.Sprintf("field %d", i)
	}
	return fmt.Sprintf("%s.%d", prefix, i)
}

func encodeCompactedRow(dst []byte, types []typemap.DataType, row []any, prefix string) ([]byte, error) {
	if len(row) != len(types) {
		return dst, fmt.Errorf("%w: row%s has %d values for %d fields", ErrInvalid, suffix(prefix), len(row), len(types))
	}
	nb := (len(types) + 7) / 8
	start := len(dst)
	dst = append(dst, make([]byte, nb)...)
	var err error
	for i, t := range types {
		if row[i] == nil {
			if !t.Nullable {
				return dst, fmt.Errorf("%w: %s is NULL but its type %v is NOT NULL", ErrInvalid, fieldName(prefix, i), t)
			}
			dst[start+i/8] |= 1 << (i % 8)
			continue
		}
		if dst, err = appendCompactedValue(dst, t, row[i], fieldName(prefix, i)); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func suffix(prefix string) string {
	if prefix == "" {
		return ""
	}
	return " " + prefix
}

// appendCompactedValue writes one non-null value in compacted form; the key
// encoder uses it too.
func appendCompactedValue(dst []byte, t typemap.DataType, v any, field string) ([]byte, error) {
	switch t.Root {
	case typemap.RootBoolean:
		x, ok := v.(bool)
		if !ok {
			return dst, invalid(field, t, v)
		}
		if x {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case typemap.RootTinyInt:
		x, ok := v.(int8)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return append(dst, byte(x)), nil
	case typemap.RootSmallInt:
		x, ok := v.(int16)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return binary.LittleEndian.AppendUint16(dst, uint16(x)), nil
	case typemap.RootInt, typemap.RootDate, typemap.RootTime:
		x, ok := v.(int32)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return appendVarint32(dst, x), nil
	case typemap.RootBigInt:
		x, ok := v.(int64)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return appendVarint64(dst, x), nil
	case typemap.RootFloat:
		x, ok := v.(float32)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return binary.LittleEndian.AppendUint32(dst, floatBits(x)), nil
	case typemap.RootDouble:
		x, ok := v.(float64)
		if !ok {
			return dst, invalid(field, t, v)
		}
		return binary.LittleEndian.AppendUint64(dst, doubleBits(x)), nil
	case typemap.RootChar, typemap.RootString:
		x, ok := v.(string)
		if !ok {
			return dst, invalid(field, t, v)
		}
		dst = appendVarint32(dst, int32(len(x)))
		return append(dst, x...), nil
	case typemap.RootBinary, typemap.RootBytes:
		x, ok := v.([]byte)
		if !ok {
			return dst, invalid(field, t, v)
		}
		dst = appendVarint32(dst, int32(len(x)))
		return append(dst, x...), nil
	case typemap.RootDecimal:
		x, ok := v.(decimal128.Num)
		if !ok || !checkDecimal(x, t.Precision) {
			return dst, invalid(field, t, v)
		}
		if t.IsCompactDecimal() {
			return appendVarint64(dst, int64(x.LowBits())), nil
		}
		b := decimalBytes(x)
		dst = appendVarint32(dst, int32(len(b)))
		return append(dst, b...), nil
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		x, ok := v.(Timestamp)
		if !ok || x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
			return dst, invalid(field, t, v)
		}
		dst = appendVarint64(dst, x.Millis)
		if !t.IsCompactTimestamp() {
			dst = appendVarint32(dst, x.NanoOfMilli)
		}
		return dst, nil
	case typemap.RootArray, typemap.RootMap:
		b, err := encodeCollection(t, v, RowCompacted, field)
		if err != nil {
			return dst, err
		}
		dst = appendVarint32(dst, int32(len(b)))
		return append(dst, b...), nil
	case typemap.RootRow:
		x, ok := v.([]any)
		if !ok {
			return dst, invalid(field, t, v)
		}
		b, err := encodeCompactedRow(nil, fieldTypes(t), x, field)
		if err != nil {
			return dst, err
		}
		dst = appendVarint32(dst, int32(len(b)))
		return append(dst, b...), nil
	}
	return dst, fmt.Errorf("%w: %s: type %v", ErrUnsupported, field, t)
}

func fieldTypes(row typemap.DataType) []typemap.DataType {
	out := make([]typemap.DataType, len(row.Fields))
	for i, f := range row.Fields {
		out[i] = f.Type
	}
	return out
}

// DecodeCompactedRow decodes a whole CompactedRow; trailing bytes are an error.
func DecodeCompactedRow(b []byte, types []typemap.DataType) ([]any, error) {
	return decodeCompactedRow(b, types, 0, "")
}

func decodeCompactedRow(b []byte, types []typemap.DataType, depth int, prefix string) ([]any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: rows nested deeper than %d", ErrCorrupt, maxNesting)
	}
	c := &cursor{b: b}
	nb := (len(types) + 7) / 8
	bits, err := c.bytes(nb, "compacted row null bitmap"+suffix(prefix))
	if err != nil {
		return nil, err
	}
	row := make([]any, len(types))
	for i, t := range types {
		if bits[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		if row[i], err = readCompactedValue(c, t, depth, fieldName(prefix, i)); err != nil {
			return nil, err
		}
	}
	if c.p != len(b) {
		return nil, fmt.Errorf("%w: compacted row%s: %d trailing bytes after %d fields", ErrCorrupt, suffix(prefix), len(b)-c.p, len(types))
	}
	return row, nil
}

func readCompactedValue(c *cursor, t typemap.DataType, depth int, field string) (any, error) {
	switch t.Root {
	case typemap.RootBoolean:
		x, err := c.u8(field)
		if err != nil {
			return nil, err
		}
		if x > 1 {
			return nil, fmt.Errorf("%w: %s: boolean byte %d at offset %d", ErrCorrupt, field, x, c.p-1)
		}
		return x == 1, nil
	case typemap.RootTinyInt:
		x, err := c.u8(field)
		return int8(x), err
	case typemap.RootSmallInt:
		x, err := c.u16(field)
		return int16(x), err
	case typemap.RootInt, typemap.RootDate, typemap.RootTime:
		return c.varint32(field)
	case typemap.RootBigInt:
		return c.varint64(field)
	case typemap.RootFloat:
		x, err := c.u32(field)
		return math.Float32frombits(x), err
	case typemap.RootDouble:
		x, err := c.u64(field)
		return math.Float64frombits(x), err
	case typemap.RootChar, typemap.RootString:
		n, err := c.length(field)
		if err != nil {
			return nil, err
		}
		s, _ := c.bytes(n, field)
		if !utf8.Valid(s) {
			return nil, fmt.Errorf("%w: %s: invalid UTF-8 at offset %d", ErrCorrupt, field, c.p-n)
		}
		return string(s), nil
	case typemap.RootBinary, typemap.RootBytes:
		n, err := c.length(field)
		if err != nil {
			return nil, err
		}
		s, _ := c.bytes(n, field)
		return append([]byte{}, s...), nil
	case typemap.RootDecimal:
		if t.IsCompactDecimal() {
			x, err := c.varint64(field)
			if err != nil {
				return nil, err
			}
			return decodedDecimal(decimal128.FromI64(x), t, field)
		}
		n, err := c.length(field)
		if err != nil {
			return nil, err
		}
		s, _ := c.bytes(n, field)
		x, err := decimalFromBytes(s, field)
		if err != nil {
			return nil, err
		}
		return decodedDecimal(x, t, field)
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		ms, err := c.varint64(field)
		if err != nil {
			return nil, err
		}
		ts := Timestamp{Millis: ms}
		if !t.IsCompactTimestamp() {
			if ts.NanoOfMilli, err = c.varint32(field); err != nil {
				return nil, err
			}
			if ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
				return nil, fmt.Errorf("%w: %s: nano-of-millisecond %d", ErrCorrupt, field, ts.NanoOfMilli)
			}
		}
		return ts, nil
	case typemap.RootArray, typemap.RootMap, typemap.RootRow:
		n, err := c.length(field)
		if err != nil {
			return nil, err
		}
		s, _ := c.bytes(n, field)
		return decodeNested(s, t, RowCompacted, depth+1, field)
	}
	return nil, fmt.Errorf("%w: %s: type %v", ErrUnsupported, field, t)
}

// decodeNested decodes the bytes of an ARRAY (BinaryArray), MAP (BinaryMap)
// or ROW (nested row in the given format).
func decodeNested(b []byte, t typemap.DataType, f RowFormat, depth int, field string) (any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: %s: values nested deeper than %d", ErrCorrupt, field, maxNesting)
	}
	switch t.Root {
	case typemap.RootArray:
		return decodeBinaryArray(b, *t.Elem, f, depth, field)
	case typemap.RootMap:
		return decodeBinaryMap(b, t, f, depth, field)
	case typemap.RootRow:
		if f == RowIndexed {
			return decodeIndexedRow(b, fieldTypes(t), depth, field)
		}
		return decodeCompactedRow(b, fieldTypes(t), depth, field)
	}
	return nil, fmt.Errorf("%w: %s: %v is not nested", ErrUnsupported, field, t)
}

func encodeNestedRow(dst []byte, t typemap.DataType, v any, f RowFormat, field string) ([]byte, error) {
	x, ok := v.([]any)
	if !ok {
		return dst, invalid(field, t, v)
	}
	if f == RowIndexed {
		return encodeIndexedRow(dst, fieldTypes(t), x, field)
	}
	return encodeCompactedRow(dst, fieldTypes(t), x, field)
}
