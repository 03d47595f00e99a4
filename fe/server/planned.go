package server

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// plannedScan builds the scan operator of a table the planner reads (Fluss
// and Paimon catalogs): the ranges are fixed now, so EXPLAIN prints exactly
// what the BEs would be sent.
func (s *Session) plannedScan(ctx context.Context, n *bind.Scan) (exec.Operator, bool, error) {
	st := s.stmt
	if st == nil {
		st = &statement{id: newQueryID(), limits: map[*bind.Scan]int64{}}
		s.stmt = st
	}
	st.mu.Lock()
	scanID := int32(len(st.scans))
	prof := &scanProfile{table: n.Catalog + "." + n.Database + "." + n.Table.Name()}
	st.scans = append(st.scans, prof)
	st.mu.Unlock()
	limit := int64(-1)
	if l, ok := st.limits[n]; ok {
		limit = l
	}
	res, ok, err := planner.Plan(ctx, n.Table, planner.Request{
		QueryID: st.id, ScanID: scanID, Columns: n.Projection, Predicates: n.Predicates,
		Vars: n.Vars, Limit: limit, Pruned: n.Pruned,
	})
	if err != nil || !ok {
		if !ok {
			st.mu.Lock()
			st.scans = st.scans[:len(st.scans)-1]
			st.mu.Unlock()
		}
		return nil, ok, err
	}
	prof.node = res.Node
	src := &fragmentSource{s: s, res: res, schema: bind.Schema(n), prof: prof, st: st}
	return exec.NewScan(res.Node, "", src), true, nil
}

// fragmentSource runs a planned fragment through the Runner.
type fragmentSource struct {
	s      *Session
	res    *planner.Result
	schema *arrow.Schema
	prof   *scanProfile
	st     *statement
}

func (f *fragmentSource) Schema() *arrow.Schema  { return f.schema }
func (f *fragmentSource) ExplainLines() []string { return f.res.Lines }

func (f *fragmentSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	r := f.s.srv.cfg.Runner
	if r == nil {
		return nil, errorf(errNotSupported, "no BE is available to read %s", f.prof.table)
	}
	sr, err := r.Run(ctx, f.res.Fragment, mem)
	if err != nil {
		return nil, err
	}
	return &profiledReader{StatsReader: sr, done: f.record}, nil
}

func (f *fragmentSource) record(st *inletpb.ScanStats) {
	if st == nil {
		return
	}
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	if f.prof.counters == nil {
		f.prof.counters = map[string]int64{}
	}
	for k, v := range st.GetCounters() {
		f.prof.counters[k] += v
	}
}
