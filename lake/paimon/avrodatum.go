package paimon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/hamba/avro/v2"
)

// A small schema-driven Avro datum decoder. hamba/avro's decoders trust
// array and map block counts (its skip decoders loop over a corrupt count
// long after the input is exhausted), so record bodies are decoded here,
// with every count checked against the bytes that remain and a per-file
// item budget, into generic values (map[string]any for records, []any,
// int64, float64, string, []byte, bool, nil) that setGo then copies into
// the metadata structs by their `avro` tag names.

var errAvroShort = errors.New("avro datum: unexpected end of data")

type datumReader struct {
	b      []byte
	off    int
	budget int64 // remaining items (records, array/map entries) allowed
	depth  int
}

func (r *datumReader) long() (int64, error) {
	v, off, fault := zigzagLong(r.b, r.off)
	r.off = off
	switch fault {
	case varintShort:
		return 0, errAvroShort
	case varintLong:
		return 0, errors.New("avro datum: varint too long")
	}
	return v, nil
}

func (r *datumReader) take(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(r.b)-r.off) {
		return nil, fmt.Errorf("avro datum: length %d exceeds the %d bytes left", n, len(r.b)-r.off)
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

func (r *datumReader) spend(n int64) error {
	r.budget -= n
	if r.budget < 0 {
		return errors.New("avro datum: too many items")
	}
	return nil
}

// blockCount reads an array/map block header; counts that cannot fit in
// the remaining bytes (every item takes at least minSize bytes) are corrupt.
func (r *datumReader) blockCount(minSize int) (int64, error) {
	n, err := r.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, errors.New("avro datum: bad block count")
		}
		n = -n
		if _, err := r.long(); err != nil { // block size in bytes
			return 0, err
		}
	}
	if minSize > 0 && n > int64(len(r.b)-r.off)/int64(minSize) {
		return 0, fmt.Errorf("avro datum: block of %d items in %d bytes", n, len(r.b)-r.off)
	}
	return n, r.spend(n)
}

// minSize is a lower bound of the encoded size of a datum of schema s.
func minSize(s avro.Schema) int {
	switch t := s.(type) {
	case *avro.NullSchema:
		return 0
	case *avro.RefSchema:
		return 0 // a (possibly recursive) named type: no useful bound
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Null:
			return 0
		case avro.Float:
			return 4
		case avro.Double:
			return 8
		}
		return 1
	case *avro.RecordSchema:
		n := 0
		for _, f := range t.Fields() {
			n += minSize(f.Type())
		}
		return n
	case *avro.FixedSchema:
		return t.Size()
	}
	return 1
}

func (r *datumReader) read(s avro.Schema) (any, error) {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > 64 {
		return nil, errors.New("avro datum: nesting too deep")
	}
	switch t := s.(type) {
	case *avro.NullSchema:
		return nil, nil
	case *avro.RefSchema:
		return r.read(t.Schema())
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Null:
			return nil, nil
		case avro.Boolean:
			b, err := r.take(1)
			if err != nil {
				return nil, err
			}
			return b[0] != 0, nil
		case avro.Int, avro.Long:
			return r.long()
		case avro.Float:
			b, err := r.take(4)
			if err != nil {
				return nil, err
			}
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
		case avro.Double:
			b, err := r.take(8)
			if err != nil {
				return nil, err
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		case avro.Bytes, avro.String:
			n, err := r.long()
			if err != nil {
				return nil, err
			}
			b, err := r.take(n)
			if err != nil {
				return nil, err
			}
			if t.Type() == avro.String {
				return string(b), nil
			}
			return append([]byte(nil), b...), nil
		}
	case *avro.RecordSchema:
		if err := r.spend(1); err != nil {
			return nil, err
		}
		m := make(map[string]any, len(t.Fields()))
		for _, f := range t.Fields() {
			v, err := r.read(f.Type())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name(), err)
			}
			m[f.Name()] = v
		}
		return m, nil
	case *avro.UnionSchema:
		i, err := r.long()
		if err != nil {
			return nil, err
		}
		ts := t.Types()
		if i < 0 || i >= int64(len(ts)) {
			return nil, fmt.Errorf("avro datum: union branch %d of %d", i, len(ts))
		}
		return r.read(ts[i])
	case *avro.ArraySchema:
		ms := minSize(t.Items())
		var out []any
		for {
			n, err := r.blockCount(ms)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return out, nil
			}
			for ; n > 0; n-- {
				v, err := r.read(t.Items())
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
		}
	case *avro.MapSchema:
		ms := 1 + minSize(t.Values())
		out := map[string]any{}
		for {
			n, err := r.blockCount(ms)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return out, nil
			}
			for ; n > 0; n-- {
				k, err := r.read(avro.NewPrimitiveSchema(avro.String, nil))
				if err != nil {
					return nil, err
				}
				v, err := r.read(t.Values())
				if err != nil {
					return nil, err
				}
				out[k.(string)] = v
			}
		}
	case *avro.EnumSchema:
		i, err := r.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(t.Symbols())) {
			return nil, fmt.Errorf("avro datum: enum index %d", i)
		}
		return t.Symbols()[i], nil
	case *avro.FixedSchema:
		b, err := r.take(int64(t.Size()))
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	}
	return nil, fmt.Errorf("%w: avro schema %s", ErrUnsupported, s.Type())
}

// setGo copies a generic Avro value into dst, matching struct fields by
// their `avro` tag; absent fields keep their zero value.
func setGo(dst reflect.Value, v any) error {
	if v == nil {
		switch dst.Kind() {
		case reflect.Pointer, reflect.Slice:
			dst.SetZero()
			return nil
		}
		return fmt.Errorf("null for a required %s", dst.Type())
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.Type() == reflect.TypeOf(&time.Time{}) {
			ms, ok := v.(int64)
			if !ok {
				return fmt.Errorf("want timestamp-millis, have %T", v)
			}
			tm := time.UnixMilli(ms).UTC()
			dst.Set(reflect.ValueOf(&tm))
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := setGo(p.Elem(), v); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Int32, reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			return fmt.Errorf("want integer, have %T", v)
		}
		if dst.OverflowInt(n) {
			return fmt.Errorf("value %d overflows %s", n, dst.Type())
		}
		dst.SetInt(n)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want string, have %T", v)
		}
		dst.SetString(s)
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			b, ok := v.([]byte)
			if !ok {
				return fmt.Errorf("want bytes, have %T", v)
			}
			dst.SetBytes(b)
			return nil
		}
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want array, have %T", v)
		}
		out := reflect.MakeSlice(dst.Type(), len(l), len(l))
		for i, x := range l {
			if err := setGo(out.Index(i), x); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want record, have %T", v)
		}
		t := dst.Type()
		for i := 0; i < t.NumField(); i++ {
			name := t.Field(i).Tag.Get("avro")
			fv, present := m[name]
			if name == "" || !present {
				continue
			}
			if err := setGo(dst.Field(i), fv); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	default:
		return fmt.Errorf("%w: field of Go type %s", ErrUnsupported, dst.Type())
	}
	return nil
}
