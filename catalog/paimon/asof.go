package paimon

import (
	"context"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/systable"
)

var _ catalog.SchemaAsOf = (*Table)(nil)

// SchemaAsOf implements catalog.SchemaAsOf: a time-travel read has the
// columns of the snapshot it names, so a column added later is simply not
// there (as in Paimon's own time travel).
func (t *Table) SchemaAsOf(ctx context.Context, tt *catalog.TimeTravel) (catalog.Schema, error) {
	cur := t.Schema()
	if tt == nil {
		return cur, nil
	}
	cols, err := systable.ColumnsAsOf(ctx, t.lake, cur.Columns, tt)
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("paimon: table %s.%s: %s: %w", t.db, t.name, tt, err)
	}
	return catalog.Schema{Columns: cols}, nil
}
