package dispatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

// decodingReader stands for a stream decoded on the pump goroutine (as a
// Flight stream with compressed bodies is): every batch allocates scratch
// space from the statement's own, limited account.
type decodingReader struct {
	exec.StatsReader
	mem memory.Allocator
}

func (r decodingReader) Next() bool {
	if !r.StatsReader.Next() {
		return false
	}
	r.mem.Free(r.mem.Allocate(4096))
	return true
}

// Issue 13: a statement's limited allocator panics past exec_mem_limit on
// whichever goroutine allocates. Streams are read on the merge's pump
// goroutines, so the pumps turn that panic into the query's error (the
// process died otherwise); an in-process BE's own goroutines get a counting,
// never refusing view, so its bytes count but cannot panic where nobody
// recovers.
func TestMemLimitInMergeGoroutines(t *testing.T) {
	lt := newLogTable(t, 6000, 100, 6)
	local := scan.NewExecutor(scan.Config{Name: "local"})
	t.Cleanup(func() { local.Close() })
	const limit = 2048
	cases := []struct {
		name    string
		backend func(strict *memlimit.Allocator) dispatch.Backend
		refused bool
	}{
		{"allocating on the pump", func(strict *memlimit.Allocator) dispatch.Backend {
			return dispatch.BackendFunc("decoding", func(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
				r, err := local.Execute(ctx, f, mem)
				if err != nil {
					return nil, err
				}
				return decodingReader{StatsReader: r, mem: strict}, nil
			})
		}, true},
		{"in-process BE", func(*memlimit.Allocator) dispatch.Backend {
			return dispatch.BackendFunc("local", local.Execute)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer parent.AssertSize(t, 0)
			mem := memlimit.New(parent, limit, "exec_mem_limit")
			d := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{tc.backend(mem)}})
			var rows []string
			r, err := d.Run(context.Background(), lt.fragment(t), mem)
			if err == nil {
				rows, err = readAll(t, r)
				r.Release()
			}
			if tc.refused {
				if !errors.Is(err, memlimit.ErrExceeded) {
					t.Fatalf("want the memory limit error, got %v (%d rows)", err, len(rows))
				}
				mem.Sweep()
			} else {
				if err != nil {
					t.Fatal(err)
				}
				checkRows(t, rows, lt.want())
				if mem.Peak() <= limit {
					t.Errorf("peak %d: the in-process BE's bytes were not counted", mem.Peak())
				}
			}
			if mem.Used() != 0 {
				t.Errorf("the statement still holds %d bytes", mem.Used())
			}
		})
	}
}
