package iceberg

import (
	"context"
	"strconv"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
	lake "github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
)

var _ catalog.ColumnStatser = (*Table)(nil)

// ColumnStats implements catalog.ColumnStatser from the current snapshot's
// manifests (lake/iceberg Summarize through lakestats, as Paimon tables
// report theirs). A table without a snapshot has empty statistics, not
// none: Iceberg tables take no ANALYZE.
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	return lakeStats(ctx, t.lake)
}

// lakeStats are the column statistics of an Iceberg table's current
// snapshot (catalog/fluss does the same for its Iceberg lake half).
func lakeStats(ctx context.Context, t *lake.Table) (*catalog.TableStats, error) {
	snap, ok := t.CurrentSnapshot()
	if !ok {
		return &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}, nil
	}
	fields, err := t.Fields()
	if err != nil {
		return nil, err
	}
	path := t.Dir()
	if path == "" {
		path = t.Location()
	}
	return lakestats.Summarized(ctx, path, snap.ID, fields, func(ctx context.Context) (*paimon.Summary, int64, error) {
		sum, err := t.Summarize(ctx, snap.ID)
		return sum, snap.TimestampMs, err
	})
}

var _ catalog.RowCounter = (*Table)(nil)

// RowCount implements catalog.RowCounter from the current snapshot's
// summary: total-records less the position and equality delete rows (one
// deleted row each, as an upsert's delete is; an equality delete matching
// more rows makes this a high estimate). -1 (unknown) without a snapshot
// or without totals in its summary.
func (t *Table) RowCount(context.Context) (int64, error) {
	snap, ok := t.lake.CurrentSnapshot()
	if !ok {
		return -1, nil
	}
	total, err := strconv.ParseInt(snap.Summary["total-records"], 10, 64)
	if err != nil {
		return -1, nil
	}
	for _, k := range []string{"total-position-deletes", "total-equality-deletes"} {
		if n, err := strconv.ParseInt(snap.Summary[k], 10, 64); err == nil && n > 0 {
			total -= n
		}
	}
	return max(total, 0), nil
}
