package unionread

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Replay rebuilds the surviving rows of a primary-key bucket's changelog
// tail [lakeEnd, stop): per key the latest row, keys in first-seen order,
// keys whose last change is a retraction (delete or update-before) dropped.
// Feed it the changelog in offset order with Add, then read the survivors
// from Reader. It holds at most max change records (copied with its own
// allocator) and the key set.
type Replay struct {
	name    string
	schema  *arrow.Schema
	max     int64
	mem     memory.Allocator
	enc     *KeyEncoder
	set     *KeySet
	buf     []byte
	batches []arrow.RecordBatch // owned copies, in arrival order
	loc     []uint64            // per key id: batch<<32 | row of its latest change
	live    []bool              // per key id: latest change is an upsert
	records int64
}

// NewReplay replays batches of schema whose key columns sit at keyCols.
// name describes the tail in errors; max <= 0 means no ceiling.
func NewReplay(name string, schema *arrow.Schema, keyCols []int, max int64, mem memory.Allocator) *Replay {
	return &Replay{name: name, schema: schema, max: max, mem: mem, enc: NewKeyEncoder(keyCols), set: NewKeySet()}
}

// Add applies the changes of rec in row order; retract[i] marks row i as a
// delete or update-before (nil: all rows are upserts).
func (r *Replay) Add(rec arrow.RecordBatch, retract []bool) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if retract != nil && len(retract) != n {
		return fmt.Errorf("unionread: tail %s: %d change types for %d rows", r.name, len(retract), n)
	}
	if r.max > 0 && r.records+int64(n) > r.max {
		return TailTooLarge(r.name, r.max)
	}
	if !sameTypes(r.schema, rec.Schema()) {
		return fmt.Errorf("unionread: tail %s: batch schema %s differs from %s", r.name, rec.Schema(), r.schema)
	}
	if err := r.enc.Bind(rec); err != nil {
		return err
	}
	b := uint64(len(r.batches))
	stored := false
	for i := 0; i < n; i++ {
		r.buf = r.enc.Append(r.buf[:0], i)
		id, added, err := r.set.Insert(r.buf)
		if err != nil {
			return err
		}
		up := retract == nil || !retract[i]
		if added {
			r.loc = append(r.loc, 0)
			r.live = append(r.live, false)
		}
		r.live[id] = up
		if up {
			r.loc[id] = b<<32 | uint64(i)
			stored = true
		}
	}
	r.records += int64(n)
	if stored {
		cp, err := copyRecord(r.schema, rec, r.mem)
		if err != nil {
			return err
		}
		r.batches = append(r.batches, cp)
	} else {
		// Nothing of rec is referenced; keep the batch numbering dense with
		// an empty placeholder that holds no memory.
		r.batches = append(r.batches, nil)
	}
	return nil
}

// Records is the number of change records applied.
func (r *Replay) Records() int64 { return r.records }

// Keys is the number of distinct keys seen.
func (r *Replay) Keys() int { return r.set.Len() }

func sameTypes(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// copyRecord copies rec into memory from mem, labelled with schema.
func copyRecord(schema *arrow.Schema, rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		c, err := array.Concatenate([]arrow.Array{rec.Column(i)}, mem)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}

// Reader streams the survivors in batches of up to batchSize rows (default
// 8192). It takes over the replay's memory: release the reader, not the
// replay, afterwards.
func (r *Replay) Reader(ctx context.Context, batchSize int) (array.RecordReader, error) {
	if batchSize <= 0 {
		batchSize = 8192
	}
	var idx []int64 // flattened row numbers in the concatenation, first-seen order
	starts := make([]int64, len(r.batches))
	var total int64
	for i, b := range r.batches {
		starts[i] = total
		if b != nil {
			total += b.NumRows()
		}
	}
	for id, up := range r.live {
		if up {
			l := r.loc[id]
			idx = append(idx, starts[l>>32]+int64(l&0xffffffff))
		}
	}
	rd := &replayReader{ctx: ctx, schema: r.schema, mem: r.mem, idx: idx, size: batchSize}
	rd.refs.Store(1)
	var err error
	rd.all, err = concatRecords(r.schema, r.batches, r.mem)
	r.releaseBatches()
	if err != nil {
		return nil, err
	}
	r.set, r.loc, r.live = NewKeySet(), nil, nil
	return rd, nil
}

func (r *Replay) releaseBatches() {
	for _, b := range r.batches {
		if b != nil {
			b.Release()
		}
	}
	r.batches = nil
}

// Release frees what the replay holds (when Reader was not called).
func (r *Replay) Release() { r.releaseBatches() }

func concatRecords(schema *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	var live []arrow.RecordBatch
	var rows int64
	for _, b := range recs {
		if b != nil && b.NumRows() > 0 {
			live = append(live, b)
			rows += b.NumRows()
		}
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		if len(live) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, schema.Field(i).Type, 0)
			continue
		}
		parts := make([]arrow.Array, len(live))
		for j, b := range live {
			parts[j] = b.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

type replayReader struct {
	ctx    context.Context
	refs   atomic.Int64
	schema *arrow.Schema
	mem    memory.Allocator
	all    arrow.RecordBatch
	idx    []int64
	pos    int
	size   int
	cur    arrow.RecordBatch
	err    error
}

func (r *replayReader) Schema() *arrow.Schema { return r.schema }
func (r *replayReader) Err() error            { return r.err }
func (r *replayReader) Retain()               { r.refs.Add(1) }
func (r *replayReader) RecordBatch() arrow.RecordBatch {
	return r.cur
}
func (r *replayReader) Record() arrow.RecordBatch { return r.cur }

func (r *replayReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.pos >= len(r.idx) {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	end := min(r.pos+r.size, len(r.idx))
	ib := array.NewInt64Builder(r.mem)
	ib.AppendValues(r.idx[r.pos:end], nil)
	ind := ib.NewInt64Array()
	ib.Release()
	defer ind.Release()
	r.pos = end
	out, err := compute.Take(compute.WithAllocator(r.ctx, r.mem), *compute.DefaultTakeOptions(),
		compute.NewDatumWithoutOwning(r.all), compute.NewDatumWithoutOwning(ind))
	if err != nil {
		r.err = err
		return false
	}
	defer out.Release()
	r.cur = out.(*compute.RecordDatum).Value
	r.cur.Retain()
	return true
}

func (r *replayReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.all != nil {
		r.all.Release()
		r.all = nil
	}
}
