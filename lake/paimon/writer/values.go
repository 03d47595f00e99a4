package writer

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Value returns row i of an Arrow array (of paimon.ArrowType(t)) as the Go
// value paimon.SerializeRow takes for t: int8..int64, int32 for DATE and
// TIME (ms), float32/64, string, []byte, bool, paimon.DecimalValue,
// paimon.TimestampValue, nil for NULL. Nested types are not key or
// partition types and are refused.
func Value(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int8:
		return x.Value(i), nil
	case *array.Int16:
		return x.Value(i), nil
	case *array.Int32:
		return x.Value(i), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Float32:
		return x.Value(i), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.String:
		return x.Value(i), nil
	case *array.Binary:
		return x.Value(i), nil
	case *array.Date32:
		return int32(x.Value(i)), nil
	case *array.Time32:
		return int32(x.Value(i)), nil
	case *array.Decimal128:
		sc := x.DataType().(*arrow.Decimal128Type).Scale
		return paimon.DecimalValue{Unscaled: x.Value(i).BigInt(), Scale: int(sc)}, nil
	case *array.Timestamp:
		v := int64(x.Value(i))
		var nanos int64
		switch x.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			nanos = v * 1e9
		case arrow.Millisecond:
			return paimon.TimestampValue{Millis: v}, nil
		case arrow.Microsecond:
			ms, us := floorDivMod(v, 1000)
			return paimon.TimestampValue{Millis: ms, NanoOfMilli: int32(us * 1000)}, nil
		default:
			nanos = v
		}
		ms, ns := floorDivMod(nanos, 1e6)
		return paimon.TimestampValue{Millis: ms, NanoOfMilli: int32(ns)}, nil
	}
	return nil, fmt.Errorf("%w: values of Arrow type %s cannot be keys or partition values", ErrInvalid, a.DataType())
}

func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// Compare orders two values of the same key type as Paimon's key
// comparator does: NULL first, strings and bytes as unsigned bytes.
func Compare(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int8:
		return cmp.Compare(x, b.(int8))
	case int16:
		return cmp.Compare(x, b.(int16))
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float32:
		return cmp.Compare(x, b.(float32))
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case paimon.DecimalValue:
		return x.Unscaled.Cmp(b.(paimon.DecimalValue).Unscaled)
	case paimon.TimestampValue:
		y := b.(paimon.TimestampValue)
		if c := cmp.Compare(x.Millis, y.Millis); c != 0 {
			return c
		}
		return cmp.Compare(x.NanoOfMilli, y.NanoOfMilli)
	}
	return 0
}

func compareRows(a, b []any) int {
	for i := range a {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// statsAcc accumulates SimpleStats (min, max, null count per column).
type statsAcc struct {
	types    []paimon.DataType
	min, max []any
	nulls    []int64
	seen     bool
}

func newStatsAcc(types []paimon.DataType) *statsAcc {
	return &statsAcc{types: types, min: make([]any, len(types)), max: make([]any, len(types)), nulls: make([]int64, len(types))}
}

func (s *statsAcc) add(vals []any) {
	for i, v := range vals {
		if v == nil {
			s.nulls[i]++
			continue
		}
		if s.min[i] == nil || Compare(v, s.min[i]) < 0 {
			s.min[i] = v
		}
		if s.max[i] == nil || Compare(v, s.max[i]) > 0 {
			s.max[i] = v
		}
	}
	s.seen = true
}

func (s *statsAcc) stats() (*paimon.SimpleStats, error) {
	if len(s.types) == 0 {
		return paimon.EmptyStats(), nil
	}
	nullable := make([]paimon.DataType, len(s.types))
	for i, t := range s.types {
		t.Nullable = true
		nullable[i] = t
	}
	mn, err := paimon.SerializeRow(s.min, nullable)
	if err != nil {
		return nil, err
	}
	mx, err := paimon.SerializeRow(s.max, nullable)
	if err != nil {
		return nil, err
	}
	nc := make([]*int64, len(s.nulls))
	for i := range s.nulls {
		n := s.nulls[i]
		nc[i] = &n
	}
	return &paimon.SimpleStats{MinValues: mn, MaxValues: mx, NullCounts: &nc}, nil
}
