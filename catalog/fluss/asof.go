package fluss

import (
	"context"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/systable"
)

// SchemaAsOf implements catalog.SchemaAsOf for tbl$lake: a time-travel
// read returns the columns of the lake snapshot it names, i.e. the table's
// columns that snapshot's Paimon schema has (Fluss only appends columns,
// and tiering evolves the lake schema with them). A lake that cannot be
// opened yields the current columns; the planner then reports why.
func (t *Table) SchemaAsOf(ctx context.Context, tt *catalog.TimeTravel) (catalog.Schema, error) {
	cur := t.Schema()
	if t.mode != ReadLake || tt == nil {
		return cur, nil
	}
	l, err := t.openLake(ctx)
	if err != nil || l.Table == nil {
		// An Iceberg lake keeps the Fluss columns (ADD COLUMN is refused).
		return cur, nil
	}
	cols, err := systable.ColumnsAsOf(ctx, l.Table, cur.Columns, tt)
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("fluss: table %s: %s: %w", t.name, tt, err)
	}
	return catalog.Schema{Columns: cols}, nil
}
