package dispatch

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Backend runs fragments: a BE reached over Flight (NewFlightBackend) or an
// executor in this process (BackendFunc). Implementations are shared by
// concurrent queries; every Execute call owns the stream it returns.
type Backend interface {
	// Name identifies the BE in errors, logs and profiles (its address for
	// a remote BE).
	Name() string
	// Execute starts the fragment and returns its stream. Cancelling ctx
	// or releasing the stream stops the BE's readers.
	Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error)
}

// BackendFunc adapts a function (an in-process scan.Executor's Execute) to
// a Backend named name.
func BackendFunc(name string, f func(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error)) Backend {
	return funcBackend{name: name, f: f}
}

type funcBackend struct {
	name string
	f    func(context.Context, *inletpb.Fragment, memory.Allocator) (exec.StatsReader, error)
}

func (b funcBackend) Name() string { return b.name }

func (b funcBackend) Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
	return b.f(ctx, f, mem)
}
