package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
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
	schema  *arrow.Schema
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
	rr, err := s.Src.Open(sctx, memlimit.Lenient(env.Mem))
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", s.name(), err)
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
