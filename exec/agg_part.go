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
// their meaning.
//
// When does it route? An aggregate whose partial states merge starts on
// one table as before (agg_run.go's compute), and past aggParallelAfter
// rows, if the groups are many for the rows read, routes that table's
// groups, as partial states, to their workers (routeStates) and then the
// rest of its input. One whose states do not merge (DISTINCT,
// GROUP_CONCAT, ...) cannot do that, and routes from the first row when
// the optimizer expects many groups (SetEstimate, aggPartMinGroups).

// aggPartMinGroups is the group estimate from which an aggregate whose
// states do not merge routes its rows from the start: a table that large
// is out of the caches. Below, routing a small input costs more than it
// saves (TPC-H Q16: an estimate of 100 K groups, 18 K real ones of 120 K
// rows, 10 % more CPU routed). A variable for tests.
var aggPartMinGroups float64 = 1 << 18

// routeFromStart says whether the aggregate routes its rows to the
// workers' tables by key from the first row.
func (h *HashAggregate) routeFromStart(workers int) bool {
	return workers > 1 && len(h.GroupBy) > 0 && !h.statesMerge() && h.estGroups >= aggPartMinGroups
}

// aggPartHook, set by tests, is called by every routing aggregate.
var aggPartHook func()

// partRouter splits batches by key hash into the workers' shares and
// feeds them.
type partRouter struct {
	h       *HashAggregate
	env     *Env
	kctx    context.Context
	gt      *groupTable // the key columns, bound per batch for hashing
	workers []*aggHelper
	inPlace bool  // every key is a column of the input: hash it where it is
	cols    []int // the columns keys and arguments read
}

// startRouting starts n workers, their tables sized for the optimizer's
// group estimate.
func (h *HashAggregate) startRouting(ctx context.Context, env *Env, n int) (*partRouter, error) {
	if aggPartHook != nil {
		aggPartHook()
	}
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
	r := &partRouter{h: h, env: env, inPlace: inPlace, cols: cols,
		gt:   newGroupTable(env.Mem, types, false),
		kctx: compute.WithAllocator(context.Background(), memlimit.Lenient(env.Mem))}
	hint := int(h.estGroups/float64(n)) + 1
	for range n {
		x, err := h.startHelper(ctx, env)
		if err != nil {
			r.close()
			return nil, err
		}
		x.st.gt.hint, x.st.gt.spread, x.st.share = hint, n, n
		r.workers = append(r.workers, x)
	}
	return r, nil
}

// close stops the workers and lets their tables go.
func (r *partRouter) close() {
	for _, x := range r.workers {
		x.stop()
		x.st.release()
	}
	r.workers = nil
	r.gt.release()
}

// route sends each worker its rows of b (which stays the caller's); false
// when a worker has failed (finish returns its error).
func (r *partRouter) route(b arrow.RecordBatch) (bool, error) {
	full := b
	var sel []int64
	if sb, ok := b.(*selBatch); ok {
		full, sel = sb.RecordBatch, sb.sel
		if !r.inPlace {
			// A key expression may fail on a row the filter dropped: keep
			// the rows first.
			g, err := gatherRows(r.kctx, r.env, full, sel, r.cols)
			if err != nil {
				return false, err
			}
			defer g.Release()
			full, sel = g, nil
		}
	}
	keys := make([]arrow.Array, 0, len(r.h.GroupBy))
	defer func() { releaseArrays(keys) }()
	for _, g := range r.h.GroupBy {
		k, err := g.Eval(r.env, full)
		if err != nil {
			return false, err
		}
		keys = append(keys, k)
	}
	return r.send(full, keys, sel, false), nil
}

// routeStates sends each worker its groups of s (the table the aggregate
// began on), as partial states to merge.
func (r *partRouter) routeStates(s *aggState) (bool, error) {
	n := s.gt.n
	if n == 0 {
		return true, nil
	}
	cols := s.gt.keyArrays()
	defer func() { releaseArrays(cols) }()
	fields := make([]arrow.Field, 0, len(cols))
	for _, acc := range s.accs {
		cols = append(cols, acc.states(s.env.Mem, n)...)
	}
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: "c", Type: c.DataType(), Nullable: true})
	}
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	defer b.Release()
	return r.send(b, cols[:len(r.h.GroupBy)], nil, true), nil
}

// send routes the rows sel (nil: all) of b by keys (whole-batch columns
// of b's rows) to the workers; states says b holds partial states to
// merge.
func (r *partRouter) send(b arrow.RecordBatch, keys []arrow.Array, sel []int64, states bool) bool {
	rows := int(b.NumRows())
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
	w := len(r.workers)
	parts := make([][]int64, w)
	for i := range parts {
		parts[i] = make([]int64, 0, want/w+want/(4*w)+8)
	}
	n := uint64(w)
	// Another mix of the hash: the workers' tables slot keys by its bits,
	// which must not all share a value within one worker.
	if sel != nil {
		for _, i := range sel {
			p := (mix64(hs[i]^partSeed) >> 32 * n) >> 32
			parts[p] = append(parts[p], i)
		}
	} else {
		for i, hv := range hs[:rows] {
			p := (mix64(hv^partSeed) >> 32 * n) >> 32
			parts[p] = append(parts[p], int64(i))
		}
	}
	for i, rows := range parts {
		x := r.workers[i]
		if x.failed.Load() {
			return false
		}
		if len(rows) == 0 {
			continue
		}
		b.Retain()
		var job arrow.RecordBatch = &selBatch{RecordBatch: b, sel: rows}
		switch {
		case states:
			job = &stateBatch{selBatch{RecordBatch: b, sel: rows}}
		case len(rows) == int(b.NumRows()):
			job = b
		}
		x.in <- job
	}
	return true
}

// partSeed decorrelates the routing hash from the tables' own.
const partSeed = 0x5851F42D4C957F2D

// stateBatch is a worker's share of the partial states of the groups
// the aggregate's first table held (routeStates).
type stateBatch struct{ selBatch }

// finish waits for the workers and returns their results (nil entries
// for none), built in parallel.
func (r *partRouter) finish(ctx context.Context) ([]arrow.RecordBatch, error) {
	for _, x := range r.workers {
		if err := x.stop(); err != nil {
			return nil, err
		}
	}
	outs := make([]arrow.RecordBatch, len(r.workers))
	errs := make([]error, len(r.workers))
	var wg sync.WaitGroup
	for w, x := range r.workers {
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

// routeAll routes every row of in from the first (routeFromStart).
func (h *HashAggregate) routeAll(ctx context.Context, env *Env, in array.RecordReader, workers int) ([]arrow.RecordBatch, error) {
	r, err := h.startRouting(ctx, env, workers)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return r.routeRest(ctx, in, nil)
}

// routeRest routes first (if not nil) and the rest of in, and returns the
// workers' results.
func (r *partRouter) routeRest(ctx context.Context, in array.RecordReader, first arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	ok := true
	var err error
	if first != nil {
		ok, err = r.route(first)
	}
	for ok && err == nil && in.Next() {
		if err = ctx.Err(); err == nil {
			ok, err = r.route(in.RecordBatch())
		}
	}
	if err == nil {
		err = in.Err()
	}
	if err != nil {
		return nil, err
	}
	return r.finish(ctx)
}

// mergeStates folds a stateBatch's rows (group keys, then partial
// states) into s.
func (s *aggState) mergeStates(b *stateBatch) error {
	g, err := gatherRows(s.kctx, s.env, b.RecordBatch, b.sel, nil)
	if err != nil {
		return err
	}
	defer g.Release()
	s.mergeCols(g.Columns(), int(g.NumRows()))
	return nil
}
