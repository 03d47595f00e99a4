package fluss

import (
	"context"
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/lake/paimon"
)

// SchemaAsOf implements catalog.SchemaAsOf for tbl$lake: a time-travel
// read returns the columns of the lake snapshot it names, i.e. the table's
// columns that snapshot's Paimon schema has (Fluss only appends columns,
// and tiering evolves the lake schema with them). A snapshot that cannot
// be resolved yields the current columns; the planner then reports why.
func (t *Table) SchemaAsOf(ctx context.Context, tt *catalog.TimeTravel) (catalog.Schema, error) {
	cur := t.Schema()
	if t.mode != ReadLake || tt == nil {
		return cur, nil
	}
	l, err := t.openLake(ctx)
	if err != nil {
		return cur, nil
	}
	var snap *paimon.Snapshot
	switch {
	case tt.HasTime:
		snap, err = l.Table.SnapshotAt(ctx, tt.TimeMillis)
	case tt.Tag != "":
		snap, err = l.Table.SnapshotOfTag(ctx, tt.Tag)
	default:
		snap, err = l.Table.Snapshot(ctx, tt.SnapshotID)
	}
	if errors.Is(err, paimon.ErrNotFound) {
		return cur, nil
	}
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("fluss: table %s: %s: %w", t.name, tt, err)
	}
	ls, err := l.Table.Schema(ctx, snap.SchemaID)
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("fluss: table %s: %s: snapshot %d: %w", t.name, tt, snap.ID, err)
	}
	return catalog.Schema{Columns: LakeSnapshotColumns(cur.Columns, ls)}, nil
}

// LakeSnapshotColumns keeps the columns of cols that the lake schema s has,
// in their order: the columns of a read of a snapshot written with s.
func LakeSnapshotColumns(cols []catalog.Column, s *paimon.TableSchema) []catalog.Column {
	var out []catalog.Column
	for _, c := range cols {
		if _, ok := s.Field(c.Name); ok {
			out = append(out, c)
		}
	}
	return out
}
