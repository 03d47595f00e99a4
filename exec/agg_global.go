package exec

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// An aggregate without GROUP BY has one group, so it needs no group
// table: each batch folds into registers (selFolder). Directly over a
// Filter it runs the filter itself and folds over the rows selected,
// copying nothing a COUNT(*) or a plain column argument does not read.
// Past aggParallelAfter rows, the goroutine reading the input hands
// batches to up to parallelism(ctx)-1 helpers whenever one is free, each
// folding into partial states of its own, which merge at the end as a
// final aggregate merges the BEs'.

type parallelKey struct{}

// WithParallelism returns a context under which an operator runs at most
// n goroutines of its own (the session's parallel_pipeline_task_num); n
// <= 0 leaves the default, GOMAXPROCS.
func WithParallelism(ctx context.Context, n int) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, parallelKey{}, n)
}

// parallelism is how many goroutines an operator may run: the context's
// WithParallelism, never more than GOMAXPROCS.
func parallelism(ctx context.Context) int {
	n := runtime.GOMAXPROCS(0)
	if v, ok := ctx.Value(parallelKey{}).(int); ok && v > 0 && v < n {
		n = v
	}
	return n
}

// globalFoldHook, set by tests, is told how many batches each goroutine
// of a one-group aggregate folded (the opening one first).
var globalFoldHook func(batches []int)

// globalFold says whether the aggregate folds without a group table:
// no GROUP BY, and only aggregates whose partial states merge (as for
// HashAggregate.parallel).
func (h *HashAggregate) globalFold() bool {
	return len(h.GroupBy) == 0 && h.Mode != AggFinal && h.statesMerge()
}

// openGlobal opens the one-group aggregate, taking over a Filter below.
func (h *HashAggregate) openGlobal(ctx context.Context, env *Env) (array.RecordReader, error) {
	input := h.Input
	var sel *selector
	if f, ok := input.(*Filter); ok {
		input, sel = f.Input, newSelector(f.Pred)
	}
	return openMaterialized(ctx, env, input, h.schema, func(ctx context.Context, env *Env, in array.RecordReader) (arrow.RecordBatch, error) {
		return h.computeGlobal(ctx, env, in, sel)
	})
}

// globalErr is the first failure among a one-group aggregate's
// goroutines.
type globalErr struct {
	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

func (g *globalErr) fail(err error) {
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.mu.Unlock()
	g.failed.Store(true)
}

func (g *globalErr) first() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// globalFolder is one goroutine's partial state.
type globalFolder struct {
	st   *aggState
	sel  *selector
	env  *Env
	kctx context.Context
	cols []int // the input columns the arguments read
	// raw, per aggregate, is its argument when a plain column whose values
	// the accumulator may fold without the cast to its argument type
	// (SUM over INT, AVG over BIGINT: widened value by value).
	raw     []*expr.ColumnRef
	scratch []int64  // the selection's row numbers, reused per batch
	zeros   []uint32 // group ids (all 0) for update, reused per batch
	batches int      // batches folded, for globalFoldHook
}

func (h *HashAggregate) newGlobalFolder(ctx context.Context, env *Env, sel *selector) (*globalFolder, error) {
	st, err := h.newAggState(env)
	if err != nil {
		return nil, err
	}
	for _, acc := range st.accs {
		acc.grow(1)
	}
	want := int64(len(st.accs)) * accStateBytes
	if err := memlimit.Guard(func() error { memlimit.Charge(env.Mem, want); return nil }); err != nil {
		st.release()
		return nil, err
	}
	st.accCharged = want
	f := &globalFolder{st: st, sel: sel, env: env, kctx: compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))}
	f.raw = make([]*expr.ColumnRef, len(st.argExprs))
	for i, a := range h.Aggs {
		if c := rawColumn(a.Arg); c != nil && (a.Func == Sum || a.Func == Avg) && st.argExprs[i] != expr.Expr(c) {
			f.raw[i] = c
		}
	}
	f.cols = columnsRead(st.argExprs)
	return f, nil
}

// rawColumn is the integer column e reads when e is that column, or its
// widening to BIGINT or DOUBLE (the binder's CAST around a SUM or AVG
// argument): the accumulators widen value by value exactly as that cast.
func rawColumn(e expr.Expr) *expr.ColumnRef {
	if c, ok := e.(*expr.ColumnRef); ok {
		return c
	}
	ce, ok := e.(*expr.CastExpr)
	if !ok {
		return nil
	}
	c, ok := ce.Arg.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	switch c.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
	default:
		return nil
	}
	switch ce.To.ID() {
	case arrow.INT64, arrow.FLOAT64:
		return c
	}
	return nil
}

// fold folds batch b (still the caller's) in.
func (f *globalFolder) fold(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	var rows []int64
	if f.sel != nil {
		r, all, err := f.sel.selectRows(f.kctx, f.env, b, &f.scratch)
		if err != nil {
			return err
		}
		if !all && len(r) == 0 {
			return nil
		}
		rows = r
	}
	// gathered holds the selected rows of the columns an argument that is
	// not a plain column reads, built once per batch when first needed.
	var gathered arrow.RecordBatch
	folded := make([]bool, len(f.st.accs)) // by the int64 lanes
	defer func() {
		if gathered != nil {
			gathered.Release()
		}
	}()
	if f.st.d64 != nil {
		// The int64-lane arguments read the rows selected in place, or,
		// when few are, the copy of them (cheaper than every row's lanes).
		d64In, d64Rows := b, rows
		if rows != nil && len(rows)*2 < n {
			var err error
			if gathered, err = gatherRows(f.kctx, f.env, b, rows, f.cols); err != nil {
				return err
			}
			d64In, d64Rows = gathered, nil
		}
		f.st.frame.Reset(d64In)
		defer f.st.frame.Reset(nil)
		rows := d64Rows
		for i, acc := range f.st.accs {
			if f.st.d64[i] == nil {
				continue
			}
			vals, valid, ok := f.st.d64[i].Eval(&f.st.frame)
			if !ok {
				continue
			}
			m := int(d64In.NumRows())
			if rows != nil {
				m = len(rows)
			}
			f.zeros = growTo(f.zeros, m)
			acc.(dec64Folder).updateI64(f.zeros[:m], vals, valid, rows, f.st.d64[i].Bits(&f.st.frame))
			if dec64Hook != nil {
				dec64Hook()
			}
			folded[i] = true
		}
	}
	for i, acc := range f.st.accs {
		if folded[i] {
			continue
		}
		e := f.st.argExprs[i]
		if e == nil {
			acc.(selFolder).foldSel(nil, rows, n)
			continue
		}
		if c := f.raw[i]; c != nil && c.Index >= 0 && c.Index < int(b.NumCols()) {
			if sf, ok := acc.(selFolder); ok && arrow.TypeEqual(b.Column(c.Index).DataType(), c.Type) && sf.foldSel(b.Column(c.Index), rows, n) {
				continue
			}
		}
		in, sel := b, rows
		if _, plain := e.(*expr.ColumnRef); !plain && rows != nil {
			if gathered == nil {
				var err error
				if gathered, err = gatherRows(f.kctx, f.env, b, rows, f.cols); err != nil {
					return err
				}
			}
			in, sel = gathered, nil
		}
		arg, err := e.Eval(f.env, in)
		if err != nil {
			return err
		}
		err = f.foldArg(acc, arg, sel, int(in.NumRows()))
		arg.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// foldArg folds arg's rows sel (nil: its n rows) into acc, through update
// when acc does not fold arg's type directly.
func (f *globalFolder) foldArg(acc accumulator, arg arrow.Array, sel []int64, n int) error {
	if sf, ok := acc.(selFolder); ok && sf.foldSel(arg, sel, n) {
		return nil
	}
	if sel != nil {
		ib := array.NewInt64Builder(f.env.Mem)
		ib.AppendValues(sel, nil)
		idx := ib.NewArray()
		ib.Release()
		taken, err := compute.TakeArray(f.kctx, arg, idx)
		idx.Release()
		if err != nil {
			return err
		}
		defer taken.Release()
		arg, n = taken, len(sel)
	}
	// update only reads the ids, so they stay zero between batches.
	f.zeros = growTo(f.zeros, n)
	acc.update(f.zeros[:n], arg, n)
	return nil
}

// foldChecked folds b and checks the BIGINT sums: one past its range
// fails the query now, not at the end.
func (f *globalFolder) foldChecked(b arrow.RecordBatch) error {
	f.batches++
	if err := f.fold(b); err != nil {
		return err
	}
	return f.st.overflow()
}

// absorb merges o's one group into f's through the partial states.
func (f *globalFolder) absorb(o *globalFolder) error {
	if err := o.st.overflow(); err != nil {
		return err
	}
	gids := []uint32{0}
	for i, acc := range f.st.accs {
		st := o.st.accs[i].states(f.env.Mem, 1)
		acc.merge(gids, st)
		releaseArrays(st)
	}
	return f.st.overflow()
}

// computeGlobal reads the input on the calling goroutine (a reader
// belongs to one goroutine) and folds its batches there; past
// aggParallelAfter rows it hands batches to helper goroutines whenever one
// is free, and folds the others itself.
func (h *HashAggregate) computeGlobal(ctx context.Context, env *Env, in array.RecordReader, sel *selector) (arrow.RecordBatch, error) {
	main, err := h.newGlobalFolder(ctx, env, sel)
	if err != nil {
		return nil, err
	}
	defer main.st.release()
	var g globalErr
	var wg sync.WaitGroup
	var helpers []*globalFolder
	var work chan arrow.RecordBatch
	stop := func() {
		if work != nil {
			close(work)
			work = nil
		}
		wg.Wait()
	}
	defer func() {
		// Also on a panic (a refused allocation): every batch handed out
		// is released and no helper outlives the aggregate.
		g.failed.Store(true)
		stop()
		for _, x := range helpers {
			x.st.release()
		}
	}()
	workers := parallelism(ctx)
	var rows int64
	for !g.failed.Load() {
		if err := ctx.Err(); err != nil {
			g.fail(err)
			break
		}
		if !in.Next() {
			if err := in.Err(); err != nil {
				g.fail(err)
			}
			break
		}
		b := in.RecordBatch()
		rows += b.NumRows()
		if work != nil {
			b.Retain()
			select {
			case work <- b:
				continue
			default:
				b.Release() // every helper is busy: fold it here
			}
		}
		if err := main.foldChecked(b); err != nil {
			g.fail(err)
			break
		}
		if work == nil && helpers == nil && workers > 1 && rows >= aggParallelAfter {
			// Small inputs stay on one goroutine (and add in input order).
			work = make(chan arrow.RecordBatch, workers-1)
			for range workers - 1 {
				x, err := h.newGlobalFolder(ctx, env, sel)
				if err != nil {
					g.fail(err)
					break
				}
				helpers = append(helpers, x)
				wg.Add(1)
				go func(w <-chan arrow.RecordBatch) {
					defer wg.Done()
					for b := range w {
						if !g.failed.Load() {
							if err := memlimit.Guard(func() error { return x.foldChecked(b) }); err != nil {
								g.fail(err)
							}
						}
						b.Release()
					}
				}(work)
			}
		}
	}
	stop()
	if err := g.first(); err != nil {
		return nil, err
	}
	if globalFoldHook != nil {
		per := []int{main.batches}
		for _, x := range helpers {
			per = append(per, x.batches)
		}
		globalFoldHook(per)
	}
	for _, x := range helpers {
		if err := main.absorb(x); err != nil {
			return nil, err
		}
	}
	return main.st.output()
}
