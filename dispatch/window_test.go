package dispatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Issue 13: batches that arrived over Flight and wait for the consumer
// count against the statement's account (their bodies are gRPC's memory,
// which the allocator never sees): a read fits a large limit, peaks above
// zero and ends at zero; under a limit smaller than its window it fails
// with the memory error instead of holding what it likes.
func TestFlightWindowCounted(t *testing.T) {
	lt := newLogTable(t, 6000, 100, 6)
	srv := startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, srv)})
	read := func(limit int64) (*memlimit.Allocator, []string, error) {
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer parent.AssertSize(t, 0)
		mem := memlimit.New(parent, limit, "exec_mem_limit")
		r, err := d.Run(context.Background(), lt.fragment(t), mem)
		var rows []string
		if err == nil {
			rows, err = readAll(t, r)
			r.Release()
		}
		if errors.Is(err, memlimit.ErrExceeded) {
			mem.Sweep()
		}
		mem.Close()
		return mem, rows, err
	}
	mem, rows, err := read(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, rows, lt.want())
	if mem.Peak() < 1000 || mem.Used() != 0 {
		t.Fatalf("window: peak %d (want a batch or more), %d still held", mem.Peak(), mem.Used())
	}
	t.Logf("a Flight read of %d rows peaks at %d bytes", lt.rows, mem.Peak())
	mem, _, err = read(mem.Peak() / 4)
	if !errors.Is(err, memlimit.ErrExceeded) {
		t.Fatalf("under a quarter of the window: want the memory limit error, got %v", err)
	}
	if mem.Used() != 0 {
		t.Fatalf("after the refusal %d bytes still held", mem.Used())
	}
}

// Issue 25 (5): a batch the consumer takes from a Flight stream and holds
// (a join's build side, a sort's input) stays counted until its buffers
// are released, not only while it waits in the window: holding the whole
// read, the account shows every held byte; releasing them brings it to 0.
func TestFlightBatchesCountedWhileHeld(t *testing.T) {
	lt := newLogTable(t, 6000, 100, 6)
	srv := startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, srv)})
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	mem := memlimit.New(parent, 1<<30, "exec_mem_limit")
	defer mem.Close()
	r, err := d.Run(context.Background(), lt.fragment(t), mem)
	if err != nil {
		t.Fatal(err)
	}
	var held []arrow.RecordBatch
	var bytes, rows int64
	for r.Next() {
		b := r.RecordBatch()
		b.Retain()
		held = append(held, b)
		bytes += memlimit.BatchBytes(b)
		rows += b.NumRows()
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if rows != int64(lt.rows) {
		t.Fatalf("%d rows, want %d", rows, lt.rows)
	}
	if mem.Used() < bytes {
		t.Fatalf("holding %d batches of %d bytes the account shows %d", len(held), bytes, mem.Used())
	}
	for _, b := range held {
		b.Release()
	}
	if mem.Used() != 0 {
		t.Fatalf("after releasing every batch the account holds %d", mem.Used())
	}
}
