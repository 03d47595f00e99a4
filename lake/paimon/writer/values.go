package writer

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Value returns row i of an Arrow array (of paimon.ArrowType(t)) as the Go
// value paimon.SerializeRow takes for t (paimon.ArrowValue: int8..int64,
// int32 for DATE and TIME (ms), float32/64, string, []byte, bool,
// paimon.DecimalValue, paimon.TimestampValue, nil for NULL). Nested types
// are not key or partition types and are refused.
func Value(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a.DataType().ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
		return nil, refused(a)
	}
	v, err := paimon.ArrowValue(a, i)
	if err != nil {
		return nil, refused(a)
	}
	return v, nil
}

func refused(a arrow.Array) error {
	return fmt.Errorf("%w: values of Arrow type %s cannot be keys or partition values", ErrInvalid, a.DataType())
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
