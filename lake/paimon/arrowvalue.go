package paimon

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/internal/arrowval"
)

// lakeForm reads Arrow cells (internal/arrowval, exact form) with this
// package's DecimalValue and TimestampValue, the values SerializeRow and
// the predicates take.
var lakeForm = &arrowval.Options{
	Decimal: func(d arrowval.Decimal) any {
		return DecimalValue{Unscaled: d.Unscaled.BigInt(), Scale: int(d.Scale)}
	},
	Timestamp: func(t arrowval.Timestamp) any { return TimestampValue(t) },
}

// ArrowValue returns row i of arr as the Go value SerializeRow takes for its
// type: int8…int64, float32/64, bool, string, []byte (a copy), int32 for
// DATE (days) and TIME (milliseconds), DecimalValue, TimestampValue; LIST
// and ROW as []any and MAP as arrowval.Map of such values; nil for NULL. An
// Arrow type with no such value is an error naming it.
func ArrowValue(arr arrow.Array, i int) (any, error) {
	return arrowval.Value(arr, i, lakeForm)
}

// arrowValue returns the normalized value (see norm) of arr[i], nil for NULL
// and for types norm does not compare (nested ones).
func arrowValue(arr arrow.Array, i int) any {
	if arr == nil {
		return nil
	}
	v, _ := ArrowValue(arr, i)
	return norm(v)
}

func timestampOf(v int64, unit arrow.TimeUnit) TimestampValue {
	return TimestampValue(arrowval.TimestampOf(v, unit))
}
