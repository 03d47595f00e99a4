package systable

import (
	"context"
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

// ColumnsAsOf is the columns of a time-travel read of t: those of cols
// that the schema of the snapshot tt names has. Both catalogs over Paimon
// lakes (type=paimon tables and Fluss tbl$lake) answer catalog.SchemaAsOf
// with it. A snapshot that cannot be resolved yields cols unchanged: the
// planner reports that error precisely.
func ColumnsAsOf(ctx context.Context, t *lake.Table, cols []catalog.Column, tt *catalog.TimeTravel) ([]catalog.Column, error) {
	var snap *lake.Snapshot
	var err error
	switch {
	case tt.HasTime:
		snap, err = t.SnapshotAt(ctx, tt.TimeMillis)
	case tt.Tag != "":
		snap, err = t.SnapshotOfTag(ctx, tt.Tag)
	default:
		snap, err = t.Snapshot(ctx, tt.SnapshotID)
	}
	if errors.Is(err, lake.ErrNotFound) {
		return cols, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
	}
	return SnapshotColumns(cols, s), nil
}

// SnapshotColumns keeps the columns of cols that the snapshot schema s
// has, in their order: the columns of a read of a snapshot written with s.
func SnapshotColumns(cols []catalog.Column, s *lake.TableSchema) []catalog.Column {
	var out []catalog.Column
	for _, c := range cols {
		if _, ok := s.Field(c.Name); ok {
			out = append(out, c)
		}
	}
	return out
}
