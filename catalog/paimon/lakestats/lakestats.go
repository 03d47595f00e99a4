package lakestats

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"sync"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

// Latest returns the statistics of t's latest snapshot from its manifests
// alone (lake.Table.Summarize), for the columns in fields: per column the
// bounds, null count and an NDV estimate, so the optimizer orders joins
// over the lake as it does over analysed internal tables. The estimate is
// the smaller of the non-null rows and the number of values between the
// bounds for integers, dates and decimals (exact for dense keys such as
// TPC-H's), 1 for a column whose bounds are equal, and 0 (unknown)
// otherwise: manifests carry no distinct counts. A table without a
// snapshot has empty statistics (Rows 0), not none. Results are kept per
// table path and snapshot id (snapshots never change), so only a new
// snapshot costs a manifest read. When the snapshot names a statistics
// file (Paimon's own ANALYZE), its distinct counts replace the estimates
// (statisticsFile). The result is shared: callers must not modify it.
func Latest(ctx context.Context, t *lake.Table, fields []lake.DataField) (*catalog.TableStats, error) {
	id, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		return &catalog.TableStats{Columns: map[string]catalog.ColumnStats{}}, nil
	}
	var fromFile *catalog.TableStats
	ts, err := Summarized(ctx, t.Path(), id, fields, func(ctx context.Context) (*lake.Summary, int64, error) {
		snap, err := t.Snapshot(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		sum, err := t.Summarize(ctx, snap)
		if err == nil {
			fromFile = statisticsFile(ctx, t, snap, fields, sum)
		}
		return sum, snap.TimeMillis, err
	})
	if err != nil || fromFile == nil {
		return ts, err
	}
	// Read with the manifests (not from the cache): kept with them.
	ts = colstats.Merge(ts, fromFile)
	summaries.put(summaryKey{path: t.Path(), snapshot: id}, ts)
	return ts, nil
}

// statisticsFile is the statistics file the snapshot names (Paimon's own
// ANALYZE, written by Spark), as analysed statistics to lay over the
// manifests' (colstats.Merge): the columns with a distinct count, their
// null counts (the manifests' where the file has none) and sizes. nil
// when the snapshot names none or it cannot be read: statistics are hints,
// and the manifests' remain.
func statisticsFile(ctx context.Context, t *lake.Table, snap *lake.Snapshot, fields []lake.DataField, sum *lake.Summary) *catalog.TableStats {
	st, err := t.Statistics(ctx, snap)
	if err != nil || st == nil {
		return nil
	}
	rows := sum.Rows
	if st.MergedRecordCount != nil && *st.MergedRecordCount >= 0 {
		rows = *st.MergedRecordCount
	}
	out := &catalog.TableStats{Rows: rows, UpdatedMS: snap.TimeMillis, Columns: map[string]catalog.ColumnStats{}}
	for _, f := range fields {
		c, ok := st.ColStats[f.Name]
		if !ok || c.DistinctCount == nil || *c.DistinctCount < 0 {
			continue
		}
		nulls := max(sum.Columns[f.Name].Nulls, 0)
		if c.NullCount != nil && *c.NullCount >= 0 {
			nulls = *c.NullCount
		}
		cs := catalog.ColumnStats{Count: rows, NDV: min(*c.DistinctCount, max(rows-nulls, 0)), Nulls: min(nulls, rows)}
		if c.AvgLen != nil && *c.AvgLen > 0 {
			cs.DataSize = *c.AvgLen * (rows - cs.Nulls)
		}
		out.Columns[f.Name] = cs
	}
	if len(out.Columns) == 0 {
		return nil
	}
	return out
}

// Summarized is Latest for a lake whose manifests are summarized by
// summarize (an Iceberg table's, lake/iceberg's Table.Summarize, in
// lake/paimon's terms): the statistics of the snapshot id of the table at
// path, kept in the same cache. summarize returns the summary and the
// snapshot's commit time (Unix milliseconds); it runs only for a snapshot
// not in the cache. Snapshot ids must name immutable snapshots of that
// path.
func Summarized(ctx context.Context, path string, id int64, fields []lake.DataField,
	summarize func(context.Context) (*lake.Summary, int64, error)) (*catalog.TableStats, error) {
	key := summaryKey{path: path, snapshot: id}
	if ts, ok := summaries.get(key); ok {
		return ts, nil
	}
	sum, updated, err := summarize(ctx)
	if err != nil {
		return nil, err
	}
	ts := &catalog.TableStats{Rows: sum.Rows, UpdatedMS: updated, Columns: map[string]catalog.ColumnStats{}}
	for _, f := range fields {
		s, ok := sum.Columns[f.Name]
		if !ok {
			continue
		}
		ts.Columns[f.Name] = columnStats(f.Type, s, sum.Rows)
	}
	summaries.put(key, ts)
	return ts, nil
}

// columnStats turns a manifest summary into the optimizer's statistics.
func columnStats(typ lake.DataType, s lake.ColumnSummary, rows int64) catalog.ColumnStats {
	cs := catalog.ColumnStats{Count: rows, Nulls: max(s.Nulls, 0)}
	nonNull := rows - cs.Nulls
	if s.Min == nil || s.Max == nil {
		return cs
	}
	cs.Min, cs.Max = statText(s.Min, typ), statText(s.Max, typ)
	lo, lok := statNumber(s.Min)
	hi, hok := statNumber(s.Max)
	if lok && hok {
		cs.Numeric, cs.Lo, cs.Hi = true, lo, hi
	}
	switch {
	case cs.Min == cs.Max:
		cs.NDV = min(1, nonNull)
	case cs.Numeric && (typ.Root == lake.TinyInt || typ.Root == lake.SmallInt || typ.Root == lake.Int ||
		typ.Root == lake.BigInt || typ.Root == lake.Date || typ.Root == lake.Decimal):
		span := (hi - lo) * math.Pow10(max(typ.Scale, 0))
		if typ.Root != lake.Decimal {
			span = hi - lo
		}
		cs.NDV = nonNull
		if span+1 < float64(nonNull) {
			cs.NDV = int64(span + 1)
		}
	case typ.Root == lake.Boolean:
		cs.NDV = min(2, nonNull)
	}
	return cs
}

// statNumber places a bound on the optimizer's number line: the value for
// numbers and decimals, days for dates, microseconds for timestamps.
func statNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case *big.Rat:
		f, _ := x.Float64()
		return f, true
	case time.Time:
		return float64(x.UnixMicro()), true
	}
	return 0, false
}

// statText is a bound as SHOW COLUMN STATS prints it.
func statText(v any, typ lake.DataType) string {
	switch x := v.(type) {
	case int64:
		if typ.Root == lake.Date {
			return time.Unix(x*86400, 0).UTC().Format(time.DateOnly)
		}
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case *big.Rat:
		return x.FloatString(max(typ.Scale, 0))
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999")
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

type summaryKey struct {
	path     string
	snapshot int64
}

// summaryCache keeps the statistics of recently planned snapshots; a
// handful of tables per query, bounded so a warehouse of many tables
// cannot grow it without end.
type summaryCache struct {
	mu sync.Mutex
	m  map[summaryKey]*catalog.TableStats
}

const maxSummaries = 512

var summaries = &summaryCache{m: map[summaryKey]*catalog.TableStats{}}

func (c *summaryCache) get(k summaryKey) (*catalog.TableStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, ok := c.m[k]
	return ts, ok
}

func (c *summaryCache) put(k summaryKey, ts *catalog.TableStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxSummaries {
		// Dropping everything is crude but bounded; a re-read costs one
		// manifest pass per table.
		clear(c.m)
	}
	c.m[k] = ts
}
