package local

import (
	"context"
	"sync"
	"time"
)

// Auto analyze (Options.AutoAnalyze), as Doris's enable_auto_analyze: a
// commit that adds rows wakes a background goroutine which, after the
// delay, runs ANALYZE on every table whose statistics are missing or
// stale: more than a tenth of its stored rows changed since its last
// ANALYZE. A load is acknowledged before; its statistics follow. ANALYZE
// runs of one table, automatic or not, take turns (analyzeLock), and the
// automatic one checks staleness again once it has the turn, so a table
// a client analysed meanwhile is not scanned twice.

// staleAfter is the share of changed rows that makes statistics stale.
const staleAfter = 0.1

// storedRows is the row count of a table's segments (stored versions).
func (t *tableManifest) storedRows() int64 {
	var n int64
	for _, f := range t.Files {
		n += f.Rows
	}
	return n
}

// statsStale says whether t needs an ANALYZE.
func (t *tableManifest) statsStale() bool {
	rows := t.storedRows()
	if t.Stats == nil {
		return rows > 0
	}
	base := t.StatsStored
	if base == 0 {
		base = t.Stats.Rows
	}
	d := rows - base
	if d < 0 {
		d = -d
	}
	return float64(d) > staleAfter*float64(base)
}

// analyzeLock is table id's ANALYZE turn.
func (c *Catalog) analyzeLock(id int64) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.alocks == nil {
		c.alocks = map[int64]*sync.Mutex{}
	}
	m := c.alocks[id]
	if m == nil {
		m = &sync.Mutex{}
		c.alocks[id] = m
	}
	return m
}

func (c *Catalog) kickAnalyzer() {
	if c.autoAnalyze <= 0 {
		return
	}
	select {
	case c.analyzeCh <- struct{}{}:
	default:
	}
}

// analyzer is the auto-analyze goroutine.
func (c *Catalog) analyzer() {
	defer c.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-c.stop
		cancel()
	}()
	for {
		select {
		case <-c.stop:
			return
		case <-c.analyzeCh:
		}
		select {
		case <-c.stop:
			return
		case <-time.After(c.autoAnalyze):
		}
		for _, t := range c.staleTables() {
			if ctx.Err() != nil {
				return
			}
			if _, err := t.analyze(ctx, true); err != nil && ctx.Err() == nil {
				c.logger.Warn("internal catalog: auto analyze failed", "table", t.name, "err", err)
			}
		}
	}
}

// staleTables returns handles of the tables statsStale picks.
func (c *Catalog) staleTables() []*Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil
	}
	var out []*Table
	for _, d := range c.m.Databases {
		db := &Database{c: c, id: d.ID, name: d.Name}
		for _, tm := range d.Tables {
			if !tm.statsStale() {
				continue
			}
			if t, err := c.tableHandle(db, tm); err == nil {
				out = append(out, t)
			}
		}
	}
	return out
}
