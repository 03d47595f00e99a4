package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// A partitioned aggregation (Doris enable_spill): rows fold into the
// group table as usual; when the statement's memory passes the
// aggregation's share, the groups so far are written out as partial
// states (keys and states, as AggPartial emits them), split into
// spillFanout files by key hash, and folding starts over with an empty
// table. At the end each partition's states are merged by an AggFinal
// aggregate of their own, which may spill again one level down. Only
// aggregates whose states merge in any order spill (COUNT, SUM, MIN, MAX,
// AVG without DISTINCT); the others run in memory as before. Groups come
// out partition by partition, not in first-seen order.

func (h *HashAggregate) canSpill(sp *spillConfig) bool {
	return len(h.GroupBy) > 0 && (h.Mode == AggSingle || h.Mode == AggFinal) && h.statesMerge() && sp.level < spillMaxLevel
}

// stateSchema is the schema of the partial states this aggregate spills:
// its own input when it merges states already.
func (h *HashAggregate) stateSchema() (*arrow.Schema, []expr.Expr, error) {
	var schema *arrow.Schema
	if h.Mode == AggFinal {
		schema = h.Input.Schema()
	} else {
		p, err := NewHashAggregate(h.Input, h.GroupBy, h.groupNames, h.Aggs, AggPartial)
		if err != nil {
			return nil, nil, err
		}
		schema = p.schema
	}
	keys := make([]expr.Expr, len(h.GroupBy))
	for i := range keys {
		f := schema.Field(i)
		keys[i] = expr.Col(i, f.Name, f.Type)
	}
	return schema, keys, nil
}

func (h *HashAggregate) openSpilling(ctx context.Context, env *Env, sp *spillConfig) (array.RecordReader, error) {
	schema, stateKeys, err := h.stateSchema()
	if err != nil {
		return nil, err
	}
	in, err := OpenOp(ctx, env, h.Input)
	if err != nil {
		return nil, err
	}
	var st *aggState
	var parts *partitioner
	var out arrow.RecordBatch // in-memory result when nothing spilled
	var pos int64
	var merged array.RecordReader
	part := 0
	started := false

	// dump writes st's groups out as states and empties it.
	dump := func() error {
		if parts == nil {
			parts = newPartitioner(sp, schema, stateKeys, "agg-state")
		}
		n := st.gt.n
		if n > 0 {
			cols := st.gt.keyArrays()
			for _, acc := range st.accs {
				cols = append(cols, acc.states(env.Mem, n)...)
			}
			b := array.NewRecordBatch(schema, cols, int64(n))
			releaseArrays(cols)
			st.release()
			st = nil
			keys := b.Columns()[:len(h.GroupBy)]
			err := parts.addKeyed(ctx, env, b, keys)
			b.Release()
			if err != nil {
				return err
			}
		}
		if st != nil {
			st.release()
		}
		var err error
		st, err = h.newAggState(env)
		return err
	}
	start := func() error {
		var err error
		if st, err = h.newAggState(env); err != nil {
			return err
		}
		base, _, _ := memlimit.Usage(env.Mem)
		for in.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			// Fold a large batch in slices, so the table is written out
			// before one batch's groups take it past the limit.
			b := in.RecordBatch()
			rows := b.NumRows()
			step := rows
			if bb := memlimit.BatchBytes(b); bb > 0 {
				step = max(256, rows*spillBatchBytes(env)/bb)
			}
			for off := int64(0); off < rows; off += step {
				sl := b
				if step < rows {
					sl = b.NewSlice(off, min(off+step, rows))
				}
				err := st.consume(sl)
				if step < rows {
					sl.Release()
				}
				if err != nil {
					return err
				}
				if used, _, _ := memlimit.Usage(env.Mem); spillNeeded(env, used-base) {
					if err := st.overflow(); err != nil {
						return err
					}
					if err := dump(); err != nil {
						return err
					}
					base, _, _ = memlimit.Usage(env.Mem)
				}
			}
		}
		if err := in.Err(); err != nil {
			return err
		}
		in.Release()
		in = nil
		if parts == nil {
			out, err = st.output()
			return err
		}
		if err := st.overflow(); err != nil {
			return err
		}
		if err := dump(); err != nil {
			return err
		}
		st.release()
		st = nil
		return parts.finish()
	}
	sub := sp.deeper(ctx)
	next := func() (arrow.RecordBatch, error) {
		if !started {
			started = true
			if err := start(); err != nil {
				return nil, err
			}
		}
		if parts == nil {
			if out == nil || pos >= out.NumRows() {
				return nil, nil
			}
			end := min(pos+outputChunk, out.NumRows())
			b := out.NewSlice(pos, end)
			pos = end
			return b, nil
		}
		for {
			if merged != nil {
				if merged.Next() {
					b := merged.RecordBatch()
					b.Retain()
					return b, nil
				}
				err := merged.Err()
				merged.Release()
				merged = nil
				if err != nil {
					return nil, err
				}
			}
			if part == spillFanout {
				return nil, nil
			}
			f := parts.take(part)
			part++
			if f == nil {
				continue
			}
			final, err := NewHashAggregate(&spillScan{file: f}, stateKeys, h.groupNames, h.Aggs, AggFinal)
			if err != nil {
				f.remove()
				return nil, err
			}
			if merged, err = final.Open(sub, env); err != nil {
				return nil, err
			}
		}
	}
	closeFn := func() {
		if in != nil {
			in.Release()
		}
		if st != nil {
			st.release()
		}
		if out != nil {
			out.Release()
		}
		if merged != nil {
			merged.Release()
		}
		if parts != nil {
			parts.remove()
		}
	}
	return newPullReader(ctx, h.schema, next, closeFn), nil
}
