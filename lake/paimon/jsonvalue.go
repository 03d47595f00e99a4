package paimon

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// JSONValue renders arr[i] in the fixture "value encoding": integers and
// floating point as numbers, DECIMAL as a string with its exact scale, DATE
// as days since the epoch, TIMESTAMP (with or without local time zone) as
// "YYYY-MM-DD HH:MM:SS[.fraction]" in UTC, BYTES as text, ARRAY and ROW as
// arrays, MAP as an array of [key, value] pairs, NULL as nil.
func JSONValue(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return json.Number(strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Time32:
		return int32(a.Value(i))
	case *array.Decimal128:
		sc := a.DataType().(*arrow.Decimal128Type).Scale
		return DecimalValue{Unscaled: a.Value(i).BigInt(), Scale: int(sc)}.String()
	case *array.Timestamp:
		ts := timestampOf(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		return formatTime(time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli)))
	case *array.Map:
		s, e := a.ValueOffsets(i)
		out := make([]any, 0, e-s)
		for k := s; k < e; k++ {
			out = append(out, []any{JSONValue(a.Keys(), int(k)), JSONValue(a.Items(), int(k))})
		}
		return out
	case *array.List:
		s, e := a.ValueOffsets(i)
		out := make([]any, 0, e-s)
		for k := s; k < e; k++ {
			out = append(out, JSONValue(a.ListValues(), int(k)))
		}
		return out
	case *array.Struct:
		out := make([]any, a.NumField())
		for f := range out {
			out[f] = JSONValue(a.Field(f), i)
		}
		return out
	}
	if s, ok := arr.(interface{ ValueStr(int) string }); ok {
		return s.ValueStr(i)
	}
	return base64.StdEncoding.EncodeToString(nil)
}

// JSONRow renders row i of rec as a slice of JSONValue cells.
func JSONRow(rec arrow.RecordBatch, i int) []any {
	out := make([]any, rec.NumCols())
	for c := range out {
		out[c] = JSONValue(rec.Column(c), i)
	}
	return out
}
