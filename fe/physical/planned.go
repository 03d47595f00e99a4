package physical

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// plannedScan builds the scan operator of a table the planner reads (Fluss
// and Paimon catalogs): the ranges are fixed now, so EXPLAIN prints exactly
// what the BEs would be sent.
func (b *builder) plannedScan(ctx context.Context, n *bind.Scan) (exec.Operator, bool, error) {
	res, prof, ok, err := b.planScan(ctx, n)
	if err != nil || !ok {
		return nil, ok, err
	}
	src := b.source(res, bind.Schema(n), prof)
	return exec.NewScan(res.Node, "", src), true, nil
}

// planScan plans a scan on the BEs and files its profile slot; ok is false
// when the planner does not read n's table.
func (b *builder) planScan(ctx context.Context, n *bind.Scan) (*planner.Result, *ScanProfile, bool, error) {
	st := b.st
	st.mu.Lock()
	scanID := int32(len(st.scans))
	prof := &ScanProfile{Table: n.Catalog + "." + n.Database + "." + n.Table.Name()}
	st.scans = append(st.scans, prof)
	st.mu.Unlock()
	limit := int64(-1)
	if l, ok := st.limits[n]; ok {
		limit = l
	}
	res, ok, err := planner.Plan(ctx, n.Table, planner.Request{
		QueryID: st.id, ScanID: scanID, Columns: n.Projection, Predicates: n.Predicates,
		Vars: n.Vars, Limit: limit, Pruned: n.Pruned, TimeTravel: n.TimeTravel, TopN: st.topn[n],
		OrPredicates: n.OrPredicates,
	})
	if err != nil || !ok {
		if !ok {
			st.mu.Lock()
			st.scans = st.scans[:len(st.scans)-1]
			st.mu.Unlock()
		}
		return nil, nil, ok, err
	}
	st.mu.Lock()
	prof.Node = res.Node
	st.mu.Unlock()
	return res, prof, true, nil
}

// pushedAggregate runs an aggregate over a BE-read table as a partial
// aggregate on the BEs (next to the readers) and a final one here. It
// applies when the aggregate reads the scan directly (no WHERE left to
// apply in between), groups by columns and computes count, sum, min, max
// or avg of columns without DISTINCT; ok is false otherwise.
func (b *builder) pushedAggregate(ctx context.Context, n *bind.Aggregate, names []string, aggs []exec.AggCall) (exec.Operator, bool, error) {
	sc, ok := n.Input.(*bind.Scan)
	if !ok || !planner.Plannable(sc.Table) || !partialPays(b.cfg.Estimates, n, sc) {
		return nil, false, nil
	}
	pa := &inletpb.PartialAggregate{}
	for _, g := range n.Groups {
		c, ok := g.(*expr.ColumnRef)
		if !ok {
			return nil, false, nil
		}
		pa.GroupBy = append(pa.GroupBy, int32(c.Index))
	}
	for _, a := range aggs {
		fn, ok := exec.AggName(a.Func)
		if !ok || a.Distinct {
			return nil, false, nil
		}
		call := &inletpb.AggCall{Func: fn, Name: a.Name, Arg: -1}
		if a.Func != exec.CountStar {
			args := []expr.Expr{a.Arg}
			if exec.TakesSeveralArgs(a.Func) {
				// The binder packs a two-argument aggregate's arguments
				// into one STRUCT (covar(x, y), percentile(x, p), ...):
				// send the columns and the constants apart.
				args = a.Arg.Children()
			}
			for k, arg := range args {
				// The binder widens SUM/AVG arguments (int → bigint); the
				// executor's accumulators widen the same way on their own,
				// and the final result is cast to the bound type.
				if c, ok := arg.(*expr.CastExpr); ok && isNumeric(c.To) && isNumeric(c.Arg.DataType()) {
					arg = c.Arg
				} else if c, ok := arg.(*expr.CastExpr); ok && len(args) > 1 {
					// exec.PackArgs casts a packed column to the same
					// type on the BE (topn's text).
					if _, col := c.Arg.(*expr.ColumnRef); col {
						arg = c.Arg
					}
				}
				if lit, ok := arg.(*expr.Literal); ok && k > 0 {
					p, ok := numberOf(lit.Value)
					if !ok {
						return nil, false, nil
					}
					call.Params = append(call.Params, p)
					continue
				}
				c, ok := arg.(*expr.ColumnRef)
				if !ok || len(call.Params) > 0 {
					return nil, false, nil
				}
				if k == 0 {
					call.Arg = int32(c.Index)
				} else {
					call.MoreArgs = append(call.MoreArgs, int32(c.Index))
				}
			}
		}
		pa.Calls = append(pa.Calls, call)
	}
	// The partial half, built over the scan's columns, fixes the state
	// columns the BEs send; the final half merges them.
	carrier, err := exec.NewValues(bind.Schema(sc), nil)
	if err != nil {
		return nil, false, err
	}
	partial, err := exec.PartialFromFragment(carrier, pa)
	if err != nil {
		return nil, false, nil // a type the partial states cannot carry: aggregate here
	}
	res, prof, ok, err := b.planScan(ctx, sc)
	if err != nil || !ok {
		return nil, ok, err
	}
	if len(res.Fragment.GetRanges()) == 0 {
		// Nothing to read (an empty table): no BE runs, and the FE's
		// aggregate gives the answer of an empty input (COUNT 0, ...).
		src := b.source(res, bind.Schema(sc), prof)
		op, err := exec.NewHashAggregate(exec.NewScan(res.Node, "", src), n.Groups, names, aggs, exec.AggSingle)
		return op, err == nil, err
	}
	if op, ok := countFromManifests(res, pa, partial); ok {
		return op, true, nil
	}
	res.Fragment.PartialAgg = pa
	res.Fragment.ResultSchema = flight.SerializeSchema(partial.Schema(), b.cfg.Mem)
	res.Lines = withAggLine(res.Lines, partialAggLine(names, aggs))
	src := b.source(res, partial.Schema(), prof)
	final, err := partial.FinalFor(exec.NewScan(res.Node, "", src))
	if err != nil {
		return nil, false, err
	}
	if groups, ok := b.cfg.Estimates[n]; ok {
		final.SetEstimate(groups)
	}
	return final, true, nil
}

// A partial aggregate on the BEs pays when it sends the FE far fewer rows
// than it reads. With many groups, a few rows each, it hashes every row
// as the FE would and then the FE merges nearly as many states again:
// TPC-H Q18's GROUP BY l_orderkey over the lake (6 M rows, 1.5 M groups)
// cost twice the CPU of the FE aggregating the rows itself, GROUP BY
// l_partkey (200 K groups, 30 rows each) a quarter more, and GROUP BY
// l_suppkey (10 K groups) the same either way (SF 1, BE in process).
// Below partialMinGroups groups the FE's merge is too small to matter.
const (
	partialMinGroups    = 1 << 16
	partialRowsPerGroup = 64
)

// partialPays says whether the optimizer's estimates of the aggregate's
// groups and the scan's rows leave the partial aggregate worth running;
// without them it runs.
func partialPays(est map[bind.Plan]float64, n *bind.Aggregate, sc *bind.Scan) bool {
	groups, gok := est[n]
	rows, rok := est[sc]
	return !gok || !rok || groups < partialMinGroups || groups*partialRowsPerGroup <= rows
}

// countFromManifests answers an aggregate of count(*) only, without GROUP
// BY, from the row count the planner knows exactly (planner.Result.RowsExact:
// no predicate, every split raw): no BE reads a file, as Doris's count
// pushdown (EXPLAIN: pushdown agg=COUNT). The final aggregate runs over one
// partial row carrying the count, so types and names are the usual ones.
func countFromManifests(res *planner.Result, pa *inletpb.PartialAggregate, partial *exec.HashAggregate) (exec.Operator, bool) {
	if !res.RowsExact || len(pa.GetGroupBy()) > 0 || len(pa.GetCalls()) == 0 {
		return nil, false
	}
	for _, c := range pa.GetCalls() {
		if c.GetFunc() != "count_star" {
			return nil, false
		}
	}
	sc := partial.Schema()
	for _, f := range sc.Fields() {
		if f.Type.ID() != arrow.INT64 {
			return nil, false
		}
	}
	lines := make([]string, len(res.Lines))
	for i, l := range res.Lines {
		if strings.HasPrefix(l, "pushdown agg=") {
			l = "pushdown agg=COUNT (" + strconv.FormatInt(res.Rows, 10) + " rows from the manifests, no file read)"
		}
		lines[i] = l
	}
	src := &countSource{schema: sc, rows: res.Rows, lines: lines}
	final, err := partial.FinalFor(exec.NewScan(res.Node, "", src))
	if err != nil {
		return nil, false
	}
	return final, true
}

// countSource yields the one partial row of a count answered from the
// manifests.
type countSource struct {
	schema *arrow.Schema
	rows   int64
	lines  []string
}

func (c *countSource) Schema() *arrow.Schema  { return c.schema }
func (c *countSource) ExplainLines() []string { return c.lines }

// Open builds the row with the query's allocator, so it is accounted and
// released with the reader.
func (c *countSource) Open(_ context.Context, mem memory.Allocator) (array.RecordReader, error) {
	cols := make([]arrow.Array, c.schema.NumFields())
	for i := range cols {
		bld := array.NewInt64Builder(mem)
		bld.Append(c.rows)
		cols[i] = bld.NewArray()
		bld.Release()
	}
	rec := array.NewRecordBatch(c.schema, cols, 1)
	for _, col := range cols {
		col.Release()
	}
	defer rec.Release()
	return array.NewRecordReader(c.schema, []arrow.RecordBatch{rec})
}

// partialAggLine is the EXPLAIN line of an aggregate the BEs start.
func partialAggLine(groups []string, aggs []exec.AggCall) string {
	calls := make([]string, len(aggs))
	for i, a := range aggs {
		calls[i] = a.String()
	}
	g := "none"
	if len(groups) > 0 {
		g = strings.Join(groups, ", ")
	}
	return "partial aggregate on BE: group by " + g + "; " + strings.Join(calls, ", ")
}

// withAggLine puts line before the scan's "pushdown agg" line.
func withAggLine(lines []string, line string) []string {
	out := make([]string, 0, len(lines)+1)
	for i, l := range lines {
		if strings.HasPrefix(l, "pushdown agg=") {
			out = append(out, line)
			return append(out, lines[i:]...)
		}
		out = append(out, l)
	}
	return append(out, line)
}

// residual is the part of cond, a filter right over the scan bs built as
// in, that the FE must still test: the conjuncts the BEs do not apply
// exactly (exactOnBE). nil when none is left. Only a scan read from the
// BEs (a fragment) hands any over; a column only those conjuncts read is
// then read by nothing above the scan, and PruneColumns keeps it on the
// BEs (Fragment.filter_only).
func residual(in exec.Operator, bs *bind.Scan, cond expr.Expr) (expr.Expr, error) {
	sc, ok := in.(*exec.Scan)
	if !ok {
		return cond, nil
	}
	fs, ok := sc.Src.(*fragmentSource)
	if !ok || len(fs.res.Fragment.GetResultSchema()) > 0 || fs.res.Fragment.GetPartialAgg() != nil {
		return cond, nil
	}
	all := expr.Conjuncts(cond)
	var rest []expr.Expr
	for _, c := range all {
		if !exactOnBE(c, bs, fs.res.Fragment) {
			rest = append(rest, c)
		}
	}
	switch len(rest) {
	case 0:
		return nil, nil
	case 1:
		return rest[0], nil
	}
	if len(rest) == len(all) {
		return cond, nil
	}
	return expr.And(rest...)
}

// fragmentSource runs a planned fragment through the Runner.
type fragmentSource struct {
	runner Runner
	res    *planner.Result
	schema *arrow.Schema
	prof   *ScanProfile
	st     *Statement
	// filters are the runtime filters of the scan: the min/max ones
	// published by Open are sent along as BE filters.
	filters []exec.ScanFilter
	// unread marks the output columns nothing above reads (PruneColumns):
	// the BEs do not send them (Fragment.filter_only) and Open's batches
	// hold placeholders there. nil: every column is read.
	unread []bool
}

// PruneColumns implements exec.ColumnPruner: the columns need leaves out
// become the fragment's filter_only ones. A fragment whose positions mean
// more than its output (a partial aggregate, a range Top-N) keeps them
// all, and one column stays read when none is (the BEs' batches still
// carry the row counts).
func (f *fragmentSource) PruneColumns(need []bool) {
	frag := f.res.Fragment
	frag.FilterOnly, f.unread = nil, nil
	if need == nil || len(need) != f.schema.NumFields() || len(frag.GetProjection()) != len(need) ||
		len(frag.GetResultSchema()) > 0 || frag.GetPartialAgg() != nil || frag.GetRangeTopN() != nil {
		return
	}
	var fo []int32
	for i, w := range need {
		if !w {
			fo = append(fo, int32(i))
		}
	}
	if len(fo) == len(need) {
		fo = fo[1:]
	}
	if len(fo) == 0 {
		return
	}
	frag.FilterOnly = fo
	f.unread = make([]bool, len(need))
	for _, c := range fo {
		f.unread[c] = true
	}
}

// source is the executor source of a planned fragment yielding schema,
// whose counters go to prof.
func (b *builder) source(res *planner.Result, schema *arrow.Schema, prof *ScanProfile) *fragmentSource {
	return &fragmentSource{runner: b.cfg.Runner, res: res, schema: schema, prof: prof, st: b.st}
}

func (f *fragmentSource) Schema() *arrow.Schema { return f.schema }

// ExplainLines are the planner's lines, and, when some output columns
// stay on the BEs, the columns the scan returns and those it only
// filters by.
func (f *fragmentSource) ExplainLines() []string {
	if f.unread == nil {
		return f.res.Lines
	}
	var out, only []string
	for i, fd := range f.schema.Fields() {
		if f.unread[i] {
			only = append(only, fd.Name)
		} else {
			out = append(out, fd.Name)
		}
	}
	lines := append([]string{}, f.res.Lines...)
	return append(lines, "output columns: "+strings.Join(out, ", "), "filter-only columns (read and filtered on the BEs, not returned): "+strings.Join(only, ", "))
}

func (f *fragmentSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	r := f.runner
	if r == nil {
		return nil, errorf(ErrNotSupported, "no BE is available to read %s", f.prof.Table)
	}
	start := time.Now()
	f.st.mu.Lock()
	if f.prof.Start.IsZero() {
		f.prof.Start = start
	}
	f.st.mu.Unlock()
	sr, err := r.Run(ctx, f.withRanges(ctx), mem)
	if err != nil {
		return nil, err
	}
	pr := &profiledReader{StatsReader: sr, done: f.record}
	if f.unread == nil {
		return pr, nil
	}
	return exec.WithPlaceholders(pr, f.schema, f.unread, mem)
}

func (f *fragmentSource) record(st *inletpb.ScanStats) {
	if st == nil {
		return
	}
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	f.prof.End = time.Now()
	if f.prof.Counters == nil {
		f.prof.Counters = map[string]int64{}
	}
	for k, v := range st.GetCounters() {
		f.prof.Counters[k] += v
	}
	for _, t := range st.GetTimings() {
		f.prof.Ranges = append(f.prof.Ranges, RangeTiming{ID: t.GetRangeId(), Kind: t.GetKind(), Backend: t.GetBackend(),
			Start: time.UnixMicro(t.GetStartUs()), End: time.UnixMicro(t.GetEndUs()), Rows: t.GetRows()})
	}
}

// numberOf is a numeric constant's value.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// DirectFragment returns the fragment of root when root is a scan of one
// fragment and nothing else: no operator of the plan runs on the FE, no
// runtime filter waits for a join, so the BEs' rows are the whole result
// and a client may read them from the BEs itself (Flight SQL's BE-direct
// endpoints). Its schema is what the BEs send.
func DirectFragment(root exec.Operator) (*inletpb.Fragment, *arrow.Schema, bool) {
	if p, ok := root.(*exec.Project); ok {
		// The select list over the scan's own columns, in order, only names
		// them (the caller compares the names).
		for i, e := range p.Exprs {
			c, ok := e.(*expr.ColumnRef)
			if !ok || c.Index != i {
				return nil, nil, false
			}
		}
		if len(p.Exprs) != p.Input.Schema().NumFields() {
			return nil, nil, false
		}
		root = p.Input
	}
	sc, ok := root.(*exec.Scan)
	if !ok || len(sc.Filters) > 0 {
		return nil, nil, false
	}
	fs, ok := sc.Src.(*fragmentSource)
	if !ok || len(fs.filters) > 0 || len(fs.res.Fragment.GetResultSchema()) > 0 || fs.unread != nil {
		return nil, nil, false
	}
	return fs.res.Fragment, fs.schema, true
}
