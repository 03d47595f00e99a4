package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// aggregated runs a fragment's partial aggregate next to its readers: the
// rows of in (the fragment's output, filters applied) become per-group
// states, which is all that crosses to the FE.
func aggregated(ctx context.Context, in exec.StatsReader, pa *inletpb.PartialAggregate, mem memory.Allocator) (exec.StatsReader, error) {
	src := exec.NewScan("VPARTIAL_SOURCE", "", exec.SourceFunc(in.Schema(),
		func(context.Context, memory.Allocator) (array.RecordReader, error) {
			in.Retain()
			return in, nil
		}))
	agg, err := exec.PartialFromFragment(src, pa)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	rr, err := agg.Open(ctx, &exec.Env{Mem: mem})
	if err != nil {
		return nil, err
	}
	return &aggReader{RecordReader: rr, in: in}, nil
}

// aggReader is the aggregate's output with the readers' counters.
type aggReader struct {
	array.RecordReader
	in exec.StatsReader
}

func (a *aggReader) Stats() *inletpb.ScanStats { return a.in.Stats() }

func (a *aggReader) Schema() *arrow.Schema { return a.RecordReader.Schema() }

func (a *aggReader) Release() {
	a.RecordReader.Release()
	a.in.Release()
}
