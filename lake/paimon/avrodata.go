package paimon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/hamba/avro/v2"
)

// openAvro reads an Avro data file (file.format=avro) block by block: only
// one decompressed block (capped at maxAvroBlock) is held at a time.
// Columns are matched by the name the file's own schema version gives each
// field id, as for ORC. Scalar columns only; a nested column is refused by
// name.
func openAvro(ctx context.Context, s fileReadSpec) (*fileBatches, error) {
	f, err := s.fsys.Open(ctx, s.path)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", s.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	if err := s.checkSize(f.Size()); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: data file %s: %s", ErrCorrupt, s.path, fmt.Sprintf(format, a...))
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, f.Size()), 64<<10)
	magic := make([]byte, 4)
	if _, err := io.ReadFull(br, magic); err != nil || !bytes.Equal(magic, avroMagic) {
		return nil, bad("not an Avro container")
	}
	meta := map[string][]byte{}
	readBytes := func(limit int64) ([]byte, error) {
		n, err := binary.ReadVarint(br)
		if err != nil {
			return nil, err
		}
		if n < 0 || n > limit {
			return nil, fmt.Errorf("length %d", n)
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return b, err
	}
	for entries := 0; ; {
		n, err := binary.ReadVarint(br)
		if err != nil {
			return nil, bad("avro header: %v", err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := binary.ReadVarint(br); err != nil {
				return nil, bad("avro header: %v", err)
			}
		}
		if entries += int(min(n, 1025)); entries > 1024 {
			return nil, bad("avro header: too many metadata entries")
		}
		for i := int64(0); i < n; i++ {
			k, err := readBytes(1 << 20)
			if err != nil {
				return nil, bad("avro header key: %v", err)
			}
			v, err := readBytes(16 << 20)
			if err != nil {
				return nil, bad("avro header value: %v", err)
			}
			meta[string(k)] = v
		}
	}
	sync := make([]byte, 16)
	if _, err := io.ReadFull(br, sync); err != nil {
		return nil, bad("avro header: no sync marker")
	}
	sch, err := avro.ParseBytesWithCache(meta["avro.schema"], "", &avro.SchemaCache{})
	if err != nil {
		return nil, bad("avro schema: %v", err)
	}
	rec, isRec := sch.(*avro.RecordSchema)
	if !isRec {
		return nil, bad("avro schema is %s, not a record", sch.Type())
	}
	codec := string(meta["avro.codec"])
	out, err := outSchema(s.want, s.system)
	if err != nil {
		return nil, err
	}
	nameOfID := map[int]string{}
	for _, fl := range s.fileSchema.Fields {
		nameOfID[fl.ID] = fl.Name
	}
	// Output column → file field name ("" = not in the file: NULL).
	names := make([]string, len(out.Fields()))
	fileField := map[string]*avro.Field{}
	for _, fl := range rec.Fields() {
		fileField[fl.Name()] = fl
	}
	for i, w := range s.want {
		if n, in := nameOfID[w.ID]; in && fileField[n] != nil {
			names[i] = n
		}
	}
	if s.system {
		for j, n := range []string{SequenceNumberColumn, ValueKindColumn} {
			if fileField[n] == nil {
				return nil, bad("no %s column in a primary-key file", n)
			}
			names[len(s.want)+j] = n
		}
	}
	units := make([]arrow.TimeUnit, len(names))
	for i, n := range names {
		if n == "" {
			continue
		}
		switch out.Field(i).Type.ID() {
		case arrow.LIST, arrow.MAP, arrow.STRUCT:
			return nil, fmt.Errorf("%w: data file %s: nested column %s in an Avro file", ErrUnsupported, s.path, out.Field(i).Name)
		case arrow.TIMESTAMP:
			units[i] = avroTimeUnit(fileField[n].Type())
		}
	}
	bs := s.batchSize
	if bs <= 0 {
		bs = 8192
	}
	var (
		blk  *datumReader
		left int64 // records left in blk
		pos  int64 // file position of the next record
	)
	nextBlock := func() (bool, error) {
		count, err := binary.ReadVarint(br)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, bad("avro block at record %d: %v", pos, err)
		}
		data, err := readBytes(maxAvroBlock)
		if err != nil {
			return false, bad("avro block at record %d: %v", pos, err)
		}
		got := make([]byte, 16)
		if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, sync) {
			return false, bad("avro block at record %d: bad sync marker", pos)
		}
		if count < 0 || count > maxAvroRecords {
			return false, bad("avro block at record %d: record count %d", pos, count)
		}
		raw, err := avroDecompress(codec, data)
		if err != nil {
			return false, fmt.Errorf("data file %s: avro block at record %d (%s): %w", s.path, pos, codec, err)
		}
		blk, left = &datumReader{b: raw, budget: maxAvroRecords}, count
		return true, nil
	}
	fb := &fileBatches{schema: out, close: func() { f.Close() }}
	fb.next = func() (arrow.RecordBatch, int64, error) {
		b := array.NewRecordBuilder(s.mem, out)
		defer b.Release()
		start, n := pos, 0
		for n < bs {
			if n&1023 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
			}
			if left == 0 {
				more, err := nextBlock()
				if err != nil {
					return nil, 0, err
				}
				if !more {
					break
				}
				continue
			}
			v, err := blk.read(rec)
			if err != nil {
				return nil, 0, bad("avro record %d: %v", pos, err)
			}
			m, isMap := v.(map[string]any)
			if !isMap {
				return nil, 0, bad("avro record %d is not a record", pos)
			}
			for i, name := range names {
				if name == "" {
					b.Field(i).AppendNull()
					continue
				}
				if err := appendAvro(b.Field(i), m[name], units[i]); err != nil {
					return nil, 0, bad("avro record %d column %s: %v", pos, name, err)
				}
			}
			left--
			pos++
			n++
		}
		if n == 0 {
			return nil, 0, nil
		}
		return b.NewRecordBatch(), start, nil
	}
	ok = true
	return fb, nil
}

// avroTimeUnit is the unit of a timestamp field (null unions unwrapped).
func avroTimeUnit(s avro.Schema) arrow.TimeUnit {
	if u, isUnion := s.(*avro.UnionSchema); isUnion {
		for _, t := range u.Types() {
			if t.Type() != avro.Null {
				s = t
			}
		}
	}
	if p, isPrim := s.(*avro.PrimitiveSchema); isPrim && p.Logical() != nil {
		switch p.Logical().Type() {
		case avro.TimestampMicros, avro.LocalTimestampMicros:
			return arrow.Microsecond
		}
	}
	return arrow.Millisecond
}

// appendAvro appends a decoded Avro value (int64, float64, bool, string,
// []byte, nil) to a builder of the column's Arrow type.
func appendAvro(bld array.Builder, v any, unit arrow.TimeUnit) error {
	if v == nil {
		bld.AppendNull()
		return nil
	}
	mismatch := func() error { return fmt.Errorf("avro value of Go type %T for %s", v, bld.Type()) }
	switch x := v.(type) {
	case int64:
		switch b := bld.(type) {
		case *array.Int8Builder:
			b.Append(int8(x))
		case *array.Int16Builder:
			b.Append(int16(x))
		case *array.Int32Builder:
			b.Append(int32(x))
		case *array.Int64Builder:
			b.Append(x)
		case *array.Date32Builder:
			b.Append(arrow.Date32(x))
		case *array.Time32Builder:
			b.Append(arrow.Time32(x))
		case *array.TimestampBuilder:
			want := b.Type().(*arrow.TimestampType).Unit
			b.Append(arrow.Timestamp(convertUnit(x, unit, want)))
		case *array.Float32Builder:
			b.Append(float32(x))
		case *array.Float64Builder:
			b.Append(float64(x))
		default:
			return mismatch()
		}
	case float64:
		switch b := bld.(type) {
		case *array.Float32Builder:
			b.Append(float32(x))
		case *array.Float64Builder:
			b.Append(x)
		default:
			return mismatch()
		}
	case bool:
		b, isBool := bld.(*array.BooleanBuilder)
		if !isBool {
			return mismatch()
		}
		b.Append(x)
	case string:
		switch b := bld.(type) {
		case *array.StringBuilder:
			b.Append(x)
		case *array.BinaryBuilder:
			b.Append([]byte(x))
		default:
			return mismatch()
		}
	case []byte:
		switch b := bld.(type) {
		case *array.BinaryBuilder:
			b.Append(x)
		case *array.StringBuilder:
			b.Append(string(x))
		case *array.Decimal128Builder:
			// Big-endian two's complement unscaled value.
			u := new(big.Int).SetBytes(x)
			if len(x) > 0 && x[0]&0x80 != 0 {
				u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(x))))
			}
			if u.BitLen() > 127 {
				return fmt.Errorf("decimal of %d bytes overflows", len(x))
			}
			b.Append(decimal128.FromBigInt(u))
		default:
			return mismatch()
		}
	default:
		return mismatch()
	}
	return nil
}

func convertUnit(v int64, from, to arrow.TimeUnit) int64 {
	scale := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}
	f, t := scale[from], scale[to]
	switch {
	case f == t:
		return v
	case t > f:
		return v * (t / f)
	}
	d := f / t
	q := v / d
	if v%d != 0 && v < 0 {
		q--
	}
	return q
}
