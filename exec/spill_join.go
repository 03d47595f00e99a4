package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// A grace hash join (Doris enable_spill): while the build side fits its
// share of exec_mem_limit the join runs in memory as before; past it, both
// sides are written to spillFanout files each by the hash of their join
// keys, and each pair of files is joined on its own, recursively, with
// the next level's hash, when its build side is still too large. Rows of
// equal keys meet in one partition; a NULL key matches nothing, so rows
// with one only have to come out once, which they do in whichever
// partition they land. The output is no longer in probe-side order.

// canSpill says whether the join may go to disk: it needs keys (a nested
// loop has no partitioning).
//
// A NOT IN join's NULL rule looks at every build row: a NULL key among
// them means no rows at all, and a probe row with a NULL key is kept only
// when there are none. So the build side's NULL keys are looked for as it
// is read; with one, nothing is probed; without, the probe rows with a
// NULL key are dropped (a build side that spills is not empty) and each
// partition pair is joined as before: its probe rows have no NULL key, its
// build rows none either.
func (j *HashJoin) canSpill(sp *spillConfig) bool {
	return len(j.lk) > 0 && sp.level < spillMaxLevel
}

// hasNullKey says whether some row of b has a NULL key (for NOT IN).
func (j *HashJoin) hasNullKey(env *Env, keys []expr.Expr, b arrow.RecordBatch) (bool, error) {
	ks, err := evalKeys(env, keys, b)
	if err != nil {
		return false, err
	}
	defer releaseArrays(ks)
	return anyNullKey(ks, int(b.NumRows())) != nil, nil
}

func (j *HashJoin) openSpilling(ctx context.Context, env *Env, sp *spillConfig) (array.RecordReader, error) {
	// A join that spills is short of memory: the partition joins run on
	// one goroutine, so no batches wait in flight beside their tables.
	ctx = WithParallelism(ctx, 1)
	right, err := OpenOp(ctx, env, j.Right)
	if err != nil {
		return nil, err
	}
	defer right.Release()
	buf := &batchesOp{schema: j.Right.Schema()}
	releaseBuf := func() {
		for _, b := range buf.batches {
			b.Release()
		}
		buf.batches = nil
	}
	var held int64
	var rp *partitioner
	notIn := j.Type == NullAwareLeftAntiJoin
	rightNull := false
	for right.Next() {
		b := right.RecordBatch()
		if notIn && !rightNull {
			if rightNull, err = j.hasNullKey(env, j.rk, b); err != nil {
				releaseBuf()
				if rp != nil {
					rp.remove()
				}
				return nil, err
			}
		}
		if rp != nil {
			if err := rp.add(ctx, env, b); err != nil {
				rp.remove()
				return nil, err
			}
			continue
		}
		b.Retain()
		buf.batches = append(buf.batches, b)
		held += memlimit.BatchBytes(b)
		if spillNeeded(env, held) {
			rp = newPartitioner(sp, j.Right.Schema(), j.rk, "join-build")
			for _, x := range buf.batches {
				if err := rp.add(ctx, env, x); err != nil {
					releaseBuf()
					rp.remove()
					return nil, err
				}
			}
			releaseBuf()
			held = 0
		}
	}
	if err := right.Err(); err != nil {
		releaseBuf()
		if rp != nil {
			rp.remove()
		}
		return nil, err
	}
	if rp == nil {
		// It fit: join in memory over the buffered rows.
		jj := *j
		jj.Right = buf
		return jj.openHash(ctx, env)
	}
	if err := rp.finish(); err != nil {
		rp.remove()
		return nil, err
	}
	if notIn && rightNull {
		// NOT IN a set holding NULL: no row is kept.
		rp.remove()
		return newPullReader(ctx, j.schema, func() (arrow.RecordBatch, error) { return nil, nil }, nil), nil
	}
	lp := newPartitioner(sp, j.Left.Schema(), j.lk, "join-probe")
	if err := j.partitionLeft(ctx, env, lp); err != nil {
		rp.remove()
		lp.remove()
		return nil, err
	}
	return j.joinPartitions(ctx, env, sp, lp, rp), nil
}

func (j *HashJoin) partitionLeft(ctx context.Context, env *Env, lp *partitioner) error {
	left, err := OpenOp(ctx, env, j.Left)
	if err != nil {
		return err
	}
	defer left.Release()
	for left.Next() {
		b := left.RecordBatch()
		if j.Type == NullAwareLeftAntiJoin {
			// NOT IN a non-empty set without NULL: a NULL probe key is
			// never kept.
			var err error
			if b, err = j.dropNullKeys(ctx, env, b); err != nil {
				return err
			}
			if b == nil {
				continue
			}
		}
		err := lp.add(ctx, env, b)
		if j.Type == NullAwareLeftAntiJoin {
			b.Release()
		}
		if err != nil {
			return err
		}
	}
	if err := left.Err(); err != nil {
		return err
	}
	return lp.finish()
}

// joinPartitions streams the joins of the partition pairs one after the
// other; each pair's files are deleted as it is read, the rest when the
// reader is released.
func (j *HashJoin) joinPartitions(ctx context.Context, env *Env, sp *spillConfig, lp, rp *partitioner) array.RecordReader {
	sub := sp.deeper(ctx)
	part := 0
	var cur array.RecordReader
	next := func() (arrow.RecordBatch, error) {
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
			if part == spillFanout {
				return nil, nil
			}
			lf, rf := lp.take(part), rp.take(part)
			part++
			if rf == nil && j.Type.buildOnly() {
				// No build rows: nothing comes out, and the partition's
				// join would not read (so not delete) its probe file.
				if lf != nil {
					lf.remove()
				}
				continue
			}
			if lf == nil && (rf == nil || !(j.Type.keepsBuild() || j.Type == RightAntiJoin)) {
				// No probe rows: nothing comes out but a full, right outer
				// or right anti join's build rows.
				if rf != nil {
					rf.remove()
				}
				continue
			}
			jj := *j
			jj.Left = spillSide(lf, j.Left.Schema())
			jj.Right = spillSide(rf, j.Right.Schema())
			r, err := jj.Open(sub, env)
			if err != nil {
				return nil, err
			}
			cur = r
		}
	}
	closeFn := func() {
		if cur != nil {
			cur.Release()
		}
		lp.remove()
		rp.remove()
	}
	return newPullReader(ctx, j.schema, next, closeFn)
}

// spillSide reads a partition's file, or nothing when it got no rows.
func spillSide(f *spillFile, schema *arrow.Schema) Operator {
	if f == nil {
		return &batchesOp{schema: schema}
	}
	return &spillScan{file: f}
}

// dropNullKeys is b (retained) without its rows with a NULL probe key;
// nil when none is left.
func (j *HashJoin) dropNullKeys(ctx context.Context, env *Env, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	ks, err := evalKeys(env, j.lk, b)
	if err != nil {
		return nil, err
	}
	rows := int(b.NumRows())
	null := anyNullKey(ks, rows)
	releaseArrays(ks)
	if null == nil {
		b.Retain()
		return b, nil
	}
	keep := make([]bool, rows)
	n := 0
	for i, isNull := range null {
		keep[i] = !isNull
		if !isNull {
			n++
		}
	}
	return filterRows(compute.WithAllocator(ctx, memlimit.Lenient(env.Mem)), env, b, keep, n)
}
