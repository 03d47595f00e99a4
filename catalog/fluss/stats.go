package fluss

import (
	"context"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
	"github.com/inlet-db/inlet/lake/iceberg"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

var _ catalog.ColumnStatser = (*Table)(nil)

// ColumnStats implements catalog.ColumnStatser: a tiered table's column
// statistics are its lake half's, from the latest Paimon snapshot's
// manifests (lakestats.Latest) or the current Iceberg snapshot's
// (icebergStats); the rows of the log tail are not in them,
// and the optimizer scales distinct counts of key-like columns by the row
// count (RowCount) over the statistics' rows, and past a tenth of the
// lake's rows in the tail the bounds are not used for ranges. A table without a lake, its
// $log and $changelog, and a lake that cannot be read have empty
// statistics: best effort, never a planning error, and never "not yet
// analysed" (which would keep the FROM order for want of an ANALYZE that
// Fluss tables do not take).
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	empty := &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}
	if t.mode == ReadLog || t.mode == ReadChangelog || t.mode == ReadBinlog || !t.info.Descriptor.DatalakeEnabled() {
		return empty, nil
	}
	l, err := t.openLake(ctx)
	if err != nil {
		return empty, nil
	}
	var ts *catalog.TableStats
	switch {
	case l.Iceberg != nil:
		ts, err = icebergStats(ctx, l.Iceberg)
	case l.Table != nil:
		var schema *lake.TableSchema
		if schema, err = l.Table.LatestSchema(ctx); err != nil {
			return empty, nil
		}
		ts, err = lakestats.Latest(ctx, l.Table, schema.Fields)
	default:
		return empty, nil
	}
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

// icebergStats are the statistics of the current snapshot of an Iceberg
// lake half, summarized by lake/iceberg and estimated as a Paimon lake's
// (lakestats.Summarized); the Fluss system columns are among them.
func icebergStats(ctx context.Context, t *iceberg.Table) (*catalog.TableStats, error) {
	snap, ok := t.CurrentSnapshot()
	if !ok {
		return &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}, nil
	}
	fields, err := t.Fields()
	if err != nil {
		return nil, err
	}
	return lakestats.Summarized(ctx, t.Dir(), snap.ID, fields, func(ctx context.Context) (*lake.Summary, int64, error) {
		sum, err := t.Summarize(ctx, snap.ID)
		return sum, snap.TimestampMs, err
	})
}
