package minifluss

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/typemap"
)

// rowsFromRecord reads an Arrow record batch (the table's Arrow schema, as
// typemap.ArrowSchema builds it) back into canonical row values.
func rowsFromRecord(rec arrow.RecordBatch, types []typemap.DataType) ([][]any, error) {
	if int(rec.NumCols()) != len(types) {
		return nil, fmt.Errorf("record has %d columns, the table %d", rec.NumCols(), len(types))
	}
	rows := make([][]any, rec.NumRows())
	for i := range rows {
		rows[i] = make([]any, len(types))
	}
	for j, col := range rec.Columns() {
		for i := range rows {
			v, err := arrowValue(col, i, types[j])
			if err != nil {
				return nil, fmt.Errorf("column %s row %d: %w", rec.Schema().Field(j).Name, i, err)
			}
			rows[i][j] = v
		}
	}
	return rows, nil
}

func arrowValue(a arrow.Array, i int, t typemap.DataType) (any, error) {
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
		return append([]byte(nil), x.Value(i)...), nil
	case *array.FixedSizeBinary:
		return append([]byte(nil), x.Value(i)...), nil
	case *array.Decimal128:
		return x.Value(i), nil
	case *array.Date32:
		return int32(x.Value(i)), nil
	case *array.Time32:
		v := int32(x.Value(i))
		if x.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			v *= 1000
		}
		return v, nil
	case *array.Time64:
		v := int64(x.Value(i))
		if x.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return int32(v / 1000), nil
		}
		return int32(v / 1_000_000), nil
	case *array.Timestamp:
		v := int64(x.Value(i))
		switch x.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			return tsValue{Millis: v * 1000}, nil
		case arrow.Millisecond:
			return tsValue{Millis: v}, nil
		case arrow.Microsecond:
			ms := floorDiv(v, 1000)
			return tsValue{Millis: ms, NanoOfMilli: int32((v - ms*1000) * 1000)}, nil
		default:
			ms := floorDiv(v, 1_000_000)
			return tsValue{Millis: ms, NanoOfMilli: int32(v - ms*1_000_000)}, nil
		}
	case *array.Map:
		start, end := x.ValueOffsets(i)
		var m mapValue
		for k := int(start); k < int(end); k++ {
			kv, err := arrowValue(x.Keys(), k, t.Key.NotNull())
			if err != nil {
				return nil, err
			}
			vv, err := arrowValue(x.Items(), k, *t.Value)
			if err != nil {
				return nil, err
			}
			m.Keys, m.Values = append(m.Keys, kv), append(m.Values, vv)
		}
		return m, nil
	case *array.List:
		start, end := x.ValueOffsets(i)
		out := []any{}
		for k := int(start); k < int(end); k++ {
			v, err := arrowValue(x.ListValues(), k, *t.Elem)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Struct:
		out := make([]any, x.NumField())
		for f := 0; f < x.NumField(); f++ {
			v, err := arrowValue(x.Field(f), i, t.Fields[f].Type)
			if err != nil {
				return nil, err
			}
			out[f] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("arrow type %s is not a Fluss column type", a.DataType())
}

// UpsertRecord upserts the rows of an Arrow record batch (the table's Arrow
// schema) into a primary-key table, as Upsert does with Go values.
func (c *Cluster) UpsertRecord(ctx context.Context, db, tbl string, rec arrow.RecordBatch) error {
	rows, err := c.recordRows(db, tbl, rec)
	if err != nil {
		return err
	}
	return c.Upsert(ctx, db, tbl, rows)
}

// DeleteRecord deletes the keys of the rows of an Arrow record batch (the
// table's Arrow schema; only primary-key columns are read).
func (c *Cluster) DeleteRecord(ctx context.Context, db, tbl string, rec arrow.RecordBatch) error {
	rows, err := c.recordRows(db, tbl, rec)
	if err != nil {
		return err
	}
	c.mu.Lock()
	t, err := c.cat.lookup(db, tbl)
	var pk []int
	if err == nil {
		pk = t.colIndexes(t.Desc.Schema.PrimaryKey)
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	keys := make([][]any, len(rows))
	for i, r := range rows {
		for _, ci := range pk {
			keys[i] = append(keys[i], r[ci])
		}
	}
	return c.Delete(ctx, db, tbl, keys)
}

func (c *Cluster) recordRows(db, tbl string, rec arrow.RecordBatch) ([][]any, error) {
	c.mu.Lock()
	t, err := c.cat.lookup(db, tbl)
	var types []typemap.DataType
	if err == nil {
		types = append(types, t.types...)
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	rows, err := rowsFromRecord(rec, types)
	if err != nil {
		return nil, fmt.Errorf("table %s.%s: %w", db, tbl, err)
	}
	return rows, nil
}
