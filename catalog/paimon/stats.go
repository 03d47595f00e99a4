package paimon

import (
	"context"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
)

var (
	_ catalog.ColumnStatser = (*Table)(nil)
	_ catalog.StatsKeeper   = (*Table)(nil)
)

// ColumnStats implements catalog.ColumnStatser: the latest snapshot's
// manifests (lakestats.Latest) with what ANALYZE TABLE kept laid over them
// (colstats.Merge: its distinct counts, the manifests' current rows and
// bounds). Kept statistics that cannot be read are left out (and logged),
// never a planning error.
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	ts, err := lakestats.Latest(ctx, t.lake, t.schema.Fields)
	if err != nil {
		return nil, err
	}
	kept, err := t.cat.stats.Get(t.db, t.name, "")
	if err != nil {
		t.cat.log.Warn("paimon analysed statistics unavailable", "catalog", t.cat.name, "table", t.db+"."+t.name, "err", err)
		return ts, nil
	}
	return colstats.Merge(ts, kept), nil
}

// AnalyzeColumns implements catalog.StatsKeeper: every column.
func (t *Table) AnalyzeColumns() ([]string, error) {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c.Name
	}
	return out, nil
}

// KeepStats implements catalog.StatsKeeper.
func (t *Table) KeepStats(_ context.Context, ts *catalog.TableStats) error {
	return t.cat.stats.Put(t.db, t.name, "", ts)
}
