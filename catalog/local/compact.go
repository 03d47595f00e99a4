package local

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
)

// Background compaction: a bucket of a table that has gathered compactAt
// segments (typically one-row INSERTs kept in the log) is rewritten as one
// segment. For a UNIQUE KEY table the rewrite is the merge: one row per key,
// tombstones dropped (a job always takes every segment of its bucket). The
// rewrite commits like a load, replacing its inputs in one record, keeping
// the inputs' highest Seq so that a load committed meanwhile still wins. If
// its inputs changed meanwhile, the commit is refused and nothing changes.

// maxCompactBytes bounds the input of one job; segments past it are final.
const maxCompactBytes = 1 << 30

// level sorts segments by size into tiers a factor 8 apart (8 KiB, 64
// KiB, ...). Compaction merges segments of one tier only, so each row is
// rewritten about once per tier (log8 of the table size), never once per
// INSERT.
func level(b int64) int {
	l := 0
	for s := int64(8 << 10); b >= s && l < 30; s *= 8 {
		l++
	}
	return l
}

// compactRun picks the segments of one bucket (in commit order) to merge,
// or nil. A DUPLICATE table merges compactAt or more segments of the lowest
// crowded tier. A UNIQUE table must merge a contiguous run in commit order:
// the trailing run of one tier, without tombstones (a run that does not
// start at the oldest segment must keep them); or the whole bucket, when it
// is small, dropping its tombstones.
func (c *Catalog) compactRun(g []fileInfo, unique bool) []fileInfo {
	if len(g) < c.compactAt {
		return nil
	}
	if !unique {
		tiers := map[int][]fileInfo{}
		best := -1
		for _, f := range g {
			l := level(f.Bytes)
			tiers[l] = append(tiers[l], f)
			if len(tiers[l]) >= c.compactAt && (best < 0 || l < best) {
				best = l
			}
		}
		if best < 0 {
			return nil
		}
		run := tiers[best]
		var size int64
		for i, f := range run {
			if size += f.Bytes; size > maxCompactBytes {
				run = run[:i]
				break
			}
		}
		if len(run) < 2 {
			return nil
		}
		return run
	}
	var total int64
	for _, f := range g {
		total += f.Bytes
	}
	if total < 1<<20 {
		return g
	}
	l := level(g[len(g)-1].Bytes)
	i := len(g)
	var size int64
	for i > 0 && level(g[i-1].Bytes) == l && !g[i-1].Delete && size+g[i-1].Bytes <= maxCompactBytes {
		size += g[i-1].Bytes
		i--
	}
	if len(g)-i < c.compactAt {
		return nil
	}
	return g[i:]
}

type compactJob struct {
	tid    int64
	table  string
	full   *arrow.Schema
	keys   *keyCoder
	bucket int
	segs   []fileInfo
	dels   []deletePred
	cat    catalog.Schema
}

func (c *Catalog) kickCompactor() {
	select {
	case c.compactCh <- struct{}{}:
	default:
	}
}

func (c *Catalog) compactor() {
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
		case <-c.compactCh:
		}
		// Bounded: each pass over the tables does at most this many jobs
		// before waiting for the next commit.
		for range 64 {
			job := c.pickCompaction()
			if job == nil {
				break
			}
			if err := c.compact(ctx, job); err != nil {
				if ctx.Err() != nil {
					return
				}
				if !errors.Is(err, errConflict) {
					c.logger.Warn("internal catalog: compaction failed", "table", job.table, "bucket", job.bucket, "err", err)
					break
				}
			}
		}
	}
}

// pickCompaction finds a bucket with too many segments.
func (c *Catalog) pickCompaction() *compactJob {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil
	}
	for _, d := range c.m.Databases {
		for _, t := range d.Tables {
			if len(t.Files) < c.compactAt {
				continue
			}
			buckets := 1
			var keys *keyCoder
			s, err := t.schema(c.mem)
			if err != nil {
				continue
			}
			if isUnique(t.KeysType) {
				k, err := uniqueKeys(t.Name, s, t.KeyColumns, t.Distribution)
				if err != nil {
					continue
				}
				keys, buckets = &k, k.buckets
			}
			for b, g := range bucketGroups(t.Files, buckets) {
				job := c.compactRun(g, keys != nil)
				if job == nil {
					continue
				}
				c.scans++ // keeps the inputs until the job ends
				return &compactJob{tid: t.ID, table: t.Name, full: s.Arrow(), keys: keys, bucket: b, segs: job,
					dels: slices.Clone(t.Deletes), cat: s}
			}
		}
	}
	return nil
}

func (c *Catalog) compact(ctx context.Context, job *compactJob) error {
	defer c.scanDone()
	txn := c.nextTxn()
	w := c.newSegWriter(job.tid, fmt.Sprintf("%08d", txn), job.full)
	w.unique = job.keys != nil
	ok := false
	defer func() {
		if !ok {
			w.abort()
		}
	}()
	var maxSeq int64
	for _, f := range job.segs {
		maxSeq = max(maxSeq, f.Seq)
	}
	if job.keys != nil {
		u, err := newUniqueBucket(ctx, c.mem, c, job.tid, job.table, job.segs, job.full, *job.keys, nil, nil)
		if err != nil {
			return err
		}
		defer u.close()
		for {
			rec, err := u.next()
			if err != nil {
				return err
			}
			if rec == nil {
				break
			}
			err = w.write(job.bucket, rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	} else {
		for _, f := range job.segs {
			seg, err := openSegment(ctx, c.mem, c.segPath(job.tid, f), job.table, f, job.full, nil, nil)
			if err != nil {
				return err
			}
			for {
				if err := ctx.Err(); err != nil {
					seg.close()
					return err
				}
				rec, err := seg.next(job.table)
				if err != nil || rec == nil {
					seg.close()
					if err != nil {
						return err
					}
					break
				}
				// DELETE predicates newer than the segment apply now; the
				// output keeps the inputs' highest Seq, so the ones it
				// is older than still apply on read.
				drop, err := deleteMask(ctx, c.mem, rec, f.Seq, job.dels, job.cat, nil)
				if err == nil {
					rec, err = dropMasked(ctx, c.mem, rec, drop)
				} else {
					rec.Release()
					rec = nil
				}
				if err == nil && rec != nil {
					err = w.write(job.bucket, rec)
					rec.Release()
				}
				if err != nil {
					seg.close()
					return err
				}
			}
		}
	}
	if err := w.finish(); err != nil {
		return err
	}
	remove := make([]string, len(job.segs))
	for i, f := range job.segs {
		remove[i] = segKey(f)
	}
	for i := range w.done {
		w.done[i].Seq = maxSeq
	}
	req := &commitReq{rec: logRecord{Txn: txn, Table: job.tid, Add: w.done, Remove: remove}, inline: w.data, keepSeq: true}
	if err := c.submit(req); err != nil {
		return err
	}
	ok = true
	return nil
}
