package physical

import (
	"context"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/planner"
)

// Config is what Build needs besides the plan.
type Config struct {
	// Mem allocates what planning itself builds (the serialized result
	// schema of a partial aggregate). Required.
	Mem memory.Allocator
	// Runner executes the fragments of Fluss and Paimon scans on the BEs;
	// nil makes opening such a scan an error.
	Runner Runner
	// Statement receives the scans Build plans; nil gives the build a
	// statement of its own, which nobody reads.
	Statement *Statement
	// Estimates are plan nodes' estimated row counts (fe/opt); Build puts
	// each into Cardinality (when not nil) under the operator the node
	// became, for EXPLAIN.
	Estimates   map[bind.Plan]float64
	Cardinality map[exec.Operator]float64
	// MatchShare estimates the share of a join's probe rows whose key'th
	// key has a match on its build side (fe/opt); runtime filters are made
	// only where it is small enough to pay for them. nil (or ok false)
	// knows nothing, and every eligible key gets its filters.
	MatchShare func(j *bind.Join, key int) (share float64, ok bool)
	// RuntimeFilters configures the filters hash joins give the scans
	// below their probe side; the zero value makes none.
	RuntimeFilters RFConfig
}

// Build builds the executor operators for a bound plan. Scans the planner
// reads are planned now, so the returned tree (exec.ExplainTree) shows what
// the BEs will be sent.
func Build(ctx context.Context, p bind.Plan, cfg Config) (exec.Operator, error) {
	b := &builder{cfg: cfg, st: cfg.Statement, rfTargets: map[*bind.Scan][]exec.ScanFilter{}, scanUses: map[*bind.Scan]int{}}
	if b.st == nil {
		b.st = NewStatement()
	}
	countScans(p, b.scanUses)
	b.shared = findShared(p)
	op, err := b.physical(ctx, p)
	if err == nil {
		exec.PruneJoinColumns(op) // joins copy only the columns read above them
	}
	if err != nil || len(b.shared) == 0 {
		return op, err
	}
	root := &sharedRoot{Operator: op}
	seen := map[*sharedOp]bool{}
	for _, g := range b.shared {
		if g.op != nil && !seen[g.op] {
			seen[g.op] = true
			root.shared = append(root.shared, g.op)
		}
	}
	if n, ok := cfg.Cardinality[op]; ok && cfg.Cardinality != nil {
		cfg.Cardinality[root] = n
	}
	return root, nil
}

// builder is one Build.
type builder struct {
	cfg Config
	st  *Statement
	// rfTargets are the runtime filters each scan applies, planned by the
	// joins above it before the scan is built; scanUses counts each scan
	// node's occurrences in the plan (a shared one takes none).
	rfTargets map[*bind.Scan][]exec.ScanFilter
	scanUses  map[*bind.Scan]int
	// shared are the aggregates computed once for several readers
	// (shared.go).
	shared map[bind.Plan]*sharedGroup
}

// tableSource adapts a catalog table scan to an executor source.
type tableSource struct {
	t      catalog.Table
	req    catalog.ScanRequest
	schema *arrow.Schema
	lines  []string
}

func (ts *tableSource) Schema() *arrow.Schema { return ts.schema }

func (ts *tableSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	req := ts.req
	req.Mem = mem
	return ts.t.Scan(ctx, req)
}

func (ts *tableSource) ExplainLines() []string { return ts.lines }

// CanRaw implements exec.RawSource for tables that scan raw.
func (ts *tableSource) CanRaw() bool {
	rs, ok := ts.t.(catalog.RawScanner)
	return ok && rs.ScansRaw()
}

func (ts *tableSource) OpenRaw(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	req := ts.req
	req.Mem, req.Raw = mem, true
	return ts.t.Scan(ctx, req)
}

// physical builds executor operators for a bound plan.
func (b *builder) physical(ctx context.Context, p bind.Plan) (exec.Operator, error) {
	if g, ok := b.shared[p]; ok {
		if g.op == nil {
			in, err := b.physicalNode(ctx, p)
			if err != nil {
				return nil, err
			}
			g.op = &sharedOp{in: in, uses: g.uses}
			if n, ok := b.cfg.Estimates[p]; ok && b.cfg.Cardinality != nil && reflect.TypeOf(in).Comparable() {
				b.cfg.Cardinality[in] = n
			}
		}
		return g.op, nil
	}
	op, err := b.physicalNode(ctx, p)
	// Only comparable operators (pointers) can be map keys.
	if err == nil && b.cfg.Cardinality != nil && reflect.TypeOf(op).Comparable() {
		if n, ok := b.cfg.Estimates[p]; ok {
			if _, seen := b.cfg.Cardinality[op]; !seen {
				b.cfg.Cardinality[op] = n
			}
		}
	}
	return op, err
}

func (b *builder) physicalNode(ctx context.Context, p bind.Plan) (exec.Operator, error) {
	switch n := p.(type) {
	case *bind.Scan:
		if op, ok, err := b.plannedScan(ctx, n); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return b.withFilters(n, op), nil
		}
		src := &tableSource{t: n.Table, req: catalog.ScanRequest{Columns: n.Projection, Vars: n.Vars, Predicates: n.Predicates}, schema: bind.Schema(n)}
		node := "VSCAN"
		if ex, ok := n.Table.(catalog.Explainer); ok {
			name, lines, err := ex.ExplainScan(ctx, src.req, false)
			if err != nil {
				return nil, err
			}
			node, src.lines = "V"+name, lines
		}
		return b.withFilters(n, exec.NewScan(node, "", src)), nil
	case *bind.Values:
		return exec.NewValues(bind.Schema(n), n.Rows)
	case *bind.Filter:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		cond := n.Cond
		if bs, ok := n.Input.(*bind.Scan); ok {
			if cond, err = residual(in, bs, n.Cond); err != nil {
				return nil, err
			}
		}
		if cond == nil {
			// The scan returns the filter's rows: its estimate is theirs.
			if est, ok := b.cfg.Estimates[n]; ok && b.cfg.Cardinality != nil && reflect.TypeOf(in).Comparable() {
				b.cfg.Cardinality[in] = est
			}
			return in, nil
		}
		if sc, ok := in.(*exec.Scan); ok && len(sc.Filters) > 0 {
			// The scan tests the predicate before its runtime filters.
			sc.Pre = cond
		}
		return exec.NewFilter(in, cond)
	case *bind.Project:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(n.Out))
		for i, c := range n.Out {
			names[i] = c.Name
		}
		return exec.NewProject(in, n.Exprs, names)
	case *bind.Limit:
		if sc := limitedScan(n.Input); sc != nil && n.Count >= 0 {
			// Nothing between the LIMIT and the scan drops rows, so the BEs
			// may stop after offset+count rows of the scan as a whole.
			b.st.limits[sc] = n.Offset + n.Count
		}
		if st, ok := n.Input.(*bind.Sort); ok && n.Count >= 0 {
			if sc, top := rangeTopN(st, n.Offset+n.Count); sc != nil {
				// Each range's first offset+count rows in the sort order
				// hold the union's: the BEs send no more than that.
				b.st.topn[sc] = top
			}
			in, err := b.physical(ctx, st.Input)
			if err != nil {
				return nil, err
			}
			return exec.NewTopN(in, sortKeys(st.Keys), n.Offset, n.Count)
		}
		if pr, ok := n.Input.(*bind.Project); ok && n.Count >= 0 {
			// ORDER BY an expression sorts on a hidden column that a
			// projection above the sort drops: a projection keeps every
			// row, so the limit goes below it and the sort keeps only
			// offset+count rows (a Top-N) instead of all of its input.
			if st, ok := pr.Input.(*bind.Sort); ok {
				if sc, top := rangeTopN(st, n.Offset+n.Count); sc != nil {
					b.st.topn[sc] = top
				}
				in, err := b.physical(ctx, st.Input)
				if err != nil {
					return nil, err
				}
				top, err := exec.NewTopN(in, sortKeys(st.Keys), n.Offset, n.Count)
				if err != nil {
					return nil, err
				}
				names := make([]string, len(pr.Out))
				for i, c := range pr.Out {
					names[i] = c.Name
				}
				return exec.NewProject(top, pr.Exprs, names)
			}
		}
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		return exec.NewLimit(in, n.Offset, n.Count), nil
	}
	return b.physicalMore(ctx, p)
}

// NestedPrunes returns the struct columns of p's scan that can be read
// narrowed (enable_prune_nested_column), for tables the BEs read: the
// caller binds again with them (bind.Session.Pruned) so field accesses bind
// against what the BEs will return.
func NestedPrunes(p bind.Plan) map[string]arrow.DataType {
	var sc *bind.Scan
	for n := p; n != nil; {
		if x, ok := n.(*bind.Scan); ok {
			sc = x
			break
		}
		ch := n.Children()
		if len(ch) != 1 {
			return nil
		}
		n = ch[0]
	}
	if sc == nil || !planner.Plannable(sc.Table) {
		return nil
	}
	return bind.NestedPrunes(p)
}

// limitedScan returns the scan under p when only projections (which never
// drop rows) and a filter the BEs apply exactly lie between them, else nil.
func limitedScan(p bind.Plan) *bind.Scan {
	sc, _ := scanBelow(p)
	return sc
}
