package paimon

import (
	"context"
	"strconv"

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
	kept, err := t.cat.stats.Get(t.db, t.name, t.statsTag(ctx))
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
func (t *Table) KeepStats(ctx context.Context, ts *catalog.TableStats) error {
	return t.cat.stats.Put(t.db, t.name, t.statsTag(ctx), ts)
}

// statsTag names the table's incarnation in the kept statistics: the
// creation time of its first schema (schema-0, which Paimon keeps), so a
// table dropped and created again under its name (by any engine) does not
// inherit the old one's statistics. Free when the latest schema is the
// first; otherwise read once per table path and latest schema id. ""
// when schema-0 cannot be read.
func (t *Table) statsTag(ctx context.Context) string {
	if t.schema.ID == 0 {
		return strconv.FormatInt(t.schema.TimeMillis, 10)
	}
	k := tagKey{path: t.path, schema: t.schema.ID}
	c := t.cat
	c.tagMu.Lock()
	tag, ok := c.tags[k]
	c.tagMu.Unlock()
	if ok {
		return tag
	}
	s0, err := t.lake.Schema(ctx, 0)
	if err != nil {
		return ""
	}
	tag = strconv.FormatInt(s0.TimeMillis, 10)
	c.tagMu.Lock()
	defer c.tagMu.Unlock()
	if len(c.tags) >= maxTags {
		clear(c.tags) // bounded; a dropped entry costs one small read
	}
	c.tags[k] = tag
	return tag
}

type tagKey struct {
	path   string
	schema int64
}

const maxTags = 4096
