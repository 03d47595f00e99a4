package exec

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Parallel operators. A hash join's probe, the streaming Filter and
// Project steps under it, the steps under a hash join's build side and
// under a hash aggregate run in parallelism(ctx) goroutines (the
// session's parallel_pipeline_task_num, 0 = every core), batch by batch:
// one goroutine reads the source, workers transform the batches, and the
// results come out in input order, so what an operator promises about its
// output order holds with any number of workers. The build side's hash
// table is shared read-only by the probing workers, each through a view
// of its own (groupTable.probeView). Every batch allocates from the
// statement's account (exec/memlimit) as before, a refused allocation in
// a worker becomes the query's error, and cancelling the statement ends
// the source's reader and with it the workers. A batch goes to a worker
// only while the account has room for the batches in flight (roomFor);
// near exec_mem_limit the reading goroutine transforms it itself, as a
// serial plan would.

// pipeline is an operator split into the Filter and Project steps at its
// top and the source below them: the steps transform one batch at a time
// and so may run in any goroutine.
type pipeline struct {
	src   Operator
	steps []Operator // bottom-up: *Filter or *Project
	sels  []*selector
	needs [][]int // per Filter step, the columns the step above reads (nil: all)
	// prof, when the statement is profiled, receives each fused step's
	// rows and time (nil entries: steps measured elsewhere).
	prof []*opCounters
	// selTop: a Filter as the top step yields a selBatch instead of
	// copying the rows it keeps (for a consumer that reads selBatch).
	selTop bool
	// raw: src was opened raw (openRaw) under a Filter as the first step,
	// which copies out the values it keeps (detachFrom).
	raw bool
	// rf is src when it is a scan whose runtime filters the first step
	// applies (openSource): their test and the step's own make one
	// selection of rows, and only the columns read above are gathered.
	rf *Scan
	// The first Filter tested before the runtime filters while it keeps
	// few enough rows (Scan.preFiltered's rule, counted over all workers).
	preFirst           atomic.Bool
	preSeen, prePassed atomic.Int64
}

// openSrc opens the pipeline's source, raw when its first step is a
// Filter.
func (p *pipeline) openSrc(ctx context.Context, env *Env) (array.RecordReader, error) {
	if len(p.steps) > 0 {
		if _, ok := p.steps[0].(*Filter); ok {
			in, raw, err := openRaw(ctx, env, p.src)
			p.raw = raw
			return in, err
		}
	}
	return OpenOp(ctx, env, p.src)
}

// profile makes apply record the first n steps into the context's
// operator profile, if there is one: fused into the pipeline, those steps
// are never opened through OpenOp.
func (p *pipeline) profile(ctx context.Context, n int) {
	op, _ := ctx.Value(opProfileKey{}).(*OpProfile)
	if op == nil || n <= 0 {
		return
	}
	p.prof = make([]*opCounters, len(p.steps))
	for i := range min(n, len(p.steps)) {
		p.prof[i] = op.counters(p.steps[i])
		p.prof[i].fused.Store(true)
	}
}

// selBatch is a batch of which only the rows sel (ascending) are the
// input of the operator above: the pipeline under a HashAggregate yields
// it for its top Filter instead of copying every column of the rows kept,
// and the aggregate copies only the columns it reads the general way
// (aggState.consume). Nothing else ever sees one.
type selBatch struct {
	arrow.RecordBatch
	sel []int64
}

func splitPipeline(op Operator) *pipeline {
	p := &pipeline{}
	var top []Operator
	for {
		switch x := op.(type) {
		case *Filter:
			top = append(top, x)
			op = x.Input
			continue
		case *Project:
			top = append(top, x)
			op = x.Input
			continue
		}
		break
	}
	p.src = op
	for i := len(top) - 1; i >= 0; i-- {
		p.steps = append(p.steps, top[i])
	}
	p.sels = make([]*selector, len(p.steps))
	p.needs = make([][]int, len(p.steps))
	for i, st := range p.steps {
		if f, ok := st.(*Filter); ok {
			p.sels[i] = newSelector(f.Pred)
			if i+1 < len(p.steps) {
				if pr, ok := p.steps[i+1].(*Project); ok {
					p.needs[i] = columnsRead(pr.Exprs)
				}
			}
		}
	}
	return p
}

// apply runs the steps over b (which stays the caller's); nil when a
// filter dropped every row.
func (p *pipeline) apply(kctx context.Context, env *Env, b arrow.RecordBatch, scratch *[]int64) (arrow.RecordBatch, error) {
	b.Retain()
	cur := b
	first := 0
	if p.rf != nil {
		out, err := p.applyFirst(kctx, env, b, scratch)
		b.Release()
		if err != nil || out == nil || len(p.steps) == 1 {
			return out, err
		}
		cur, first = out, 1
	}
	for i, st := range p.steps[first:] {
		i += first
		var out arrow.RecordBatch
		var err error
		var start time.Time
		if p.prof != nil && p.prof[i] != nil {
			start = time.Now()
		}
		switch s := st.(type) {
		case *Filter:
			if p.selTop && i == len(p.steps)-1 {
				out, err := p.selectTop(kctx, env, cur, p.sels[i], scratch)
				if err == nil && out != nil && p.raw && i == 0 {
					out, err = detachSel(memlimit.Lenient(env.Mem), b, out)
				}
				return out, err
			}
			out, err = p.sels[i].apply(kctx, env, cur, p.needs[i], scratch)
			if err == nil && out != nil && p.raw && i == 0 {
				out, err = detachFrom(memlimit.Lenient(env.Mem), b, out, p.needs[i])
			}
		case *Project:
			out, err = evalBatch(env, s.schema, s.Exprs, cur)
		}
		if !start.IsZero() {
			c := p.prof[i]
			c.nanos.Add(int64(time.Since(start)))
			if out != nil {
				c.batches.Add(1)
				c.rows.Add(out.NumRows())
			}
		}
		cur.Release()
		if err != nil || out == nil {
			return nil, err
		}
		cur = out
	}
	return cur, nil
}

// selectTop is the top Filter's step under selTop: cur itself when every
// row passes, a selBatch over cur when at least half do, a copy of the
// rows kept when fewer (so a big batch is not held in flight for a few
// rows: the statement's memory limit counts it), nil when none; it takes
// over the caller's reference to cur.
func (p *pipeline) selectTop(kctx context.Context, env *Env, cur arrow.RecordBatch, s *selector, scratch *[]int64) (arrow.RecordBatch, error) {
	rows, all, err := s.selectRows(kctx, env, cur, scratch)
	return topRows(kctx, env, cur, rows, all, err)
}

// topRows is selectTop's result for the rows selected of cur.
func topRows(kctx context.Context, env *Env, cur arrow.RecordBatch, rows []int64, all bool, err error) (arrow.RecordBatch, error) {
	switch {
	case err != nil:
		cur.Release()
		return nil, err
	case all:
		return cur, nil
	case len(rows) == 0:
		cur.Release()
		return nil, nil
	case len(rows)*2 < int(cur.NumRows()):
		// Few rows kept: copy them here and let the input go, rather than
		// hold the whole batch in flight for the few (the consumer would
		// copy them first anyway).
		g, err := gatherRows(kctx, env, cur, rows, nil)
		cur.Release()
		return g, err
	}
	// rows may share the worker's scratch: the batch leaves the worker.
	return &selBatch{RecordBatch: cur, sel: slices.Clone(rows)}, nil
}

// detachSel is detachFrom (every column) for selectTop's result, which
// may be a selBatch over the raw batch in.
func detachSel(mem memory.Allocator, in, out arrow.RecordBatch) (arrow.RecordBatch, error) {
	sb, ok := out.(*selBatch)
	if !ok {
		return detachFrom(mem, in, out, nil)
	}
	d, err := detachFrom(mem, in, sb.RecordBatch, nil)
	if err != nil {
		return nil, err
	}
	sb.RecordBatch = d
	return sb, nil
}

// mapResult is one batch's outcome in parallelMap.
type mapResult struct {
	out arrow.RecordBatch
	err error
}

type mapJob struct {
	b   arrow.RecordBatch
	res chan mapResult
}

// parallelMap returns a reader of fn over in's batches, computed by
// workers goroutines and yielded in input order; fn's nil results are
// skipped. Worker w calls fn with w, so it may keep scratch state; the
// reading goroutine, which transforms a batch itself when the
// statement's account has no room for more in flight (roomFor), calls it
// with workers. The reader owns in, and calls done (if not nil) once the
// workers have stopped and in is released. At most about 2·workers
// batches are in flight.
func parallelMap(ctx context.Context, mem memory.Allocator, in array.RecordReader, schema *arrow.Schema, workers int,
	fn func(w int, b arrow.RecordBatch) (arrow.RecordBatch, error), done func()) array.RecordReader {
	window := workers
	order := make(chan chan mapResult, window)
	jobs := make(chan mapJob, window+1) // never full: one job per result not yet taken
	stop := make(chan struct{})
	var readerDone sync.WaitGroup
	var workersDone sync.WaitGroup
	started := false
	start := func() {
		started = true
		readerDone.Add(1)
		go func() {
			defer readerDone.Done()
			defer close(jobs)
			defer close(order)
			send := func(r chan mapResult) bool {
				select {
				case order <- r:
					return true
				case <-stop:
					return false
				}
			}
			fail := func(err error) {
				r := make(chan mapResult, 1)
				r <- mapResult{err: err}
				send(r)
			}
			for {
				var ok bool
				if err := memlimit.Guard(func() error { ok = in.Next(); return nil }); err != nil {
					fail(err)
					return
				}
				if !ok {
					if err := in.Err(); err != nil {
						fail(err)
					}
					return
				}
				b := in.RecordBatch()
				r := make(chan mapResult, 1)
				if !roomFor(mem, int64(window+1)*memlimit.BatchBytes(b)) {
					var res mapResult
					res.err = memlimit.Guard(func() error {
						var err error
						res.out, err = fn(workers, b)
						return err
					})
					r <- res
					if !send(r) && res.out != nil {
						res.out.Release()
					}
					if res.err != nil {
						return
					}
					continue
				}
				b.Retain()
				if !send(r) {
					b.Release()
					return
				}
				jobs <- mapJob{b: b, res: r}
			}
		}()
		for w := range workers {
			workersDone.Add(1)
			go func() {
				defer workersDone.Done()
				for j := range jobs {
					var res mapResult
					select {
					case <-stop:
					default:
						res.err = memlimit.Guard(func() error {
							var err error
							res.out, err = fn(w, j.b)
							return err
						})
					}
					j.b.Release()
					j.res <- res
				}
			}()
		}
	}
	next := func() (arrow.RecordBatch, error) {
		if !started {
			start()
		}
		for {
			r, ok := <-order
			if !ok {
				return nil, nil
			}
			res := <-r
			if res.err != nil {
				return nil, res.err
			}
			if res.out != nil {
				return res.out, nil
			}
		}
	}
	closeFn := func() {
		if started {
			close(stop)
			readerDone.Wait()
			for r := range order {
				if res := <-r; res.out != nil {
					res.out.Release()
				}
			}
			workersDone.Wait()
		}
		in.Release()
		if done != nil {
			done()
		}
	}
	return newPullReader(ctx, schema, next, closeFn)
}

// openPiped opens op with its Filter and Project steps running in
// parallel over its source's batches, when there are steps and more than
// one goroutine may run; else it is op.Open.
func openPiped(ctx context.Context, env *Env, op Operator) (array.RecordReader, error) {
	return openPipedSel(ctx, env, op, false)
}

// openPipedSel is openPiped whose top Filter, with selTop, yields
// selBatch values.
func openPipedSel(ctx context.Context, env *Env, op Operator, selTop bool) (array.RecordReader, error) {
	p := splitPipeline(op)
	p.selTop = selTop
	workers := parallelism(ctx)
	if len(p.steps) == 0 || workers < 2 {
		return op.Open(ctx, env)
	}
	p.profile(ctx, len(p.steps)-1) // the top step is op, which OpenOp measures
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, pre, err := p.openSource(ctx, env)
	if err != nil {
		return nil, err
	}
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	scratch := make([][]int64, workers+1)
	return parallelMap(ctx, env.Mem, in, op.Schema(), workers, func(w int, b arrow.RecordBatch) (arrow.RecordBatch, error) {
		return pre(b, func(b arrow.RecordBatch) (arrow.RecordBatch, error) { return p.apply(kctx, env, b, &scratch[w]) })
	}, nil), nil
}

// piped is op opened through openPiped.
type piped struct{ Operator }

func (p piped) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	return openPiped(ctx, env, p.Operator)
}

// pipedSel is op opened through openPipedSel: its reader may yield
// selBatch values, so only a consumer that reads them may open it.
type pipedSel struct{ Operator }

func (p pipedSel) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	return openPipedSel(ctx, env, p.Operator, true)
}

// probeParallel says whether the join probes in several goroutines: it
// has keys (a keyless join probes in slices of a batch), is not a full
// outer join (whose probes mark the build rows they matched), and has
// build rows.
func (j *HashJoin) probeParallel(ctx context.Context, side *buildSide) bool {
	return parallelism(ctx) > 1 && len(j.lk) > 0 && !j.Type.keepsBuild() && side.rows > 0
}

// openParallel streams the join with the left input's Filter and Project
// steps and the probe running in workers, output in left batch order.
func (j *HashJoin) openParallel(ctx context.Context, env *Env, side *buildSide) (array.RecordReader, error) {
	p := splitPipeline(j.Left)
	p.profile(ctx, len(p.steps))
	in, pre, err := p.openSource(ctx, env)
	if err != nil {
		side.release()
		return nil, err
	}
	workers := parallelism(ctx)
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	views := make([]*buildSide, workers+1)
	scratch := make([][]int64, workers+1)
	for w := range views {
		v := *side
		v.table = side.table.probeView()
		views[w] = &v
	}
	// A scan's runtime filters straight under an inner or semi join's
	// probe: the probe skips the rows they drop instead of their being
	// copied out first.
	scan, _ := p.src.(*Scan)
	if len(p.steps) > 0 || scan == nil || len(scan.Filters) == 0 || scan.Pre != nil || (j.Type != InnerJoin && j.Type != LeftSemiJoin) {
		scan = nil
	}
	// The views share side's memory: side is released once the workers
	// are done.
	return parallelMap(ctx, env.Mem, in, j.schema, workers, func(w int, b arrow.RecordBatch) (arrow.RecordBatch, error) {
		if scan != nil {
			keep, kept := scanFilterKeep(env, scan.schema, scan.Filters, b)
			if kept == 0 {
				return nil, nil
			}
			if kept == int(b.NumRows()) {
				keep = nil
			}
			return j.probeSel(kctx, env, views[w], b, keep)
		}
		return pre(b, func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
			x, err := p.apply(kctx, env, b, &scratch[w])
			if err != nil || x == nil {
				return nil, err
			}
			defer x.Release()
			return j.probe(kctx, env, views[w], x)
		})
	}, side.release), nil
}

// deferRFKey marks, in the context a pipeline opens its source with,
// the Scan whose runtime filters the pipeline's workers apply instead
// of the scan's reading goroutine.
type deferRFKey struct{}

// openSource opens the pipeline's source. When it is a scan with runtime
// filters, the scan passes its batches on unfiltered and pre, which every
// worker calls on a batch before its own steps (fn), applies them: the
// filters' tests and the copy of the rows kept (a third of Q3's CPU) run
// in the workers, not in the one goroutine that reads the source. pre
// leaves b the caller's and skips fn when the filters drop every row.
func (p *pipeline) openSource(ctx context.Context, env *Env) (in array.RecordReader, pre func(b arrow.RecordBatch, fn func(arrow.RecordBatch) (arrow.RecordBatch, error)) (arrow.RecordBatch, error), err error) {
	s, ok := p.src.(*Scan)
	if ok && len(s.Filters) > 0 && len(p.steps) > 0 {
		// The first step applies the filters with its own selection
		// (applyFirst): the rows they keep are not copied out first and
		// then again by a Filter, or whole where a Project reads a few
		// columns.
		p.rf = s
		if p.sels[0] != nil && s.Pre != nil {
			// Only a predicate of direct kernels goes first, as Scan.open
			// decides.
			fast := true
			for _, k := range p.sels[0].kern {
				fast = fast && k != nil
			}
			p.preFirst.Store(fast)
		}
		in, err = p.openSrc(context.WithValue(ctx, deferRFKey{}, s), env)
		return in, func(b arrow.RecordBatch, fn func(arrow.RecordBatch) (arrow.RecordBatch, error)) (arrow.RecordBatch, error) {
			return fn(b)
		}, err
	}
	// A scan with a Pre predicate keeps its filters: it tests Pre first and
	// the runtime filters only on the rows Pre keeps (Scan.preFiltered),
	// which saves more than spreading every row's filter test over the
	// workers (Q20's lineitem).
	if !ok || len(s.Filters) == 0 || s.Pre != nil {
		in, err = p.openSrc(ctx, env)
		return in, func(b arrow.RecordBatch, fn func(arrow.RecordBatch) (arrow.RecordBatch, error)) (arrow.RecordBatch, error) {
			return fn(b)
		}, err
	}
	in, err = p.openSrc(context.WithValue(ctx, deferRFKey{}, s), env)
	return in, func(b arrow.RecordBatch, fn func(arrow.RecordBatch) (arrow.RecordBatch, error)) (arrow.RecordBatch, error) {
		f, err := applyScanFilters(ctx, env, s.schema, s.Filters, b)
		if err != nil || f == nil {
			return nil, err
		}
		defer f.Release()
		return fn(f)
	}, err
}

// probeView is a copy of g for lookups from another goroutine: it shares
// the stored keys and slots, read-only, and has its own per-batch state
// (the bound key columns and row hashes). Nothing may add groups to g
// while views are in use.
func (g *groupTable) probeView() *groupTable {
	v := *g
	v.hashes = nil
	v.cols = make([]keyCol, len(g.cols))
	for i, c := range g.cols {
		v.cols[i] = c.view()
	}
	v.fixed, v.str = nil, nil
	if g.fixed != nil {
		v.fixed = v.cols[0].(*fixedKeyCol)
	}
	if g.str != nil {
		v.str = v.cols[0].(*strKeyCol)
	}
	return &v
}

// The view of each key column: its stored keys shared, its bound batch
// its own.

func (c *fixedKeyCol) view() keyCol {
	v := *c
	v.cur, v.curNull = nil, nil
	return &v
}

func (c *decKeyCol) view() keyCol {
	v := *c
	v.cur, v.arr = nil, nil
	return &v
}

func (c *strKeyCol) view() keyCol {
	v := *c
	v.strView()
	return &v
}

func (c *strKeyCol) strView() {
	c.data, c.o32, c.o64, c.fsb, c.arr, c.curLen, c.curHead = nil, nil, nil, nil, nil, nil, nil
}

func (c *genericKeyCol) view() keyCol {
	v := *c
	v.strView()
	v.buf, v.boffs, v.src, v.get, v.app, v.b = nil, nil, nil, nil, nil, nil
	return &v
}

// roomFor says whether the statement's account (a limited Env.Mem) can
// take n more bytes in flight while staying under half its limit. When
// it cannot, the pipeline's reading goroutine transforms the batch
// itself instead of queueing it, so a query that streams within
// exec_mem_limit on one goroutine still does with several.
func roomFor(mem memory.Allocator, n int64) bool {
	a, ok := mem.(*memlimit.Allocator)
	if !ok || a.Limit() <= 0 {
		return true
	}
	return a.Used()+n <= a.Limit()/2
}

// applyFirst is the first step over b, a batch of the scan p.rf whose
// runtime filters it applies: the filters and, for a Filter, its
// conjuncts select the rows (Scan.Pre's order: the Filter first while it
// keeps at most half the rows), and only the columns the step above reads
// are gathered, once. b stays the caller's; nil when no row is left.
func (p *pipeline) applyFirst(kctx context.Context, env *Env, b arrow.RecordBatch, scratch *[]int64) (arrow.RecordBatch, error) {
	var start time.Time
	if p.prof != nil && p.prof[0] != nil {
		start = time.Now()
	}
	rows, all, err := p.rfSelect(kctx, env, b, scratch)
	if err != nil || (!all && len(rows) == 0) {
		return nil, err
	}
	var out arrow.RecordBatch
	switch st := p.steps[0].(type) {
	case *Filter:
		if p.selTop && len(p.steps) == 1 {
			b.Retain()
			out, err = topRows(kctx, env, b, rows, all, nil)
			if err == nil && out != nil && p.raw {
				out, err = detachSel(memlimit.Lenient(env.Mem), b, out)
			}
			return out, err
		}
		if all {
			b.Retain()
			out = b
		} else {
			out, err = gatherRows(kctx, env, b, rows, p.needs[0])
		}
		if err == nil && p.raw {
			out, err = detachFrom(memlimit.Lenient(env.Mem), b, out, p.needs[0])
		}
	case *Project:
		in := b
		if !all {
			if in, err = gatherRows(kctx, env, b, rows, columnsRead(st.Exprs)); err != nil {
				return nil, err
			}
			defer in.Release()
		}
		out, err = evalBatch(env, st.schema, st.Exprs, in)
	}
	if !start.IsZero() && err == nil {
		c := p.prof[0]
		c.nanos.Add(int64(time.Since(start)))
		c.batches.Add(1)
		c.rows.Add(out.NumRows())
	}
	return out, err
}

// rfSelect is the rows of b (ascending; all: every row, rows nil) that
// pass the runtime filters of the scan p.rf and, when the first step is a
// Filter, its predicate.
func (p *pipeline) rfSelect(kctx context.Context, env *Env, b arrow.RecordBatch, scratch *[]int64) (rows []int64, all bool, err error) {
	s, sel, n := p.rf, p.sels[0], int(b.NumRows())
	if sel != nil && p.preFirst.Load() {
		rows, all, err := sel.selectRows(kctx, env, b, scratch)
		// A predicate that fails on b goes after the filters, which may
		// drop the rows it fails on (as Scan.preFiltered).
		if err == nil {
			passed := len(rows)
			if all {
				passed = n
			}
			seen, kept := p.preSeen.Add(int64(n)), p.prePassed.Add(int64(passed))
			if seen >= preProbation && kept*preMaxShareInv > seen {
				p.preFirst.Store(false)
			}
			switch {
			case all:
				keep, k := scanFilterKeep(env, s.schema, s.Filters, b)
				return keptRows(keep, k, n, scratch)
			case len(rows) == 0:
				return nil, false, nil
			}
			keys := make([]int, 0, len(s.Filters))
			for _, f := range s.Filters {
				keys = append(keys, f.Column)
			}
			narrow, err := gatherRows(kctx, env, b, rows, keys)
			if err != nil {
				return nil, false, err
			}
			keep, _ := scanFilterKeep(env, s.schema, s.Filters, narrow)
			narrow.Release()
			if keep == nil {
				return rows, false, nil
			}
			out := rows[:0]
			for j, r := range rows {
				if keep[j] {
					out = append(out, r)
				}
			}
			return out, false, nil
		}
	}
	keep, k := scanFilterKeep(env, s.schema, s.Filters, b)
	rows, all, _ = keptRows(keep, k, n, scratch)
	if sel == nil || (!all && len(rows) == 0) {
		return rows, all, nil
	}
	return sel.selectFrom(kctx, env, b, rows, scratch)
}

// keptRows is the row numbers where keep (nil: every row) is set, kept of
// n, in *scratch; all when every row is.
func keptRows(keep []bool, kept, n int, scratch *[]int64) (rows []int64, all bool, err error) {
	switch {
	case kept == 0:
		return nil, false, nil
	case keep == nil || kept == n:
		return nil, true, nil
	}
	if cap(*scratch) < kept {
		*scratch = make([]int64, 0, n)
	}
	rows = (*scratch)[:0]
	for i, k := range keep {
		if k {
			rows = append(rows, int64(i))
		}
	}
	return rows, false, nil
}
