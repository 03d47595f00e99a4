package minifluss

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/internal/arrowval"
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
			v, err := arrowValue(col, i)
			if err != nil {
				return nil, fmt.Errorf("column %s row %d: %w", rec.Schema().Field(j).Name, i, err)
			}
			rows[i][j] = v
		}
	}
	return rows, nil
}

// flussForm reads Arrow cells (internal/arrowval, exact form) as the
// emulator's row values: record.Timestamp, record.Map, decimal128.Num.
var flussForm = &arrowval.Options{
	Decimal:   func(d arrowval.Decimal) any { return d.Unscaled },
	Timestamp: func(t arrowval.Timestamp) any { return tsValue(t) },
	Map:       func(m arrowval.Map) any { return mapValue(m) },
}

func arrowValue(a arrow.Array, i int) (any, error) {
	v, err := arrowval.Value(a, i, flussForm)
	if err != nil {
		return nil, fmt.Errorf("arrow type %s is not a Fluss column type", a.DataType())
	}
	return v, nil
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
