package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Partitioning the input rows themselves, for the operators whose state
// cannot be written out and merged later (an aggregate over DISTINCT
// values, GROUP_CONCAT, ARRAY_AGG; a window's partitions): the input is
// held in memory while it stays under the operator's share of
// exec_mem_limit and the operator runs over it as before; past it, every
// row goes to one of spillFanout files by the hash of the keys that keep
// the operator's work apart (the group keys, the window's PARTITION BY),
// and the operator runs over each file in turn, one level down, where it
// may split again. Equal keys land in one file, NULL keys all in one.

// partitionedRun is what runs over one part of the rows: over the held
// rows, or over one file (then under the deeper ctx).
type partitionedRun func(ctx context.Context, env *Env, in Operator) (array.RecordReader, error)

// rowFolder is an operator's state that rows fold into as they are read
// (an aggregate's groups), beside being held.
type rowFolder interface {
	consume(b arrow.RecordBatch) error
	output() (arrow.RecordBatch, error)
	release()
}

// folderFunc makes the state run would fold rows into; nil for operators
// that need all their rows at once (a window).
type folderFunc func(env *Env) (rowFolder, error)

// foldRatio: when the held rows reach the operator's share, a state that
// grew by less than 1/foldRatio of the later half of them (few groups,
// few distinct values) keeps folding the rest in memory instead of
// sending all to disk.
const foldRatio = 4

// openPartitioned reads input at the first Next and streams run's output
// over the held rows, or over each file in turn. Files are deleted as they
// are read, and the rest when the reader is released, however it ends.
// copies is how many times the rows' size run holds at its peak over
// them (input, its own copies, its state), so the rows held stay within
// the operator's share of the limit.
func openPartitioned(ctx context.Context, env *Env, sp *spillConfig, input Operator, keys []expr.Expr,
	what string, copies int64, schema *arrow.Schema, run partitionedRun, fold folderFunc) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if _, _, ok := memlimit.Usage(env.Mem); !ok {
		// No limit to spill under: the operator as it runs in memory,
		// holding nothing more.
		return run(withoutSpill(ctx), env, input)
	}
	in, err := OpenOp(ctx, env, input)
	if err != nil {
		return nil, err
	}
	buf := &batchesOp{schema: input.Schema()}
	releaseBuf := func() {
		for _, b := range buf.batches {
			b.Release()
		}
		buf.batches = nil
	}
	var parts *partitioner
	var cur array.RecordReader
	var fd rowFolder
	inMemory := false // the rest folds into fd, and nothing is held
	part := 0
	started := false
	// read holds or partitions the whole input.
	read := func() error {
		if fold != nil {
			var err error
			if fd, err = fold(env); err != nil {
				return err
			}
		}
		// held: the rows' bytes; state: what folding them allocated and
		// kept; snap and prev: both when held last doubled, and the time
		// before, so the state's growth is judged over the later rows,
		// not the tables' first allocations.
		var held, state int64
		snapHeld, snapState := int64(-1), int64(0)
		prevHeld, prevState := int64(-1), int64(0)
		for in.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			b := in.RecordBatch()
			if fd != nil {
				u0, _, _ := memlimit.Usage(env.Mem)
				if err := fd.consume(b); err != nil {
					return err
				}
				u1, _, _ := memlimit.Usage(env.Mem)
				state += u1 - u0
				if inMemory {
					continue
				}
			}
			if parts != nil {
				if err := parts.add(ctx, env, b); err != nil {
					return err
				}
				continue
			}
			b.Retain()
			buf.batches = append(buf.batches, b)
			held += memlimit.BatchBytes(b)
			if snapHeld < 0 || held >= 2*snapHeld {
				prevHeld, prevState = snapHeld, snapState
				snapHeld, snapState = held, state
			}
			if spillNeeded(env, held*copies) {
				if fd != nil {
					refHeld, refState := snapHeld, snapState
					if refHeld == held {
						refHeld, refState = prevHeld, prevState
					}
					if refHeld >= 0 && (state-refState)*foldRatio < held-refHeld {
						inMemory = true
						releaseBuf()
						continue
					}
					fd.release()
					fd = nil
				}
				parts = newPartitioner(sp, input.Schema(), keys, what)
				for _, x := range buf.batches {
					if err := parts.add(ctx, env, x); err != nil {
						return err
					}
				}
				releaseBuf()
			}
		}
		if err := in.Err(); err != nil {
			return err
		}
		in.Release()
		in = nil
		if parts != nil {
			return parts.finish()
		}
		return nil
	}
	sub := sp.deeper(ctx)
	next := func() (arrow.RecordBatch, error) {
		if !started {
			started = true
			if err := read(); err != nil {
				return nil, err
			}
			switch {
			case fd != nil:
				// It fit, or its state was small: the state folded is the
				// answer.
				releaseBuf()
				out, err := fd.output()
				fd.release()
				fd = nil
				if err != nil {
					return nil, err
				}
				if out != nil {
					res := &batchesOp{schema: schema}
					for off := int64(0); off < out.NumRows(); off += outputChunk {
						res.batches = append(res.batches, out.NewSlice(off, min(off+outputChunk, out.NumRows())))
					}
					out.Release()
					if cur, err = res.Open(ctx, env); err != nil {
						return nil, err
					}
				}
			case parts == nil:
				// It fit: run in memory over the held rows (released as
				// they are read).
				if cur, err = run(withoutSpill(ctx), env, buf); err != nil {
					return nil, err
				}
			}
		}
		for {
			if cur != nil {
				if cur.Next() {
					b := cur.RecordBatch()
					b.Retain()
					return b, nil
				}
				err := cur.Err()
				cur.Release()
				cur = nil
				if err != nil {
					return nil, err
				}
			}
			if parts == nil || part == spillFanout {
				return nil, nil
			}
			f := parts.take(part)
			part++
			if f == nil {
				continue
			}
			if cur, err = run(sub, env, &spillScan{file: f}); err != nil {
				f.remove()
				return nil, err
			}
		}
	}
	closeFn := func() {
		if in != nil {
			in.Release()
		}
		releaseBuf()
		if fd != nil {
			fd.release()
		}
		if cur != nil {
			cur.Release()
		}
		if parts != nil {
			parts.remove()
		}
	}
	return newPullReader(ctx, schema, next, closeFn), nil
}

// withoutSpill is ctx for an operator that must run in memory (over rows
// its caller decided to hold rather than to split).
func withoutSpill(ctx context.Context) context.Context {
	return context.WithValue(ctx, spillKey{}, (*spillConfig)(nil))
}
