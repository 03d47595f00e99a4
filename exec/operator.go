package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Env is the per-statement execution environment (allocator, statement
// instant, session time zone); see expr.Env.
type Env = expr.Env

// Error kinds of this package.
var (
	// ErrPlan: the operator tree is inconsistent (wrong types, bad indexes).
	ErrPlan = errors.New("invalid plan")
	// ErrUnsupported: a valid request this executor does not implement. It
	// is the same sentinel as expr.ErrUnsupported, so one errors.Is covers
	// both packages.
	ErrUnsupported = expr.ErrUnsupported
	// ErrOverflow: a BIGINT or DECIMAL result out of range (MySQL errno
	// 1690); the same sentinel as expr.ErrOverflow.
	ErrOverflow = expr.ErrOverflow
)

// Operator is one node of a physical plan.
type Operator interface {
	// Schema is the schema of every batch Open's reader yields.
	Schema() *arrow.Schema
	// Children are the inputs, in order (left/probe first for joins).
	Children() []Operator
	// Open starts execution. The reader must be Released by the caller.
	Open(ctx context.Context, env *Env) (array.RecordReader, error)
	// Explain describes this node alone for EXPLAIN: a header line (e.g.
	// "VHASH JOIN") followed by detail lines, separated by "\n".
	Explain() string
}

// checkEnv refuses to start without what every operator needs.
func checkEnv(ctx context.Context, env *Env) error {
	if ctx == nil || env == nil || env.Mem == nil {
		return errorf(ErrPlan, "Open needs a context and an Env with an allocator")
	}
	return nil
}

// pullReader adapts a pull function to array.RecordReader. next returns
// (nil, nil) at the end; the batch it returns is owned by the reader.
type pullReader struct {
	refs   atomic.Int64
	ctx    context.Context
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error)
	close  func()
	cur    arrow.RecordBatch
	err    error
	done   bool
}

func newPullReader(ctx context.Context, schema *arrow.Schema, next func() (arrow.RecordBatch, error), closeFn func()) *pullReader {
	r := &pullReader{ctx: ctx, schema: schema, next: next, close: closeFn}
	r.refs.Store(1)
	return r
}

func (r *pullReader) Retain()                        { r.refs.Add(1) }
func (r *pullReader) Schema() *arrow.Schema          { return r.schema }
func (r *pullReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch, required by the interface.
func (r *pullReader) Record() arrow.RecordBatch { return r.cur }
func (r *pullReader) Err() error                { return r.err }

func (r *pullReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.finish()
	}
}

func (r *pullReader) finish() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if !r.done {
		r.done = true
	}
	if r.close != nil {
		c := r.close
		r.close = nil
		c()
	}
}

func (r *pullReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		r.finish()
		return false
	}
	b, err := r.pull()
	if err != nil {
		r.err = err
		r.finish()
		return false
	}
	if b == nil {
		r.finish()
		return false
	}
	r.cur = b
	return true
}

// pull calls next, turning a refused allocation of a limited allocator
// (exec/memlimit) into the error, so the reader finishes and releases what
// its operator held.
func (r *pullReader) pull() (b arrow.RecordBatch, err error) {
	defer memlimit.Recover(&err)
	return r.next()
}

// checkBatch verifies a child batch against the schema the plan promised.
func checkBatch(who string, want *arrow.Schema, b arrow.RecordBatch) error {
	if int(b.NumCols()) != want.NumFields() {
		return fmt.Errorf("%w: %s: input batch has %d columns, plan expects %d", ErrPlan, who, b.NumCols(), want.NumFields())
	}
	for i, f := range want.Fields() {
		if !arrow.TypeEqual(b.Column(i).DataType(), f.Type) {
			return fmt.Errorf("%w: %s: column %d (%s) is %s, plan expects %s", ErrPlan, who, i, f.Name, b.Column(i).DataType(), f.Type)
		}
	}
	return nil
}

// evalBatch evaluates exprs over b into a new batch of schema.
func evalBatch(env *Env, schema *arrow.Schema, exprs []expr.Expr, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(exprs))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for _, e := range exprs {
		c, err := e.Eval(env, b)
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, c)
	}
	out := array.NewRecordBatch(schema, cols, b.NumRows())
	release()
	return out, nil
}

// ExplainTree prints a plan the way Doris EXPLAIN does: one fragment with
// its output expressions and result sink, then the nodes from the root
// down, numbered bottom-up ("0:VOlapScanNode"), details indented under
// each node, and extra children (a join's build side) hung off "|----".
func ExplainTree(root Operator) string { return ExplainTreeWith(root, nil) }

// ExplainTreeWith is ExplainTree with extra lines under some operators'
// own (the planner's estimates); extra may be nil or return nil.
func ExplainTreeWith(root Operator, extra func(Operator) []string) string {
	ids := map[Operator]int{}
	next := 0
	var number func(op Operator)
	number = func(op Operator) {
		for _, c := range op.Children() {
			number(c)
		}
		ids[op] = next
		next++
	}
	number(root)

	var sb strings.Builder
	sb.WriteString("PLAN FRAGMENT 0\n")
	sb.WriteString("  OUTPUT EXPRS:\n")
	for _, f := range root.Schema().Fields() {
		sb.WriteString("    " + f.Name + "\n")
	}
	sb.WriteString("  PARTITION: UNPARTITIONED\n\n")
	sb.WriteString("  VRESULT SINK\n")
	sb.WriteString("     MYSQL_PROTOCAL\n\n")
	var lines func(op Operator) []string
	lines = func(op Operator) []string {
		own := strings.Split(op.Explain(), "\n")
		if extra != nil {
			own = append(own, extra(op)...)
		}
		out := []string{strconv.Itoa(ids[op]) + ":" + own[0]}
		kids := op.Children()
		gutter := "   "
		if len(kids) > 0 {
			gutter = "|  "
		}
		for _, l := range own[1:] {
			out = append(out, gutter+l)
		}
		if len(kids) == 0 {
			return out
		}
		out = append(out, "|  ")
		for _, c := range kids[1:] {
			cl := lines(c)
			out = append(out, "|----"+cl[0])
			for _, l := range cl[1:] {
				out = append(out, "|    "+l)
			}
			out = append(out, "|    ")
		}
		return append(out, lines(kids[0])...)
	}
	for _, l := range lines(root) {
		sb.WriteString("  " + l + "\n")
	}
	return sb.String()
}

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
