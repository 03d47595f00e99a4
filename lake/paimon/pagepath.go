package paimon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/inlet-db/inlet/lake/parquetpage"
)

// parquetFastPath selects lake/parquetpage for the files it can read;
// tests turn it off to compare against pqarrow.
var parquetFastPath = true

// pageFiles counts files opened through the page decoder, lateFiles those
// of them read with late materialisation, stagedFiles those of them whose
// filter's columns are decoded conjunct by conjunct (for tests).
var pageFiles, lateFiles, stagedFiles atomic.Int64

// dictBatches counts the batches whose filter stage was answered on a
// column's dictionary, dictInexact those of them with PLAIN pages (for
// tests).
var dictBatches, dictInexact atomic.Int64

// dropFiles counts the late-materialised files whose reader dropped the
// filtered and deleted rows itself (for tests).
var dropFiles atomic.Int64

// unreadCols counts the filter-only columns a dropping reader left
// ungathered, noValueCols those of them answered on their dictionary
// without building a value (for tests).
var unreadCols, noValueCols atomic.Int64

// pooledReaders counts page readers taken from a scan's pool (for tests).
var pooledReaders atomic.Int64

// pageColumns are the selected top-level columns of a file, in selected
// order, when lake/parquetpage can read every one of them in every row
// group to be read; nil means read the file through pqarrow.
type pageColumns struct {
	cols   []parquetpage.Column
	chunks map[int][]parquetpage.Chunk // row group → chunk per column
	schema *arrow.Schema

	// Late materialisation (see lateFilter): the row filter, the column
	// each of its fields reads, and whether a column is one of those.
	pred    *bound
	predCol map[string]int
	isPred  []bool
	// stages, when the filter is an AND over more than one column: its
	// conjuncts in evaluation order, each with the columns it reads, so
	// a column is decoded only for the rows the conjuncts before it kept
	// (Q12: l_shipmode for the 1/7 of the rows in the l_receiptdate
	// range; Q19: l_shipinstruct for the 2/7 with l_shipmode IN (...)).
	// A filter over one column is one stage, so that a string column's
	// is answered on its dictionary (filterStage.dict) as well.
	stages []filterStage

	// drop: batches keep only the rows passing pred and not in dv; the
	// dropped rows are counted into metrics here (fileReadSpec.dropRows).
	drop    bool
	dv      *DeletionVector
	metrics *Metrics
	// unread, when drop: the columns only the filter reads, whose values
	// nobody reads after it (fileReadSpec.filterOnly). Their batch column
	// is a zero-copy slice of the decoded array, of the kept rows' count,
	// instead of a gather of the kept rows' values.
	unread []bool
}

// markUnread sets pc.unread for the predicate columns named in
// filterOnly.
func (pc *pageColumns) markUnread(want []DataField, src []int, order map[int]int, filterOnly map[string]bool) {
	for i, w := range want {
		if !filterOnly[w.Name] || src[i] < 0 {
			continue
		}
		c, ok := order[src[i]]
		if !ok || !pc.isPred[c] {
			continue
		}
		if pc.unread == nil {
			pc.unread = make([]bool, len(pc.cols))
		}
		pc.unread[c] = true
		unreadCols.Add(1)
	}
	// A string column only one stage reads, answered on its dictionary:
	// no value of it need be built at all (DictFilter.NoValues), not even
	// for the rows that pass (Q19's l_shipmode, l_shipinstruct). A later
	// stage over the same column would read the values the first built.
	for i, st := range pc.stages {
		if st.dict == nil || pc.unread == nil || !pc.unread[st.cols[0]] {
			continue
		}
		readers := 0
		for _, o := range pc.stages {
			for _, c := range o.cols {
				if c == st.cols[0] {
					readers++
				}
			}
		}
		if readers == 1 {
			d := *st.dict
			d.NoValues = true
			pc.stages[i].dict = &d
			noValueCols.Add(1)
		}
	}
}

// lateFilter lets the reader evaluate the scan's row filter on its
// columns first and materialise the other columns only for the rows that
// pass. That is safe because the filter is the one the scan applies after
// (rawSource hands it to openDataFile only when the stepper applies it to
// every batch), evaluated by the same code on the same arrays: every
// predicate column must be read here and reach the batch unconverted, so
// exactly the rows whose other values were skipped are dropped: by the
// reader itself when pc.drop is set (raw reads), else by the stepper.
// Merge reads pass no predicate and are never filtered early. A column
// only the predicate reads (not in the caller's output) is decoded for
// the test and, when the reader drops rows itself, never gathered
// (pc.unread).
func (pc *pageColumns) lateFilter(pred *bound, want []DataField, src []int, order map[int]int, out *arrow.Schema) {
	names := pred.fieldsOrNil()
	if len(names) == 0 {
		return
	}
	cols := map[string]int{}
	for _, name := range names {
		i := -1
		for j, w := range want {
			if w.Name == name {
				i = j
				break
			}
		}
		if i < 0 || src[i] < 0 {
			return
		}
		c, ok := order[src[i]]
		if !ok || !arrow.TypeEqual(pc.schema.Field(c).Type, out.Field(i).Type) {
			return
		}
		cols[name] = c
	}
	pc.pred, pc.predCol = pred, cols
	lateFiles.Add(1)
	pc.isPred = make([]bool, len(pc.cols))
	for _, c := range cols {
		pc.isPred[c] = true
	}
	if pred.op == OpAnd && len(cols) > 1 {
		pc.stages = filterStages(pred, cols, pc.schema)
		stagedFiles.Add(1)
	} else if len(cols) == 1 {
		// One string column: a single stage, so that its filter is
		// answered on its dictionary too (other columns keep the
		// unstaged read).
		for _, c := range cols {
			if st := (filterStage{conj: pred, cols: []int{c}}); dictFilter(st, pc.schema) != nil {
				pc.stages = []filterStage{st}
			}
		}
	}
	for i := range pc.stages {
		pc.stages[i].dict = dictFilter(pc.stages[i], pc.schema)
	}
}

// dictFilter is a stage's filter answered on the dictionary of its one
// string or binary column (nil for other stages). Evaluating the
// conjunct on the dictionary array with the same code as on a batch
// gives each value the answer each of its rows would get, and a NULL
// row gets evalRow's answer for NULL: Q12's l_shipmode IN (...), Q19's
// l_shipinstruct = ... compare a handful of strings per page instead of
// one per row, and the strings of the rows they drop are never built.
func dictFilter(st filterStage, sch *arrow.Schema) *parquetpage.DictFilter {
	if len(st.cols) == 0 {
		return nil
	}
	c := st.cols[0]
	for _, o := range st.cols[1:] {
		if o != c {
			return nil
		}
	}
	switch sch.Field(c).Type.ID() {
	case arrow.STRING, arrow.BINARY:
	default:
		return nil
	}
	conj := st.conj
	return &parquetpage.DictFilter{
		Eval: func(dict arrow.Array, keep []bool) {
			conj.evalBatch(func(string) arrow.Array { return dict }, dict.Len(), keep)
		},
		Null: conj.evalRow(func(string) any { return nil }),
	}
}

// planPageColumns decides whether the page decoder reads this file:
// every selected column a flat leaf of a supported type, every chunk of
// a supported codec and encoding. types gives each selected column's
// output type (the INT96 columns' at the table's unit).
func planPageColumns(path string, pf *file.Reader, leaves []int, names []string, types []arrow.DataType, rgs []int) *pageColumns {
	md := pf.MetaData()
	if !parquetFastPath || len(leaves) == 0 || md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		return nil
	}
	pc := &pageColumns{chunks: map[int][]parquetpage.Chunk{}}
	fields := make([]arrow.Field, len(leaves))
	for i, leaf := range leaves {
		if leaf < 0 {
			return nil
		}
		c := parquetpage.Column{File: path, Name: names[i], Descr: md.Schema.Column(leaf), Out: types[i]}
		if parquetpage.Supported(c) != nil {
			return nil
		}
		pc.cols = append(pc.cols, c)
		fields[i] = arrow.Field{Name: names[i], Type: types[i], Nullable: true}
	}
	for _, rg := range rgs {
		rgm := md.RowGroup(rg)
		for _, leaf := range leaves {
			cc, err := rgm.ColumnChunk(leaf)
			if err != nil {
				return nil
			}
			ch, err := parquetpage.ChunkOf(cc, rg)
			if err != nil {
				return nil
			}
			pc.chunks[rg] = append(pc.chunks[rg], ch)
		}
	}
	pc.schema = arrow.NewSchema(fields, nil)
	return pc
}

// pageReaders holds one parquetpage.Reader per selected column, shared by
// the units of a file so their buffers are reused across row groups.
type pageReaders struct {
	rs   []*parquetpage.Reader
	pool *readerPool
}

func newPageReaders(pc *pageColumns, mem memory.Allocator, pool *readerPool) (*pageReaders, error) {
	p := &pageReaders{pool: pool}
	for _, c := range pc.cols {
		r, err := pool.get(c, mem)
		if err != nil {
			p.release()
			return nil, err
		}
		p.rs = append(p.rs, r)
	}
	return p, nil
}

// release hands the readers back to the pool, or frees them without one.
func (p *pageReaders) release() {
	for _, r := range p.rs {
		p.pool.put(r)
	}
	p.rs = nil
}

// readerPool keeps the page readers of a scan's finished files so the next
// file reuses their chunk, page and decompression buffers (memory of the
// scan's allocator) instead of allocating its own. It holds at most
// maxPooledReaders; release frees them. A nil pool pools nothing.
type readerPool struct {
	free []*parquetpage.Reader
	out  *outPool // the scan's batch buffers, once a read asked for them
}

// outAlloc is the allocator for the buffers of returned batches: the
// scan's outPool in front of mem (mem itself without a pool).
func (p *readerPool) outAlloc(mem memory.Allocator) memory.Allocator {
	if p == nil {
		return mem
	}
	if p.out == nil {
		p.out = &outPool{mem: mem}
	}
	return p.out
}

const maxPooledReaders = 64

func (p *readerPool) get(c parquetpage.Column, mem memory.Allocator) (*parquetpage.Reader, error) {
	if p != nil && len(p.free) > 0 {
		r := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		if err := r.Retarget(c); err != nil {
			r.Release()
			return nil, err
		}
		pooledReaders.Add(1)
		return r, nil
	}
	return parquetpage.NewReader(c, mem)
}

func (p *readerPool) put(r *parquetpage.Reader) {
	if p == nil || len(p.free) >= maxPooledReaders {
		r.Release()
		return
	}
	p.free = append(p.free, r)
}

func (p *readerPool) release() {
	if p == nil {
		return
	}
	for _, r := range p.free {
		r.Release()
	}
	p.free = nil
	if p.out != nil {
		p.out.close()
		p.out = nil
	}
}

// pageRecordReader reads a run of row groups through the page readers as
// batches of at most batch rows that never span a row group.
type pageRecordReader struct {
	refs   int64
	ctx    context.Context
	path   string
	f      io.ReaderAt
	pc     *pageColumns
	prs    *pageReaders
	parts  []rgPart
	start  func(rg int) int64 // file position of rg's first row
	mem    memory.Allocator
	batch  int64
	next   int   // next part of parts
	left   int64 // rows left in the current part
	cur    arrow.RecordBatch
	err    error
	arrays []arrow.Array
	sel    []bool
	tmp    []bool  // one conjunct's answer (staged filters)
	tmp2   []bool  // its answer on rows evalDict left undecided
	idx    []int32 // selected rows of the batch, when dropping
	rg     int     // current row group
	pos0   int64   // file position just past the current part's last row
	// grow multiplies batch for the rows read at once while the filter
	// drops most (see readRows).
	grow int64
	// pend is a grown read's batch that kept more than batch rows (the
	// filter began keeping most): Next hands it out in slices of batch
	// rows from pendOff, so no batch is larger than the batch size.
	pend    arrow.RecordBatch
	pendOff int64
}

// maxReadGrow and maxGrowRows bound readRows: at most this many
// batches' rows, and never past maxGrowRows unless a batch is larger, are
// read at once, so the filter's columns of one read stay small (a
// 4064-row batch of three 8-byte columns: 780 KB at 8×) whatever
// batch_size a session sets.
const (
	maxReadGrow = 8
	maxGrowRows = 1 << 16
)

// readRows is how many rows the next batch reads. Dropping rows in the
// reader (a filter keeping 2 % of lineitem, TPC-H Q6) left batches of
// 80 rows, and every operator above paid its per-batch cost for each:
// while the batches kept come out under half a batch the read doubles,
// up to maxReadGrow batches, and halves again once they come out over
// one, so the batches emitted stay near the batch size. Powers of two
// keep the pooled buffers (reused at their exact size) at a few sizes.
func (r *pageRecordReader) readRows() int64 {
	return min(r.batch*max(r.grow, 1), r.left)
}

// kept adjusts grow after a read of n rows kept k.
func (r *pageRecordReader) kept(n, k int64) {
	g := max(r.grow, 1)
	switch {
	case 2*k < r.batch && n == r.batch*g && g < maxReadGrow && 2*g*r.batch <= maxGrowRows:
		g *= 2
	case k > r.batch && g > 1:
		g /= 2
	}
	r.grow = g
}

// resetPart points every column's reader at part pt: a whole row group
// with one read a column, part of one (a row range, see rgPart) with the
// pages holding its rows only.
func (r *pageRecordReader) resetPart(pt *rgPart) error {
	chunks := r.pc.chunks[pt.rg]
	for i, pr := range r.prs.rs {
		if !pt.split {
			if err := pr.Reset(r.f, chunks[i]); err != nil {
				return err
			}
			continue
		}
		pg := pt.refPages
		if i != pt.ref || pg == nil {
			var err error
			if pg, err = parquetpage.ScanPages(r.ctx, r.f, r.pc.cols[i], chunks[i]); err != nil {
				return err
			}
		}
		if err := pr.ResetRows(r.ctx, r.f, chunks[i], pg, pt.from, pt.to); err != nil {
			return err
		}
	}
	return nil
}

func (r *pageRecordReader) Retain() { r.refs++ }

func (r *pageRecordReader) Release() {
	r.refs--
	if r.refs == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.refs == 0 && r.pend != nil {
		r.pend.Release()
		r.pend = nil
	}
}

// nextPending sets cur to the next slice of pend; false when there is none.
func (r *pageRecordReader) nextPending() bool {
	if r.pend == nil {
		return false
	}
	rows := r.pend.NumRows()
	end := min(r.pendOff+r.batch, rows)
	r.cur = r.pend.NewSlice(r.pendOff, end)
	r.pendOff = end
	if end == rows {
		r.pend.Release()
		r.pend = nil
	}
	return true
}

func (r *pageRecordReader) Schema() *arrow.Schema          { return r.pc.schema }
func (r *pageRecordReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *pageRecordReader) Record() arrow.RecordBatch      { return r.cur }
func (r *pageRecordReader) Err() error                     { return r.err }

func (r *pageRecordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	if r.nextPending() {
		return true
	}
again:
	for r.left == 0 {
		if r.next >= len(r.parts) {
			return false
		}
		pt := &r.parts[r.next]
		r.next++
		r.rg = pt.rg
		r.left = pt.to - pt.from
		r.pos0 = r.start(pt.rg) + pt.to
		if err := r.resetPart(pt); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				r.err = err
			} else {
				r.err = fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			return false
		}
	}
	n := r.readRows() // r.batch rows unless a dropping read grew it
	if cap(r.arrays) < len(r.prs.rs) {
		r.arrays = make([]arrow.Array, len(r.prs.rs))
	}
	r.arrays = r.arrays[:len(r.prs.rs)]
	clear(r.arrays)
	var sel []bool
	if r.pc.pred != nil {
		// The filter's columns first, then the others for the rows
		// that pass.
		col := func(name string) arrow.Array { return r.arrays[r.pc.predCol[name]] }
		if cap(r.sel) < int(n) {
			r.sel = make([]bool, n)
		}
		sel = r.sel[:n]
		if r.pc.stages != nil {
			if err := r.evalStaged(n, col, sel); err != nil {
				return r.fail(err)
			}
		} else {
			for c, pr := range r.prs.rs {
				if !r.pc.isPred[c] {
					continue
				}
				a, err := pr.ReadSelectedWith(r.ctx, int(n), nil, r.out(c))
				if err != nil {
					return r.fail(err)
				}
				r.arrays[c] = a
			}
			r.pc.pred.evalBatch(col, int(n), sel)
		}
		if r.pc.drop {
			pos := r.pos0 - r.left
			k := r.dropRows(sel, pos)
			r.kept(n, int64(k))
			switch {
			case k == 0:
				// Nothing to emit: skip the other columns' values.
				if err := r.skipOthers(n, sel); err != nil {
					return r.fail(err)
				}
				for i, a := range r.arrays {
					if a != nil {
						a.Release()
						r.arrays[i] = nil
					}
				}
				r.left -= n
				goto again
			case k == int(n):
				sel = nil
			}
		}
	}
	for c, pr := range r.prs.rs {
		if r.arrays[c] != nil {
			continue
		}
		// Compacted below when rows are dropped: the full-length buffers
		// go back to the pool at once.
		a, err := pr.ReadSelectedWith(r.ctx, int(n), sel, r.out(c))
		if err != nil {
			return r.fail(err)
		}
		r.arrays[c] = a
	}
	r.left -= n
	if r.pc.drop && sel != nil {
		k := len(r.idx)
		for c, a := range r.arrays {
			if r.pc.unread != nil && r.pc.unread[c] {
				r.arrays[c] = array.NewSlice(a, 0, int64(k))
				a.Release()
				continue
			}
			// The pool for every column: fixed-width values and the
			// offsets of strings (their bytes stay in mem, see out).
			ca, err := compactArray(r.ctx, a, sel, r.idx, r.mem, r.prs.pool.outAlloc(r.mem))
			a.Release()
			r.arrays[c] = ca
			if err != nil {
				return r.fail(err)
			}
		}
		n = int64(k)
	}
	r.cur = array.NewRecordBatch(r.pc.schema, r.arrays, n)
	for _, a := range r.arrays {
		a.Release()
	}
	if n > r.batch {
		r.pend, r.pendOff, r.cur = r.cur, 0, nil
		return r.nextPending()
	}
	return true
}

// out is the allocator of column c's buffers in the batches Next returns:
// the scan's outPool for fixed-width columns, the scan's allocator for
// the others. Strings stay out of the pool: Go strings taken from a batch
// (array.String.Value) alias its bytes, and consumers may keep them past
// the batch's release as the garbage collector allows.
func (r *pageRecordReader) out(c int) memory.Allocator {
	if !gathered(r.pc.schema.Field(c).Type) {
		return r.mem
	}
	return r.prs.pool.outAlloc(r.mem)
}

func (r *pageRecordReader) fail(err error) bool {
	for i, a := range r.arrays {
		if a != nil {
			a.Release()
			r.arrays[i] = nil
		}
	}
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		r.err = err
	case errors.Is(err, parquetpage.ErrRange):
		r.err = fmt.Errorf("%w: %v", ErrUnsupported, err)
	default:
		r.err = fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return false
}

// filterStage is one conjunct of a staged filter and the batch columns
// it reads.
type filterStage struct {
	conj *bound
	cols []int
	dict *parquetpage.DictFilter // see dictFilter
}

// filterStages orders the conjuncts of pred (an AND): those over one
// fixed-width column first (a typed loop over every row costs little and
// usually drops most), then the others as written.
func filterStages(pred *bound, cols map[string]int, sch *arrow.Schema) []filterStage {
	var first, rest []filterStage
	for _, ch := range conjuncts(pred, nil) {
		st := filterStage{conj: ch}
		fixed := true
		for _, name := range ch.fieldsOrNil() {
			c := cols[name]
			st.cols = append(st.cols, c)
			fixed = fixed && gathered(sch.Field(c).Type)
		}
		if fixed && ch.op != OpAnd && ch.op != OpOr {
			first = append(first, st)
		} else {
			rest = append(rest, st)
		}
	}
	return append(first, rest...)
}

// conjuncts appends the conjuncts of b to out, nested ANDs flattened
// (the planner's Q19 filter is ((shipmode AND shipinstruct) AND (...)):
// one column per stage is what lets a stage be answered on a dictionary.
func conjuncts(b *bound, out []*bound) []*bound {
	if b.op != OpAnd {
		return append(out, b)
	}
	for _, ch := range b.children {
		out = conjuncts(ch, out)
	}
	return out
}

// evalStaged evaluates a staged filter into sel: stage by stage, each
// column read when the first conjunct needing it comes, for the rows the
// conjuncts before kept (ReadSelected leaves the others' values empty).
// The answer is exact on every row: a row leaves sel only on a conjunct
// that saw its real values, and a later re-evaluation of the whole filter
// on the batch (the stepper's, when the reader does not drop rows) sees
// the same values there and drops it too.
func (r *pageRecordReader) evalStaged(n int64, col func(string) arrow.Array, sel []bool) error {
	for i := range sel {
		sel[i] = true
	}
	if cap(r.tmp) < int(n) {
		r.tmp = make([]bool, n)
	}
	tmp := r.tmp[:n]
	all, none := true, false
	for _, st := range r.pc.stages {
		if st.dict != nil && !none && r.arrays[st.cols[0]] == nil {
			if err := r.evalDict(st, n, col, sel, all, tmp); err != nil {
				return err
			}
		} else if err := r.evalStage(st, n, col, sel, all, none, tmp); err != nil {
			return err
		}
		all, none = true, true
		for i, t := range tmp {
			v := sel[i] && t
			sel[i] = v
			all = all && v
			none = none && !v
		}
	}
	return nil
}

// evalDict is a stage of evalStaged answered on its column's dictionary
// (parquetpage.ReadFilter) into tmp. Rows of pages not dictionary-encoded
// come back undecided with their values, and the conjunct is evaluated
// on them as on any batch.
func (r *pageRecordReader) evalDict(st filterStage, n int64, col func(string) arrow.Array, sel []bool, all bool, tmp []bool) error {
	c := st.cols[0]
	var live []bool
	if !all {
		live = sel
	}
	// Without the reader dropping rows the stepper evaluates the filter
	// again on the batch: every live row must then hold its value.
	a, exact, err := r.prs.rs[c].ReadFilter(r.ctx, int(n), live, st.dict, tmp, !r.pc.drop, r.out(c))
	if err != nil {
		return err
	}
	r.arrays[c] = a
	dictBatches.Add(1)
	if exact {
		return nil
	}
	dictInexact.Add(1)
	if cap(r.tmp2) < int(n) {
		r.tmp2 = make([]bool, n)
	}
	t2 := r.tmp2[:n]
	st.conj.evalLive(col, int(n), t2, tmp)
	for i, t := range t2 {
		tmp[i] = tmp[i] && t
	}
	return nil
}

// evalStage is a stage of evalStaged evaluated on its columns' values
// into tmp (when none, only the columns are read past the batch).
func (r *pageRecordReader) evalStage(st filterStage, n int64, col func(string) arrow.Array, sel []bool, all, none bool, tmp []bool) error {
	for _, c := range st.cols {
		if r.arrays[c] != nil {
			continue
		}
		var s []bool
		if !all {
			s = sel
		}
		a, err := r.prs.rs[c].ReadSelectedWith(r.ctx, int(n), s, r.out(c))
		if err != nil {
			return err
		}
		r.arrays[c] = a
	}
	if none {
		clear(tmp) // the columns read past the batch; nothing to test
		return nil
	}
	var live []bool
	if !all {
		live = sel
	}
	st.conj.evalLive(col, int(n), tmp, live)
	return nil
}

// dropRows clears in sel the rows pos.. that dv deletes, collects the
// selected rows into r.idx and counts the dropped rows as the stepper
// would have (RowsRead covers them too: the stepper sees only the kept).
func (r *pageRecordReader) dropRows(sel []bool, pos int64) int {
	var deleted, filtered int64
	r.idx = r.idx[:0]
	if r.pc.dv == nil {
		// No deletion vector: only the filter's choice, without a
		// branch per row on the vector.
		if cap(r.idx) < len(sel) {
			r.idx = make([]int32, 0, len(sel))
		}
		idx := r.idx[:len(sel)]
		k := 0
		for i, ok := range sel {
			idx[k] = int32(i)
			if ok {
				k++
			}
		}
		r.idx = idx[:k]
		if m := r.pc.metrics; m != nil {
			m.RowsRead += int64(len(sel) - k)
			m.RowsFiltered += int64(len(sel) - k)
		}
		return k
	}
	for i, ok := range sel {
		if r.pc.dv != nil && r.pc.dv.Contains(pos+int64(i)) {
			sel[i] = false
			deleted++
			continue
		}
		if !ok {
			filtered++
			continue
		}
		r.idx = append(r.idx, int32(i))
	}
	if m := r.pc.metrics; m != nil {
		m.RowsRead += int64(len(sel) - len(r.idx))
		m.RowsDeleted += deleted
		m.RowsFiltered += filtered
	}
	return len(r.idx)
}

// skipOthers moves the non-filter columns past n rows none of which is
// selected (sel all false), decoding no values it can skip.
func (r *pageRecordReader) skipOthers(n int64, sel []bool) error {
	for c, pr := range r.prs.rs {
		if r.pc.isPred[c] {
			continue
		}
		a, err := pr.ReadSelected(r.ctx, int(n), sel)
		if err != nil {
			return err
		}
		a.Release()
	}
	return nil
}

// gatherValidity is the validity bitmap of rows idx of d (nil when none
// of them is NULL) and their NULL count.
func gatherValidity(d arrow.ArrayData, idx []int32, mem memory.Allocator) (*memory.Buffer, int) {
	if d.NullN() == 0 || d.Buffers()[0] == nil {
		return nil, 0
	}
	off := d.Offset()
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bits := valid.Bytes()
	clear(bits)
	vb := d.Buffers()[0].Bytes()
	nulls := 0
	for j, i := range idx {
		if bitutil.BitIsSet(vb, off+int(i)) {
			bitutil.SetBit(bits, j)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		valid.Release()
		return nil, 0
	}
	return valid, nulls
}

// compactBinary is compactArray for a STRING or BINARY column: offsets
// rebased and value bytes copied one run of consecutive rows at a time.
func compactBinary(a arrow.Array, idx []int32, mem, omem memory.Allocator) arrow.Array {
	d := a.Data()
	base := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
	var src []byte
	if b := d.Buffers()[2]; b != nil {
		src = b.Bytes()
	}
	total := 0
	for j := 0; j < len(idx); {
		start := j
		for j++; j < len(idx) && idx[j] == idx[j-1]+1; j++ {
		}
		total += int(base[idx[j-1]+1] - base[idx[start]])
	}
	var offs *memory.Buffer
	if 4*len(idx) > a.Len() {
		// Most rows kept (Q1: l_returnflag, l_linestatus): offsets at
		// the input's length from omem (the scan's pool), reused batch
		// after batch as compactArray's fixed-width buffers are; they
		// were most of Q1's allocations. Go strings taken from the
		// batch alias its bytes, never its offsets, so only the bytes
		// must stay out of the pool.
		offs = memory.NewResizableBuffer(omem)
		offs.Reserve(arrow.Int32Traits.BytesRequired(a.Len() + 1))
	} else {
		offs = memory.NewResizableBuffer(mem)
	}
	offs.Resize(arrow.Int32Traits.BytesRequired(len(idx) + 1))
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	data := memory.NewResizableBuffer(mem)
	data.Resize(total)
	dst := data.Bytes()
	at := int32(0)
	o[0] = 0
	for j := 0; j < len(idx); {
		start := j
		for j++; j < len(idx) && idx[j] == idx[j-1]+1; j++ {
		}
		lo, hi := base[idx[start]], base[idx[j-1]+1]
		copy(dst[at:], src[lo:hi])
		for r := start; r < j; r++ {
			o[r+1] = at + base[idx[r]+1] - lo
		}
		at += hi - lo
	}
	valid, nulls := gatherValidity(d, idx, mem)
	nd := array.NewData(d.DataType(), len(idx), []*memory.Buffer{valid, offs, data}, nil, nulls, 0)
	offs.Release()
	data.Release()
	if valid != nil {
		valid.Release()
	}
	out := array.MakeFromData(nd)
	nd.Release()
	return out
}

// gatherRuns copies the w-byte rows idx (ascending) of src to dst, one
// copy per run of consecutive rows.
func gatherRuns(dst, src []byte, idx []int32, w int) {
	for j := 0; j < len(idx); {
		start := j
		for j++; j < len(idx) && idx[j] == idx[j-1]+1; j++ {
		}
		from := int(idx[start]) * w
		copy(dst[start*w:j*w], src[from:from+(j-start)*w])
	}
}

// gathered reports whether compactArray copies a column of type t out by
// its own gather (fixed width, whole bytes), so the input's buffers are
// not referenced by the result.
func gathered(t arrow.DataType) bool {
	fw, ok := t.(arrow.FixedWidthDataType)
	return ok && fw.BitWidth()%8 == 0 && t.ID() != arrow.BOOL
}

// compactArray returns the rows idx of a (sel marks the same rows) as a
// new array: fixed-width columns are gathered directly into buffers of
// gmem (every byte written), others go through compute.FilterArray with
// mem.
func compactArray(ctx context.Context, a arrow.Array, sel []bool, idx []int32, mem, gmem memory.Allocator) (arrow.Array, error) {
	d := a.Data()
	k := len(idx)
	if id := d.DataType().ID(); (id == arrow.STRING || id == arrow.BINARY) && len(d.Buffers()) == 3 {
		// compute.FilterArray visits a string column row by row: on a
		// range filter keeping most rows it cost more than the decoding.
		return compactBinary(a, idx, mem, gmem), nil
	}
	fw, ok := d.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || len(d.Buffers()) != 2 || d.Buffers()[1] == nil {
		mb := array.NewBooleanBuilder(mem)
		mb.AppendValues(sel[:a.Len()], nil)
		mask := mb.NewArray()
		mb.Release()
		defer mask.Release()
		return compute.FilterArray(compute.WithAllocator(ctx, mem), a, mask, *compute.DefaultFilterOptions())
	}
	w := fw.BitWidth() / 8
	off := d.Offset()
	src := d.Buffers()[1].Bytes()[off*w:]
	var buf *memory.Buffer
	if 4*k <= a.Len() {
		// Few rows kept (Q14's month of l_shipdate keeps 1/84): a
		// buffer of their size from mem, small to zero. At the input's
		// length from the pool each batch downstream would hold a
		// full-length buffer, and when a hash join's probe side waits
		// for its build those outnumber what the pool keeps: half of
		// Q14's allocations missed it, each a fresh zeroed full buffer.
		gmem = mem
		buf = memory.NewResizableBuffer(mem)
		buf.Resize(k * w)
	} else {
		buf = memory.NewResizableBuffer(gmem)
		// At the input's length: the pool reuses a buffer only at its
		// exact size, and the decoder's full-length buffers are the
		// ones it holds; one sized to the rows kept (a new size every
		// batch) missed it and cost a fresh zeroed allocation per
		// column per batch.
		buf.Reserve(a.Len() * w)
		buf.Resize(k * w)
	}
	dst := buf.Bytes()
	switch {
	case k >= a.Len()-a.Len()/8:
		// Most rows kept (a range filter like TPC-H Q1's passes 98 %):
		// copy the runs between dropped rows whole, not row by row.
		gatherRuns(dst, src, idx, w)
	case w == 4:
		s, t := arrow.Uint32Traits.CastFromBytes(src), arrow.Uint32Traits.CastFromBytes(dst)
		for j, i := range idx {
			t[j] = s[i]
		}
	case w == 8:
		s, t := arrow.Uint64Traits.CastFromBytes(src), arrow.Uint64Traits.CastFromBytes(dst)
		for j, i := range idx {
			t[j] = s[i]
		}
	case w == 16:
		// DECIMAL(p>18): two words a row, not a copy call a row.
		s, t := arrow.Uint64Traits.CastFromBytes(src), arrow.Uint64Traits.CastFromBytes(dst)
		for j, i := range idx {
			t[2*j], t[2*j+1] = s[2*i], s[2*i+1]
		}
	default:
		for j, i := range idx {
			copy(dst[j*w:(j+1)*w], src[int(i)*w:int(i+1)*w])
		}
	}
	valid, nulls := gatherValidity(d, idx, gmem)
	nd := array.NewData(d.DataType(), k, []*memory.Buffer{valid, buf}, nil, nulls, 0)
	buf.Release()
	if valid != nil {
		valid.Release()
	}
	out := array.MakeFromData(nd)
	nd.Release()
	return out, nil
}
