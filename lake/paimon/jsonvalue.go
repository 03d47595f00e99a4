package paimon

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/internal/arrowval"
)

// JSONValue renders arr[i] in the fixture "value encoding": integers and
// floating point as numbers, DECIMAL as a string with its exact scale, DATE
// as days since the epoch, TIMESTAMP (with or without local time zone) as
// "YYYY-MM-DD HH:MM:SS[.fraction]" in UTC, BYTES as text, ARRAY and ROW as
// arrays, MAP as an array of [key, value] pairs, NULL as nil. The cell is
// read by ArrowValue; a type it cannot read is rendered by Arrow's ValueStr.
func JSONValue(arr arrow.Array, i int) any {
	v, err := ArrowValue(arr, i)
	if err != nil {
		if s, ok := arr.(interface{ ValueStr(int) string }); ok {
			return s.ValueStr(i)
		}
		return ""
	}
	return jsonOf(v)
}

// jsonOf maps an ArrowValue value to its value encoding.
func jsonOf(v any) any {
	switch x := v.(type) {
	case float32:
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case []byte:
		return string(x)
	case DecimalValue:
		return x.String()
	case TimestampValue:
		return formatTime(time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli)))
	case arrowval.Map:
		out := make([]any, len(x.Keys))
		for k := range x.Keys {
			out[k] = []any{jsonOf(x.Keys[k]), jsonOf(x.Values[k])}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for k, e := range x {
			out[k] = jsonOf(e)
		}
		return out
	}
	return v
}

// JSONRow renders row i of rec as a slice of JSONValue cells.
func JSONRow(rec arrow.RecordBatch, i int) []any {
	out := make([]any, rec.NumCols())
	for c := range out {
		out[c] = JSONValue(rec.Column(c), i)
	}
	return out
}
