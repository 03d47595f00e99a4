package minifluss

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
)

// The column metrics of an ORC data or delete file, as Java Iceberg's ORC
// writer records them (OrcMetrics with the default metrics mode
// truncate(16)), so readers prune ORC files by the manifest as they do
// Parquet ones: for every column not inside a list or map (struct fields
// included, and the list, map and struct columns themselves) a value count
// (the file's rows) and a NULL count (a field of a NULL struct counts as
// NULL); NaN counts for float and double columns; lower and upper bounds
// in Iceberg's single-value serialization for int, long, float, double
// (NaN left out), decimal, date, time, timestamp, string (truncated to 16
// characters, the upper bound rounded up) and boolean columns. Binary
// columns get no bounds (ORC keeps no binary minimum). The values come
// from the batches written, not from ORC's statistics.

// metricsTruncate is the default metrics mode's string length.
const metricsTruncate = 16

// fileMetrics are one file's metrics by field id.
type fileMetrics struct {
	schema       *iceberg.Schema
	values       map[int]int64
	nulls        map[int]int64
	nans         map[int]int64
	lower, upper map[int][]byte
	cols         map[int]*colBounds
}

// colBounds is the running minimum and maximum of one column: int64 for
// integer, date, time and timestamp columns, float64, string, bool or
// decimal128.Num.
type colBounds struct {
	typ    iceberg.Type
	lo, hi any
}

func newFileMetrics(schema *iceberg.Schema) *fileMetrics {
	return &fileMetrics{schema: schema, values: map[int]int64{}, nulls: map[int]int64{}, nans: map[int]int64{},
		lower: map[int][]byte{}, upper: map[int][]byte{}, cols: map[int]*colBounds{}}
}

// add folds one batch (lake schema: field ids in the fields' metadata).
func (m *fileMetrics) add(rec arrow.RecordBatch) error {
	for i, f := range rec.Schema().Fields() {
		if err := m.visit(rec.Column(i), f, nil); err != nil {
			return err
		}
	}
	return nil
}

// visit folds column a of field f; parent, when set, marks the rows whose
// enclosing structs are not NULL.
func (m *fileMetrics) visit(a arrow.Array, f arrow.Field, parent []bool) error {
	v, ok := f.Metadata.GetValue("PARQUET:field_id")
	if !ok {
		return nil
	}
	id, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("column %s: field id %q", f.Name, v)
	}
	field, ok := m.schema.FindFieldByID(id)
	if !ok {
		return fmt.Errorf("column %s: field id %d is not in the table schema", f.Name, id)
	}
	n := a.Len()
	valid := make([]bool, n)
	for r := range valid {
		valid[r] = (parent == nil || parent[r]) && a.IsValid(r)
		if !valid[r] {
			m.nulls[id]++
		}
	}
	m.values[id] += int64(n)
	switch x := a.(type) {
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		for k := 0; k < x.NumField(); k++ {
			if err := m.visit(x.Field(k), st.Field(k), valid); err != nil {
				return err
			}
		}
		return nil
	case *array.List, *array.Map:
		return nil
	}
	return m.bounds(id, field.Type, a, valid)
}

func (m *fileMetrics) bounds(id int, typ iceberg.Type, a arrow.Array, valid []bool) error {
	if ts, ok := a.DataType().(*arrow.TimestampType); ok {
		// The bound is in the Iceberg type's unit: only a column already
		// in it is bounded.
		switch typ.(type) {
		case iceberg.TimestampType, iceberg.TimestampTzType:
			ok = ts.Unit == arrow.Microsecond
		case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
			ok = ts.Unit == arrow.Nanosecond
		default:
			ok = false
		}
		if !ok {
			return nil
		}
	}
	c := m.cols[id]
	if c == nil {
		c = &colBounds{typ: typ}
		m.cols[id] = c
	}
	for r, ok := range valid {
		if !ok {
			continue
		}
		var v any
		switch x := a.(type) {
		case *array.Int8:
			v = int64(x.Value(r))
		case *array.Int16:
			v = int64(x.Value(r))
		case *array.Int32:
			v = int64(x.Value(r))
		case *array.Int64:
			v = x.Value(r)
		case *array.Date32:
			v = int64(x.Value(r))
		case *array.Time64:
			if x.DataType().(*arrow.Time64Type).Unit != arrow.Microsecond {
				return nil
			}
			v = int64(x.Value(r))
		case *array.Timestamp:
			v = int64(x.Value(r))
		case *array.Float32:
			f := float64(x.Value(r))
			if math.IsNaN(f) {
				m.nans[id]++
				continue
			}
			v = f
		case *array.Float64:
			f := x.Value(r)
			if math.IsNaN(f) {
				m.nans[id]++
				continue
			}
			v = f
		case *array.String:
			v = x.Value(r)
		case *array.Boolean:
			v = x.Value(r)
		case *array.Decimal128:
			v = x.Value(r)
		default:
			return nil // binary and the rest: no bounds
		}
		if c.lo == nil {
			c.lo, c.hi = v, v
			continue
		}
		if less(v, c.lo) {
			c.lo = v
		}
		if less(c.hi, v) {
			c.hi = v
		}
	}
	if _, ok := m.nans[id]; !ok {
		switch typ.(type) {
		case iceberg.Float32Type, iceberg.Float64Type:
			m.nans[id] = 0 // every float column has a NaN count, as Java records
		}
	}
	return nil
}

func less(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case float64:
		// -0.0 sorts before 0.0, as Java's Float.compare orders them.
		y := b.(float64)
		if x == 0 && y == 0 {
			return math.Signbit(x) && !math.Signbit(y)
		}
		return x < y
	case string:
		return x < b.(string) // UTF-8 byte order, ORC's string order
	case bool:
		return !x && b.(bool)
	case decimal128.Num:
		return x.Less(b.(decimal128.Num))
	}
	return false
}

// finish serializes the bounds.
func (m *fileMetrics) finish() error {
	for id, c := range m.cols {
		if c.lo == nil {
			continue
		}
		lo, err := serialize(c.typ, c.lo, false)
		if err != nil {
			return fmt.Errorf("field %d lower bound: %w", id, err)
		}
		hi, err := serialize(c.typ, c.hi, true)
		if err != nil {
			return fmt.Errorf("field %d upper bound: %w", id, err)
		}
		if lo != nil {
			m.lower[id] = lo
		}
		if hi != nil {
			m.upper[id] = hi
		}
	}
	return nil
}

// serialize is v in Iceberg's single-value binary form for typ; nil when
// typ keeps no bound of that value.
func serialize(typ iceberg.Type, v any, upper bool) ([]byte, error) {
	var l iceberg.Literal
	switch t := typ.(type) {
	case iceberg.Int32Type:
		l = iceberg.NewLiteral(int32(v.(int64)))
	case iceberg.Int64Type:
		l = iceberg.NewLiteral(v.(int64))
	case iceberg.DateType:
		l = iceberg.NewLiteral(iceberg.Date(v.(int64)))
	case iceberg.TimeType:
		l = iceberg.NewLiteral(iceberg.Time(v.(int64)))
	case iceberg.TimestampType, iceberg.TimestampTzType:
		l = iceberg.NewLiteral(iceberg.Timestamp(v.(int64)))
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		l = iceberg.NewLiteral(iceberg.TimestampNano(v.(int64)))
	case iceberg.Float32Type:
		l = iceberg.NewLiteral(float32(v.(float64)))
	case iceberg.Float64Type:
		l = iceberg.NewLiteral(v.(float64))
	case iceberg.BooleanType:
		l = iceberg.NewLiteral(v.(bool))
	case iceberg.DecimalType:
		l = iceberg.NewLiteral(iceberg.Decimal{Val: v.(decimal128.Num), Scale: t.Scale()})
	case iceberg.StringType:
		s := v.(string)
		if upper {
			s = truncateMax(s, metricsTruncate)
		} else {
			s = truncateMin(s, metricsTruncate)
		}
		l = iceberg.NewLiteral(s)
	default:
		return nil, nil
	}
	return l.MarshalBinary()
}

// truncateMin is the first n characters of s: no greater than s.
func truncateMin(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// truncateMax is the first n characters of s with the last one that can
// be incremented incremented (surrogates skipped): no less than s. When
// none can, s itself (as Java's UnicodeUtil.truncateStringMax leaves it).
func truncateMax(s string, n int) string {
	t := truncateMin(s, n)
	if t == s {
		return s
	}
	for len(t) > 0 {
		r, size := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-size]
		switch {
		case r == 0xD7FF:
			return t + string(rune(0xE000))
		case r < utf8.MaxRune:
			return t + string(r+1)
		}
	}
	return s
}
