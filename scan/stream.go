package scan

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// RangeStream is the stream Execute returns, with what a transport needs to
// make a fragment restartable range by range: the range each batch belongs
// to, and which ranges are complete. A batch holds rows of one range only;
// a range is reported done (with its total rows) after its last batch.
type RangeStream interface {
	exec.StatsReader
	// RangeID is the range of the current batch.
	RangeID() int64
	// TakeDone returns the ranges completed since the last call, each after
	// every batch of it has been returned by Next. Call it after each Next
	// and once more after Next returned false.
	TakeDone() []RangeDone
}

// RangeDone reports a completed range and how many rows it produced.
type RangeDone struct {
	ID   int64
	Rows int64
}

// item is a batch of one range, or (rec nil) the end of that range.
type item struct {
	rec  arrow.RecordBatch
	rng  int64
	rows int64
}

// stream is the merged output of a fragment's range readers: up to
// max_concurrency readers run at once and hand their batches over one
// channel; Next takes them in arrival order. LIMIT and Release cancel the
// readers; every batch still in flight is released, so nothing leaks.
type stream struct {
	fx     *fragExec
	cancel context.CancelFunc
	ch     chan item
	done   chan struct{} // closed once every reader has exited
	refs   atomic.Int64

	cur       arrow.RecordBatch
	curRange  int64
	pending   []RangeDone
	rows      int64
	limitHit  bool
	err       error // set before done is closed
	finished  bool
	connStart int64

	statsMu sync.Mutex
	stats   *inletpb.ScanStats
}

func (e *Executor) start(ctx context.Context, fx *fragExec) *stream {
	fx.q = e.acquireQuery(fx.f.QueryId)
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{fx: fx, cancel: cancel, ch: make(chan item, 2), done: make(chan struct{}),
		connStart: e.pool.Stats().Opened}
	s.refs.Store(1)
	conc := int(fx.f.GetOptions().GetMaxConcurrency())
	if conc <= 0 {
		conc = 16
	}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		defer e.releaseQuery(fx.f.QueryId)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(conc)
		send := func(it item) error {
			select {
			case s.ch <- it:
				return nil
			case <-gctx.Done():
				if it.rec != nil {
					it.rec.Release()
				}
				return gctx.Err()
			}
		}
		for _, r := range fx.f.Ranges {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error {
				var rows int64
				emit := func(rec arrow.RecordBatch) error {
					rows += rec.NumRows()
					return send(item{rec: rec, rng: r.Id})
				}
				start := time.Now()
				if fx.topKeys != nil {
					// The range's Top-N is all it sends, once it is read.
					fx.ctr.register(cRangesStoppedEarly)
					top := &rangeTop{keys: fx.topKeys, n: fx.f.RangeTopN.Limit, schema: fx.out, mem: fx.mem, ordered: fx.topOrdered(r)}
					defer top.release()
					err := fx.runRange(gctx, r, func(rec arrow.RecordBatch) error { return top.add(gctx, rec) })
					if errors.Is(err, errRangeEnough) {
						// Key-ordered split: the rest of it sorts after.
						fx.ctr.add(cRangesStoppedEarly, 1)
						err = nil
					}
					if err != nil {
						return err
					}
					if err := top.flush(gctx, emit); err != nil {
						return err
					}
				} else if err := fx.runRange(gctx, r, emit); err != nil {
					return err
				}
				fx.noteTiming(r, start, time.Now(), rows)
				fx.markDone(r.Id)
				return send(item{rng: r.Id, rows: rows})
			})
		}
		s.err = g.Wait()
		fx.releaseBuffers()
	}()
	return s
}

func (s *stream) Schema() *arrow.Schema { return s.fx.out }

func (s *stream) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.finished {
		return false
	}
	limit := s.fx.f.Limit
	if limit == 0 {
		s.limitHit = true
		s.drain()
		return false
	}
	for {
		it, ok := <-s.ch
		if !ok {
			s.end()
			return false
		}
		rec := it.rec
		if rec == nil {
			s.pending = append(s.pending, RangeDone{ID: it.rng, Rows: it.rows})
			continue
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		if limit >= 0 && s.rows+rec.NumRows() >= limit {
			if s.rows+rec.NumRows() > limit {
				cut := rec.NewSlice(0, limit-s.rows)
				rec.Release()
				rec = cut
			}
			s.limitHit = true
			s.cancel()
		}
		s.rows += rec.NumRows()
		s.cur, s.curRange = rec, it.rng
		if s.limitHit {
			s.drain()
		}
		return true
	}
}

// drain stops the readers and releases what they still send.
func (s *stream) drain() {
	s.cancel()
	for it := range s.ch {
		if it.rec != nil {
			it.rec.Release()
		}
	}
	s.end()
}

// end records the outcome once every reader has exited.
func (s *stream) end() {
	if s.finished {
		return
	}
	<-s.done
	s.finished = true
	if s.limitHit {
		s.err = nil
	}
	fx := s.fx
	if _, ok := fx.ctr.snapshot()[cConnectionsOpened]; ok {
		// Connections the shared pool opened while this fragment ran.
		fx.ctr.add(cConnectionsOpened, fx.e.pool.Stats().Opened-s.connStart)
	}
	st := &inletpb.ScanStats{Counters: fx.ctr.snapshot()}
	fx.doneMu.Lock()
	st.DoneRanges = append([]int64(nil), fx.done...)
	st.Timings = append([]*inletpb.RangeTiming(nil), fx.timings...)
	fx.doneMu.Unlock()
	s.statsMu.Lock()
	s.stats = st
	s.statsMu.Unlock()
}

func (s *stream) RecordBatch() arrow.RecordBatch { return s.cur }
func (s *stream) Record() arrow.RecordBatch      { return s.cur }

func (s *stream) RangeID() int64 { return s.curRange }

func (s *stream) TakeDone() []RangeDone {
	d := s.pending
	s.pending = nil
	return d
}

func (s *stream) Err() error {
	if !s.finished {
		return nil
	}
	return s.err
}

// Stats returns the fragment's counters; complete once Next returned false,
// partial (counters so far) before.
func (s *stream) Stats() *inletpb.ScanStats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if s.stats != nil {
		return s.stats
	}
	return &inletpb.ScanStats{Counters: s.fx.ctr.snapshot()}
}

func (s *stream) Retain() { s.refs.Add(1) }

func (s *stream) Release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	s.drain()
}
