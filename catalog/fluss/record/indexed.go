package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// IndexedRow (ROW/indexed/IndexedRow.java, IndexedRowWriter.java), all LE:
//
//	[null bitmap: ceil(n/8) bytes, bit set ⇔ NULL]
//	[int32 length slot × number of variable-length columns in the schema]
//	[values of non-null fields in column order]
//
// Variable-length columns: STRING, BYTES, ARRAY, MAP, ROW, DECIMAL p>18.
// Only non-null ones consume a slot, in column order; unused trailing slots
// stay zero. Fixed widths: BOOLEAN, TINYINT 1; SMALLINT 2; INT, FLOAT, DATE,
// TIME 4; BIGINT, DOUBLE, DECIMAL p≤18 8; TIMESTAMP(_LTZ) 8 (p≤3) or 12
// (millis + int32 nanos); CHAR(n)/BINARY(n) exactly n bytes, zero-padded
// (CHAR's trailing zeros trimmed on read). ARRAY/MAP as BinaryArray/BinaryMap,
// ROW as a nested IndexedRow.

func isIndexedVarLen(t typemap.DataType) bool {
	switch t.Root {
	case typemap.RootString, typemap.RootBytes, typemap.RootArray, typemap.RootMap, typemap.RootRow:
		return true
	case typemap.RootDecimal:
		return !t.IsCompactDecimal()
	}
	return false
}

// EncodeIndexedRow appends the IndexedRow of row to dst.
func EncodeIndexedRow(dst []byte, types []typemap.DataType, row []any) ([]byte, error) {
	return encodeIndexedRow(dst, types, row, "")
}

func encodeIndexedRow(dst []byte, types []typemap.DataType, row []any, prefix string) ([]byte, error) {
	if len(row) != len(types) {
		return dst, fmt.Errorf("%w: row%s has %d values for %d fields", ErrInvalid, suffix(prefix), len(row), len(types))
	}
	nVar := 0
	for _, t := range types {
		if isIndexedVarLen(t) {
			nVar++
		}
	}
	nb := (len(types) + 7) / 8
	start := len(dst)
	dst = append(dst, make([]byte, nb+4*nVar)...)
	slot := 0
	le := binary.LittleEndian
	for i, t := range types {
		v := row[i]
		name := fieldName(prefix, i)
		if v == nil {
			if !t.Nullable {
				return dst, fmt.Errorf("%w: %s is NULL but its type %v is NOT NULL", ErrInvalid, name, t)
			}
			dst[start+i/8] |= 1 << (i % 8)
			continue
		}
		before := len(dst)
		var err error
		switch t.Root {
		case typemap.RootBoolean, typemap.RootTinyInt:
			dst, err = appendCompactedValue(dst, t, v, name)
		case typemap.RootSmallInt:
			dst, err = appendCompactedValue(dst, t, v, name)
		case typemap.RootInt, typemap.RootDate, typemap.RootTime:
			x, ok := v.(int32)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst = le.AppendUint32(dst, uint32(x))
		case typemap.RootBigInt:
			x, ok := v.(int64)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst = le.AppendUint64(dst, uint64(x))
		case typemap.RootFloat, typemap.RootDouble:
			dst, err = appendCompactedValue(dst, t, v, name)
		case typemap.RootChar, typemap.RootBinary:
			var b []byte
			switch x := v.(type) {
			case string:
				if t.Root != typemap.RootChar {
					return dst, invalid(name, t, v)
				}
				b = []byte(x)
			case []byte:
				if t.Root != typemap.RootBinary {
					return dst, invalid(name, t, v)
				}
				b = x
			default:
				return dst, invalid(name, t, v)
			}
			if len(b) > int(t.Length) {
				return dst, fmt.Errorf("%w: %s: %d bytes exceed %v", ErrInvalid, name, len(b), t)
			}
			dst = append(dst, b...)
			dst = append(dst, make([]byte, int(t.Length)-len(b))...)
		case typemap.RootString:
			x, ok := v.(string)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst = append(dst, x...)
		case typemap.RootBytes:
			x, ok := v.([]byte)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst = append(dst, x...)
		case typemap.RootDecimal:
			x, ok := v.(decimal128.Num)
			if !ok || !checkDecimal(x, t.Precision) {
				return dst, invalid(name, t, v)
			}
			if t.IsCompactDecimal() {
				dst = le.AppendUint64(dst, x.LowBits())
			} else {
				dst = append(dst, decimalBytes(x)...)
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			x, ok := v.(Timestamp)
			if !ok || x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
				return dst, invalid(name, t, v)
			}
			dst = le.AppendUint64(dst, uint64(x.Millis))
			if !t.IsCompactTimestamp() {
				dst = le.AppendUint32(dst, uint32(x.NanoOfMilli))
			}
		case typemap.RootArray:
			x, ok := v.([]any)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst, err = encodeBinaryArray(dst, *t.Elem, x, RowIndexed, name)
		case typemap.RootMap:
			x, ok := v.(Map)
			if !ok {
				return dst, invalid(name, t, v)
			}
			dst, err = encodeBinaryMap(dst, t, x, RowIndexed, name)
		case typemap.RootRow:
			dst, err = encodeNestedRow(dst, t, v, RowIndexed, name)
		default:
			return dst, fmt.Errorf("%w: %s: type %v", ErrUnsupported, name, t)
		}
		if err != nil {
			return dst, err
		}
		if isIndexedVarLen(t) {
			le.PutUint32(dst[start+nb+4*slot:], uint32(len(dst)-before))
			slot++
		}
	}
	return dst, nil
}

// DecodeIndexedRow decodes a whole IndexedRow; trailing bytes are an error.
func DecodeIndexedRow(b []byte, types []typemap.DataType) ([]any, error) {
	return decodeIndexedRow(b, types, 0, "")
}

func decodeIndexedRow(b []byte, types []typemap.DataType, depth int, prefix string) ([]any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: rows nested deeper than %d", ErrCorrupt, maxNesting)
	}
	nVar := 0
	for _, t := range types {
		if isIndexedVarLen(t) {
			nVar++
		}
	}
	c := &cursor{b: b}
	nb := (len(types) + 7) / 8
	bits, err := c.bytes(nb, "indexed row null bitmap"+suffix(prefix))
	if err != nil {
		return nil, err
	}
	slots, err := c.bytes(4*nVar, "indexed row length slots"+suffix(prefix))
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	slot := 0
	row := make([]any, len(types))
	for i, t := range types {
		if bits[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		name := fieldName(prefix, i)
		if isIndexedVarLen(t) {
			n := int32(le.Uint32(slots[4*slot:]))
			slot++
			if n < 0 {
				return nil, fmt.Errorf("%w: %s: length slot %d", ErrCorrupt, name, n)
			}
			data, err := c.bytes(int(n), name)
			if err != nil {
				return nil, err
			}
			switch t.Root {
			case typemap.RootString:
				if !utf8.Valid(data) {
					return nil, fmt.Errorf("%w: %s: invalid UTF-8", ErrCorrupt, name)
				}
				row[i] = string(data)
			case typemap.RootBytes:
				row[i] = append([]byte{}, data...)
			case typemap.RootDecimal:
				x, err := decimalFromBytes(data, name)
				if err != nil {
					return nil, err
				}
				if row[i], err = decodedDecimal(x, t, name); err != nil {
					return nil, err
				}
			default:
				if row[i], err = decodeNested(data, t, RowIndexed, depth+1, name); err != nil {
					return nil, err
				}
			}
			continue
		}
		switch t.Root {
		case typemap.RootBoolean, typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootFloat, typemap.RootDouble:
			row[i], err = readCompactedValue(c, t, depth, name)
		case typemap.RootInt, typemap.RootDate, typemap.RootTime:
			var x uint32
			x, err = c.u32(name)
			row[i] = int32(x)
		case typemap.RootBigInt:
			var x uint64
			x, err = c.u64(name)
			row[i] = int64(x)
		case typemap.RootDecimal:
			var x uint64
			if x, err = c.u64(name); err != nil {
				return nil, err
			}
			row[i], err = decodedDecimal(decimal128.FromI64(int64(x)), t, name)
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			var ms uint64
			if ms, err = c.u64(name); err != nil {
				return nil, err
			}
			ts := Timestamp{Millis: int64(ms)}
			if !t.IsCompactTimestamp() {
				var ns uint32
				if ns, err = c.u32(name); err != nil {
					return nil, err
				}
				if ns > 999_999 {
					return nil, fmt.Errorf("%w: %s: nano-of-millisecond %d", ErrCorrupt, name, ns)
				}
				ts.NanoOfMilli = int32(ns)
			}
			row[i] = ts
		case typemap.RootChar:
			var data []byte
			if data, err = c.bytes(int(t.Length), name); err != nil {
				return nil, err
			}
			data = bytes.TrimRight(data, "\x00")
			if !utf8.Valid(data) {
				return nil, fmt.Errorf("%w: %s: invalid UTF-8", ErrCorrupt, name)
			}
			row[i] = string(data)
		case typemap.RootBinary:
			var data []byte
			if data, err = c.bytes(int(t.Length), name); err != nil {
				return nil, err
			}
			row[i] = append([]byte{}, data...)
		default:
			return nil, fmt.Errorf("%w: %s: type %v", ErrUnsupported, name, t)
		}
		if err != nil {
			return nil, err
		}
	}
	if c.p != len(b) {
		return nil, fmt.Errorf("%w: indexed row%s: %d trailing bytes after %d fields", ErrCorrupt, suffix(prefix), len(b)-c.p, len(types))
	}
	return row, nil
}
