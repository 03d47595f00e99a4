package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// RowFilter keeps the rows of a batch where a predicate is TRUE with the
// Filter operator's selection (compiled kernels for IN lists, decimal and
// range compares, conjuncts tested on the rows earlier ones kept), for a
// reader that filters its batches outside an operator tree (scan's log
// and lake rows). It is read-only once built: goroutines may share one.
type RowFilter struct {
	s *selector
}

// NewRowFilter compiles pred, a boolean over the batches' columns.
func NewRowFilter(pred expr.Expr) *RowFilter {
	return &RowFilter{s: newSelector(pred)}
}

// Apply returns the rows of b where the predicate is TRUE (b itself,
// retained, when every row is), nil when none is. Only the columns in need
// (nil: all) hold the selected rows; the others are zero-copy slices of b
// of the right length that nobody may read. scratch is the caller's
// reusable row-number buffer.
func (f *RowFilter) Apply(ctx context.Context, env *Env, b arrow.RecordBatch, need []int, scratch *[]int64) (arrow.RecordBatch, error) {
	if b.NumRows() == 0 {
		return nil, nil
	}
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	return f.s.apply(kctx, env, b, need, scratch)
}
