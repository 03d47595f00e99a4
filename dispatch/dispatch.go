package dispatch

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Config configures a Dispatcher. The zero value has no BEs.
type Config struct {
	// Backends is the static list of BEs (--be flags, or the in-process
	// executor wrapped by BackendFunc).
	Backends []Backend
	// Registry adds the BEs that registered and keep heartbeating.
	Registry *Registry
	// Logger receives failovers; nil discards.
	Logger *slog.Logger
	// Buffer is how many batches may wait between the BE streams and the
	// consumer (default 8): the merge never holds more, so a slow client
	// slows the BEs down instead of filling the FE's memory.
	Buffer int
	// HoldBytes caps, per Run, the bytes of PK_FULL batches held back until
	// their range completes (default 64 MiB); see doc.go.
	HoldBytes int64
	// DownFor is how long a BE whose stream broke is skipped by new
	// queries (default 10 s), unless no other BE is live.
	DownFor time.Duration
	// Classify gives the ScanError code of an in-process BE's error
	// (scan.ErrorCode); nil maps every error to INTERNAL.
	Classify func(error) inletpb.ScanError_Code
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Dispatcher runs fragments on the live BEs. It is shared by concurrent
// queries; each Run owns its streams.
type Dispatcher struct {
	cfg Config

	mu   sync.Mutex
	down map[string]time.Time // BE name → skip until

	started time.Time // the in-process BE's start
	book    beBook    // SHOW BACKENDS: ids and probe results
}

// New builds a dispatcher.
func New(cfg Config) *Dispatcher {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 8
	}
	if cfg.HoldBytes == 0 {
		cfg.HoldBytes = 64 << 20
	}
	if cfg.DownFor <= 0 {
		cfg.DownFor = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Dispatcher{cfg: cfg, down: map[string]time.Time{}, started: cfg.Now()}
}

// Backends returns the BEs a fragment would be sent to now, sorted by
// name: the static ones and the registered ones, less those that failed
// recently (all of them when every one failed recently).
func (d *Dispatcher) Backends() []Backend {
	all := map[string]Backend{}
	for _, b := range d.cfg.Backends {
		all[b.Name()] = b
	}
	if d.cfg.Registry != nil {
		for _, b := range d.cfg.Registry.Live() {
			if _, ok := all[b.Name()]; !ok {
				all[b.Name()] = b
			}
		}
	}
	now := d.cfg.Now()
	var up, every []Backend
	d.mu.Lock()
	for name, b := range all {
		every = append(every, b)
		if until, ok := d.down[name]; ok && now.Before(until) {
			continue
		}
		delete(d.down, name)
		up = append(up, b)
	}
	d.mu.Unlock()
	if len(up) == 0 {
		up = every
	}
	slices.SortFunc(up, func(a, b Backend) int { return cmp.Compare(a.Name(), b.Name()) })
	return up
}

func (d *Dispatcher) markDown(name string) {
	d.mu.Lock()
	d.down[name] = d.cfg.Now().Add(d.cfg.DownFor)
	d.mu.Unlock()
}

// Run sends f's ranges to the live BEs, grouped by affinity, one
// sub-fragment per BE in parallel, and merges their streams into one. The
// stream's schema is f's output_schema (or the BEs' when it is empty); its
// Stats are the BEs' counters summed and the union of their done ranges.
// Cancelling ctx or releasing the stream cancels every BE stream.
func (d *Dispatcher) Run(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
	bes := d.Backends()
	if len(bes) == 0 {
		return nil, fmt.Errorf("%w for query %s", ErrNoBackends, f.GetQueryId())
	}
	var schema *arrow.Schema
	// A partial aggregate returns its state columns, not the scan's.
	want, field := f.GetOutputSchema(), "output_schema"
	if len(f.GetResultSchema()) > 0 {
		want, field = f.GetResultSchema(), "result_schema"
	}
	if len(want) > 0 {
		s, err := flight.DeserializeSchema(want, mem)
		if err != nil {
			return nil, fmt.Errorf("%w: query %s: fragment %s: %v", ErrInvalid, f.GetQueryId(), field, err)
		}
		schema = s
		if field == "output_schema" {
			schema = exec.SentSchema(s, f.GetFilterOnly()) // the BEs leave filter-only columns out
		}
	}
	base := proto.Clone(f).(*inletpb.Fragment)
	base.Ranges = nil

	ctx, cancel := context.WithCancel(ctx)
	m := &merged{
		d:           d,
		base:        base,
		mem:         mem,
		schema:      schema,
		ch:          make(chan arrow.RecordBatch, d.cfg.Buffer),
		cancel:      cancel,
		pumpsDone:   make(chan struct{}),
		schemaReady: make(chan struct{}),
		excluded:    map[string]bool{},
		remaining:   -1,
		stats:       &inletpb.ScanStats{Counters: map[string]int64{}},
	}
	if f.GetLimit() >= 0 {
		m.remaining = f.GetLimit()
	}
	if schema != nil {
		close(m.schemaReady)
	}
	m.refs.Store(1)

	groups := assign(f.GetRanges(), bes)
	started := false
	for i, rs := range groups {
		if len(rs) == 0 {
			continue
		}
		started = true
		m.wg.Add(1)
		go m.pump(ctx, bes[i], rs)
	}
	if !started {
		// No ranges: one BE still answers, so the stream carries its
		// schema and counters the usual way.
		m.wg.Add(1)
		go m.pump(ctx, bes[0], nil)
	}
	go func() {
		m.wg.Wait()
		close(m.ch)
		close(m.pumpsDone)
	}()

	select {
	case <-m.schemaReady:
		return m, nil
	case <-m.pumpsDone:
		select {
		case <-m.schemaReady:
			return m, nil
		default:
		}
		err := m.firstErr()
		m.Release()
		if err == nil {
			err = fmt.Errorf("%w: query %s: no BE stream opened", ErrInternal, f.GetQueryId())
		}
		return nil, err
	}
}

// sub is the fragment for one BE: f with only ranges.
func (m *merged) sub(ranges []*inletpb.Range) *inletpb.Fragment {
	s := proto.Clone(m.base).(*inletpb.Fragment)
	s.Ranges = ranges
	return s
}

// rangeState follows one range of a pump across attempts.
type rangeState struct {
	r *inletpb.Range
	// emitted: rows passed to the consumer, over all attempts.
	emitted int64
	// received: rows the current attempt's BE sent; skip: how many of the
	// first ones the consumer already has from an earlier attempt.
	received, skip int64
	done           bool
	// held: batches of an unrepeatable range kept until it completes;
	// spilled: the hold budget ran out, so the range streams (and can no
	// longer be re-run).
	held      []arrow.RecordBatch
	heldBytes int64
	spilled   bool
}

// pump runs ranges on be and, when be's stream breaks, re-runs the
// unfinished ones on another BE, until they are all done or one cannot be
// re-run exactly.
func (m *merged) pump(ctx context.Context, be Backend, ranges []*inletpb.Range) {
	defer m.wg.Done()
	// A statement's limited allocator (exec/memlimit) panics past its
	// limit; here that panic fails the query instead of the process.
	defer memlimit.Handle(m.fail)
	states := make(map[int64]*rangeState, len(ranges))
	for _, r := range ranges {
		states[r.GetId()] = &rangeState{r: r}
	}
	defer func() {
		for _, s := range states {
			m.dropHeld(s)
		}
	}()
	for attempt := 0; ; attempt++ {
		var pending []*inletpb.Range
		for _, r := range ranges {
			if !states[r.GetId()].done {
				pending = append(pending, r)
			}
		}
		if attempt > 0 && len(pending) == 0 {
			return
		}
		err := m.attempt(ctx, be, pending, states)
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			m.fail(ctx.Err())
			return
		}
		if !isLost(err) {
			m.fail(m.classify(be, err))
			return
		}
		m.d.markDown(be.Name())
		next, err := m.failover(be, err, pending, states)
		if err != nil {
			m.fail(err)
			return
		}
		m.d.cfg.Logger.Warn("BE stream broke; re-running its unfinished ranges elsewhere",
			"query", m.base.GetQueryId(), "from", be.Name(), "to", next.Name(), "ranges", len(pending))
		be = next
	}
}

// failover checks that every unfinished range can be re-run exactly, sets
// how many rows each re-run must skip, and picks the next BE.
func (m *merged) failover(lost Backend, cause error, pending []*inletpb.Range, states map[int64]*rangeState) (Backend, error) {
	for _, r := range pending {
		s := states[r.GetId()]
		m.dropHeld(s)
		if s.emitted > 0 && !repeatable(r.GetType()) {
			return nil, fmt.Errorf("%w: query %s: range %d (%s) had passed on %d rows when BE %s failed, and its row order is not repeatable: %v",
				ErrBackendLost, m.base.GetQueryId(), r.GetId(), r.GetType(), s.emitted, lost.Name(), cause)
		}
		s.skip, s.received = s.emitted, 0
	}
	m.mu.Lock()
	m.excluded[lost.Name()] = true
	var cands []Backend
	for _, b := range m.d.Backends() {
		if !m.excluded[b.Name()] {
			cands = append(cands, b)
		}
	}
	m.mu.Unlock()
	i := pick(cands, lost.Name())
	if i < 0 {
		return nil, fmt.Errorf("%w: query %s: no other BE to re-run %d ranges of BE %s: %v",
			ErrBackendLost, m.base.GetQueryId(), len(pending), lost.Name(), cause)
	}
	return cands[i], nil
}

// attempt runs ranges on be once and passes its rows on.
func (m *merged) attempt(ctx context.Context, be Backend, ranges []*inletpb.Range, states map[int64]*rangeState) error {
	mem := m.mem
	if _, ok := be.(*FlightBackend); !ok {
		// An in-process BE allocates on goroutines of its own, which
		// cannot recover a limited allocator's panic: its bytes count
		// against the statement but never refuse.
		mem = memlimit.Lenient(mem)
	}
	rdr, err := be.Execute(ctx, m.sub(ranges), mem)
	if err != nil {
		return err
	}
	added := false
	defer func() {
		rdr.Release()
		if !added && m.stopping.Load() {
			// Stopped early (LIMIT met, consumer gone): the counters of
			// what this BE read until then still belong in the profile;
			// a released stream's are final.
			m.addStats(rdr.Stats(), be.Name())
		}
	}()
	if err := m.setSchema(be, rdr.Schema()); err != nil {
		return err
	}
	fs, tagged := rdr.(*flightStream)
	for rdr.Next() {
		rec := rdr.RecordBatch()
		if !tagged {
			rec.Retain()
			if err := m.send(ctx, rec); err != nil {
				return err
			}
			continue
		}
		if err := m.take(ctx, be, states, fs.batchRange, rec); err != nil {
			return err
		}
		if err := m.finish(ctx, be, states, fs.takeDone()); err != nil {
			return err
		}
	}
	if tagged {
		if err := m.finish(ctx, be, states, fs.takeDone()); err != nil {
			return err
		}
	}
	if err := rdr.Err(); err != nil {
		return err
	}
	if tagged && m.base.GetLimit() >= 0 {
		// A BE's stream that ended cleanly with ranges unfinished was cut
		// by the fragment's LIMIT: what it sent of them is a prefix of
		// their output and nothing is re-run, so rows held back for them
		// (PK_FULL) are the answer's, not to be dropped.
		for _, r := range ranges {
			if s := states[r.GetId()]; s != nil && !s.done && len(s.held) > 0 {
				if err := m.flushHeld(ctx, s); err != nil {
					return err
				}
			}
		}
	}
	st := rdr.Stats()
	if !tagged && st != nil {
		for _, id := range st.GetDoneRanges() {
			if s := states[id]; s != nil {
				s.done = true
			}
		}
	}
	m.addStats(st, be.Name())
	added = true
	return nil
}

// take passes on one batch of a range, minus the rows an earlier attempt
// already passed on; batches of unrepeatable ranges are held until the
// range completes while the hold budget lasts.
func (m *merged) take(ctx context.Context, be Backend, states map[int64]*rangeState, id int64, rec arrow.RecordBatch) error {
	s := states[id]
	if s == nil {
		return fmt.Errorf("%w: BE %s sent rows of range %d, which it was not given", ErrProtocol, be.Name(), id)
	}
	if s.done {
		return fmt.Errorf("%w: BE %s sent rows of range %d after reporting it complete", ErrProtocol, be.Name(), id)
	}
	n := rec.NumRows()
	s.received += n
	if s.skip >= n {
		s.skip -= n
		return nil
	}
	if s.skip > 0 {
		rec = rec.NewSlice(s.skip, n)
		s.skip = 0
	} else {
		rec.Retain()
	}
	m.charge(rec)
	// A range's partial aggregate comes out in hash-table order, which a
	// re-run need not repeat: hold it like an unrepeatable range.
	if (!repeatable(s.r.GetType()) || m.base.GetPartialAgg() != nil) && !s.spilled {
		b := memlimit.BatchBytes(rec)
		if m.holdUsed.Add(b) <= m.d.cfg.HoldBytes {
			s.held = append(s.held, rec)
			s.heldBytes += b
			return nil
		}
		m.holdUsed.Add(-b)
		s.spilled = true
		if err := m.flushHeld(ctx, s); err != nil {
			rec.Release()
			return err
		}
	}
	s.emitted += rec.NumRows()
	return m.send(ctx, rec)
}

// finish marks ranges complete after checking their row counts.
func (m *merged) finish(ctx context.Context, be Backend, states map[int64]*rangeState, done []*inletpb.FlightMeta) error {
	for _, d := range done {
		s := states[d.GetRangeId()]
		if s == nil {
			return fmt.Errorf("%w: BE %s reported range %d complete, which it was not given", ErrProtocol, be.Name(), d.GetRangeId())
		}
		if d.GetRows() != s.received {
			return fmt.Errorf("%w: BE %s reported %d rows for range %d, the FE received %d",
				ErrProtocol, be.Name(), d.GetRows(), d.GetRangeId(), s.received)
		}
		if err := m.flushHeld(ctx, s); err != nil {
			return err
		}
		s.done = true
	}
	return nil
}

func (m *merged) flushHeld(ctx context.Context, s *rangeState) error {
	held := s.held
	s.held = nil
	m.holdUsed.Add(-s.heldBytes)
	s.heldBytes = 0
	for i, rec := range held {
		s.emitted += rec.NumRows()
		if err := m.send(ctx, rec); err != nil {
			for _, r := range held[i+1:] {
				m.uncharge(r)
				r.Release()
			}
			return err
		}
	}
	return nil
}

func (m *merged) dropHeld(s *rangeState) {
	for _, rec := range s.held {
		m.uncharge(rec)
		rec.Release()
	}
	s.held = nil
	m.holdUsed.Add(-s.heldBytes)
	s.heldBytes = 0
}
