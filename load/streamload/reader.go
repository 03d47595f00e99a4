package streamload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// ErrFiltered is a load whose filtered rows exceed max_filter_ratio.
var ErrFiltered = errors.New("too many filtered rows")

const (
	batchRows  = 16384
	batchBytes = 8 << 20
)

// decoder is a body format: rows of source values.
type decoder interface {
	// next returns the next row (valid until the next call); a *rowError
	// is one bad row, io.EOF the end of the body.
	next() ([][]byte, []bool, error)
	// rawRow is the last row's text, for the error log.
	rawRow() []byte
}

func (c *csvReader) rawRow() []byte  { return c.raw }
func (j *jsonReader) rawRow() []byte { return j.raw }

// counts are a load's row counters.
type counts struct {
	total, loaded, filtered, unselected int64
}

// loadReader is the record stream handed to catalog.Loader: it decodes the
// body batch by batch, maps it to the table's columns, drops filtered and
// unselected rows, and at the end of the body fails (so the Load is
// abandoned) if the filtered ratio is over the limit.
type loadReader struct {
	refs   atomic.Int64
	ctx    context.Context
	mem    memory.Allocator
	env    *expr.Env
	dec    decoder
	pl     *plan
	fmtCSV bool
	ratio  float64
	log    *errLog

	srcB   []*array.StringBuilder // per source column; nil unless an expression reads it
	outB   []array.Builder        // per output column; nil unless it has a fast appender
	rowNum []int64                // body row number of each batch row
	bad    []bool                 // batch rows already rejected
	cur    arrow.RecordBatch
	err    error
	done   bool
	n      counts
	eofAt  time.Time // when the body ended: commit time is measured from here

	// Decoding runs one batch ahead of the Loader in its own goroutine, so
	// parsing overlaps the Loader's writes. Until stop returns, every field
	// above except cur is the producer's.
	ch      chan arrow.RecordBatch
	quit    chan struct{}
	stopped chan struct{}
	out     arrow.RecordBatch // the consumer's current batch

	// Parallel decoding (parallel.go): workers > 0 splits body among that
	// many decoders. A worker's own reader has chunk set: it keeps its
	// rejected rows (numbered within the chunk) for the merger to log.
	// hintRows and hintData size the next batch's builders from the last
	// one, so that a batch does not regrow every buffer from empty.
	hintRows int
	hintData []int

	workers   int
	body      *buffer
	csvParams *Params
	chunk     bool
	rejects   []rejected
	extra     int64
}

func newLoadReader(ctx context.Context, mem memory.Allocator, env *expr.Env, dec decoder, pl *plan, p *Params, log *errLog) *loadReader {
	r := &loadReader{ctx: ctx, mem: mem, env: env, dec: dec, pl: pl, fmtCSV: p.Format == CSV, ratio: p.MaxFilterRatio, log: log}
	r.refs.Store(1)
	r.srcB = make([]*array.StringBuilder, len(pl.src))
	for i := range r.srcB {
		if pl.needStr[i] {
			r.srcB[i] = array.NewStringBuilder(mem)
		}
	}
	r.outB = make([]array.Builder, len(pl.out))
	for i, o := range pl.out {
		if o.fast != nil {
			r.outB[i] = array.NewBuilder(mem, o.typ)
		}
	}
	if c, ok := dec.(*csvReader); ok {
		if r.workers = parallelWorkers(pl, p); r.workers > 0 {
			r.body, r.csvParams = c.b, p
		}
	}
	return r
}

func (r *loadReader) Retain() { r.refs.Add(1) }
func (r *loadReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.stop()
		if r.out != nil {
			r.out.Release()
			r.out = nil
		}
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		for _, b := range r.srcB {
			if b != nil {
				b.Release()
			}
		}
		for _, b := range r.outB {
			if b != nil {
				b.Release()
			}
		}
		r.srcB, r.outB = nil, nil
	}
}
func (r *loadReader) Schema() *arrow.Schema          { return r.pl.outSchema }
func (r *loadReader) RecordBatch() arrow.RecordBatch { return r.out }

// Record is the deprecated name of RecordBatch.
func (r *loadReader) Record() arrow.RecordBatch { return r.out }

// Err is the stream's error once Next has returned false.
func (r *loadReader) Err() error {
	if r.stopped != nil {
		select {
		case <-r.stopped:
			return r.err
		default:
			return nil
		}
	}
	return r.err
}

func (r *loadReader) Next() bool {
	if r.out != nil {
		r.out.Release()
		r.out = nil
	}
	if r.ch == nil {
		r.ch = make(chan arrow.RecordBatch, 1)
		r.quit = make(chan struct{})
		r.stopped = make(chan struct{})
		if r.workers > 0 {
			go r.produceParallel(r.workers)
		} else {
			go r.produce()
		}
	}
	b, ok := <-r.ch
	if !ok {
		<-r.stopped
		return false
	}
	r.out = b
	return true
}

func (r *loadReader) produce() {
	defer close(r.stopped)
	defer close(r.ch)
	for r.decodeNext() {
		b := r.cur
		r.cur = nil
		select {
		case r.ch <- b:
		case <-r.quit:
			b.Release()
			return
		}
	}
}

// stop ends the producer (if any) and waits for it; the counters are then
// the consumer's to read.
func (r *loadReader) stop() {
	if r.ch == nil {
		return
	}
	select {
	case <-r.quit:
	default:
		close(r.quit)
	}
	for b := range r.ch {
		b.Release()
	}
	<-r.stopped
}

// decodeNext makes the next output batch in r.cur.
func (r *loadReader) decodeNext() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for !r.done && r.err == nil {
		n, err := r.fill()
		if err != nil {
			r.err = err
			break
		}
		if n == 0 {
			r.done = true
			r.eofAt = time.Now()
			if r.n.filtered > 0 && float64(r.n.filtered) > r.ratio*float64(r.n.filtered+r.n.loaded) {
				r.err = fmt.Errorf("%w: %d of %d rows filtered, over max_filter_ratio %g", ErrFiltered, r.n.filtered, r.n.total, r.ratio)
			}
			break
		}
		out, err := r.convert(n)
		if err != nil {
			r.err = err
			break
		}
		if out != nil {
			r.cur = out
			return true
		}
	}
	return false
}

// fill decodes up to one batch of rows into the builders and returns how
// many; 0 at the end of the body.
func (r *loadReader) fill() (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, fmt.Errorf("load cancelled: %w", context.Cause(r.ctx))
	}
	r.rowNum, r.bad = r.rowNum[:0], r.bad[:0]
	if r.hintRows > 0 {
		for i, b := range r.outB {
			if b == nil {
				continue
			}
			b.Reserve(r.hintRows)
			if sb, ok := b.(*array.StringBuilder); ok {
				sb.ReserveData(r.hintData[i])
			}
		}
	}
	size := 0
	ncol := len(r.pl.src)
	for len(r.rowNum) < batchRows && size < batchBytes {
		vals, nulls, err := r.dec.next()
		if err == io.EOF {
			break
		}
		var re *rowError
		if err != nil && !errors.As(err, &re) {
			return 0, err
		}
		r.n.total++
		if re != nil {
			r.reject(r.n.total, re.msg, r.dec.rawRow())
			continue
		}
		if r.fmtCSV && len(vals) != ncol {
			r.reject(r.n.total, fmt.Sprintf("actual column number %d does not match schema column number %d", len(vals), ncol), r.dec.rawRow())
			continue
		}
		if len(r.rowNum)%4096 == 4095 && r.ctx.Err() != nil {
			return 0, fmt.Errorf("load cancelled: %w", context.Cause(r.ctx))
		}
		r.rowNum = append(r.rowNum, r.n.total)
		r.bad = append(r.bad, false)
		row := len(r.rowNum) - 1
		for i, b := range r.srcB {
			if b == nil {
				continue
			}
			if nulls[i] {
				b.AppendNull()
			} else {
				b.BinaryBuilder.Append(vals[i])
			}
		}
		for ci, b := range r.outB {
			if b == nil {
				continue
			}
			oc := &r.pl.out[ci]
			s := oc.direct
			size += len(vals[s])
			if nulls[s] {
				b.AppendNull()
				if !oc.nullable {
					r.markBad(row, fmt.Sprintf("column %q is NOT NULL but the value is NULL", oc.name))
				}
				continue
			}
			if oc.limit > 0 && len(vals[s]) > oc.limit {
				b.AppendNull()
				r.markBad(row, oc.tooLong(len(vals[s])))
				continue
			}
			if oc.fast(b, vals[s]) {
				continue
			}
			b.AppendNull()
			switch {
			case len(trim(vals[s])) == 0 && oc.typ.ID() != arrow.STRING:
				// An empty field is NULL, as CAST('' AS INT) is.
				if !oc.nullable {
					r.markBad(row, fmt.Sprintf("column %q is NOT NULL but the value is empty", oc.name))
				}
			case r.pl.strict || !oc.nullable:
				r.markBad(row, fmt.Sprintf("column %q: value %q cannot be converted to %s", oc.name, clip(vals[s]), expr.TypeName(oc.typ)))
			}
		}
	}
	return len(r.rowNum), nil
}

func clip(v []byte) string {
	if len(v) > 256 {
		return string(v[:256]) + "…"
	}
	return string(v)
}

// markBad rejects a row of the batch being filled (its raw text is the
// decoder's current row).
func (r *loadReader) markBad(row int, reason string) {
	if r.bad[row] {
		return
	}
	r.bad[row] = true
	r.reject(r.rowNum[row], reason, r.dec.rawRow())
}

func (r *loadReader) reject(row int64, reason string, raw []byte) {
	r.n.filtered++
	if r.chunk {
		// The chunk's bytes are reused once decoded: keep a copy.
		if len(r.rejects) >= maxLogRows {
			r.extra++
			return
		}
		if len(raw) > maxLogRow {
			raw = raw[:maxLogRow]
		}
		r.rejects = append(r.rejects, rejected{row: row, reason: reason, raw: append([]byte(nil), raw...)})
		return
	}
	if r.log != nil {
		r.log.add(row, reason, raw)
	}
}

// convert builds the batch's output columns, rejects rows whose derived
// values break NOT NULL (or, for columns of uncommon types, whose values
// do not convert), and drops rejected and unselected rows.
func (r *loadReader) convert(n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(r.pl.out))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	if r.hintData == nil {
		r.hintData = make([]int, len(r.outB))
	}
	r.hintRows = n
	for ci, b := range r.outB {
		if b != nil {
			if sb, ok := b.(*array.StringBuilder); ok {
				r.hintData[ci] = sb.DataLen()
			}
			cols[ci] = b.NewArray()
		}
	}
	var src arrow.RecordBatch
	for ci, oc := range r.pl.out {
		if cols[ci] != nil {
			continue
		}
		if src == nil {
			src = r.sourceBatch(n)
			defer src.Release()
		}
		var a arrow.Array
		var err error
		if oc.limit > 0 && oc.typ.ID() == arrow.STRING {
			a, err = r.evalLimited(&oc, src, n)
		} else {
			a, err = oc.e.Eval(r.env, src)
		}
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", oc.name, err)
		}
		cols[ci] = a
		if a.NullN() == 0 {
			continue
		}
		var in arrow.Array
		if oc.direct >= 0 {
			in = src.Column(oc.direct)
		}
		for i := 0; i < n; i++ {
			if !a.IsNull(i) || r.bad[i] {
				continue
			}
			convFail := in != nil && in.IsValid(i) && !isEmptyString(in, i)
			var reason string
			switch {
			case convFail && (r.pl.strict || !oc.nullable):
				reason = fmt.Sprintf("column %q: value %q cannot be converted to %s", oc.name, in.(*array.String).Value(i), expr.TypeName(a.DataType()))
			case !oc.nullable:
				reason = fmt.Sprintf("column %q is NOT NULL but the value is NULL", oc.name)
			default:
				continue
			}
			r.bad[i] = true
			r.reject(r.rowNum[i], reason, []byte(srcRow(src, i)))
		}
	}
	out := array.NewRecordBatch(r.pl.outSchema, cols, int64(n))
	defer out.Release()
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = !r.bad[i]
	}
	if r.pl.where != nil {
		m, err := r.pl.where.Eval(r.env, out)
		if err != nil {
			return nil, fmt.Errorf("where: %w", err)
		}
		mask := m.(*array.Boolean)
		for i := range keep {
			if keep[i] && !(mask.IsValid(i) && mask.Value(i)) {
				keep[i] = false
				r.n.unselected++
			}
		}
		m.Release()
	}
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	r.n.loaded += int64(kept)
	switch kept {
	case 0:
		return nil, nil
	case n:
		out.Retain()
		return out, nil
	}
	bb := array.NewBooleanBuilder(r.mem)
	defer bb.Release()
	bb.AppendValues(keep, nil)
	mask := bb.NewArray()
	defer mask.Release()
	return compute.FilterRecordBatch(compute.WithAllocator(r.ctx, r.mem), out, mask, compute.DefaultFilterOptions())
}

// tooLong is the reason of a row whose value for oc has size bytes.
func (oc *outCol) tooLong(size int) string {
	return fmt.Sprintf("column %q: the value has %d bytes, longer than the column's %s", oc.name, size, oc.limitType)
}

// evalLimited evaluates oc, a CHAR/VARCHAR column, over the batch's rows in
// slices sized so that one slice's values come to about batchBytes, and
// rejects each row whose value is longer than the column holds (the value
// becomes NULL). A derived column may make up to expr.MaxStringBytes per
// row (columns: s=repeat('x', 16000000)); over a whole batch that would be
// gigabytes built only to be refused. The first slice is one row, so a
// bomb costs one value at a time; ordinary values grow the next slice to
// the rest of the batch.
func (r *loadReader) evalLimited(oc *outCol, src arrow.RecordBatch, n int) (arrow.Array, error) {
	b := array.NewStringBuilder(r.mem)
	defer b.Release()
	b.Reserve(n)
	step := 1
	for lo := 0; lo < n; {
		hi := min(n, lo+step)
		part := src.NewSlice(int64(lo), int64(hi))
		a, err := oc.e.Eval(r.env, part)
		part.Release()
		if err != nil {
			return nil, err
		}
		s, ok := a.(*array.String)
		if !ok {
			a.Release()
			return nil, fmt.Errorf("derived value of type %s for a %s column", a.DataType(), oc.limitType)
		}
		for i := 0; i < s.Len(); i++ {
			row := lo + i
			switch v := s.Value(i); {
			case s.IsNull(i):
				b.AppendNull()
			case len(v) > oc.limit:
				b.AppendNull()
				if !r.bad[row] {
					r.bad[row] = true
					r.reject(r.rowNum[row], oc.tooLong(len(v)), []byte(srcRow(src, row)))
				}
			default:
				b.Append(v)
			}
		}
		per := len(s.ValueBytes())/max(1, s.Len()) + 1
		a.Release()
		lo = hi
		step = max(1, min(n-lo, batchBytes/per))
	}
	return b.NewArray(), nil
}

// sourceBatch is the batch's source columns as strings (all NULL for a
// column no expression reads).
func (r *loadReader) sourceBatch(n int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(r.srcB))
	for i, b := range r.srcB {
		if b != nil {
			cols[i] = b.NewArray()
		} else {
			cols[i] = array.MakeArrayOfNull(r.mem, arrow.BinaryTypes.String, n)
		}
	}
	rec := array.NewRecordBatch(r.pl.srcSchema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func isEmptyString(a arrow.Array, i int) bool {
	s, ok := a.(*array.String)
	return ok && strings.TrimSpace(s.Value(i)) == ""
}

// srcRow renders a source row for the error log.
func srcRow(src arrow.RecordBatch, i int) string {
	var sb strings.Builder
	for c := 0; c < int(src.NumCols()); c++ {
		if c > 0 {
			sb.WriteString(", ")
		}
		col := src.Column(c).(*array.String)
		if col.IsNull(i) {
			sb.WriteString(`\N`)
		} else {
			sb.WriteString(col.Value(i))
		}
		if sb.Len() > maxLogRow {
			break
		}
	}
	return sb.String()
}
