package exec

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// Reading the probe side first. A semi or anti join whose probe side is
// small and whose build side is a large table (TPC-H Q21: 25 K candidate
// lineitems of Saudi suppliers, EXISTS and NOT EXISTS over all 6 M
// lineitems) hashes every build row, though only the rows whose key some
// probe row has can matter. With probe-side filters (planned by
// fe/physical where the estimates say so) the join reads its probe side
// into memory first, publishes filters of its keys to the build side's
// scan, builds on what passes, and then probes with the rows it holds.
//
// Dropping a build row whose key no probe row has changes nothing for
// the joins that take these filters (inner, left outer, semi, anti): such
// a row never pairs with a probe row, and only a full or right outer join
// or NOT IN (whose answer depends on a NULL build key) would see it.

// AddProbeSideFilters attaches filters made from the probe keys for the
// build side's scans; the scans hold the same pointers.
func (j *HashJoin) AddProbeSideFilters(rfs ...*RuntimeFilter) error {
	if len(rfs) == 0 {
		return nil
	}
	switch j.Type {
	case InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin:
	default:
		return errorf(ErrPlan, "probe-side runtime filter on a %s", j.Type)
	}
	for _, rf := range rfs {
		if rf.Key < 0 || rf.Key >= len(j.lk) {
			return errorf(ErrPlan, "runtime filter on join key %d of %d", rf.Key, len(j.lk))
		}
		rf.typ, rf.source = j.lk[rf.Key].DataType(), j.LeftKeys[rf.Key].String()
		j.probeFilters = append(j.probeFilters, rf)
	}
	return nil
}

// probeRFExplain is the join's EXPLAIN line of its probe-side filters.
func (j *HashJoin) probeRFExplain() string {
	if len(j.probeFilters) == 0 {
		return ""
	}
	parts := make([]string, len(j.probeFilters))
	for i, rf := range j.probeFilters {
		parts[i] = rf.Name() + " <- " + rf.source
	}
	return "probe-side runtime filters (probe read first): " + strings.Join(parts, ", ")
}

// openProbeFirst reads the probe side, publishes the probe-side filters,
// and joins as usual with the rows held as the probe side.
func (j *HashJoin) openProbeFirst(ctx context.Context, env *Env) (array.RecordReader, error) {
	lr, err := OpenOp(ctx, env, j.Left)
	if err != nil {
		return nil, err
	}
	lb, err := drainConcat(env, lr, j.Left.Schema())
	lr.Release()
	if err != nil {
		return nil, err
	}
	var keys []arrow.Array
	rows := 0
	if lb != nil {
		rows = int(lb.NumRows())
		if keys, err = evalKeys(env, j.lk, lb); err != nil {
			lb.Release()
			return nil, err
		}
	}
	var charged int64
	for _, rf := range j.probeFilters {
		charged += rf.publish(env, keys, rows, rows)
	}
	releaseArrays(keys)
	done := func() {
		for _, rf := range j.probeFilters {
			rf.release(env)
		}
		memlimit.Refund(env.Mem, charged)
	}
	held := &batchesOp{schema: j.Left.Schema()}
	if lb != nil {
		held.batches = []arrow.RecordBatch{lb}
	}
	jj := *j
	jj.Left, jj.probeFilters = held, nil
	r, err := jj.openHash(ctx, env)
	if err != nil {
		for _, b := range held.batches {
			b.Release()
		}
		done()
		return nil, err
	}
	return &closingReader{RecordReader: r, done: done}, nil
}

// closingReader calls done once r is released for the last time.
type closingReader struct {
	array.RecordReader
	done func()
	refs int
}

func (c *closingReader) Retain() { c.refs++; c.RecordReader.Retain() }

func (c *closingReader) Release() {
	c.RecordReader.Release()
	if c.refs == 0 && c.done != nil {
		c.done()
		c.done = nil
		return
	}
	c.refs--
}
