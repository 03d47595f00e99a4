package minifluss

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// Row values given to the Go API (and parsed from scenarios) are coerced to
// one canonical Go type per Fluss type, the convention of catalog/fluss/record:
//
//	BOOLEAN bool      TINYINT int8     SMALLINT int16    INT int32    BIGINT int64
//	FLOAT float32     DOUBLE float64   CHAR/STRING string             BINARY/BYTES []byte
//	DECIMAL decimal128.Num (unscaled)  DATE int32 days   TIME int32 ms of day
//	TIMESTAMP/_LTZ record.Timestamp    ARRAY []any       MAP record.Map  ROW []any
//
// Coercion accepts friendlier inputs: any Go integer or float that fits,
// strings for numbers, decimals ("12.30"), dates ("2024-05-01"), times
// ("12:30:00.5") and timestamps (RFC 3339 or "2006-01-02 15:04:05.999999999"),
// time.Time for dates and timestamps. nil is NULL.

type tsValue = record.Timestamp

type mapValue = record.Map

func coerce(t typemap.DataType, v any, what string) (any, error) {
	if v == nil {
		if !t.Nullable {
			return nil, fmt.Errorf("%s: NULL for a NOT NULL %s column", what, t.Root)
		}
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("%s: cannot use %T %v as %s", what, v, v, t.Root) }
	switch t.Root {
	case typemap.RootBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return bad()
			}
			return b, nil
		}
		return bad()
	case typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt, typemap.RootBigInt:
		n, ok := toInt64(v)
		if !ok {
			return bad()
		}
		switch t.Root {
		case typemap.RootTinyInt:
			if n < math.MinInt8 || n > math.MaxInt8 {
				return nil, fmt.Errorf("%s: %d overflows TINYINT", what, n)
			}
			return int8(n), nil
		case typemap.RootSmallInt:
			if n < math.MinInt16 || n > math.MaxInt16 {
				return nil, fmt.Errorf("%s: %d overflows SMALLINT", what, n)
			}
			return int16(n), nil
		case typemap.RootInt:
			if n < math.MinInt32 || n > math.MaxInt32 {
				return nil, fmt.Errorf("%s: %d overflows INT", what, n)
			}
			return int32(n), nil
		}
		return n, nil
	case typemap.RootFloat, typemap.RootDouble:
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		case string:
			p, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return bad()
			}
			f = p
		default:
			n, ok := toInt64(v)
			if !ok {
				return bad()
			}
			f = float64(n)
		}
		if t.Root == typemap.RootFloat {
			return float32(f), nil
		}
		return f, nil
	case typemap.RootChar, typemap.RootString:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
		return bad()
	case typemap.RootBinary, typemap.RootBytes:
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case string:
			b = []byte(x)
		default:
			return bad()
		}
		if t.Root == typemap.RootBinary && len(b) != int(t.Length) {
			return nil, fmt.Errorf("%s: BINARY(%d) needs exactly %d bytes, got %d", what, t.Length, t.Length, len(b))
		}
		return b, nil
	case typemap.RootDecimal:
		var r *big.Rat
		switch x := v.(type) {
		case decimal128.Num:
			return x, nil
		case string:
			rr, ok := new(big.Rat).SetString(x)
			if !ok {
				return bad()
			}
			r = rr
		case float64:
			r = new(big.Rat).SetFloat64(x)
		default:
			n, ok := toInt64(v)
			if !ok {
				return bad()
			}
			r = new(big.Rat).SetInt64(n)
		}
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
		if !scaled.IsInt() {
			return nil, fmt.Errorf("%s: %v has more than %d decimal places", what, v, t.Scale)
		}
		u := scaled.Num()
		if u.CmpAbs(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)) >= 0 {
			return nil, fmt.Errorf("%s: %v does not fit DECIMAL(%d,%d)", what, v, t.Precision, t.Scale)
		}
		return decimal128.FromBigInt(u), nil
	case typemap.RootDate:
		switch x := v.(type) {
		case string:
			d, err := time.Parse("2006-01-02", x)
			if err != nil {
				return bad()
			}
			return int32(d.Unix() / 86400), nil
		case time.Time:
			return int32(x.UTC().Truncate(24*time.Hour).Unix() / 86400), nil
		}
		n, ok := toInt64(v)
		if !ok {
			return bad()
		}
		return int32(n), nil
	case typemap.RootTime:
		if s, ok := v.(string); ok {
			d, err := time.Parse("15:04:05.999999999", s)
			if err != nil {
				return bad()
			}
			return int32(d.Hour()*3600_000 + d.Minute()*60_000 + d.Second()*1000 + d.Nanosecond()/1e6), nil
		}
		n, ok := toInt64(v)
		if !ok || n < 0 || n >= 86400_000 {
			return bad()
		}
		return int32(n), nil
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		var tm time.Time
		switch x := v.(type) {
		case tsValue:
			return x, nil
		case time.Time:
			tm = x
		case string:
			var err error
			if tm, err = time.Parse(time.RFC3339Nano, x); err != nil {
				if tm, err = time.Parse("2006-01-02 15:04:05.999999999", x); err != nil {
					if tm, err = time.Parse("2006-01-02", x); err != nil {
						return bad()
					}
				}
			}
		default:
			n, ok := toInt64(v)
			if !ok {
				return bad()
			}
			return tsValue{Millis: n}, nil
		}
		if t.Root == typemap.RootTimestamp {
			// a local date-time: its wall clock read as UTC
			tm = time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
		}
		// UnixNano overflows outside 1678..2262; UnixMilli floors and the
		// sub-millisecond part is always the non-negative rest.
		return tsValue{Millis: tm.UnixMilli(), NanoOfMilli: int32(tm.Nanosecond() % 1e6)}, nil
	case typemap.RootArray:
		xs, ok := v.([]any)
		if !ok {
			return bad()
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			c, err := coerce(*t.Elem, x, fmt.Sprintf("%s[%d]", what, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case typemap.RootMap:
		var in mapValue
		switch x := v.(type) {
		case mapValue:
			in = x
		case map[string]any:
			for _, k := range sortedStrings(x) {
				in.Keys = append(in.Keys, k)
				in.Values = append(in.Values, x[k])
			}
		default:
			return bad()
		}
		var out mapValue
		for i := range in.Keys {
			k, err := coerce(t.Key.NotNull(), in.Keys[i], what+" key")
			if err != nil {
				return nil, err
			}
			val, err := coerce(*t.Value, in.Values[i], what+" value")
			if err != nil {
				return nil, err
			}
			out.Keys, out.Values = append(out.Keys, k), append(out.Values, val)
		}
		return out, nil
	case typemap.RootRow:
		xs, ok := v.([]any)
		if !ok || len(xs) != len(t.Fields) {
			return nil, fmt.Errorf("%s: ROW needs a list of %d values", what, len(t.Fields))
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			c, err := coerce(t.Fields[i].Type, x, what+"."+t.Fields[i].Name)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return bad()
}

func sortedStrings(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<62 {
			return 0, false
		}
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// coerceRow checks a row's arity and coerces each value.
func (t *table) coerceRow(row []any, what string) ([]any, error) {
	if len(row) != len(t.types) {
		return nil, fmt.Errorf("%s: %d values for the %d columns of %s", what, len(row), len(t.types), t.path())
	}
	out := make([]any, len(row))
	for i, v := range row {
		c, err := coerce(t.types[i], v, fmt.Sprintf("%s column %s", what, t.Desc.Schema.Columns[i].Name))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// buildRecord turns canonical rows into an Arrow record batch with the
// table's Arrow schema (typemap.ArrowSchema).
func (t *table) columns() []typemap.Column {
	cols := make([]typemap.Column, len(t.types))
	for i, ty := range t.types {
		cols[i] = typemap.Column{Name: t.Desc.Schema.Columns[i].Name, Type: ty}
	}
	return cols
}

func (t *table) buildRecord(mem memory.Allocator, rows [][]any) (arrow.RecordBatch, error) {
	cols := t.columns()
	schema, err := typemap.ArrowSchema(cols)
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			if err := appendArrow(b.Field(i), t.types[i], v); err != nil {
				return nil, fmt.Errorf("column %s: %w", cols[i].Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func appendArrow(b array.Builder, t typemap.DataType, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(v.(int8))
	case *array.Int16Builder:
		bb.Append(v.(int16))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.FixedSizeBinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int32)))
	case *array.Time32Builder:
		ms := v.(int32)
		if bb.Type().(*arrow.Time32Type).Unit == arrow.Second {
			bb.Append(arrow.Time32(ms / 1000))
		} else {
			bb.Append(arrow.Time32(ms))
		}
	case *array.Time64Builder:
		ms := int64(v.(int32))
		if bb.Type().(*arrow.Time64Type).Unit == arrow.Microsecond {
			bb.Append(arrow.Time64(ms * 1000))
		} else {
			bb.Append(arrow.Time64(ms * 1_000_000))
		}
	case *array.TimestampBuilder:
		ts := v.(tsValue)
		var x int64
		switch bb.Type().(*arrow.TimestampType).Unit {
		case arrow.Second:
			x = ts.Millis / 1000 // Java truncating division
		case arrow.Millisecond:
			x = ts.Millis
		case arrow.Microsecond:
			x = ts.Millis*1000 + int64(ts.NanoOfMilli)/1000
		default:
			x = ts.Millis*1_000_000 + int64(ts.NanoOfMilli)
		}
		bb.Append(arrow.Timestamp(x))
	case *array.MapBuilder:
		m := v.(mapValue)
		bb.Append(true)
		for i := range m.Keys {
			if err := appendArrow(bb.KeyBuilder(), t.Key.NotNull(), m.Keys[i]); err != nil {
				return err
			}
			if err := appendArrow(bb.ItemBuilder(), *t.Value, m.Values[i]); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		xs := v.([]any)
		bb.Append(true)
		for _, x := range xs {
			if err := appendArrow(bb.ValueBuilder(), *t.Elem, x); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		xs := v.([]any)
		bb.Append(true)
		for i, x := range xs {
			if err := appendArrow(bb.FieldBuilder(i), t.Fields[i].Type, x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no Arrow builder for %s", t.Root)
	}
	return nil
}
