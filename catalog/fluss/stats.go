package fluss

import (
	"context"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
)

var _ catalog.ColumnStatser = (*Table)(nil)

// ColumnStats implements catalog.ColumnStatser: a tiered table's column
// statistics are its lake half's, from the latest Paimon snapshot's
// manifests (lakestats.Latest); the rows of the log tail are not in them,
// and the optimizer scales distinct counts of key-like columns by the row
// count (RowCount) over the statistics' rows, and past a tenth of the
// lake's rows in the tail the bounds are not used for ranges. A table without a lake, its
// $log and $changelog, and a lake that cannot be read have empty
// statistics: best effort, never a planning error, and never "not yet
// analysed" (which would keep the FROM order for want of an ANALYZE that
// Fluss tables do not take).
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	empty := &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}
	if t.mode == ReadLog || t.mode == ReadChangelog || !t.info.Descriptor.DatalakeEnabled() {
		return empty, nil
	}
	l, err := t.openLake(ctx)
	if err != nil || l.Table == nil {
		// No statistics from an Iceberg lake yet: best effort.
		return empty, nil
	}
	schema, err := l.Table.LatestSchema(ctx)
	if err != nil {
		return empty, nil
	}
	ts, err := lakestats.Latest(ctx, l.Table, schema.Fields)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.cat.log.Warn("fluss lake statistics unavailable", "catalog", t.cat.name, "table", t.info.Path.String(), "err", err)
		return empty, nil
	}
	// The lake's bounds say nothing of the log tail's values (new dates,
	// new keys): past a tenth of the lake's rows in the tail, ranges are
	// estimated without them rather than from bounds the tail outgrew.
	if rows, err := t.RowCount(ctx); err == nil && rows-ts.Rows > ts.Rows/10 {
		wide := &catalog.TableStats{Rows: ts.Rows, UpdatedMS: ts.UpdatedMS, Columns: make(map[string]catalog.ColumnStats, len(ts.Columns))}
		for name, cs := range ts.Columns {
			cs.Numeric, cs.Lo, cs.Hi = false, 0, 0
			wide.Columns[name] = cs
		}
		return wide, nil
	}
	return ts, nil
}
