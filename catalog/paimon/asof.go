package paimon

import (
	"context"
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

var _ catalog.SchemaAsOf = (*Table)(nil)

// SchemaAsOf implements catalog.SchemaAsOf: a time-travel read has the
// columns of the snapshot it names — the table's columns that snapshot's
// schema has, so a column added later is simply not there (as in Paimon's
// own time travel). A snapshot that cannot be resolved yields the current
// columns; the planner then reports why precisely.
func (t *Table) SchemaAsOf(ctx context.Context, tt *catalog.TimeTravel) (catalog.Schema, error) {
	cur := t.Schema()
	if tt == nil {
		return cur, nil
	}
	var snap *lake.Snapshot
	var err error
	switch {
	case tt.HasTime:
		snap, err = t.lake.SnapshotAt(ctx, tt.TimeMillis)
	case tt.Tag != "":
		snap, err = t.lake.SnapshotOfTag(ctx, tt.Tag)
	default:
		snap, err = t.lake.Snapshot(ctx, tt.SnapshotID)
	}
	if errors.Is(err, lake.ErrNotFound) {
		return cur, nil
	}
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("paimon: table %s.%s: %s: %w", t.db, t.name, tt, err)
	}
	ls, err := t.lake.Schema(ctx, snap.SchemaID)
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("paimon: table %s.%s: %s: snapshot %d: %w", t.db, t.name, tt, snap.ID, err)
	}
	return catalog.Schema{Columns: SnapshotColumns(cur.Columns, ls)}, nil
}

// SnapshotColumns keeps the columns of cols that the snapshot schema s has,
// in their order.
func SnapshotColumns(cols []catalog.Column, s *lake.TableSchema) []catalog.Column {
	var out []catalog.Column
	for _, c := range cols {
		if _, ok := s.Field(c.Name); ok {
			out = append(out, c)
		}
	}
	return out
}
