package scan

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Executor runs fragments on this BE. It is shared and safe for concurrent
// use; each Execute call owns its readers.
type Executor struct {
	cfg Config
}

// NewExecutor builds an executor.
func NewExecutor(cfg Config) *Executor { return &Executor{cfg: cfg} }

// Execute starts a fragment and returns its stream. The stream's batches
// have the fragment's output schema; its Stats carry the profile counters.
// Cancelling ctx stops every reader of the fragment and frees its memory.
func (e *Executor) Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
	return nil, errors.New("scan: not built yet")
}

// Config configures an executor. The zero value is usable.
type Config struct {
	// Name names this BE in errors and profiles.
	Name string
}
