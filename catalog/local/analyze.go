package local

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
)

var (
	_ catalog.RowCounter    = (*Table)(nil)
	_ catalog.ColumnStatser = (*Table)(nil)
	_ catalog.Analyzer      = (*Table)(nil)
)

// RowCount implements catalog.RowCounter from the segment list, which every
// commit keeps current, so it costs no scan. Rows of a UNIQUE KEY table are
// stored versions (an upper bound of the merged count) and DELETE
// predicates are not subtracted: a planning hint, not an answer.
func (t *Table) RowCount(context.Context) (int64, error) {
	rows, _, err := t.Stats()
	if err != nil {
		return -1, nil
	}
	return rows, nil
}

// ColumnStats implements catalog.ColumnStatser: what the last ANALYZE
// stored, nil before the first.
func (t *Table) ColumnStats(context.Context) (*catalog.TableStats, error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	m, err := t.lookup()
	if err != nil {
		return nil, err
	}
	return m.Stats, nil
}

// Analyze implements catalog.Analyzer: one full scan computes every
// column's count, NDV (a HyperLogLog sketch), null count, size and bounds,
// and a checkpoint stores them with the table's metadata. The scan takes no
// lock, so loads go on meanwhile; the stored row count is what the scan saw.
func (t *Table) Analyze(ctx context.Context, mem memory.Allocator) (*catalog.TableStats, error) {
	return t.analyzeWith(ctx, mem, false)
}

// analyze is auto analyze's ANALYZE: with the catalog's allocator, and
// only if the statistics are still stale once it has the table's turn.
func (t *Table) analyze(ctx context.Context, onlyStale bool) (*catalog.TableStats, error) {
	return t.analyzeWith(ctx, t.c.mem, onlyStale)
}

func (t *Table) analyzeWith(ctx context.Context, mem memory.Allocator, onlyStale bool) (*catalog.TableStats, error) {
	l := t.c.analyzeLock(t.id)
	l.Lock()
	defer l.Unlock()
	if onlyStale {
		t.c.mu.Lock()
		m, err := t.lookup()
		stale := err == nil && m.statsStale()
		t.c.mu.Unlock()
		if !stale {
			return nil, err
		}
	}
	cols := make([]int, len(t.schema.Columns))
	for i := range cols {
		cols[i] = i
	}
	rr, err := t.Scan(ctx, catalog.ScanRequest{Columns: cols, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	names := make([]string, len(cols))
	for i, c := range t.schema.Columns {
		names[i] = c.Name
	}
	coll := colstats.NewCollector(names)
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		coll.Add(rr.RecordBatch())
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	st := coll.Stats(time.Now().UnixMilli())
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := t.lookup(); err != nil {
		return nil, err
	}
	next := c.clone()
	for _, nd := range next.Databases {
		if nd.ID != t.db.id {
			continue
		}
		for _, tm := range nd.Tables {
			if tm.ID == t.id {
				tm.Stats, tm.StatsStored = st, tm.storedRows()
			}
		}
	}
	if err := c.commit(next); err != nil {
		return nil, err
	}
	return st, nil
}
