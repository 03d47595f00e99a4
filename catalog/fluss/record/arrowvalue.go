package record

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/typemap"
)

// ArrowValue reads row i of an array built with typemap.ArrowType(t) as a
// Fluss value (the inverse of AppendArrowValue): the emulator uses it to
// key and bucket rows that arrive as Arrow batches.
func ArrowValue(arr arrow.Array, t typemap.DataType, i int) (any, error) {
	if i < 0 || i >= arr.Len() {
		return nil, fmt.Errorf("%w: row %d of a %d-row array", ErrInvalid, i, arr.Len())
	}
	if arr.IsNull(i) {
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("%w: array %s for %v", ErrInvalid, arr.DataType(), t) }
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return append([]byte{}, a.Value(i)...), nil
	case *array.FixedSizeBinary:
		return append([]byte{}, a.Value(i)...), nil
	case *array.Decimal128:
		return a.Value(i), nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.Time32:
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			return int32(a.Value(i)) * 1000, nil
		}
		return int32(a.Value(i)), nil
	case *array.Time64:
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return int32(int64(a.Value(i)) / 1000), nil
		}
		return int32(int64(a.Value(i)) / 1_000_000), nil
	case *array.Timestamp:
		return TimestampFromUnit(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit), nil
	case *array.Map:
		if t.Root != typemap.RootMap {
			return bad()
		}
		start, end := a.ValueOffsets(i)
		m := Map{}
		for j := int(start); j < int(end); j++ {
			k, err := ArrowValue(a.Keys(), *t.Key, j)
			if err != nil {
				return nil, err
			}
			v, err := ArrowValue(a.Items(), *t.Value, j)
			if err != nil {
				return nil, err
			}
			m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
		}
		return m, nil
	case *array.List:
		if t.Root != typemap.RootArray {
			return bad()
		}
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			v, err := ArrowValue(a.ListValues(), *t.Elem, j)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Struct:
		if t.Root != typemap.RootRow || a.NumField() != len(t.Fields) {
			return bad()
		}
		out := make([]any, len(t.Fields))
		for j, f := range t.Fields {
			v, err := ArrowValue(a.Field(j), f.Type, i)
			if err != nil {
				return nil, err
			}
			out[j] = v
		}
		return out, nil
	}
	return bad()
}

// RecordRow reads row i of a record whose columns follow types.
func RecordRow(rec arrow.RecordBatch, types []typemap.DataType, i int) ([]any, error) {
	if int(rec.NumCols()) != len(types) {
		return nil, fmt.Errorf("%w: record of %d columns for %d types", ErrInvalid, rec.NumCols(), len(types))
	}
	row := make([]any, len(types))
	for c, t := range types {
		v, err := ArrowValue(rec.Column(c), t, i)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", c, err)
		}
		row[c] = v
	}
	return row, nil
}
