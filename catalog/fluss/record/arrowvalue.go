package record

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/internal/arrowval"
	"github.com/inlet-db/inlet/typemap"
)

// flussForm reads Arrow cells (internal/arrowval, exact form) as this
// package's values: DECIMAL as the unscaled decimal128.Num, timestamps as
// Timestamp, MAP as Map.
var flussForm = &arrowval.Options{
	Decimal:   func(d arrowval.Decimal) any { return d.Unscaled },
	Timestamp: func(t arrowval.Timestamp) any { return Timestamp(t) },
	Map:       func(m arrowval.Map) any { return Map{Keys: m.Keys, Values: m.Values} },
}

// ArrowValue reads row i of an array built with typemap.ArrowType(t) as a
// Fluss value (the inverse of AppendArrowValue): the emulator uses it to
// key and bucket rows that arrive as Arrow batches. The cell is read by
// internal/arrowval; t only checks that a nested array has the shape of
// its Fluss type.
func ArrowValue(arr arrow.Array, t typemap.DataType, i int) (any, error) {
	if i < 0 || i >= arr.Len() {
		return nil, fmt.Errorf("%w: row %d of a %d-row array", ErrInvalid, i, arr.Len())
	}
	shape := true
	switch a := arr.(type) {
	case *array.Map:
		shape = t.Root == typemap.RootMap
	case *array.List:
		shape = t.Root == typemap.RootArray
	case *array.Struct:
		shape = t.Root == typemap.RootRow && a.NumField() == len(t.Fields)
	}
	if !shape {
		return nil, fmt.Errorf("%w: array %s for %v", ErrInvalid, arr.DataType(), t)
	}
	v, err := arrowval.Value(arr, i, flussForm)
	if err != nil {
		return nil, fmt.Errorf("%w: array %s for %v: %w", ErrInvalid, arr.DataType(), t, err)
	}
	return v, nil
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
