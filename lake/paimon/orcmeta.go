package paimon

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/lake/orc"
)

// Manifests, manifest lists and index manifests may be ORC files
// (manifest.format=orc). Their columns carry the same names as the Avro
// fields, so both paths decode into the same structs: Avro by hamba's
// name matching, ORC by decodeORC below, which matches struct fields to
// columns by the `avro` tag and widens integers (ORC stores _KIND as a
// TINYINT where Avro has an int).

func (t *Table) decodeManifestList(b []byte) ([]ManifestFileMeta, error) {
	if sniffFormat(b) == formatORC {
		out, err := decodeORC[ManifestFileMeta](b)
		if err != nil {
			return nil, err
		}
		return out, validateList(out)
	}
	return DecodeManifestList(b)
}

func (t *Table) decodeManifest(b []byte) ([]ManifestEntry, error) {
	if sniffFormat(b) == formatORC {
		out, err := decodeORC[ManifestEntry](b)
		if err != nil {
			return nil, err
		}
		for i := range out {
			if err := out[i].validate(); err != nil {
				return nil, fmt.Errorf("manifest entry %d: %w", i, err)
			}
		}
		return out, nil
	}
	return DecodeManifestEntries(b)
}

func (t *Table) decodeIndexManifest(b []byte) ([]IndexManifestEntry, error) {
	if sniffFormat(b) == formatORC {
		out, err := decodeORC[IndexManifestEntry](b)
		if err != nil {
			return nil, err
		}
		return out, validateIndex(out)
	}
	return DecodeIndexManifest(b)
}

// decodeORC reads every row of an ORC file into T.
func decodeORC[T any](b []byte) ([]T, error) {
	f, err := orc.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%w: orc: %v", ErrCorrupt, err)
	}
	if f.NumRows() > maxAvroRecords {
		return nil, fmt.Errorf("%w: orc metadata file with %d rows", ErrCorrupt, f.NumRows())
	}
	rr, err := f.NewRecordReader(context.Background(), orc.ReadOptions{Mem: memory.NewGoAllocator()})
	if err != nil {
		return nil, fmt.Errorf("%w: orc: %v", ErrCorrupt, err)
	}
	defer rr.Release()
	var out []T
	for rr.Next() {
		rec := rr.RecordBatch()
		cols := map[string]arrow.Array{}
		for i, fl := range rec.Schema().Fields() {
			cols[fl.Name] = rec.Column(i)
		}
		for row := 0; row < int(rec.NumRows()); row++ {
			var v T
			if err := setStruct(reflect.ValueOf(&v).Elem(), func(name string) arrow.Array { return cols[name] }, row); err != nil {
				return nil, fmt.Errorf("%w: orc row %d: %v", ErrCorrupt, len(out), err)
			}
			out = append(out, v)
		}
	}
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: orc: %v", ErrCorrupt, err)
	}
	return out, nil
}

func setStruct(dst reflect.Value, col func(string) arrow.Array, row int) error {
	t := dst.Type()
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Tag.Get("avro")
		if name == "" {
			continue
		}
		arr := col(name)
		if arr == nil {
			continue // absent in this file version: zero value, as in Avro
		}
		if err := setValue(dst.Field(i), arr, row); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func setValue(dst reflect.Value, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		if dst.Kind() == reflect.Pointer || dst.Kind() == reflect.Slice {
			dst.SetZero()
			return nil
		}
		return fmt.Errorf("NULL for a required %s", dst.Type())
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.Type() == reflect.TypeOf(&time.Time{}) {
			ts, ok := arr.(*array.Timestamp)
			if !ok {
				return fmt.Errorf("want timestamp, have %s", arr.DataType())
			}
			v := timestampOf(int64(ts.Value(i)), ts.DataType().(*arrow.TimestampType).Unit)
			tm := time.UnixMilli(v.Millis).Add(time.Duration(v.NanoOfMilli)).UTC()
			dst.Set(reflect.ValueOf(&tm))
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := setValue(p.Elem(), arr, i); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Int32, reflect.Int64:
		n, ok := intAt(arr, i)
		if !ok {
			return fmt.Errorf("want integer, have %s", arr.DataType())
		}
		if dst.OverflowInt(n) {
			return fmt.Errorf("value %d overflows %s", n, dst.Type())
		}
		dst.SetInt(n)
	case reflect.String:
		s, ok := arr.(*array.String)
		if !ok {
			return fmt.Errorf("want string, have %s", arr.DataType())
		}
		dst.SetString(s.Value(i))
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			b, ok := arr.(*array.Binary)
			if !ok {
				return fmt.Errorf("want binary, have %s", arr.DataType())
			}
			dst.SetBytes(append([]byte(nil), b.Value(i)...))
			return nil
		}
		l, ok := arr.(*array.List)
		if !ok {
			return fmt.Errorf("want list, have %s", arr.DataType())
		}
		s, e := l.ValueOffsets(i)
		out := reflect.MakeSlice(dst.Type(), int(e-s), int(e-s))
		for k := s; k < e; k++ {
			if err := setValue(out.Index(int(k-s)), l.ListValues(), int(k)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Struct:
		st, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("want struct, have %s", arr.DataType())
		}
		typ := st.DataType().(*arrow.StructType)
		return setStruct(dst, func(name string) arrow.Array {
			if idx, ok := typ.FieldIdx(name); ok {
				return st.Field(idx)
			}
			return nil
		}, i)
	default:
		return fmt.Errorf("%w: field of Go type %s", ErrUnsupported, dst.Type())
	}
	return nil
}

func intAt(arr arrow.Array, i int) (int64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i)), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	}
	return 0, false
}
