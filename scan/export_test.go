package scan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// LakeRowsFiltered prepares f as Execute does and reports whether the BE
// evaluates any filter on its lake rows (fx.lakePred) and on its Fluss
// rows (fx.pred): what the lake reader applies exactly is not evaluated
// twice.
func LakeRowsFiltered(ctx context.Context, e *Executor, f *inletpb.Fragment, mem memory.Allocator) (lake, fluss bool, err error) {
	fx, err := e.prepare(ctx, f, mem)
	if err != nil {
		return false, false, err
	}
	defer fx.releaseBuffers()
	return fx.lakePred != nil, fx.pred != nil, nil
}

// LakeColumns prepares f as Execute does and returns the columns a
// Paimon lake range asks its reader for: nil when it asks for the whole
// read layout (no filter-only column is left to the reader).
func LakeColumns(ctx context.Context, e *Executor, f *inletpb.Fragment, mem memory.Allocator) ([]string, error) {
	fx, err := e.prepare(ctx, f, mem)
	if err != nil {
		return nil, err
	}
	defer fx.releaseBuffers()
	return fx.lakeCols, nil
}
