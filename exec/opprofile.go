package exec

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// OpProfile collects rows and time per operator of one statement, for the
// profile page's operator tree (Doris's RowsProduced and ExecTime). It is
// carried by the context (WithOpProfile): without one, OpenOp is Open and
// costs nothing.
type OpProfile struct {
	mu sync.Mutex
	m  map[Operator]*opCounters
}

type opCounters struct {
	rows, batches, nanos atomic.Int64
	// fused: a step of a parallel pipeline, whose time is its own (it is
	// handed its input's batches rather than pulling them).
	fused atomic.Bool
}

// OpStats is what an operator produced: rows and batches out, and the time
// spent in its Open and Next calls, its inputs' time included (operators
// pull from their inputs inside Next).
type OpStats struct {
	Rows, Batches int64
	Time          time.Duration
	// Own says Time excludes the inputs' time: the operator ran as a step
	// fused into a parallel pipeline.
	Own bool
}

// NewOpProfile returns an empty profile.
func NewOpProfile() *OpProfile { return &OpProfile{m: map[Operator]*opCounters{}} }

type opProfileKey struct{}

// WithOpProfile makes the operators opened under ctx record into p.
func WithOpProfile(ctx context.Context, p *OpProfile) context.Context {
	return context.WithValue(ctx, opProfileKey{}, p)
}

func (p *OpProfile) counters(op Operator) *opCounters {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.m[op]
	if !ok {
		c = &opCounters{}
		p.m[op] = c
	}
	return c
}

// Stats returns what op recorded; false if it was never opened on its own
// (a Filter or Project fused into its parent's parallel pipeline, an
// operator of a branch that did not run).
func (p *OpProfile) Stats(op Operator) (OpStats, bool) {
	if p == nil {
		return OpStats{}, false
	}
	p.mu.Lock()
	c, ok := p.m[op]
	p.mu.Unlock()
	if !ok {
		return OpStats{}, false
	}
	return OpStats{Rows: c.rows.Load(), Batches: c.batches.Load(), Time: time.Duration(c.nanos.Load()), Own: c.fused.Load()}, true
}

// OpenOp opens op, recording its rows and time into the context's profile
// if there is one. Operators open their inputs through it, so every node
// of the tree is measured where it is opened.
func OpenOp(ctx context.Context, env *Env, op Operator) (array.RecordReader, error) {
	p, _ := ctx.Value(opProfileKey{}).(*OpProfile)
	if p == nil {
		return op.Open(ctx, env)
	}
	key := op
	switch pp := op.(type) { // the same node, opened with its steps in parallel
	case piped:
		key = pp.Operator
	case pipedSel:
		key = pp.Operator
	case rawScan:
		key = pp.Scan
	}
	c := p.counters(key)
	start := time.Now()
	r, err := op.Open(ctx, env)
	c.nanos.Add(int64(time.Since(start)))
	if err != nil {
		return nil, err
	}
	return &countingReader{RecordReader: r, c: c}, nil
}

// countingReader counts the batches and rows a reader hands out and the
// time its Next takes.
type countingReader struct {
	array.RecordReader
	c *opCounters
}

func (r *countingReader) Next() bool {
	start := time.Now()
	ok := r.RecordReader.Next()
	r.c.nanos.Add(int64(time.Since(start)))
	if ok {
		r.c.batches.Add(1)
		rec := r.RecordReader.RecordBatch()
		if sb, isSel := rec.(*selBatch); isSel {
			r.c.rows.Add(int64(len(sb.sel))) // only the selected rows go up
		} else {
			r.c.rows.Add(rec.NumRows())
		}
	}
	return ok
}

// Record is the deprecated name of RecordBatch, required by the interface.
func (r *countingReader) Record() arrow.RecordBatch { return r.RecordReader.RecordBatch() }
