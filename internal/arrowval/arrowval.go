package arrowval

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ErrUnsupported is the kind of error for an Arrow type with no Go form here.
var ErrUnsupported = errors.New("arrowval: unsupported Arrow type")

// Timestamp is an instant as milliseconds since the epoch plus the
// nanoseconds within that millisecond (0…999999), the split Paimon and Fluss
// store.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// Decimal is a DECIMAL value: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled decimal128.Num
	Scale    int32
}

// Map is one MAP value: keys and values in their stored order.
type Map struct {
	Keys, Values []any
}

// Options choose the representation; the zero value is the Exact form with
// this package's types.
type Options struct {
	// Widen selects the evaluator's form (see the package doc).
	Widen bool
	// Decimal, Timestamp and Map, when set, build the Exact form's values of
	// those types (also inside nested values).
	Decimal   func(Decimal) any
	Timestamp func(Timestamp) any
	Map       func(Map) any
}

// Value returns row i of arr as a Go value in the form o selects, nil for
// NULL.
func Value(arr arrow.Array, i int, o *Options) (any, error) {
	if o == nil {
		o = &Options{}
	}
	if arr.IsNull(i) {
		return nil, nil
	}
	return Slot(arr, i, o)
}

// Slot reads row i of arr without looking at its validity, for vectorized
// loops that apply the validity bitmap themselves: a NULL row gives
// whatever its slot holds. Nested children are read with Value.
func Slot(arr arrow.Array, i int, o *Options) (any, error) {
	if o == nil {
		o = &Options{}
	}
	if o.Widen {
		return widened(arr, i, o)
	}
	return exact(arr, i, o)
}

func exact(arr arrow.Array, i int, o *Options) (any, error) {
	switch a := arr.(type) {
	case *array.Null:
		return nil, nil
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
	case *array.Uint8:
		return a.Value(i), nil
	case *array.Uint16:
		return a.Value(i), nil
	case *array.Uint32:
		return a.Value(i), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Binary:
		return append([]byte{}, a.Value(i)...), nil
	case *array.LargeBinary:
		return append([]byte{}, a.Value(i)...), nil
	case *array.FixedSizeBinary:
		return append([]byte{}, a.Value(i)...), nil
	case *array.Decimal128:
		d := Decimal{Unscaled: a.Value(i), Scale: a.DataType().(*arrow.Decimal128Type).Scale}
		if o.Decimal != nil {
			return o.Decimal(d), nil
		}
		return d, nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.Date64:
		return int32(floorDiv(int64(a.Value(i)), 86_400_000)), nil
	case *array.Time32:
		v := int32(a.Value(i))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			v *= 1000
		}
		return v, nil
	case *array.Time64:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return int32(v / 1000), nil
		}
		return int32(v / 1_000_000), nil
	case *array.Timestamp:
		t := TimestampOf(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		if o.Timestamp != nil {
			return o.Timestamp(t), nil
		}
		return t, nil
	case *array.Map:
		m, err := mapAt(a, i, o)
		if err != nil || o.Map == nil {
			return m, err
		}
		return o.Map(m), nil
	case *array.List, *array.LargeList:
		return listAt(a.(array.ListLike), i, o)
	case *array.Struct:
		return structAt(a, i, o)
	}
	return nil, unsupported(arr)
}

func widened(arr arrow.Array, i int, o *Options) (any, error) {
	switch a := arr.(type) {
	case *array.Null:
		return nil, nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return int64(a.Value(i)), nil
	case *array.Uint16:
		return int64(a.Value(i)), nil
	case *array.Uint32:
		return int64(a.Value(i)), nil
	case *array.Uint64:
		return int64(a.Value(i)), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Decimal128:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Binary:
		return string(a.Value(i)), nil
	case *array.LargeBinary:
		return string(a.Value(i)), nil
	case *array.FixedSizeBinary:
		return string(a.Value(i)), nil
	case *array.Date32:
		return a.Value(i), nil
	case *array.Date64:
		return arrow.Date32(floorDiv(int64(a.Value(i)), 86_400_000)), nil
	case *array.Time32:
		mul, div := toMicros(a.DataType().(*arrow.Time32Type).Unit)
		return arrow.Time64(int64(a.Value(i)) * mul / div), nil
	case *array.Time64:
		mul, div := toMicros(a.DataType().(*arrow.Time64Type).Unit)
		return arrow.Time64(int64(a.Value(i)) * mul / div), nil
	case *array.Timestamp:
		mul, div := toMicros(a.DataType().(*arrow.TimestampType).Unit)
		return arrow.Timestamp(int64(a.Value(i)) * mul / div), nil
	case *array.Map:
		return mapAt(a, i, o)
	case *array.List, *array.LargeList:
		return listAt(a.(array.ListLike), i, o)
	case *array.Struct:
		return structAt(a, i, o)
	}
	return nil, unsupported(arr)
}

func mapAt(a *array.Map, i int, o *Options) (Map, error) {
	s, e := a.ValueOffsets(i)
	m := Map{}
	for k := int(s); k < int(e); k++ {
		kv, err := Value(a.Keys(), k, o)
		if err != nil {
			return Map{}, err
		}
		vv, err := Value(a.Items(), k, o)
		if err != nil {
			return Map{}, err
		}
		m.Keys, m.Values = append(m.Keys, kv), append(m.Values, vv)
	}
	return m, nil
}

func listAt(a array.ListLike, i int, o *Options) ([]any, error) {
	s, e := a.ValueOffsets(i)
	out := make([]any, 0, e-s)
	for k := s; k < e; k++ {
		v, err := Value(a.ListValues(), int(k), o)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func structAt(a *array.Struct, i int, o *Options) ([]any, error) {
	out := make([]any, a.NumField())
	for f := range out {
		v, err := Value(a.Field(f), i, o)
		if err != nil {
			return nil, err
		}
		out[f] = v
	}
	return out, nil
}

func unsupported(arr arrow.Array) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, arr.DataType())
}

// TimestampOf splits a count of unit since the epoch into Timestamp, rounding
// towards minus infinity so that the nanosecond part is never negative.
func TimestampOf(v int64, unit arrow.TimeUnit) Timestamp {
	switch unit {
	case arrow.Second:
		return Timestamp{Millis: v * 1000}
	case arrow.Millisecond:
		return Timestamp{Millis: v}
	case arrow.Microsecond:
		ms := floorDiv(v, 1000)
		return Timestamp{Millis: ms, NanoOfMilli: int32((v - ms*1000) * 1000)}
	}
	ms := floorDiv(v, 1_000_000)
	return Timestamp{Millis: ms, NanoOfMilli: int32(v - ms*1_000_000)}
}

// toMicros gives the factor from unit to microseconds as mul/div.
func toMicros(u arrow.TimeUnit) (mul, div int64) {
	switch u {
	case arrow.Second:
		return 1_000_000, 1
	case arrow.Millisecond:
		return 1000, 1
	case arrow.Nanosecond:
		return 1, 1000
	}
	return 1, 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
