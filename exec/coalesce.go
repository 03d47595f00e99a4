package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
// the order of rows are unchanged.
func coalesce(ctx context.Context, env *Env, in array.RecordReader) array.RecordReader {
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
		out, err := concatBatches(env, in.Schema(), pending)
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
