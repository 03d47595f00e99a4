package local

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/catalog"
)

// commitReq is one commit waiting for the group commit.
type commitReq struct {
	rec logRecord
	// inline holds the bytes of the segments of rec.Add marked Log, in
	// order; the leader places them in the record and sets their offsets.
	inline [][]byte
	// running: the label was reserved by beginLabel and is released here.
	running bool
	// keepSeq: the segments carry their Seq (a rewrite of older ones).
	keepSeq bool
	done    chan struct{}
	err     error
}

// submit queues req and waits until it is durable (or failed). Whoever holds
// c.mu next writes every queued commit in one log append and one fsync: the
// group commit. Commits queue up while a leader is fsyncing, so under
// concurrency many share one fsync.
func (c *Catalog) submit(req *commitReq) error {
	req.done = make(chan struct{})
	c.qmu.Lock()
	c.queue = append(c.queue, req)
	c.qmu.Unlock()
	c.mu.Lock()
	c.qmu.Lock()
	batch := c.queue
	c.queue = nil
	c.qmu.Unlock()
	if len(batch) > 0 {
		c.commitBatch(batch)
	}
	c.mu.Unlock()
	<-req.done
	return req.err
}

// commitBatch runs under c.mu.
func (c *Catalog) commitBatch(batch []*commitReq) {
	finish := func(r *commitReq, err error) {
		r.err = err
		if r.running {
			c.endLabel(r.rec.DB, r.rec.Label)
		}
		close(r.done)
	}
	if c.broken != nil {
		for _, r := range batch {
			finish(r, c.broken)
		}
		return
	}
	var buf []byte
	var ok []*commitReq
	seq := max(c.m.NextSeq, 1) // 0 is the Seq of segments written before commit sequences
	now := c.now().UnixMilli()
	// Records of one group are validated against the state before the
	// group applies, so a rewrite must also not lose to an earlier record
	// of the same group: one that removed its inputs (a compaction, a
	// DELETE rewrite) or replaced the whole table (INSERT OVERWRITE).
	// Without this a compaction committed beside an overwrite brought the
	// old rows it had merged back to life.
	var taken batchTaken
	for _, r := range batch {
		err := c.validate(&r.rec)
		if err == nil {
			err = taken.claim(&r.rec)
		}
		if err != nil {
			finish(r, err)
			continue
		}
		r.rec.Seq = seq
		r.rec.MS = now
		base := c.log.size + int64(len(buf))
		var data []byte
		k := 0
		for i := range r.rec.Add {
			f := &r.rec.Add[i]
			if !r.keepSeq {
				f.Seq = seq
			}
			if f.Log {
				f.Name = logName(c.log.gen)
				f.Offset = base + recHeader + int64(len(data))
				data = append(data, r.inline[k]...)
				k++
			}
		}
		b, err := encodeRecord(&r.rec, data)
		if err != nil {
			finish(r, err)
			continue
		}
		buf = append(buf, b...)
		ok = append(ok, r)
		seq++
	}
	if len(ok) == 0 {
		return
	}
	fatal, err := c.log.append(buf, len(ok))
	if fatal != nil {
		c.broken = fatal
	}
	if err != nil {
		for _, r := range ok {
			finish(r, err)
		}
		return
	}
	for _, r := range ok {
		c.apply(&r.rec, false)
		finish(r, nil)
	}
	if c.log.size > maxLogBytes || c.log.recs >= c.ckptRecs {
		if err := c.checkpoint(c.m); err != nil {
			c.logger.Warn("internal catalog: checkpoint failed; the log keeps growing", "err", err)
		}
	}
	c.kickCompactor()
}

// validate checks a commit against the current state: its table exists, the
// segments it replaces are still there, its label is free.
func (c *Catalog) validate(rec *logRecord) error {
	_, t := c.findTable(c.m, rec.Table)
	if t == nil {
		return catalog.Errorf(catalog.ErrNotFound, "table id %d no longer exists", rec.Table)
	}
	if len(rec.Remove) > 0 {
		have := make(map[string]bool, len(t.Files))
		for _, f := range t.Files {
			have[segKey(f)] = true
		}
		for _, k := range rec.Remove {
			if !have[k] {
				return errConflict
			}
		}
	}
	if rec.Label != "" {
		if l, ok := c.committedLabel(rec.DB, rec.Label); ok {
			return &catalog.LabelExistsError{Label: rec.Label, Status: "FINISHED", TxnID: l.Txn}
		}
	}
	return nil
}

// batchTaken is what the records accepted so far in one commit group
// removed or replaced.
type batchTaken struct {
	removed  map[takenSegment]bool
	replaced map[int64]bool
}

// takenSegment is a segment (its manifest key) of table.
type takenSegment struct {
	table int64
	key   string
}

// claim fails with errConflict when rec rewrites segments an earlier
// record of the group already removed or replaced, and otherwise records
// what rec takes away.
func (b *batchTaken) claim(rec *logRecord) error {
	if len(rec.Remove) > 0 && b.replaced[rec.Table] {
		return errConflict
	}
	for _, k := range rec.Remove {
		if b.removed[takenSegment{rec.Table, k}] {
			return errConflict
		}
	}
	for _, k := range rec.Remove {
		if b.removed == nil {
			b.removed = map[takenSegment]bool{}
		}
		b.removed[takenSegment{rec.Table, k}] = true
	}
	if rec.Replace {
		if b.replaced == nil {
			b.replaced = map[int64]bool{}
		}
		b.replaced[rec.Table] = true
	}
	return nil
}

// errConflict: a rewrite's inputs changed under it (another compaction or
// DELETE replaced them first); the rewrite is dropped and may be retried.
var errConflict = fmt.Errorf("internal catalog: segments changed during rewrite: %w", catalog.ErrExists)

func (c *Catalog) findTable(m *manifest, id int64) (*dbManifest, *tableManifest) {
	for _, d := range m.Databases {
		for _, t := range d.Tables {
			if t.ID == id {
				return d, t
			}
		}
	}
	return nil, nil
}

// apply folds a durable record into the live state; replay is true at Open
// (nothing to delete then: orphans are swept afterwards).
func (c *Catalog) apply(rec *logRecord, replay bool) {
	if rec.Seq >= c.m.NextSeq {
		c.m.NextSeq = rec.Seq + 1
	}
	if rec.Txn >= c.m.NextTxn {
		c.m.NextTxn = rec.Txn + 1
	}
	d, t := c.findTable(c.m, rec.Table)
	if t == nil {
		return
	}
	if len(rec.Remove) > 0 {
		gone := make(map[string]bool, len(rec.Remove))
		for _, k := range rec.Remove {
			gone[k] = true
		}
		kept := t.Files[:0:0]
		for _, f := range t.Files {
			if gone[segKey(f)] {
				if !replay && !f.Log {
					c.garbage = append(c.garbage, filepath.Join(c.tableDir(t.ID), f.Name))
				}
				continue
			}
			kept = append(kept, f)
		}
		t.Files = kept
	}
	if rec.Replace {
		c.replaceAll(t, replay)
	}
	t.Files = append(t.Files, rec.Add...)
	if len(rec.Deletes) > 0 {
		t.Deletes = append(t.Deletes, deletePred{Seq: rec.Seq, Preds: rec.Deletes})
	}
	if len(t.Deletes) > 0 {
		// A delete predicate no segment predates has nothing left to hide
		// (compaction applied it): drop it, so they do not pile up.
		oldest := int64(-1)
		for _, f := range t.Files {
			if oldest < 0 || f.Seq < oldest {
				oldest = f.Seq
			}
		}
		t.Deletes = slices.DeleteFunc(t.Deletes, func(d deletePred) bool { return oldest < 0 || d.Seq <= oldest })
	}
	if rec.Label != "" && d != nil {
		li := labelInfo{Label: rec.Label, Txn: rec.Txn, MS: rec.MS}
		d.Labels = append(d.Labels, li)
		if c.labels[d.ID] == nil {
			c.labels[d.ID] = map[string]labelInfo{}
		}
		c.labels[d.ID][rec.Label] = li
		c.pruneLabels(d)
	}
}

// pruneLabels keeps a database's label history within its bounds: Doris
// forgets labels after label_keep_max_second; we also cap their number so
// the manifest stays small.
func (c *Catalog) pruneLabels(d *dbManifest) {
	cut := 0
	oldest := c.now().Add(-c.labelKeep).UnixMilli()
	for cut < len(d.Labels) && (len(d.Labels)-cut > c.maxLabels || d.Labels[cut].MS < oldest) {
		// An expired label may have been used again: keep the newer entry.
		if l := d.Labels[cut]; c.labels[d.ID][l.Label].Txn == l.Txn {
			delete(c.labels[d.ID], l.Label)
		}
		cut++
	}
	if cut > 0 {
		d.Labels = slices.Delete(d.Labels, 0, cut)
	}
}

// checkpoint makes next the durable state: a new empty log generation, then
// the manifest naming it (atomic rename). Runs under c.mu.
func (c *Catalog) checkpoint(next *manifest) error {
	gen := c.m.LogGen + 1
	lw, err := createLog(c.walDir(), gen)
	if err != nil {
		return err
	}
	for _, d := range next.Databases {
		c.pruneLabels(d)
	}
	next.NextTxn = max(next.NextTxn, c.txn.Load()+1)
	old := next.LogGen
	next.LogGen = gen
	if err := writeManifest(c.dir, next); err != nil {
		next.LogGen = old
		lw.close()
		os.Remove(filepath.Join(c.walDir(), logName(gen)))
		return err
	}
	if c.log != nil {
		c.log.close()
	}
	c.log = lw
	c.m = next
	c.collectLogs()
	return nil
}

// collectLogs queues log files older than the current generation that no
// segment lives in any more.
func (c *Catalog) collectLogs() {
	used := map[string]bool{logName(c.m.LogGen): true}
	for _, d := range c.m.Databases {
		for _, t := range d.Tables {
			for _, f := range t.Files {
				if f.Log {
					used[f.Name] = true
				}
			}
		}
	}
	ents, _ := os.ReadDir(c.walDir())
	for _, e := range ents {
		gen, err := strconv.ParseInt(strings.TrimSuffix(e.Name(), ".log"), 10, 64)
		if err == nil && gen < c.m.LogGen && !used[e.Name()] && !slices.Contains(c.garbage, filepath.Join(c.walDir(), e.Name())) {
			c.garbage = append(c.garbage, filepath.Join(c.walDir(), e.Name()))
		}
	}
	c.sweep()
}

// sweep deletes replaced files once no scan can still be reading them.
// Runs under c.mu.
func (c *Catalog) sweep() {
	if c.scans > 0 || len(c.garbage) == 0 {
		return
	}
	for _, p := range c.garbage {
		c.maps.forget(p)
		os.Remove(p)
	}
	c.garbage = nil
}

// scanDone is called when a scan is released.
func (c *Catalog) scanDone() {
	c.mu.Lock()
	c.scans--
	c.sweep()
	c.mu.Unlock()
}

// beginLabel reserves label in database db for txn, failing with a
// LabelExistsError when it is committed or in flight.
func (c *Catalog) beginLabel(db int64, label string, txn int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.committedLabel(db, label); ok {
		return &catalog.LabelExistsError{Label: label, Status: "FINISHED", TxnID: l.Txn}
	}
	if t, ok := c.running[db][label]; ok {
		return &catalog.LabelExistsError{Label: label, Status: "RUNNING", TxnID: t}
	}
	if c.running[db] == nil {
		c.running[db] = map[string]int64{}
	}
	c.running[db][label] = txn
	return nil
}

// committedLabel finds a committed label still within its keep time.
func (c *Catalog) committedLabel(db int64, label string) (labelInfo, bool) {
	l, ok := c.labels[db][label]
	if ok && l.MS < c.now().Add(-c.labelKeep).UnixMilli() {
		return labelInfo{}, false
	}
	return l, ok
}

// endLabel frees a running label (the load committed or failed); under c.mu.
func (c *Catalog) endLabel(db int64, label string) {
	delete(c.running[db], label)
}

// nextTxn allocates a transaction id. Ids of loads that never commit are
// not reused while the process runs; after a restart numbering resumes
// above the last committed one.
func (c *Catalog) nextTxn() int64 { return c.txn.Add(1) }
