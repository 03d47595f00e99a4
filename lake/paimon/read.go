package paimon

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReadOptions shape the batches Open returns.
type ReadOptions struct {
	// Columns to return, in order; nil means every column in schema order.
	Columns []string
	// BatchSize is the target number of rows per batch (default 8192).
	BatchSize int
	// NoRowFilter disables the exact row filter (the plan's predicate then
	// only prunes by statistics).
	NoRowFilter bool
	// Buffers, when set, carries the read's reusable buffers over from the
	// previous split read with them to the next (see ScanBuffers).
	Buffers *ScanBuffers
}

// ScanBuffers keeps what one raw read leaves reusable for the next split
// a scanner reads: its Parquet page readers (chunk, page and
// decompression buffers) and the pool of the fixed-width buffers of
// returned batches. A scanner reading many small splits (file slices)
// then allocates them once, not per split. One reader uses it at a time,
// always with the same allocator (a reader opened with another allocator
// ignores it); the owner calls Release after the last reader is released.
type ScanBuffers struct {
	mem  memory.Allocator
	pool readerPool
}

// Release frees the buffers kept. Batches still alive give theirs back to
// the allocator when they are released.
func (b *ScanBuffers) Release() {
	if b != nil {
		b.pool.release()
	}
}

// poolFor is the reader pool a read with allocator mem uses: the
// buffers' when they belong to mem, else nil (the read's own).
func (b *ScanBuffers) poolFor(mem memory.Allocator) *readerPool {
	if b == nil {
		return nil
	}
	if b.mem == nil {
		b.mem = mem
	}
	if b.mem != mem {
		return nil
	}
	return &b.pool
}

// Open streams the rows of one split of the plan. Raw-convertible splits
// read file by file (deletion vectors applied); other splits merge their
// files by primary key with the table's merge engine. The reader belongs to
// one goroutine; the caller must Release it.
func (p *Plan) Open(ctx context.Context, s *Split, mem memory.Allocator, ro ReadOptions) (array.RecordReader, error) {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	opts, err := parseOptions(p.Options)
	if err != nil {
		return nil, err
	}
	out, tops, paths, err := p.resolveColumns(ro.Columns)
	if err != nil {
		return nil, err
	}
	outSch, err := ArrowSchema(out)
	if err != nil {
		return nil, err
	}
	// needed = the top-level columns the output reads, then those the row
	// filter reads.
	var needed []DataField
	srcCol := make([]int, len(out))
	for i, t := range tops {
		srcCol[i] = -1
		for j, f := range needed {
			if f.ID == t.ID {
				srcCol[i] = j
			}
		}
		if srcCol[i] < 0 {
			srcCol[i] = len(needed)
			needed = append(needed, t)
		}
	}
	pred := p.pred
	if ro.NoRowFilter {
		pred = nil
	}
	var filterOnly map[string]bool
	for _, name := range pred.fieldsOrNil() {
		if !hasField(needed, name) {
			f, _ := p.Schema.Field(name)
			needed = append(needed, f)
			if filterOnly == nil {
				filterOnly = map[string]bool{}
			}
			filterOnly[f.Name] = true
		}
	}
	metrics := &Metrics{}
	st := &stepper{ctx: ctx, mem: mem, out: outSch, srcCol: srcCol, paths: paths, pred: pred, needed: needed, metrics: metrics}
	pk := len(p.Schema.PrimaryKeys) > 0
	var src batchSource
	if s.RawConvertible || !pk {
		rs := &rawSource{ctx: ctx, p: p, split: s, want: needed, mem: mem, batchSize: ro.BatchSize, pred: pred, metrics: metrics, filterOnly: filterOnly}
		rs.shared = ro.Buffers.poolFor(mem)
		src = rs
	} else {
		m, err := newMergeSource(ctx, p, s, needed, opts, mem, ro.BatchSize, metrics)
		if err != nil {
			return nil, err
		}
		src = m
	}
	return &splitReader{schema: outSch, src: src, step: st, refs: 1, metrics: metrics}, nil
}

func (b *bound) fieldsOrNil() []string {
	if b == nil {
		return nil
	}
	var out []string
	var walk func(*bound)
	walk = func(q *bound) {
		if q.field != "" {
			out = append(out, q.field)
		}
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(b)
	return out
}

func hasField(fs []DataField, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// resolveColumns maps requested names to output fields. A name is a
// top-level column or a dotted path into ROW columns ("r.a.b"), which
// reads the top-level column and returns only the nested field, named by
// its path. It returns the output fields, the top-level field each one
// reads, and the child indexes from that field down to the output.
func (p *Plan) resolveColumns(cols []string) (out, tops []DataField, paths [][]int, err error) {
	if cols == nil {
		return p.Schema.Fields, p.Schema.Fields, make([][]int, len(p.Schema.Fields)), nil
	}
	for _, c := range cols {
		if f, ok := p.Schema.Field(c); ok {
			out, tops, paths = append(out, f), append(tops, f), append(paths, nil)
			continue
		}
		parts := strings.Split(c, ".")
		top, ok := p.Schema.Field(parts[0])
		if !ok || len(parts) < 2 {
			return nil, nil, nil, fmt.Errorf("%w: table %s has no column %q", ErrNotFound, p.Table.name, c)
		}
		cur, path := top, []int(nil)
		nullable := top.Type.Nullable
		for _, name := range parts[1:] {
			idx := -1
			if cur.Type.Root == Row {
				for i, sf := range cur.Type.Fields {
					if sf.Name == name {
						idx = i
					}
				}
			}
			if idx < 0 {
				return nil, nil, nil, fmt.Errorf("%w: table %s has no column %q", ErrNotFound, p.Table.name, c)
			}
			path = append(path, idx)
			cur = cur.Type.Fields[idx]
			nullable = nullable || cur.Type.Nullable
		}
		leaf := DataField{ID: cur.ID, Name: c, Type: cur.Type}
		leaf.Type.Nullable = nullable
		out, tops, paths = append(out, leaf), append(tops, top), append(paths, path)
	}
	return out, tops, paths, nil
}

// OutputSchema is the Arrow schema Open produces for the given columns.
func (p *Plan) OutputSchema(cols []string) (*arrow.Schema, error) {
	out, _, _, err := p.resolveColumns(cols)
	if err != nil {
		return nil, err
	}
	return ArrowSchema(out)
}

// batchSource yields batches shaped like the needed fields plus a keep
// mask (nil = keep all) for rows removed by deletion vectors.
type batchSource interface {
	next() (arrow.RecordBatch, []bool, error) // nil batch at end
	close()
}

// stepper applies the per-batch steps: deletion mask, exact row filter,
// projection to the output columns.
type stepper struct {
	ctx     context.Context
	mem     memory.Allocator
	out     *arrow.Schema
	srcCol  []int   // per output column: its top-level column in needed
	paths   [][]int // per output column: struct child path below it
	pred    *bound
	needed  []DataField
	metrics *Metrics
	match   []bool // evalBatch's output, reused across batches
}

// apply runs the steps on rec; prefiltered says the file reader already
// dropped the deleted rows and those failing the row filter (and counted
// them), so only the projection remains.
func (st *stepper) apply(rec arrow.RecordBatch, keep []bool, prefiltered bool) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	st.metrics.RowsRead += int64(n)
	for _, k := range keep {
		if !k {
			st.metrics.RowsDeleted++
		}
	}
	if st.pred != nil && !prefiltered {
		// Column-wise (evalBatch): per-row evaluation boxed every cell.
		col := func(name string) arrow.Array {
			for i, f := range st.needed {
				if f.Name == name {
					return rec.Column(i)
				}
			}
			return nil
		}
		if cap(st.match) < n {
			st.match = make([]bool, n)
		}
		match := st.match[:n]
		st.pred.evalBatch(col, n, match)
		for row := 0; row < n; row++ {
			if keep != nil && !keep[row] {
				continue
			}
			if !match[row] {
				if keep == nil {
					keep = make([]bool, n)
					for i := range keep {
						keep[i] = true
					}
				}
				keep[row] = false
				st.metrics.RowsFiltered++
			}
		}
	}
	proj := make([]arrow.Array, len(st.srcCol))
	for i := range proj {
		proj[i] = rec.Column(st.srcCol[i])
		if len(st.paths[i]) > 0 {
			proj[i] = structChild(proj[i], st.paths[i], st.mem)
			defer proj[i].Release()
		}
	}
	pr := array.NewRecordBatch(st.out, proj, int64(n))
	if keep == nil {
		return pr, nil
	}
	defer pr.Release()
	mb := array.NewBooleanBuilder(st.mem)
	defer mb.Release()
	mb.AppendValues(keep, nil)
	mask := mb.NewArray()
	defer mask.Release()
	return compute.FilterRecordBatch(compute.WithAllocator(st.ctx, st.mem), pr, mask, compute.DefaultFilterOptions())
}

type splitReader struct {
	schema  *arrow.Schema
	src     batchSource
	step    *stepper
	cur     arrow.RecordBatch
	err     error
	done    bool
	refs    int64
	metrics *Metrics
}

// Metrics returns the reader's counters so far.
func (r *splitReader) Metrics() Metrics { return *r.metrics }

func (r *splitReader) Schema() *arrow.Schema { return r.schema }
func (r *splitReader) Retain()               { r.refs++ }
func (r *splitReader) Release() {
	r.refs--
	if r.refs == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.src.close()
	}
}
func (r *splitReader) Err() error                     { return r.err }
func (r *splitReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *splitReader) Record() arrow.RecordBatch { return r.cur }

func (r *splitReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for !r.done {
		rec, keep, err := r.src.next()
		if err != nil {
			r.err, r.done = err, true
			return false
		}
		if rec == nil {
			r.done = true
			return false
		}
		raw, _ := r.src.(*rawSource)
		out, err := r.step.apply(rec, keep, raw != nil && raw.prefiltered)
		rec.Release()
		if err != nil {
			r.err, r.done = err, true
			return false
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		r.cur = out
		return true
	}
	return false
}

// rawSource reads the split's files one after another.
type rawSource struct {
	ctx       context.Context
	p         *Plan
	split     *Split
	want      []DataField
	mem       memory.Allocator
	batchSize int
	pred      *bound
	metrics   *Metrics
	// filterOnly: the fields of want only pred reads (the stepper's
	// projection leaves them out).
	filterOnly map[string]bool

	idx int
	fb  *fileBatches
	dv  *DeletionVector
	// prefiltered: the last batch comes from a reader that applied the
	// deletion vector and the row filter itself (fileBatches.filtered).
	prefiltered bool
	pool        readerPool  // page readers of finished files, for the next
	shared      *readerPool // ScanBuffers' pool, used instead of pool
}

func (r *rawSource) readers() *readerPool {
	if r.shared != nil {
		return r.shared
	}
	return &r.pool
}

func (r *rawSource) fileSchema(id int64) (*TableSchema, error) {
	if id == r.p.Schema.ID {
		return r.p.Schema, nil
	}
	return r.p.Table.Schema(r.ctx, id)
}

func (r *rawSource) next() (arrow.RecordBatch, []bool, error) {
	for {
		if r.fb == nil {
			if r.idx >= len(r.split.Files) {
				return nil, nil, nil
			}
			f := r.split.Files[r.idx]
			r.idx++
			fs, err := r.fileSchema(f.Meta.SchemaID)
			if err != nil {
				return nil, nil, err
			}
			r.dv = nil
			if f.DV != nil {
				if r.dv, err = ReadDeletionVector(r.ctx, r.p.Table.fs, *f.DV); err != nil {
					return nil, nil, err
				}
			}
			// The stepper applies r.pred to every batch of a raw read, so
			// the reader may drop the rows failing it (dropRows).
			fb, err := openDataFile(r.ctx, fileReadSpec{fsys: r.p.Table.fs, path: f.Path, fileSchema: fs, want: r.want, pred: r.pred, batchSize: r.batchSize, mem: r.mem, metrics: r.metrics,
				dv: r.dv, dropRows: r.pred != nil, pool: r.readers(), slice: f.Slice, size: f.Meta.FileSize, filterOnly: r.filterOnly})
			if err != nil {
				return nil, nil, err
			}
			r.fb = fb
		}
		rec, pos, err := r.fb.next()
		if err != nil {
			return nil, nil, err
		}
		if rec == nil {
			r.fb.close()
			r.fb = nil
			continue
		}
		r.prefiltered = r.fb.filtered
		var keep []bool
		if r.dv != nil && !r.fb.filtered {
			keep = make([]bool, rec.NumRows())
			for i := range keep {
				keep[i] = !r.dv.Contains(pos + int64(i))
			}
		}
		return rec, keep, nil
	}
}

func (r *rawSource) close() {
	if r.fb != nil {
		r.fb.close()
		r.fb = nil
	}
	r.pool.release()
}

// structChild extracts a nested field from a struct array; a row whose
// parent struct is NULL reads as NULL. The result is a new reference.
func structChild(arr arrow.Array, path []int, mem memory.Allocator) arrow.Array {
	cur := arr
	cur.Retain()
	for _, idx := range path {
		st := cur.(*array.Struct)
		child := st.Field(idx)
		next := child
		if st.NullN() > 0 {
			next = maskNulls(child, st, mem)
		} else {
			child.Retain()
		}
		cur.Release()
		cur = next
	}
	return cur
}

// maskNulls returns child with the parent's NULL rows made NULL too.
func maskNulls(child arrow.Array, parent arrow.Array, mem memory.Allocator) arrow.Array {
	d := child.Data()
	n, off := d.Len(), d.Offset()
	bm := memory.NewResizableBuffer(mem)
	bm.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := bm.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls := 0
	for i := 0; i < n; i++ {
		if parent.IsValid(i) && child.IsValid(i) {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bm}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	bm.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

// Metrics count what one split reader did. A caller reads them by asserting
// the RecordReader from Plan.Open to interface{ Metrics() Metrics }.
type Metrics struct {
	FilesOpened      int64 // data files opened
	RowGroupsSkipped int64 // Parquet row groups / ORC stripes pruned by statistics
	RowsRead         int64 // rows entering the per-batch steps (after merging)
	RowsDeleted      int64 // rows dropped by deletion vectors (raw reads)
	RowsFiltered     int64 // rows dropped by the exact row filter
}

func (m *Metrics) skippedGroup() {
	if m != nil {
		m.RowGroupsSkipped++
	}
}

func (m *Metrics) openedFile() {
	if m != nil {
		m.FilesOpened++
	}
}
