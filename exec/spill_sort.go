package exec

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// An external merge sort (Doris enable_spill): rows are buffered while
// they fit the sort's share of exec_mem_limit; past it the buffer is
// sorted and written out as a run, and at the end the runs are merged, at
// most sortMergeFanIn at a time, the last merge streaming to the output.
// Runs are numbered in input order and ties go to the earlier run, so the
// sort stays stable.

// sortMergeFanIn bounds the runs one merge reads at once (each holds one
// batch of spillBatchBytes in memory).
const sortMergeFanIn = 8

// mergeOutRows bounds the rows of one merged output batch.
const mergeOutRows = 4096

func (s *Sort) openSpilling(ctx context.Context, env *Env, sp *spillConfig) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, err := OpenOp(ctx, env, s.Input)
	if err != nil {
		return nil, err
	}
	var runs []*spillFile
	var buf []arrow.RecordBatch
	var held int64
	var sorted arrow.RecordBatch // in-memory result when nothing spilled
	var pos int64
	var merge *runMerger
	started := false
	releaseBuf := func() {
		for _, b := range buf {
			b.Release()
		}
		buf, held = nil, 0
	}
	schema := s.Schema()
	// sortBuf sorts the buffered rows into one batch.
	sortBuf := func() (arrow.RecordBatch, error) {
		op := &batchesOp{schema: schema, batches: buf}
		buf, held = nil, 0
		r, err := op.Open(ctx, env)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		return sortAll(ctx, env, r, schema, s.Keys)
	}
	writeRun := func() error {
		b, err := sortBuf()
		if err != nil || b == nil {
			return err
		}
		defer b.Release()
		f, err := sp.newSpillFile(env, schema, "sort-run")
		if err != nil {
			return err
		}
		runs = append(runs, f)
		if err := writeChunked(env, f, b); err != nil {
			return err
		}
		return f.finish()
	}
	start := func() error {
		for in.Next() {
			b := in.RecordBatch()
			b.Retain()
			buf = append(buf, b)
			held += memlimit.BatchBytes(b)
			// Sorting a run takes about twice its rows again (the
			// concatenation, the sorted copy, the row numbers).
			if spillNeeded(env, 2*held) {
				if err := writeRun(); err != nil {
					return err
				}
			}
		}
		if err := in.Err(); err != nil {
			return err
		}
		in.Release()
		in = nil
		if len(runs) == 0 {
			var err error
			sorted, err = sortBuf()
			return err
		}
		if len(buf) > 0 {
			if err := writeRun(); err != nil {
				return err
			}
		}
		// Merge passes until one merge can read every run: each pass merges
		// consecutive groups, so earlier rows stay in earlier runs and ties
		// keep input order.
		for len(runs) > sortMergeFanIn {
			var merged []*spillFile
			for len(runs) > 0 {
				n := min(sortMergeFanIn, len(runs))
				group := runs[:n]
				runs = runs[n:]
				if n == 1 {
					merged = append(merged, group[0])
					continue
				}
				f, err := mergeRuns(ctx, env, sp, schema, s.Keys, group)
				if err != nil {
					runs = append(merged, runs...)
					return err
				}
				merged = append(merged, f)
			}
			runs = merged
		}
		var err error
		merge, err = newRunMerger(ctx, env, schema, s.Keys, runs)
		runs = nil
		return err
	}
	next := func() (arrow.RecordBatch, error) {
		if !started {
			started = true
			if err := start(); err != nil {
				return nil, err
			}
		}
		if merge != nil {
			return merge.next()
		}
		if sorted == nil || pos >= sorted.NumRows() {
			return nil, nil
		}
		end := min(pos+outputChunk, sorted.NumRows())
		b := sorted.NewSlice(pos, end)
		pos = end
		return b, nil
	}
	closeFn := func() {
		if in != nil {
			in.Release()
		}
		releaseBuf()
		if sorted != nil {
			sorted.Release()
		}
		if merge != nil {
			merge.release()
		}
		for _, f := range runs {
			f.remove()
		}
	}
	return newPullReader(ctx, schema, next, closeFn), nil
}

// mergeRuns merges runs into one new run (the runs' files are removed as
// they are read).
func mergeRuns(ctx context.Context, env *Env, sp *spillConfig, schema *arrow.Schema, keys []SortKey, runs []*spillFile) (*spillFile, error) {
	f, err := sp.newSpillFile(env, schema, "sort-run")
	if err != nil {
		return nil, err
	}
	m, err := newRunMerger(ctx, env, schema, keys, runs)
	if err != nil {
		f.remove()
		return nil, err
	}
	defer m.release()
	for {
		b, err := m.next()
		if err != nil {
			f.remove()
			return nil, err
		}
		if b == nil {
			break
		}
		err = f.write(b)
		b.Release()
		if err != nil {
			f.remove()
			return nil, err
		}
	}
	if err := f.finish(); err != nil {
		f.remove()
		return nil, err
	}
	return f, nil
}

// writeChunked writes b in batches of about spillBatchBytes, so a merge
// reading one batch per run stays small.
func writeChunked(env *Env, f *spillFile, b arrow.RecordBatch) error {
	rows := b.NumRows()
	per := rows
	if bb := memlimit.BatchBytes(b); bb > 0 {
		per = max(64, rows*spillBatchBytes(env)/bb)
	}
	for off := int64(0); off < rows; off += per {
		sl := b.NewSlice(off, min(off+per, rows))
		err := f.writeAs(sl)
		sl.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// runCursor is one run's reader with its current batch and that batch's
// encoded sort keys.
type runCursor struct {
	rd   array.RecordReader
	b    arrow.RecordBatch
	keys []byte
	offs []int
	pos  int
}

func (c *runCursor) key() []byte { return c.keys[c.offs[c.pos]:c.offs[c.pos+1]] }

// runMerger merges sorted runs into sorted batches.
type runMerger struct {
	ctx    context.Context
	env    *Env
	schema *arrow.Schema
	keys   []SortKey
	curs   []*runCursor
	heap   []int // cursor indexes, a min-heap by (key, index)
	picks  [][2]int
}

func newRunMerger(ctx context.Context, env *Env, schema *arrow.Schema, keys []SortKey, runs []*spillFile) (*runMerger, error) {
	m := &runMerger{ctx: ctx, env: env, schema: schema, keys: keys}
	for _, f := range runs {
		rd, err := (&spillScan{file: f}).Open(ctx, env)
		if err != nil {
			m.release()
			return nil, err
		}
		m.curs = append(m.curs, &runCursor{rd: rd})
	}
	for i, c := range m.curs {
		ok, err := m.load(c)
		if err != nil {
			m.release()
			return nil, err
		}
		if ok {
			m.push(i)
		}
	}
	return m, nil
}

// load moves c to its run's next batch; false at the run's end.
func (m *runMerger) load(c *runCursor) (bool, error) {
	if c.b != nil {
		c.b.Release()
		c.b = nil
	}
	for c.rd.Next() {
		b := c.rd.RecordBatch()
		if b.NumRows() == 0 {
			continue
		}
		b.Retain()
		c.b, c.pos = b, 0
		cols := make([]arrow.Array, len(m.keys))
		defer releaseArrays(cols)
		for k, key := range m.keys {
			a, err := key.Expr.Eval(m.env, b)
			if err != nil {
				return false, err
			}
			cols[k] = a
		}
		c.keys, c.offs = c.keys[:0], append(c.offs[:0], 0)
		for r := 0; r < int(b.NumRows()); r++ {
			for k, key := range m.keys {
				c.keys = appendSortKey(c.keys, cols[k], r, key)
			}
			c.offs = append(c.offs, len(c.keys))
		}
		return true, nil
	}
	return false, c.rd.Err()
}

func (m *runMerger) less(a, b int) bool {
	if c := bytes.Compare(m.curs[a].key(), m.curs[b].key()); c != 0 {
		return c < 0
	}
	return a < b
}

func (m *runMerger) push(i int) {
	m.heap = append(m.heap, i)
	for k := len(m.heap) - 1; k > 0; {
		p := (k - 1) / 2
		if !m.less(m.heap[k], m.heap[p]) {
			break
		}
		m.heap[k], m.heap[p] = m.heap[p], m.heap[k]
		k = p
	}
}

func (m *runMerger) fix() {
	h := m.heap
	for k := 0; ; {
		l, r, s := 2*k+1, 2*k+2, k
		if l < len(h) && m.less(h[l], h[s]) {
			s = l
		}
		if r < len(h) && m.less(h[r], h[s]) {
			s = r
		}
		if s == k {
			return
		}
		h[k], h[s] = h[s], h[k]
		k = s
	}
}

// next returns the next merged batch, nil at the end. A batch ends early
// when a run's current batch runs out, since its rows are gathered from the
// batches the runs hold now.
func (m *runMerger) next() (arrow.RecordBatch, error) {
	if err := m.ctx.Err(); err != nil {
		return nil, err
	}
	m.picks = m.picks[:0]
	for len(m.heap) > 0 && len(m.picks) < mergeOutRows {
		i := m.heap[0]
		c := m.curs[i]
		m.picks = append(m.picks, [2]int{i, c.pos})
		c.pos++
		if c.pos < int(c.b.NumRows()) {
			m.fix()
			continue
		}
		// The run's batch is used up: gather before loading the next.
		out, err := m.gather()
		if err != nil {
			return nil, err
		}
		ok, err := m.load(c)
		if err != nil {
			out.Release()
			return nil, err
		}
		if ok {
			m.fix()
		} else {
			m.heap[0] = m.heap[len(m.heap)-1]
			m.heap = m.heap[:len(m.heap)-1]
			m.fix()
		}
		return out, nil
	}
	if len(m.picks) == 0 {
		return nil, nil
	}
	return m.gather()
}

// gather builds the picked rows into one batch.
func (m *runMerger) gather() (arrow.RecordBatch, error) {
	base := make([]int64, len(m.curs))
	var used []arrow.RecordBatch
	seen := make([]bool, len(m.curs))
	for _, p := range m.picks {
		seen[p[0]] = true
	}
	var off int64
	for i, c := range m.curs {
		if seen[i] {
			base[i] = off
			off += c.b.NumRows()
			used = append(used, c.b)
		}
	}
	all, err := concatBatches(m.env, m.schema, used)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	idx := make([]int64, len(m.picks))
	for k, p := range m.picks {
		idx[k] = base[p[0]] + int64(p[1])
	}
	m.picks = m.picks[:0]
	out, err := takeBatch(m.ctx, m.env, all, idx)
	if err != nil {
		return nil, err
	}
	if !out.Schema().Equal(m.schema) {
		rb := array.NewRecordBatch(m.schema, out.Columns(), out.NumRows())
		out.Release()
		out = rb
	}
	return out, nil
}

func (m *runMerger) release() {
	for _, c := range m.curs {
		if c.b != nil {
			c.b.Release()
			c.b = nil
		}
		if c.rd != nil {
			c.rd.Release()
			c.rd = nil
		}
	}
	m.curs = nil
	m.heap = nil
}
