package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// merged is the stream Run returns: the batches of every BE stream in
// arrival order. It belongs to one goroutine (the consumer); its pumps run
// one per BE and hand batches over through a bounded channel.
type merged struct {
	d      *Dispatcher
	base   *inletpb.Fragment // f without its ranges
	mem    memory.Allocator
	ch     chan arrow.RecordBatch
	cancel context.CancelFunc
	wg     sync.WaitGroup

	pumpsDone   chan struct{}
	schemaReady chan struct{}
	holdUsed    atomic.Int64
	// window: the charged batches of Flight streams not yet taken by the
	// consumer (window.go).
	winMu  sync.Mutex
	window map[arrow.RecordBatch]int64
	// stopping: the consumer stopped the pumps (limit reached or
	// Release); their cancellation errors are not failures.
	stopping atomic.Bool
	refs     atomic.Int64

	mu       sync.Mutex
	schema   *arrow.Schema
	err      error
	excluded map[string]bool // BEs this query lost
	stats    *inletpb.ScanStats
	doneIDs  map[int64]bool

	// Consumer state.
	cur       arrow.RecordBatch
	remaining int64 // rows the limit still allows; -1: no limit
	finished  bool
	readErr   error
}

func (m *merged) fail(err error) {
	if m.stopping.Load() {
		return
	}
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
	m.cancel()
}

func (m *merged) firstErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (m *merged) send(ctx context.Context, rec arrow.RecordBatch) error {
	select {
	case m.ch <- rec:
		return nil
	case <-ctx.Done():
		m.uncharge(rec)
		rec.Release()
		return ctx.Err()
	}
}

// setSchema adopts the first BE's schema when the fragment had none and
// checks every BE's against it.
func (m *merged) setSchema(be Backend, s *arrow.Schema) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.schema == nil {
		m.schema = s
		close(m.schemaReady)
		return nil
	}
	if !sameColumns(m.schema, s) {
		return fmt.Errorf("%w: BE %s returned columns %s, the fragment wants %s", ErrProtocol, be.Name(), s, m.schema)
	}
	return nil
}

func sameColumns(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return false
		}
	}
	return true
}

// classify turns an error that is not a lost stream into a BackendError
// with a code, keeping the original in the chain.
func (m *merged) classify(be Backend, err error) error {
	var bErr *BackendError
	if errors.As(err, &bErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrProtocol) || errors.Is(err, ErrAuth) || errors.Is(err, ErrBackendLost) || errors.Is(err, ErrNoBackends) {
		return err
	}
	code := inletpb.ScanError_INTERNAL
	if m.d.cfg.Classify != nil {
		code = m.d.cfg.Classify(err)
	}
	return &BackendError{Backend: be.Name(), Code: code, Message: err.Error(), cause: err}
}

func (m *merged) addStats(s *inletpb.ScanStats, be string) {
	if s == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range s.GetCounters() {
		m.stats.Counters[k] += v
	}
	for _, t := range s.GetTimings() {
		if len(m.stats.Timings) >= maxTimings {
			break
		}
		if t.GetBackend() == "" {
			t.Backend = be
		}
		m.stats.Timings = append(m.stats.Timings, t)
	}
	if m.doneIDs == nil {
		m.doneIDs = map[int64]bool{}
	}
	for _, id := range s.GetDoneRanges() {
		if !m.doneIDs[id] {
			m.doneIDs[id] = true
			m.stats.DoneRanges = append(m.stats.DoneRanges, id)
		}
	}
}

// Schema implements array.RecordReader.
func (m *merged) Schema() *arrow.Schema {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.schema
}

// Next implements array.RecordReader.
func (m *merged) Next() bool {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	if m.finished {
		return false
	}
	if m.remaining == 0 {
		m.stop()
		return false
	}
	for rec := range m.ch {
		if m.firstErr() != nil {
			m.uncharge(rec)
			rec.Release()
			continue
		}
		rec = m.handOver(rec)
		if n := rec.NumRows(); m.remaining >= 0 && n > m.remaining {
			s := rec.NewSlice(0, m.remaining)
			rec.Release()
			rec = s
		}
		if m.remaining >= 0 {
			m.remaining -= rec.NumRows()
		}
		m.cur = rec
		return true
	}
	m.finished = true
	m.readErr = m.firstErr()
	return false
}

// stop ends the stream early: pumps are cancelled and drained.
func (m *merged) stop() {
	if m.finished {
		return
	}
	m.finished = true
	m.stopping.Store(true)
	m.cancel()
	for rec := range m.ch {
		m.uncharge(rec)
		rec.Release()
	}
	m.unchargeAll()
	m.readErr = m.firstErr()
}

// RecordBatch implements array.RecordReader.
func (m *merged) RecordBatch() arrow.RecordBatch { return m.cur }

// Record implements array.RecordReader.
//
// Deprecated: use RecordBatch.
func (m *merged) Record() arrow.RecordBatch { return m.cur }

// Err implements array.RecordReader.
func (m *merged) Err() error { return m.readErr }

// maxTimings bounds the per-range timings a query's stream keeps for its
// profile, whatever the number of BEs.
const maxTimings = 2048

// Stats implements exec.StatsReader: the counters summed over the BE
// streams that ended, and the union of their done ranges.
func (m *merged) Stats() *inletpb.ScanStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &inletpb.ScanStats{Counters: make(map[string]int64, len(m.stats.Counters))}
	for k, v := range m.stats.Counters {
		out.Counters[k] = v
	}
	out.DoneRanges = slices.Clone(m.stats.DoneRanges)
	slices.Sort(out.DoneRanges)
	out.Timings = slices.Clone(m.stats.Timings)
	return out
}

// Retain implements array.RecordReader.
func (m *merged) Retain() { m.refs.Add(1) }

// Release implements array.RecordReader. The last release cancels the BE
// streams and returns once every pump has released what it held.
func (m *merged) Release() {
	if m.refs.Add(-1) != 0 {
		return
	}
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	m.stopping.Store(true)
	m.cancel()
	for rec := range m.ch {
		m.uncharge(rec)
		rec.Release()
	}
	m.unchargeAll()
	m.finished = true
}
