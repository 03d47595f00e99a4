package exec

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// aggState is one HashAggregate's groups and accumulators: the operator
// runs one, and on large inputs up to parallelism(ctx)-1 more on other
// cores, each over its share of the batches in turn, absorbed into the
// first at the end (as a final aggregate merges partial states).
type aggState struct {
	h          *HashAggregate
	env        *Env
	gt         *groupTable
	accs       []accumulator
	argExprs   []expr.Expr
	gids       []uint32
	accCharged int64
	// d64, per aggregate, folds its argument on int64 lanes (agg_dec64.go);
	// frame holds one batch's lanes.
	d64   []*expr.Dec64
	frame expr.Dec64Frame
	// kctx allocates what arrow's kernels build (gatherRows' fallback);
	// need caches gatherCols.
	kctx    context.Context
	need    []int
	needAll []int
	argOnly []int
	// share: the state is one of share workers of a partitioned
	// aggregate, each fed its rows of every batch (agg_part.go).
	share int
	// counts: the batch's per-group row counts, shared by the COUNTs and
	// AVGs (agg_small.go).
	counts batchCounts
}

func (h *HashAggregate) newAggState(env *Env) (*aggState, error) {
	keyTypes := make([]arrow.DataType, len(h.GroupBy))
	for i, g := range h.GroupBy {
		keyTypes[i] = g.DataType()
	}
	s := &aggState{h: h, env: env, gt: newGroupTable(env.Mem, keyTypes, true),
		kctx: compute.WithAllocator(context.Background(), memlimit.Lenient(env.Mem))}
	s.accs = make([]accumulator, len(h.Aggs))
	s.argExprs = make([]expr.Expr, len(h.Aggs))
	for i, a := range h.Aggs {
		acc, err := newAccumulator(a, h.argTypes[i], h.outTypes[i])
		if err != nil {
			s.release()
			return nil, err
		}
		s.accs[i] = acc
		switch x := acc.(type) {
		case *countAcc:
			x.batch = &s.counts
		case *avgAcc:
			x.count.batch = &s.counts
		}
		if m, ok := acc.(interface{ setMem(memory.Allocator) }); ok {
			m.setMem(env.Mem)
		}
		if g, ok := acc.(interface{ setGlobal() }); ok && len(h.GroupBy) == 0 {
			g.setGlobal()
		}
		if a.Arg != nil && h.Mode != AggFinal {
			if s.argExprs[i], err = expr.Cast(a.Arg, h.argTypes[i]); err != nil {
				s.release()
				return nil, err
			}
			if p := dec64Program(a, acc, s.argExprs[i]); p != nil && !noDec64 {
				if s.d64 == nil {
					s.d64 = make([]*expr.Dec64, len(h.Aggs))
				}
				s.d64[i] = p
			}
		}
	}
	return s, nil
}

func (s *aggState) release() {
	s.gt.release()
	for _, acc := range s.accs {
		if r, ok := acc.(interface{ release() }); ok {
			r.release()
		}
	}
	memlimit.Refund(s.env.Mem, s.accCharged)
	s.accCharged = 0
}

// chargeAccs counts the accumulators' per-group state (Go slices).
func (s *aggState) chargeAccs() {
	if want := int64(s.gt.n) * int64(len(s.accs)) * accStateBytes; want > s.accCharged {
		memlimit.Charge(s.env.Mem, want-s.accCharged)
		s.accCharged = want
	}
}

// consume folds one input batch in. A selBatch (the pipeline's Filter
// below, pipedSel) folds its rows sel: the int64-lane arguments read the
// whole batch at those rows, and only the columns the group keys and the
// other arguments read are copied.
func (s *aggState) consume(b arrow.RecordBatch) error {
	s.counts.ok = false
	h, env := s.h, s.env
	full, in := b, b
	var sel []int64
	grouped := false
	if sb, ok := b.(*selBatch); ok {
		full, sel = sb.RecordBatch, sb.sel
		// Few rows selected: copying them costs less than computing the
		// int64-lane arguments over every row.
		// A worker of a partitioned aggregate expects 1/share of the rows.
		sparse := len(sel)*2*max(s.share, 1) < int(full.NumRows())
		if !sparse && s.keysInPlace() {
			keys := make([]arrow.Array, 0, len(h.GroupBy))
			for _, g := range h.GroupBy {
				c := g.(*expr.ColumnRef)
				if c.Index >= 0 && int64(c.Index) < full.NumCols() && arrow.TypeEqual(full.Column(c.Index).DataType(), c.Type) {
					keys = append(keys, full.Column(c.Index))
				}
			}
			if len(keys) == len(h.GroupBy) { // else Eval below says what is wrong
				s.gids, grouped = s.gt.idsSel(keys, sel, s.gids)
			}
			if grouped && packedSelHook != nil {
				packedSelHook()
			}
			if cols := s.argCols(); grouped && len(cols) > 0 {
				// The arguments not on int64 lanes read copies of their
				// columns at the rows sel (the keys needed none).
				g, err := gatherRows(s.kctx, env, full, sel, cols)
				if err != nil {
					return err
				}
				defer g.Release()
				in = g
			}
		}
		if !grouped {
			g, err := gatherRows(s.kctx, env, full, sel, s.gatherCols(sparse))
			if err != nil {
				return err
			}
			defer g.Release()
			in = g
			if sparse {
				full, sel = g, nil
			}
		}
	}
	rows := int(in.NumRows())
	if grouped {
		rows = len(sel)
	} else {
		keys := make([]arrow.Array, 0, len(h.GroupBy))
		for _, g := range h.GroupBy {
			k, err := g.Eval(env, in)
			if err != nil {
				releaseArrays(keys)
				return err
			}
			keys = append(keys, k)
		}
		s.gids = s.gt.ids(keys, rows, s.gids)
		releaseArrays(keys)
	}
	s.chargeAccs()
	if s.d64 != nil {
		s.frame.Reset(full)
		defer s.frame.Reset(nil)
	}
	col := len(h.GroupBy)
	for i, acc := range s.accs {
		acc.grow(s.gt.n)
		if h.Mode == AggFinal {
			k := len(h.stateTypes[i])
			acc.merge(s.gids, in.Columns()[col:col+k])
			col += k
			continue
		}
		if s.argExprs[i] == nil {
			acc.update(s.gids, nil, rows)
			continue
		}
		argIn := in
		if s.d64 != nil && s.d64[i] != nil {
			if vals, valid, ok := s.d64[i].Eval(&s.frame); ok {
				acc.(dec64Folder).updateI64(s.gids, vals, valid, sel, s.d64[i].Bits(&s.frame))
				if dec64Hook != nil {
					dec64Hook()
				}
				continue
			}
			if sel != nil {
				// in lacks this argument's columns: copy them now.
				g, err := gatherRows(s.kctx, env, full, sel, expr.Columns(s.argExprs[i]))
				if err != nil {
					return err
				}
				defer g.Release()
				argIn = g
			}
		}
		arg, err := s.argExprs[i].Eval(env, argIn)
		if err != nil {
			return err
		}
		acc.update(s.gids, arg, rows)
		arg.Release()
	}
	return nil
}

// keysInPlace says whether consume may group a selBatch's rows in the
// whole batch, without copying the keys: they are columns of the input
// packed into words (groupkeys_packed.go) or one fixed-width column
// (idsSel). The arguments on int64 lanes read the whole batch at the
// selected rows too (a batch whose lanes decline copies the argument's
// columns then); the others read copies of their columns (argCols).
func (s *aggState) keysInPlace() bool {
	if s.h.Mode == AggFinal || (s.gt.pk == nil && s.gt.fixed == nil) {
		return false
	}
	for _, g := range s.h.GroupBy {
		if _, ok := g.(*expr.ColumnRef); !ok {
			return false
		}
	}
	return true
}

// argCols are the columns the arguments without an int64-lane program
// read (none: an empty list).
func (s *aggState) argCols() []int {
	if s.argOnly == nil {
		var es []expr.Expr
		for i, e := range s.argExprs {
			if e != nil && (s.d64 == nil || s.d64[i] == nil) {
				es = append(es, e)
			}
		}
		s.argOnly = columnsRead(es)
	}
	return s.argOnly
}

// packedSelHook, set by tests, is called for every batch consume groups
// in place.
var packedSelHook func()

// gatherCols are the columns consume copies from a selBatch: those the
// group keys and the arguments without an int64-lane program read, or
// (all) those every argument reads; every column for a final
// aggregate's states.
func (s *aggState) gatherCols(all bool) []int {
	if s.h.Mode == AggFinal {
		return nil
	}
	cache := &s.need
	if all {
		cache = &s.needAll
	}
	if *cache == nil {
		es := append([]expr.Expr(nil), s.h.GroupBy...)
		for i, e := range s.argExprs {
			if all || s.d64 == nil || s.d64[i] == nil {
				es = append(es, e)
			}
		}
		*cache = columnsRead(es)
	}
	return *cache
}

// overflow is the error of the first accumulator whose sum overflowed.
func (s *aggState) overflow() error {
	for i, acc := range s.accs {
		if o, ok := acc.(interface{ tooLarge() error }); ok {
			if err := o.tooLarge(); err != nil {
				return err
			}
		}
		if o, ok := acc.(interface{ overflowed() bool }); ok && o.overflowed() {
			return errorf(expr.ErrOverflow, "%s: the sum is out of the range of %s", s.h.Aggs[i], expr.TypeName(s.h.stateTypes[i][0]))
		}
	}
	return nil
}

// absorb merges o's groups into s through their partial states.
func (s *aggState) absorb(o *aggState) error {
	n := o.gt.n
	if n == 0 {
		return nil
	}
	cols := o.gt.keyArrays()
	defer func() { releaseArrays(cols) }()
	for _, acc := range o.accs {
		st := acc.states(s.env.Mem, n)
		cols = append(cols, st...)
	}
	s.mergeCols(cols, n)
	return nil
}

// mergeCols merges n groups' keys and partial states (cols: the key
// columns, then each aggregate's states) into s.
func (s *aggState) mergeCols(cols []arrow.Array, n int) {
	nk := len(s.h.GroupBy)
	gids := s.gt.ids(cols[:nk], n, nil)
	s.chargeAccs()
	col := nk
	for i, acc := range s.accs {
		acc.grow(s.gt.n)
		k := len(s.h.stateTypes[i])
		acc.merge(gids, cols[col:col+k])
		col += k
	}
}

// output builds the result batch (nil for no rows).
func (s *aggState) output() (arrow.RecordBatch, error) {
	h, env := s.h, s.env
	if err := s.overflow(); err != nil {
		return nil, err
	}
	n := s.gt.n
	if len(h.GroupBy) == 0 && n == 0 {
		n = 1 // a global aggregate has one row even over no input
		for _, acc := range s.accs {
			acc.grow(1)
		}
	}
	if n == 0 {
		return nil, nil
	}
	cols := s.gt.keyArrays()
	for _, acc := range s.accs {
		if h.Mode == AggPartial {
			cols = append(cols, acc.states(env.Mem, n)...)
		} else {
			cols = append(cols, acc.result(env.Mem, n))
		}
	}
	// DISTINCT folds its values only now, in result: a GROUP_CONCAT that
	// grew too large says so here.
	if err := s.overflow(); err != nil {
		releaseArrays(cols)
		return nil, err
	}
	out := array.NewRecordBatch(h.schema, cols, int64(n))
	releaseArrays(cols)
	return out, nil
}

// aggParallelAfter is how many rows the operator reads alone before a
// second core joins: small inputs (and sources of many tiny batches) keep
// one table and first-seen group order. A variable for tests.
var aggParallelAfter int64 = 1 << 18

// aggParallelRowsPerGroup: the second core joins only if the rows read so
// far average at least this many per group.
const aggParallelRowsPerGroup = 16

// parallel says whether a second aggState may take every other batch: its
// groups merge through partial states, which the order-independent
// aggregates have; DISTINCT, GROUP_CONCAT, ANY_VALUE and the statistical
// ones stay on one core. (Whether a second core may run is
// parallelism's to say.)
func (h *HashAggregate) parallel() bool {
	return len(h.GroupBy) != 0 && h.Mode != AggFinal && h.statesMerge()
}

// statesMerge says whether every aggregate's partial states merge in any
// order: COUNT, SUM, MIN, MAX and AVG without DISTINCT.
func (h *HashAggregate) statesMerge() bool {
	for _, a := range h.Aggs {
		switch a.Func {
		case CountStar, Count, Sum, Min, Max, Avg:
		default:
			return false
		}
		if a.Distinct {
			return false
		}
	}
	return true
}

// aggHelper is another core's aggState, fed batches through in.
type aggHelper struct {
	st      *aggState
	in      chan arrow.RecordBatch
	done    chan struct{}
	err     error
	failed  atomic.Bool
	stopped bool
}

func (h *HashAggregate) startHelper(ctx context.Context, env *Env) (*aggHelper, error) {
	st, err := h.newAggState(env)
	if err != nil {
		return nil, err
	}
	w := &aggHelper{st: st, in: make(chan arrow.RecordBatch, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		// Every batch sent is released, also after a failure.
		for b := range w.in {
			if w.err == nil {
				if w.err = ctx.Err(); w.err == nil {
					w.err = memlimit.Guard(func() error {
						if sb, ok := b.(*stateBatch); ok {
							return st.mergeStates(sb)
						}
						return st.consume(b)
					})
				}
				if w.err != nil {
					w.failed.Store(true)
				}
			}
			b.Release()
		}
	}()
	return w, nil
}

// stop ends the helper and returns its error; later calls return it
// again.
func (w *aggHelper) stop() error {
	if !w.stopped {
		w.stopped = true
		close(w.in)
	}
	<-w.done
	return w.err
}

func (h *HashAggregate) compute(ctx context.Context, env *Env, in array.RecordReader) ([]arrow.RecordBatch, error) {
	// parallel_pipeline_task_num = 1 keeps the aggregate on one goroutine;
	// n allows n-1 helpers beside this one.
	workers := parallelism(ctx)
	if h.routeFromStart(workers) {
		return h.routeAll(ctx, env, in, workers) // agg_part.go
	}
	s, err := h.newAggState(env)
	if err != nil {
		return nil, err
	}
	defer s.release()
	s.gt.hint = int(h.estGroups)
	par := h.parallel() && workers > 1
	// With many groups the rows are routed by key instead (agg_part.go).
	route := len(h.GroupBy) != 0 && h.statesMerge() && workers > 1
	var helpers []*aggHelper
	stopHelpers := func() {
		for _, x := range helpers {
			x.stop()
			x.st.release()
		}
		helpers = nil
	}
	defer stopHelpers()
	var rows int64
	batches := 0
	decided := false
	for in.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := in.RecordBatch()
		batches++
		if !decided && (par || route) && rows >= aggParallelAfter {
			decided = true
			if int64(s.gt.n)*aggParallelRowsPerGroup > rows {
				// A direct array that stays in the caches (TPC-H Q13's
				// c_custkey) groups faster on one core than rows can be
				// routed.
				if route && !s.gt.cachedDirect() {
					r, err := h.startRouting(ctx, env, workers)
					if err != nil {
						return nil, err
					}
					defer r.close()
					// The groups so far go first (their states merge in any
					// order): the workers' tables see the keys in input
					// order, which keeps clustered keys direct.
					if err := s.overflow(); err != nil {
						return nil, err
					}
					if _, err := r.routeStates(s); err != nil {
						return nil, err
					}
					return r.routeRest(ctx, in, b)
				}
			} else if par {
				// Several tables pay off while the groups are few (each
				// core's table stays in cache).
				for range workers - 1 {
					x, err := h.startHelper(ctx, env)
					if err != nil {
						return nil, err
					}
					helpers = append(helpers, x)
				}
			}
		}
		rows += b.NumRows()
		if k := batches % (len(helpers) + 1); k != 0 {
			x := helpers[k-1]
			if x.failed.Load() {
				break
			}
			b.Retain()
			x.in <- b
			continue
		}
		if err := s.consume(b); err != nil {
			return nil, err
		}
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	for _, x := range helpers {
		err := x.stop()
		if err == nil {
			err = x.st.overflow()
		}
		if err == nil {
			err = s.absorb(x.st)
		}
		if err != nil {
			return nil, err
		}
	}
	stopHelpers()
	out, err := s.output()
	if out == nil || err != nil {
		return nil, err
	}
	return []arrow.RecordBatch{out}, nil
}
