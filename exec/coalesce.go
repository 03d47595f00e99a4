package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// A selective join (Q17: 200 part rows probed by 6 M lineitem rows, one
// match in a thousand) yields a batch of a few rows per probe batch, and
// every operator above pays its per-batch cost (expression setup, one
// allocation per column) for each. coalesce merges such runs of small
// batches into batches of about coalesceRows rows.
const (
	coalesceRows = 4096
	// coalesceSmall: a batch with at least this many rows is passed on as
	// it is (after the pending ones), copying it would cost more than
	// the per-batch work it saves.
	coalesceSmall = coalesceRows / 4
	// coalesceBytes bounds the buffers the pending batches keep alive
	// (their whole buffers, also when a batch is a slice of a larger
	// one), or less under a statement limit (budget); they stay counted
	// by the statement's allocator meanwhile.
	coalesceBytes = 4 << 20
)

// joinCoalesce turns coalesce on; benchmarks turn it off to compare.
var joinCoalesce = true

// coalesce wraps in (taking it over) so that runs of batches smaller than
// coalesceSmall rows come out concatenated, in order; larger batches and
// the order of rows are unchanged. Only the columns need (nil: all) are
// copied; the others are placeholders nobody reads (joinprune.go).
func coalesce(ctx context.Context, env *Env, in array.RecordReader, need []int) array.RecordReader {
	if !joinCoalesce {
		return in
	}
	// budget: a 64th of the statement's limit and an eighth of what is
	// left of it, so that merging (which copies the pending batches once)
	// never pushes a statement near its limit over it; a single pending
	// batch is passed on without a copy.
	budget := func() int64 {
		b := int64(coalesceBytes)
		if used, limit, ok := memlimit.Usage(env.Mem); ok {
			b = min(b, limit/64, (limit-used)/8)
		}
		return b
	}
	var pending []arrow.RecordBatch
	var rows, bytes int64
	var queued arrow.RecordBatch // a large batch that follows a flush
	drop := func() {
		for _, b := range pending {
			b.Release()
		}
		pending, rows, bytes = pending[:0], 0, 0
	}
	flush := func() (arrow.RecordBatch, error) {
		if len(pending) == 0 {
			return nil, nil
		}
		out, err := mergeBatchesOf(env, in.Schema(), pending, need)
		drop()
		return out, err
	}
	next := func() (arrow.RecordBatch, error) {
		if queued != nil {
			b := queued
			queued = nil
			return b, nil
		}
		for {
			if !in.Next() {
				if err := in.Err(); err != nil {
					return nil, err
				}
				return flush()
			}
			b := in.RecordBatch()
			n := b.NumRows()
			if n == 0 {
				continue
			}
			b.Retain()
			if n >= coalesceSmall {
				if len(pending) == 0 {
					return b, nil
				}
				queued = b
				return flush()
			}
			pending = append(pending, b)
			rows += n
			bytes += memlimit.BatchBytes(b)
			if rows >= coalesceRows || bytes >= budget() {
				return flush()
			}
		}
	}
	closeFn := func() {
		drop()
		if queued != nil {
			queued.Release()
			queued = nil
		}
		in.Release()
	}
	return newPullReader(ctx, in.Schema(), next, closeFn)
}

// mergeBatchesOf is concatBatches with concatFast's typed copies: arrow's
// Concatenate costs several times more per part, and a merge here has
// hundreds of parts of a few rows. Only the columns need (nil: all) are copied; each other column is a
// placeholder of the right length: a slice of the first batch's column
// when it is long enough, else NULLs.
func mergeBatchesOf(env *Env, schema *arrow.Schema, bs []arrow.RecordBatch, need []int) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(bs))
	for c := range cols {
		if need != nil && !slices.Contains(need, c) {
			if first := bs[0].Column(c); int64(first.Len()) >= rows {
				cols[c] = array.NewSlice(first, 0, rows)
			} else {
				cols[c] = array.MakeArrayOfNull(memlimit.Lenient(env.Mem), first.DataType(), int(rows))
			}
			continue
		}
		for k, b := range bs {
			parts[k] = b.Column(c)
		}
		// Lenient: a copy bounded by budget, counted but not refused, so
		// that a refusal never strands the buffers made so far.
		a := concatFast(memlimit.Lenient(env.Mem), parts, int(rows))
		if a == nil {
			var err error
			if a, err = concatenate(parts, env.Mem); err != nil {
				releaseArrays(cols[:c])
				return nil, err
			}
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(schema, cols, rows)
	releaseArrays(cols)
	return out, nil
}

// concatFast concatenates parts (n rows in all) of a type gatherFast
// copies; nil for other types.
func concatFast(mem memory.Allocator, parts []arrow.Array, n int) arrow.Array {
	t := parts[0].DataType()
	if !gatherable(t) {
		return nil
	}
	var bufs []*memory.Buffer
	switch t.ID() {
	case arrow.STRING, arrow.BINARY:
		total := 0
		for _, p := range parts {
			d := p.Data()
			offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
			total += int(offs[p.Len()] - offs[0])
		}
		ob := memory.NewResizableBuffer(mem)
		ob.Resize((n + 1) * 4)
		db := memory.NewResizableBuffer(mem)
		db.Resize(total)
		to, tb := arrow.Int32Traits.CastFromBytes(ob.Bytes()), db.Bytes()
		pos, i := int32(0), 0
		for _, p := range parts {
			d := p.Data()
			offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
			base := offs[0]
			for r := 0; r < p.Len(); r++ {
				to[i] = pos + offs[r] - base
				i++
			}
			if end := offs[p.Len()]; end > base {
				copy(tb[pos:], d.Buffers()[2].Bytes()[base:end])
				pos += end - base
			}
		}
		to[n] = pos
		bufs = []*memory.Buffer{nil, ob, db}
	default:
		w := t.(arrow.FixedWidthDataType).BitWidth() / 8
		vb := memory.NewResizableBuffer(mem)
		vb.Resize(n * w)
		dst := vb.Bytes()
		i := 0
		for _, p := range parts {
			d := p.Data()
			src := d.Buffers()[1].Bytes()
			i += copy(dst[i:], src[d.Offset()*w:(d.Offset()+p.Len())*w])
		}
		bufs = []*memory.Buffer{nil, vb}
	}
	nulls := 0
	for _, p := range parts {
		nulls += p.NullN()
	}
	if nulls > 0 {
		nb := memory.NewResizableBuffer(mem)
		nb.Resize(int(bitutil.BytesForBits(int64(n))))
		bm := nb.Bytes()
		clear(bm)
		i := 0
		for _, p := range parts {
			for r := 0; r < p.Len(); r++ {
				if p.IsValid(r) {
					bitutil.SetBit(bm, i)
				}
				i++
			}
		}
		bufs[0] = nb
	}
	out := array.NewData(t, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out)
}
