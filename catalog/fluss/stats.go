package fluss

import (
	"context"
	"strconv"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
	"github.com/inlet-db/inlet/lake/iceberg"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

var (
	_ catalog.ColumnStatser = (*Table)(nil)
	_ catalog.StatsKeeper   = (*Table)(nil)
)

// ColumnStats implements catalog.ColumnStatser: a tiered table's column
// statistics are its lake half's, from the latest Paimon snapshot's
// manifests (lakestats.Latest) or the current Iceberg snapshot's
// (icebergStats), with what ANALYZE TABLE kept laid over them
// (colstats.Merge: its distinct counts, which manifests lack); the rows of
// the log tail are not in the manifests, and the optimizer scales distinct
// counts of key-like columns by the row count (RowCount) over the
// statistics' rows, and past a tenth of the rows the statistics cover in
// the tail the bounds are not used for ranges. A table without a lake has
// what ANALYZE kept, if anything. Its $log and $changelog, and a lake that
// cannot be read have empty statistics (or only the kept ones): best
// effort, never a planning error, and never "not yet analysed" (which
// would keep the FROM order for want of an ANALYZE).
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	empty := &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}
	if t.mode == ReadLog || t.mode == ReadChangelog || t.mode == ReadBinlog {
		return empty, nil
	}
	kept := t.keptStats()
	lts, err := t.lakeStats(ctx)
	if err != nil {
		return nil, err
	}
	ts := colstats.Merge(lts, kept)
	if ts == nil {
		return empty, nil
	}
	var covered int64
	if lts != nil {
		covered = lts.Rows
	}
	if kept != nil {
		// ANALYZE read the log tail too: its bounds cover the rows then.
		covered = max(covered, kept.Rows)
	}
	// The lake's bounds say nothing of the log tail's values (new dates,
	// new keys): past a tenth of the covered rows in the tail, ranges are
	// estimated without them rather than from bounds the tail outgrew.
	if rows, err := t.RowCount(ctx); err == nil && rows-covered > covered/10 {
		wide := &catalog.TableStats{Rows: ts.Rows, UpdatedMS: ts.UpdatedMS, Columns: make(map[string]catalog.ColumnStats, len(ts.Columns))}
		for name, cs := range ts.Columns {
			cs.Numeric, cs.Lo, cs.Hi = false, 0, 0
			wide.Columns[name] = cs
		}
		return wide, nil
	}
	return ts, nil
}

// lakeStats are the lake half's statistics from its manifests; nil (no
// error) without a lake or when it cannot be read, which is logged.
func (t *Table) lakeStats(ctx context.Context) (*catalog.TableStats, error) {
	if !t.info.Descriptor.DatalakeEnabled() {
		return nil, nil
	}
	l, err := t.openLake(ctx)
	if err != nil {
		return nil, nil
	}
	var ts *catalog.TableStats
	switch {
	case l.Iceberg != nil:
		ts, err = icebergStats(ctx, l.Iceberg)
	case l.Table != nil:
		var schema *lake.TableSchema
		if schema, err = l.Table.LatestSchema(ctx); err != nil {
			return nil, nil
		}
		ts, err = lakestats.Latest(ctx, l.Table, schema.Fields)
	default:
		return nil, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.cat.log.Warn("fluss lake statistics unavailable", "catalog", t.cat.name, "table", t.info.Path.String(), "err", err)
		return nil, nil
	}
	return ts, nil
}

// statsTag names the table's incarnation in the kept statistics: a table
// dropped and created again under its name has a new id, and the old
// table's statistics do not describe it.
func (t *Table) statsTag() string { return strconv.FormatInt(t.info.TableID, 10) }

// keptStats are what ANALYZE TABLE kept, nil when none (or unreadable,
// which is logged: statistics are hints).
func (t *Table) keptStats() *catalog.TableStats {
	ts, err := t.cat.stats.Get(t.info.Path.Database, t.info.Path.Table, t.statsTag())
	if err != nil {
		t.cat.log.Warn("fluss analysed statistics unavailable", "catalog", t.cat.name, "table", t.info.Path.String(), "err", err)
		return nil
	}
	return ts
}

// AnalyzeColumns implements catalog.StatsKeeper: every column of the table
// itself (its union read when tiered); its $lake, $log and change views are
// not analysed on their own.
func (t *Table) AnalyzeColumns() ([]string, error) {
	if t.mode != ReadDefault {
		return nil, catalog.Errorf(catalog.ErrUnsupported,
			"ANALYZE TABLE is not supported on '%s': analyze the table '%s' itself", t.name, t.info.Path.Table)
	}
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c.Name
	}
	return out, nil
}

// KeepStats implements catalog.StatsKeeper.
func (t *Table) KeepStats(_ context.Context, ts *catalog.TableStats) error {
	if t.mode != ReadDefault {
		return catalog.Errorf(catalog.ErrUnsupported, "ANALYZE TABLE is not supported on '%s'", t.name)
	}
	return t.cat.stats.Put(t.info.Path.Database, t.info.Path.Table, t.statsTag(), ts)
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
