package physical

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Runner executes a planned fragment on the BEs and streams its rows back
// (dispatch.Dispatcher; in-process or over Flight).
type Runner interface {
	Run(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error)
}

// Statement is the per-statement state fragments need: the query id that
// names it in profiles and on the BEs, and the scans it ran.
type Statement struct {
	id string
	// limits are row caps the FE may push into scans (LIMIT directly over a
	// scan with nothing in between that could drop rows).
	limits map[*bind.Scan]int64
	// topn are per-range Top-Ns the FE may push into scans (ORDER BY
	// columns LIMIT over a scan, filters exact).
	topn map[*bind.Scan]*inletpb.RangeTopN

	mu    sync.Mutex
	scans []*ScanProfile
	// filters are the runtime filters planned, numbered by position.
	filters []*exec.RuntimeFilter
}

// ScanProfile is one scan node's counters, summed over its BEs. Counters is
// nil until the scan's stream has ended on a BE.
type ScanProfile struct {
	Node, Table string
	Counters    map[string]int64
	// Start and End are when the FE asked the BEs for the fragment and
	// when its stream ended (zero while running, or if it failed): the
	// fragment's bar on the profile page's timeline.
	Start, End time.Time
	// Ranges say when each range was read on which BE (the BEs' clocks),
	// as many as the BEs reported (bounded).
	Ranges []RangeTiming
}

// RangeTiming is one range's read on a BE.
type RangeTiming struct {
	ID            int64
	Kind, Backend string
	Start, End    time.Time
	Rows          int64
}

// NewStatement starts the state of one statement under a new query id.
func NewStatement() *Statement {
	return &Statement{id: newQueryID(), limits: map[*bind.Scan]int64{}, topn: map[*bind.Scan]*inletpb.RangeTopN{}}
}

// ID is the query id: it names the statement's profile and its fragments on
// the BEs.
func (st *Statement) ID() string { return st.id }

// Scans returns a copy of the profiles of the scans planned so far, in
// plan order, with their counters as recorded by now.
func (st *Statement) Scans() []ScanProfile {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]ScanProfile, len(st.scans))
	for i, sc := range st.scans {
		out[i] = ScanProfile{Node: sc.Node, Table: sc.Table, Counters: maps.Clone(sc.Counters), Start: sc.Start, End: sc.End,
			Ranges: slices.Clone(sc.Ranges)}
	}
	return out
}

func newQueryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:8]) + "-" + hex.EncodeToString(b[8:])
}

// profiledReader records the fragment's counters once its stream ends, or
// once it is released before its end (a LIMIT met above the scan): the
// counters then show how much was read before the stop.
type profiledReader struct {
	exec.StatsReader
	done     func(*inletpb.ScanStats)
	recorded bool
	refs     atomic.Int64
}

func (p *profiledReader) Retain() {
	p.refs.Add(1)
	p.StatsReader.Retain()
}

func (p *profiledReader) Release() {
	last := p.refs.Add(-1) == -1
	p.StatsReader.Release()
	if last && !p.recorded {
		p.recorded = true
		p.done(p.StatsReader.Stats())
	}
}

func (p *profiledReader) Next() bool {
	if p.StatsReader.Next() {
		return true
	}
	if !p.recorded {
		p.recorded = true
		p.done(p.StatsReader.Stats())
	}
	return false
}
