package record

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/typemap"
)

// Records section of INDEXED and COMPACTED batches (REC/IndexedLogRecord,
// REC/CompactedLogRecord), record_count times:
//
//	[size int32 LE = 1 + row length][change type int8][row]
//
// The change type byte is present even in append-only batches (then 0).

// RowFormat is the row format of an INDEXED or COMPACTED log format.
func (f LogFormat) RowFormat() (RowFormat, error) {
	switch f {
	case LogFormatIndexed:
		return RowIndexed, nil
	case LogFormatCompacted:
		return RowCompacted, nil
	}
	return 0, fmt.Errorf("%w: log format %v has no row records", ErrUnsupported, f)
}

// ForEachRowRecord walks the records of an INDEXED/COMPACTED batch; row
// aliases the batch bytes.
func ForEachRowRecord(lb *LogBatch, fn func(i int, ct ChangeType, row []byte) error) error {
	c := &cursor{b: lb.Records}
	for i := range int(lb.Header.RecordCount) {
		size, err := c.u32("record size")
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if size < 1 || int64(size) > int64(len(c.b)-c.p) {
			return fmt.Errorf("%w: record %d size %d at offset %d, %d bytes left", ErrCorrupt, i, int32(size), c.p-4, len(c.b)-c.p)
		}
		ct := ChangeType(c.b[c.p])
		if !ct.Valid() {
			return fmt.Errorf("%w: record %d change type %d", ErrCorrupt, i, c.b[c.p])
		}
		row := c.b[c.p+1 : c.p+int(size)]
		c.p += int(size)
		if err := fn(i, ct, row); err != nil {
			return err
		}
	}
	if c.p != len(c.b) {
		return fmt.Errorf("%w: %d bytes after the %d records", ErrCorrupt, len(c.b)-c.p, lb.Header.RecordCount)
	}
	return nil
}

// AppendRowLogBatch encodes rows as an INDEXED/COMPACTED log batch.
// changeTypes nil means append-only (every record +A, attribute bit set).
func AppendRowLogBatch(dst []byte, p BatchParams, f RowFormat, types []typemap.DataType, rows [][]any, changeTypes []ChangeType) ([]byte, error) {
	if changeTypes != nil && len(changeTypes) != len(rows) {
		return dst, fmt.Errorf("%w: %d change types for %d rows", ErrInvalid, len(changeTypes), len(rows))
	}
	if len(rows) > math.MaxInt32 {
		return dst, fmt.Errorf("%w: %d rows", ErrInvalid, len(rows))
	}
	var recs []byte
	for i, r := range rows {
		ct := AppendOnly
		if changeTypes != nil {
			ct = changeTypes[i]
			if !ct.Valid() {
				return dst, fmt.Errorf("%w: change type %d of row %d", ErrInvalid, ct, i)
			}
		}
		start := len(recs)
		recs = append(recs, 0, 0, 0, 0, byte(ct))
		var err error
		if recs, err = EncodeRow(recs, f, types, r); err != nil {
			return dst, fmt.Errorf("row %d: %w", i, err)
		}
		binary.LittleEndian.PutUint32(recs[start:], uint32(len(recs)-start-4))
	}
	p.AppendOnly = changeTypes == nil
	p.RecordCount = int32(len(rows))
	return AppendLogBatch(dst, p, recs)
}

// RowDecoder turns rows (of COMPACTED/INDEXED log batches, KV values, or
// values decoded elsewhere) into Arrow record batches of the schema of
// cols. Belongs to one goroutine.
type RowDecoder struct {
	cols   []typemap.Column
	types  []typemap.DataType
	format RowFormat
	schema *arrow.Schema
	mem    memory.Allocator
	b      *array.RecordBuilder
}

// NewRowDecoder makes a decoder for rows in format f.
func NewRowDecoder(cols []typemap.Column, f RowFormat, mem memory.Allocator) (*RowDecoder, error) {
	schema, err := typemap.ArrowSchema(cols)
	if err != nil {
		return nil, err
	}
	return &RowDecoder{cols: cols, types: Types(cols), format: f, schema: schema, mem: mem}, nil
}

// Schema is the Arrow schema of produced batches.
func (d *RowDecoder) Schema() *arrow.Schema { return d.schema }

func (d *RowDecoder) builder() *array.RecordBuilder {
	if d.b == nil {
		d.b = array.NewRecordBuilder(d.mem, d.schema)
	}
	return d.b
}

// AppendRowBytes decodes one row and appends it to the pending batch. On
// error every pending row is dropped.
func (d *RowDecoder) AppendRowBytes(row []byte) error {
	if d.format == RowCompacted {
		return d.appendCompactedRow(row)
	}
	vals, err := DecodeRow(row, d.format, d.types)
	if err != nil {
		d.Release()
		return err
	}
	return d.AppendValues(vals)
}

// AppendValues appends one decoded row. A shorter row (written with an
// older schema, Fluss only adds nullable columns at the end) is padded with
// NULLs; a longer one is an error. On error every pending row is dropped:
// a half-appended row would leave the columns with different lengths.
func (d *RowDecoder) AppendValues(vals []any) error {
	if len(vals) > len(d.cols) {
		return fmt.Errorf("%w: row of %d values for %d columns", ErrInvalid, len(vals), len(d.cols))
	}
	b := d.builder()
	for i := range d.cols {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		if err := AppendArrowValue(b.Field(i), d.cols[i].Type, v); err != nil {
			d.Release()
			return fmt.Errorf("column %q: %w", d.cols[i].Name, err)
		}
	}
	return nil
}

// NewRecordBatch returns the rows appended so far (possibly 0) and starts
// a new batch. The caller owns the result.
func (d *RowDecoder) NewRecordBatch() arrow.RecordBatch { return d.builder().NewRecordBatch() }

// Release frees the pending builder.
func (d *RowDecoder) Release() {
	if d.b != nil {
		d.b.Release()
		d.b = nil
	}
}

// DecodeLogBatch decodes a whole INDEXED/COMPACTED batch. On error the
// pending rows are dropped.
func (d *RowDecoder) DecodeLogBatch(lb *LogBatch) (arrow.RecordBatch, ChangeTypes, error) {
	// Each record takes at least 5 bytes: bound the allocation by the input.
	cts := make([]byte, 0, min(int(lb.Header.RecordCount), len(lb.Records)/5))
	err := ForEachRowRecord(lb, func(i int, ct ChangeType, row []byte) error {
		cts = append(cts, byte(ct))
		if err := d.AppendRowBytes(row); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		return nil
	})
	rec := d.NewRecordBatch()
	if err != nil {
		rec.Release()
		return nil, ChangeTypes{}, err
	}
	if lb.Header.AppendOnly() {
		return rec, ChangeTypes{n: len(cts)}, nil
	}
	return rec, ChangeTypes{raw: cts, n: len(cts)}, nil
}

// AppendArrowValue appends one Fluss value (see values.go) of type t to an
// Arrow builder of typemap.ArrowType(t), converting units as Fluss's Arrow
// writers do (TIME ms → unit of the precision; TIMESTAMP millis+nanos →
// s/ms/µs/ns, seconds by truncating division). On error the builder may
// hold part of a nested value and must be discarded.
func AppendArrowValue(b array.Builder, t typemap.DataType, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("%w: %T %v for %v (builder %T)", ErrInvalid, v, v, t, b) }
	switch t.Root {
	case typemap.RootBoolean:
		x, ok1 := v.(bool)
		bb, ok2 := b.(*array.BooleanBuilder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootTinyInt:
		x, ok1 := v.(int8)
		bb, ok2 := b.(*array.Int8Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootSmallInt:
		x, ok1 := v.(int16)
		bb, ok2 := b.(*array.Int16Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootInt:
		x, ok1 := v.(int32)
		bb, ok2 := b.(*array.Int32Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootBigInt:
		x, ok1 := v.(int64)
		bb, ok2 := b.(*array.Int64Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootFloat:
		x, ok1 := v.(float32)
		bb, ok2 := b.(*array.Float32Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootDouble:
		x, ok1 := v.(float64)
		bb, ok2 := b.(*array.Float64Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootChar, typemap.RootString:
		x, ok1 := v.(string)
		bb, ok2 := b.(*array.StringBuilder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootBinary:
		x, ok1 := v.([]byte)
		bb, ok2 := b.(*array.FixedSizeBinaryBuilder)
		if !ok1 || !ok2 || len(x) > int(t.Length) {
			return bad()
		}
		if len(x) < int(t.Length) {
			// Compacted rows do not pad BINARY(n); Arrow's column is fixed width.
			x = append(append(make([]byte, 0, t.Length), x...), make([]byte, int(t.Length)-len(x))...)
		}
		bb.Append(x)
	case typemap.RootBytes:
		x, ok1 := v.([]byte)
		bb, ok2 := b.(*array.BinaryBuilder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootDecimal:
		x, ok1 := v.(decimal128.Num)
		bb, ok2 := b.(*array.Decimal128Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(x)
	case typemap.RootDate:
		x, ok1 := v.(int32)
		bb, ok2 := b.(*array.Date32Builder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(arrow.Date32(x))
	case typemap.RootTime:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		switch bb := b.(type) {
		case *array.Time32Builder:
			if typemap.TimeUnitForPrecision(t.Precision) == arrow.Second {
				bb.Append(arrow.Time32(x / 1000))
			} else {
				bb.Append(arrow.Time32(x))
			}
		case *array.Time64Builder:
			if typemap.TimeUnitForPrecision(t.Precision) == arrow.Microsecond {
				bb.Append(arrow.Time64(int64(x) * 1000))
			} else {
				bb.Append(arrow.Time64(int64(x) * 1_000_000))
			}
		default:
			return bad()
		}
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		x, ok1 := v.(Timestamp)
		bb, ok2 := b.(*array.TimestampBuilder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(arrow.Timestamp(TimestampToUnit(x, typemap.TimeUnitForPrecision(t.Precision))))
	case typemap.RootArray:
		x, ok1 := v.([]any)
		bb, ok2 := b.(*array.ListBuilder)
		if !ok1 || !ok2 {
			return bad()
		}
		bb.Append(true)
		for i, e := range x {
			if err := AppendArrowValue(bb.ValueBuilder(), *t.Elem, e); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	case typemap.RootMap:
		x, ok1 := v.(Map)
		bb, ok2 := b.(*array.MapBuilder)
		if !ok1 || !ok2 || len(x.Keys) != len(x.Values) {
			return bad()
		}
		bb.Append(true)
		for i := range x.Keys {
			if x.Keys[i] == nil {
				return fmt.Errorf("%w: map key %d is NULL", ErrInvalid, i)
			}
			if err := AppendArrowValue(bb.KeyBuilder(), t.Key.NotNull(), x.Keys[i]); err != nil {
				return fmt.Errorf("map key %d: %w", i, err)
			}
			if err := AppendArrowValue(bb.ItemBuilder(), *t.Value, x.Values[i]); err != nil {
				return fmt.Errorf("map value %d: %w", i, err)
			}
		}
	case typemap.RootRow:
		x, ok1 := v.([]any)
		bb, ok2 := b.(*array.StructBuilder)
		if !ok1 || !ok2 || len(x) != len(t.Fields) {
			return bad()
		}
		bb.Append(true)
		for i, f := range t.Fields {
			if err := AppendArrowValue(bb.FieldBuilder(i), f.Type, x[i]); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
	default:
		return bad()
	}
	return nil
}

// TimestampToUnit converts a Fluss timestamp to an Arrow timestamp count.
func TimestampToUnit(ts Timestamp, u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return ts.Millis / 1000
	case arrow.Millisecond:
		return ts.Millis
	case arrow.Microsecond:
		return ts.Millis*1000 + int64(ts.NanoOfMilli)/1000
	}
	return ts.Millis*1_000_000 + int64(ts.NanoOfMilli)
}

// AppendValueRecords decodes the rows of a value batch (or of KV values)
// into the pending batch. typesFor returns the row types of a schema id, so
// rows written with an older schema decode with their own types and are
// padded with NULLs (Fluss only adds nullable columns at the end).
func (d *RowDecoder) AppendValueRecords(recs []ValueRecord, typesFor func(schemaID int16) ([]typemap.DataType, error)) error {
	for i, r := range recs {
		types, err := typesFor(r.SchemaID)
		if err != nil {
			return fmt.Errorf("value record %d: schema %d: %w", i, r.SchemaID, err)
		}
		vals, err := DecodeRow(r.Row, d.format, types)
		if err != nil {
			return fmt.Errorf("value record %d (schema %d): %w", i, r.SchemaID, err)
		}
		if err := d.AppendValues(vals); err != nil {
			return fmt.Errorf("value record %d (schema %d): %w", i, r.SchemaID, err)
		}
	}
	return nil
}
