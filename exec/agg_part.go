package exec

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// A GROUP BY of many groups (TPC-H Q18's l_orderkey: 6 M rows into 1.5 M
// groups) gains nothing from a table per core that each sees every batch
// (agg_run.go's helpers): every table would hold nearly every group. Here
// the reading goroutine routes each row by a hash of its key to the one
// worker that owns that share of the key space, as a selBatch over the
// whole batch; each worker's aggState groups and folds its share, with no
// merge after, as no group lives in two workers; and the workers' results
// are the output, one batch each, built in parallel. A group's rows reach
// its worker in input order, so GROUP_CONCAT, ANY_VALUE and DISTINCT keep
// their meaning. The optimizer's group estimate decides (SetEstimate): a
// table that will hold few groups keeps agg_run.go's way.

// aggPartMinGroups is the group estimate from which the aggregate routes
// rows to per-core tables. A variable for tests.
var aggPartMinGroups float64 = 1 << 16

// partitioned says whether the aggregate routes its rows to workers
// tables by key.
func (h *HashAggregate) partitioned(workers int) bool {
	return workers > 1 && len(h.GroupBy) > 0 && h.estGroups >= aggPartMinGroups
}

// aggPartHook, set by tests, is called by every routed aggregate.
var aggPartHook func()

// partRouter splits batches by key hash into the workers' shares.
type partRouter struct {
	h       *HashAggregate
	env     *Env
	kctx    context.Context
	gt      *groupTable // the key columns, bound per batch for hashing
	n       int         // workers
	inPlace bool        // every key is a column of the input: hash it where it is
	cols    []int       // the columns keys and arguments read
}

func (h *HashAggregate) newPartRouter(env *Env, workers int) *partRouter {
	types := make([]arrow.DataType, len(h.GroupBy))
	inPlace := true
	var es []expr.Expr
	for i, g := range h.GroupBy {
		types[i] = g.DataType()
		if _, ok := g.(*expr.ColumnRef); !ok {
			inPlace = false
		}
		es = append(es, g)
	}
	for _, a := range h.Aggs {
		if a.Arg != nil {
			es = append(es, a.Arg)
		}
	}
	cols := columnsRead(es)
	if h.Mode == AggFinal {
		cols = nil // the states are read by position
	}
	return &partRouter{h: h, env: env, n: workers, inPlace: inPlace, cols: cols,
		gt:   newGroupTable(env.Mem, types, false),
		kctx: compute.WithAllocator(context.Background(), memlimit.Lenient(env.Mem))}
}

// split returns, per worker, the batch (retained, or a copy) its rows are
// in and those rows (nil entries: none); b stays the caller's.
func (r *partRouter) split(b arrow.RecordBatch) (arrow.RecordBatch, [][]int64, error) {
	full := b
	var sel []int64
	if sb, ok := b.(*selBatch); ok {
		full, sel = sb.RecordBatch, sb.sel
		if !r.inPlace {
			// A key expression may fail on a row the filter dropped: keep
			// the rows first.
			g, err := gatherRows(r.kctx, r.env, full, sel, r.cols)
			if err != nil {
				return nil, nil, err
			}
			full, sel = g, nil
		} else {
			full.Retain()
		}
	} else {
		full.Retain()
	}
	keys := make([]arrow.Array, 0, len(r.h.GroupBy))
	defer func() { releaseArrays(keys) }()
	for _, g := range r.h.GroupBy {
		k, err := g.Eval(r.env, full)
		if err != nil {
			full.Release()
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	rows := int(full.NumRows())
	for k, c := range r.gt.cols {
		c.bind(keys[k])
	}
	var hs []uint64
	if c := r.gt.fixed; c != nil {
		hs = c.cur
	} else {
		hs = r.gt.rowHashes(rows)
	}
	want := rows
	if sel != nil {
		want = len(sel)
	}
	parts := make([][]int64, r.n)
	for w := range parts {
		parts[w] = make([]int64, 0, want/r.n+want/(4*r.n)+8)
	}
	n := uint64(r.n)
	// Another mix of the hash: the workers' tables slot keys by its bits,
	// which must not all share a value within one worker.
	if sel != nil {
		for _, i := range sel {
			w := (mix64(hs[i]^partSeed) >> 32 * n) >> 32
			parts[w] = append(parts[w], i)
		}
	} else {
		for i, hv := range hs[:rows] {
			w := (mix64(hv^partSeed) >> 32 * n) >> 32
			parts[w] = append(parts[w], int64(i))
		}
	}
	return full, parts, nil
}

// partSeed decorrelates the routing hash from the tables' own.
const partSeed = 0x5851F42D4C957F2D

// computeParts is compute for a partitioned aggregate: the result is one
// batch per worker (nil entries for none).
func (h *HashAggregate) computeParts(ctx context.Context, env *Env, in array.RecordReader, workers int) ([]arrow.RecordBatch, error) {
	if aggPartHook != nil {
		aggPartHook()
	}
	r := h.newPartRouter(env, workers)
	defer r.gt.release()
	var helpers []*aggHelper
	defer func() {
		for _, x := range helpers {
			x.stop()
			x.st.release()
		}
	}()
	hint := int(h.estGroups/float64(workers)) + 1
	for range workers {
		x, err := h.startHelper(ctx, env)
		if err != nil {
			return nil, err
		}
		x.st.gt.hint, x.st.gt.spread, x.st.share = hint, workers, workers
		helpers = append(helpers, x)
	}
	for in.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		full, parts, err := r.split(in.RecordBatch())
		if err != nil {
			return nil, err
		}
		failed := false
		for w, rows := range parts {
			x := helpers[w]
			if x.failed.Load() {
				failed = true
				break
			}
			if len(rows) == 0 {
				continue
			}
			full.Retain()
			var b arrow.RecordBatch = &selBatch{RecordBatch: full, sel: rows}
			if len(rows) == int(full.NumRows()) {
				b = full
			}
			x.in <- b
		}
		full.Release()
		if failed {
			break
		}
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	for _, x := range helpers {
		if err := x.stop(); err != nil {
			return nil, err
		}
	}
	// Each worker builds its result on its own core.
	outs := make([]arrow.RecordBatch, len(helpers))
	errs := make([]error, len(helpers))
	var wg sync.WaitGroup
	for w, x := range helpers {
		wg.Go(func() {
			errs[w] = memlimit.Guard(func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				var err error
				outs[w], err = x.st.output()
				return err
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, o := range outs {
				if o != nil {
					o.Release()
				}
			}
			return nil, err
		}
	}
	return outs, nil
}
