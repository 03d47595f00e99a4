package record

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// appendCompactedRow decodes a CompactedRow straight into the pending
// builders, without materialising Go values for scalar columns (PK table
// snapshots and COMPACTED logs go through here). Nested columns take the
// generic path. On error every pending row is dropped.
func (d *RowDecoder) appendCompactedRow(row []byte) error {
	c := &cursor{b: row}
	bits, err := c.bytes((len(d.types)+7)/8, "compacted row null bitmap")
	if err != nil {
		return err
	}
	b := d.builder()
	for i, t := range d.types {
		fb := b.Field(i)
		if bits[i/8]&(1<<(i%8)) != 0 {
			if !t.Nullable {
				d.Release()
				return fmt.Errorf("%w: column %q is NULL but %v is NOT NULL", ErrCorrupt, d.cols[i].Name, t)
			}
			fb.AppendNull()
			continue
		}
		if err := appendCompactedField(c, t, fb, d.cols[i].Name); err != nil {
			d.Release()
			return fmt.Errorf("column %q: %w", d.cols[i].Name, err)
		}
	}
	if c.p != len(row) {
		d.Release()
		return fmt.Errorf("%w: compacted row: %d trailing bytes after %d fields", ErrCorrupt, len(row)-c.p, len(d.types))
	}
	return nil
}

func appendCompactedField(c *cursor, t typemap.DataType, fb array.Builder, name string) error {
	switch t.Root {
	case typemap.RootBoolean:
		x, err := c.u8(name)
		if err != nil {
			return err
		}
		if x > 1 {
			return fmt.Errorf("%w: %s: boolean byte %d at offset %d", ErrCorrupt, name, x, c.p-1)
		}
		fb.(*array.BooleanBuilder).Append(x == 1)
	case typemap.RootTinyInt:
		x, err := c.u8(name)
		if err != nil {
			return err
		}
		fb.(*array.Int8Builder).Append(int8(x))
	case typemap.RootSmallInt:
		x, err := c.u16(name)
		if err != nil {
			return err
		}
		fb.(*array.Int16Builder).Append(int16(x))
	case typemap.RootInt:
		x, err := c.varint32(name)
		if err != nil {
			return err
		}
		fb.(*array.Int32Builder).Append(x)
	case typemap.RootDate:
		x, err := c.varint32(name)
		if err != nil {
			return err
		}
		fb.(*array.Date32Builder).Append(arrow.Date32(x))
	case typemap.RootBigInt:
		x, err := c.varint64(name)
		if err != nil {
			return err
		}
		fb.(*array.Int64Builder).Append(x)
	case typemap.RootFloat:
		x, err := c.u32(name)
		if err != nil {
			return err
		}
		fb.(*array.Float32Builder).Append(math.Float32frombits(x))
	case typemap.RootDouble:
		x, err := c.u64(name)
		if err != nil {
			return err
		}
		fb.(*array.Float64Builder).Append(math.Float64frombits(x))
	case typemap.RootChar, typemap.RootString:
		n, err := c.length(name)
		if err != nil {
			return err
		}
		s, _ := c.bytes(n, name)
		if !utf8.Valid(s) {
			return fmt.Errorf("%w: %s: invalid UTF-8 at offset %d", ErrCorrupt, name, c.p-n)
		}
		fb.(*array.StringBuilder).BinaryBuilder.Append(s)
	case typemap.RootBytes:
		n, err := c.length(name)
		if err != nil {
			return err
		}
		s, _ := c.bytes(n, name)
		fb.(*array.BinaryBuilder).Append(s)
	case typemap.RootDecimal:
		if !t.IsCompactDecimal() {
			return appendGeneric(c, t, fb, name)
		}
		x, err := c.varint64(name)
		if err != nil {
			return err
		}
		v := decimal128.FromI64(x)
		if !v.FitsInPrecision(t.Precision) {
			return fmt.Errorf("%w: %s: unscaled value %d does not fit %v", ErrCorrupt, name, x, t)
		}
		fb.(*array.Decimal128Builder).Append(v)
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		ms, err := c.varint64(name)
		if err != nil {
			return err
		}
		ts := Timestamp{Millis: ms}
		if !t.IsCompactTimestamp() {
			if ts.NanoOfMilli, err = c.varint32(name); err != nil {
				return err
			}
			if ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
				return fmt.Errorf("%w: %s: nano-of-millisecond %d", ErrCorrupt, name, ts.NanoOfMilli)
			}
		}
		fb.(*array.TimestampBuilder).Append(arrow.Timestamp(TimestampToUnit(ts, typemap.TimeUnitForPrecision(t.Precision))))
	default:
		// TIME, BINARY(n) and nested types.
		return appendGeneric(c, t, fb, name)
	}
	return nil
}

func appendGeneric(c *cursor, t typemap.DataType, fb array.Builder, name string) error {
	v, err := readCompactedValue(c, t, 0, name)
	if err != nil {
		return err
	}
	return AppendArrowValue(fb, t, v)
}
