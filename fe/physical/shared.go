package physical

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/bind"
)

// Shared aggregates. A view or WITH query read twice is bound twice: TPC-H
// Q15 aggregates a quarter of lineitem per supplier once for the rows and
// once more for max(total_revenue). Aggregates whose subtrees print the
// same (bind.Explain, with their output columns) compute the same rows, so
// they are built once and read through one sharedOp: the first Open reads
// the aggregate to the end and keeps its batches, and each reader replays
// them. Subtrees calling a function whose value changes per call (rand,
// uuid) are never shared.

// sharedGroup is one set of identical aggregates of a plan.
type sharedGroup struct {
	uses int
	op   *sharedOp
}

// findShared maps each aggregate that occurs more than once in p (by
// what it computes) to its group; the outermost such aggregate wins.
func findShared(p bind.Plan) map[bind.Plan]*sharedGroup {
	keys := map[bind.Plan]string{}
	count := map[string]int{}
	var walk func(p bind.Plan)
	walk = func(p bind.Plan) {
		if a, ok := p.(*bind.Aggregate); ok {
			if k, ok := shareKey(a); ok {
				keys[p] = k
				count[k]++
			}
		}
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(p)
	groups := map[string]*sharedGroup{}
	out := map[bind.Plan]*sharedGroup{}
	var pick func(p bind.Plan)
	pick = func(p bind.Plan) {
		if k, ok := keys[p]; ok && count[k] > 1 {
			g := groups[k]
			if g == nil {
				g = &sharedGroup{}
				groups[k] = g
			}
			g.uses++
			out[p] = g
			return
		}
		for _, c := range p.Children() {
			pick(c)
		}
	}
	pick(p)
	return out
}

func shareKey(a *bind.Aggregate) (string, bool) {
	lines := bind.Explain(a)
	text := strings.Join(lines, "\n")
	low := strings.ToLower(text)
	for _, f := range []string{"rand", "uuid", "random"} {
		if strings.Contains(low, f) {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteString(text)
	for _, c := range a.Out {
		fmt.Fprintf(&b, "\n%s %s %v", c.Name, c.Type, c.Nullable)
	}
	return b.String(), true
}

// sharedOp reads its input once per round of uses Opens and replays the
// batches to each. A round ends when every use has opened it; an Open
// after that (a plan run again) reads the input anew.
type sharedOp struct {
	in   exec.Operator
	uses int

	mu      sync.Mutex
	env     *exec.Env
	opened  int
	batches []arrow.RecordBatch
	err     error
}

func (s *sharedOp) Schema() *arrow.Schema     { return s.in.Schema() }
func (s *sharedOp) Children() []exec.Operator { return []exec.Operator{s.in} }
func (s *sharedOp) Explain() string {
	return fmt.Sprintf("VSHARED\n  computed once for its %d readers", s.uses)
}

func (s *sharedOp) Open(ctx context.Context, env *exec.Env) (array.RecordReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opened == 0 || s.env != env {
		s.reset()
		s.env = env
		s.batches, s.err = drain(ctx, env, s.in)
	}
	if s.err != nil {
		err := s.err
		s.opened++
		if s.opened >= s.uses {
			s.reset()
		}
		return nil, err
	}
	// The reader holds its own references to the batches.
	r, err := array.NewRecordReader(s.in.Schema(), s.batches)
	s.opened++
	if s.opened >= s.uses {
		s.reset()
	}
	return r, err
}

// reset drops the kept batches (readers hold their own references).
func (s *sharedOp) reset() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches, s.err, s.opened, s.env = nil, nil, 0, nil
}

// drain reads op to the end, keeping its batches.
func drain(ctx context.Context, env *exec.Env, op exec.Operator) ([]arrow.RecordBatch, error) {
	rr, err := op.Open(ctx, env)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	for rr.Next() {
		b := rr.RecordBatch()
		b.Retain()
		out = append(out, b)
	}
	if err := rr.Err(); err != nil {
		for _, b := range out {
			b.Release()
		}
		return nil, err
	}
	return out, nil
}

// sharedRoot is the plan's root when it holds shared aggregates: it is
// the root itself to EXPLAIN, and when the statement's reader is released
// it drops what each sharedOp still keeps for a reader that never opened
// it (a join whose other side was empty, a LIMIT met early).
type sharedRoot struct {
	exec.Operator
	shared []*sharedOp
}

func (s *sharedRoot) Open(ctx context.Context, env *exec.Env) (array.RecordReader, error) {
	rr, err := s.Operator.Open(ctx, env)
	if err != nil {
		s.drop()
		return nil, err
	}
	return &dropOnRelease{RecordReader: rr, drop: s.drop}, nil
}

func (s *sharedRoot) drop() {
	for _, op := range s.shared {
		op.mu.Lock()
		op.reset()
		op.mu.Unlock()
	}
}

// dropOnRelease runs drop once its reader is released.
type dropOnRelease struct {
	array.RecordReader
	once sync.Once
	drop func()
}

func (r *dropOnRelease) Release() {
	r.RecordReader.Release()
	r.once.Do(r.drop)
}
