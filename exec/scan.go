package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/internal/arrowcopy"
)

// Source is anything that can produce a stream of batches of a fixed
// schema: an internal table, a Fluss scan through the BEs, a Paimon split.
type Source interface {
	Schema() *arrow.Schema
	Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error)
}

// ExplainSource is implemented by sources that add lines under their scan
// node in EXPLAIN (the Fluss planner adds "flussScan: ...").
type ExplainSource interface {
	ExplainLines() []string
}

// RawSource is a Source that can hand out batches whose buffers point
// into storage it gives back when their arrays are released (a mapped
// file: catalog.ScanRequest.Raw). A filter right above the scan reads
// them in place and copies out only the rows it keeps (detachFrom), where
// Open would copy every row's strings before the filter sees them.
type RawSource interface {
	Source
	// CanRaw says whether OpenRaw is available (false: call Open).
	CanRaw() bool
	// OpenRaw is Open with raw batches: no value read from one may be
	// kept past its release.
	OpenRaw(ctx context.Context, mem memory.Allocator) (array.RecordReader, error)
}

// rawScan is a Scan opened raw; only a filter that detaches what it
// keeps (openRaw) opens one.
type rawScan struct{ *Scan }

func (r rawScan) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	return r.open(ctx, env, r.Src.(RawSource).OpenRaw)
}

// openRaw opens op, raw when it is a Scan whose source can be read so:
// then every batch kept from it must go through detachFrom.
func openRaw(ctx context.Context, env *Env, op Operator) (array.RecordReader, bool, error) {
	if sc, ok := op.(*Scan); ok {
		if rs, ok := sc.Src.(RawSource); ok && rs.CanRaw() {
			rr, err := OpenOp(ctx, env, rawScan{sc})
			return rr, true, err
		}
	}
	rr, err := OpenOp(ctx, env, op)
	return rr, false, err
}

// detachFrom returns out, which a filter made of the raw batch in, with
// the columns in need (nil: all) that still share in's buffers copied to
// mem when their values alias their buffers (strings: see arrowcopy.AliasesValues):
// a column the filter gathered is already a copy, one it passed through
// (every row kept) or sliced is not. Columns not in need are read by
// nobody and stay, holding in's storage by reference. It consumes out.
func detachFrom(mem memory.Allocator, in, out arrow.RecordBatch, need []int) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	for i := range int(out.NumCols()) {
		if need != nil && !slices.Contains(need, i) {
			continue
		}
		c := out.Column(i)
		if !arrowcopy.AliasesValues(c.DataType()) || !sharesBuffer(c.Data(), in.Column(i).Data()) {
			continue
		}
		cp, err := arrowcopy.Column(mem, c)
		if err != nil {
			releaseCols(cols)
			out.Release()
			return nil, err
		}
		if cols == nil {
			cols = make([]arrow.Array, out.NumCols())
		}
		cols[i] = cp
	}
	if cols == nil {
		return out, nil
	}
	for i := range cols {
		if cols[i] == nil {
			cols[i] = out.Column(i)
			cols[i].Retain()
		}
	}
	res := array.NewRecordBatch(out.Schema(), cols, out.NumRows())
	releaseCols(cols)
	out.Release()
	return res, nil
}

// sharesBuffer reports whether a holds any buffer of b (children and
// dictionaries included).
func sharesBuffer(a, b arrow.ArrayData) bool {
	// A handful of buffers a column: a slice beats a map (per batch).
	var store [8]*memory.Buffer
	held := store[:0]
	var collect func(d arrow.ArrayData)
	collect = func(d arrow.ArrayData) {
		for _, x := range d.Buffers() {
			if x != nil && x.Len() > 0 {
				held = append(held, x)
			}
		}
		for _, ch := range d.Children() {
			collect(ch)
		}
		if dict := dictOf(d); dict != nil {
			collect(dict)
		}
	}
	collect(b)
	var shares func(d arrow.ArrayData) bool
	shares = func(d arrow.ArrayData) bool {
		for _, x := range d.Buffers() {
			if x != nil && slices.Contains(held, x) {
				return true
			}
		}
		for _, ch := range d.Children() {
			if shares(ch) {
				return true
			}
		}
		if dict := dictOf(d); dict != nil {
			return shares(dict)
		}
		return false
	}
	return shares(a)
}

// dictOf is d's dictionary, nil when it has none.
func dictOf(d arrow.ArrayData) *array.Data {
	if dd, ok := d.(*array.Data); ok {
		if dict, ok := dd.Dictionary().(*array.Data); ok && dict != nil {
			return dict
		}
	}
	return nil
}

// SourceFunc makes a Source from a schema and an open function.
func SourceFunc(schema *arrow.Schema, open func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error)) Source {
	return funcSource{schema: schema, open: open}
}

type funcSource struct {
	schema *arrow.Schema
	open   func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error)
}

func (f funcSource) Schema() *arrow.Schema { return f.schema }
func (f funcSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	return f.open(ctx, mem)
}

// Scan reads a Source. It checks every batch against the declared schema
// and passes batches through unchanged (zero-row batches are skipped).
type Scan struct {
	// Node is the EXPLAIN header, e.g. "VOlapScanNode" or
	// "VPluginDrivenScanNode(1)".
	Node string
	// Table is printed as "TABLE: <Table>" when set.
	Table string
	Src   Source
	// Filters are runtime filters of joins above (runtimefilter.go),
	// applied to each batch once their build side has published them.
	Filters []ScanFilter
	// Pre is the predicate of a Filter right above the scan, tested here
	// before the runtime filters so that they hash only the rows it keeps:
	// TPC-H Q20's year of lineitem is a seventh of it, and its bloom
	// filter hashed every row first. The Filter above still applies it,
	// so a batch whose test fails (an error the filters would have kept
	// the Filter from meeting) goes on whole. Unused without Filters.
	Pre    expr.Expr
	schema *arrow.Schema
}

// NewScan scans src; node is the EXPLAIN header ("" gives "VSCAN").
func NewScan(node, table string, src Source) *Scan {
	if node == "" {
		node = "VSCAN"
	}
	return &Scan{Node: node, Table: table, Src: src, schema: src.Schema()}
}

func (s *Scan) Schema() *arrow.Schema { return s.schema }
func (s *Scan) Children() []Operator  { return nil }
func (s *Scan) Explain() string {
	lines := []string{s.Node}
	if s.Table != "" {
		lines = append(lines, "TABLE: "+s.Table)
	}
	if ex, ok := s.Src.(ExplainSource); ok {
		lines = append(lines, ex.ExplainLines()...)
	}
	if len(s.Filters) > 0 {
		lines = append(lines, scanFilterLine(s.Filters))
	}
	return strings.Join(lines, "\n")
}

func (s *Scan) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	return s.open(ctx, env, s.Src.Open)
}

func (s *Scan) open(ctx context.Context, env *Env, open func(context.Context, memory.Allocator) (array.RecordReader, error)) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	// A source is code this package does not control and may allocate on
	// goroutines of its own (a BE stream, a lake reader): it counts against
	// the statement but never refuses; the operators above do.
	sctx := ctx
	if len(s.Filters) > 0 {
		sctx = context.WithValue(ctx, rfEnvKey{}, env)
	}
	rr, err := open(sctx, memlimit.Lenient(env.Mem))
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", s.name(), err)
	}
	var pre *selector
	var scratch []int64
	var preSeen, prePassed int64
	kctx := ctx
	if s.Pre != nil && len(s.Filters) > 0 {
		pre = newSelector(s.Pre)
		kctx = compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
		for _, k := range pre.kern {
			if k == nil {
				// Only a predicate of typed comparisons with constants
				// (a few ns a row) goes first: a LIKE or a function would
				// cost more on every row than the filters save.
				pre = nil
				break
			}
		}
	}
	next := func() (arrow.RecordBatch, error) {
		for rr.Next() {
			b := rr.RecordBatch()
			if b.NumRows() == 0 {
				continue
			}
			if err := checkBatch("scan "+s.name(), s.schema, b); err != nil {
				return nil, err
			}
			// The source counts what it reads but cannot refuse: when that
			// took the statement past its limit, the operators above must not
			// take one more batch to hold (a build side, a sort buffer, an IN
			// set would otherwise grow until their own next strict
			// allocation, long after the limit).
			if err := memlimit.Check(env.Mem); err != nil {
				return nil, err
			}
			if len(s.Filters) > 0 && ctx.Value(deferRFKey{}) != s {
				if pre != nil {
					out, passed, ok, err := s.preFiltered(kctx, env, pre, b, &scratch)
					preSeen, prePassed = preSeen+b.NumRows(), prePassed+int64(passed)
					if preSeen >= preProbation && prePassed*preMaxShareInv > preSeen {
						// It keeps too many rows to save the filters
						// their work: runtime filters first from now on.
						pre = nil
					}
					if ok {
						if err != nil || out != nil {
							return out, err
						}
						continue
					}
				}
				out, err := applyScanFilters(ctx, env, s.schema, s.Filters, b)
				if err != nil || out != nil {
					return out, err
				}
				continue
			}
			b.Retain()
			return b, nil
		}
		if err := rr.Err(); err != nil {
			return nil, fmt.Errorf("scan %s: %w", s.name(), err)
		}
		return nil, nil
	}
	return newPullReader(ctx, s.schema, next, rr.Release), nil
}

func (s *Scan) name() string {
	if s.Table != "" {
		return s.Table
	}
	return s.Node
}

// A Pre predicate that keeps more than 1/preMaxShareInv of the first
// preProbation rows or so is dropped: testing it on every row then costs
// about what the runtime filters save on the rows it drops (TPC-H Q21's
// receipt after commit keeps 63 % of lineitem, whose supplier filter drops
// 96 %).
const (
	preProbation   = 1 << 16
	preMaxShareInv = 2
)

// preFiltered is b's rows that pass Pre and then the runtime filters: Pre
// selects row numbers, the filters test only the selected rows' key
// columns, and the rows left are gathered once; passed is how many rows
// Pre kept. ok is false when Pre fails on b (the caller then applies the
// runtime filters alone).
func (s *Scan) preFiltered(kctx context.Context, env *Env, pre *selector, b arrow.RecordBatch, scratch *[]int64) (out arrow.RecordBatch, passed int, ok bool, err error) {
	rows, all, err := pre.selectRows(kctx, env, b, scratch)
	switch {
	case err != nil:
		return nil, int(b.NumRows()), false, nil
	case all:
		out, err := applyScanFilters(kctx, env, s.schema, s.Filters, b)
		return out, int(b.NumRows()), true, err
	case len(rows) == 0:
		return nil, 0, true, nil
	}
	passed = len(rows)
	keys := make([]int, 0, len(s.Filters))
	for _, f := range s.Filters {
		keys = append(keys, f.Column)
	}
	narrow, err := gatherRows(kctx, env, b, rows, keys)
	if err != nil {
		return nil, passed, true, err
	}
	keep, kept := scanFilterKeep(env, s.schema, s.Filters, narrow)
	narrow.Release()
	if kept == 0 {
		return nil, passed, true, nil
	}
	sel := make([]int64, 0, kept)
	for j, r := range rows {
		if keep == nil || keep[j] {
			sel = append(sel, r)
		}
	}
	out, err = gatherRows(kctx, env, b, sel, nil)
	return out, passed, true, err
}
