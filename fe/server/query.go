package server

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/exec/render"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/opt"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
	"github.com/inlet-db/inlet/internal/redact"
)

// env is the execution environment of one statement under v.
func (s *Session) env(v *vars.Session) (*expr.Env, error) {
	tz, _ := v.Get("time_zone")
	loc, err := vars.Location(tz)
	if err != nil {
		return nil, err
	}
	return &expr.Env{Mem: s.mem(), Now: s.srv.now(), Loc: loc}, nil
}

// plan binds a query and builds its operators (fe/physical).
func (s *Session) plan(ctx context.Context, q sql.Query, v *vars.Session) (bind.Plan, exec.Operator, error) {
	p, op, _, err := s.planEstimated(ctx, q, v)
	return p, op, err
}

// planEstimated is plan that also returns the operators' estimated row
// counts (fe/opt), for EXPLAIN.
func (s *Session) planEstimated(ctx context.Context, q sql.Query, v *vars.Session) (bind.Plan, exec.Operator, map[exec.Operator]float64, error) {
	b := bind.New(ctx, s.bindSession(v))
	p, err := b.BindQuery(q)
	if err != nil {
		return nil, nil, nil, err
	}
	if pruned := nestedPrunes(p, v); len(pruned) > 0 {
		// Bind again with the narrow struct types, so field accesses bind
		// against what the BEs will return.
		bs := s.bindSession(v)
		bs.Pruned = pruned
		if p2, err := bind.New(ctx, bs).BindQuery(q); err == nil {
			p = p2
		}
	}
	p, rows := opt.Optimize(ctx, p)
	cfg := physical.Config{Mem: s.mem(), Runner: s.srv.cfg.Runner, Estimates: rows, Cardinality: map[exec.Operator]float64{}}
	mode, _ := v.Get("runtime_filter_mode")
	types, _ := v.Get("runtime_filter_type")
	if cfg.RuntimeFilters, err = physical.ParseRFConfig(mode, types, v.Int("runtime_filter_max_in_num")); err != nil {
		return nil, nil, nil, err
	}
	if s.stmt != nil {
		cfg.Statement = s.stmt.plan
	}
	op, err := physical.Build(ctx, p, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, op, cfg.Cardinality, nil
}

func (s *Session) query(ctx context.Context, q sql.Query, v *vars.Session, w mysqlwire.ResultWriter) error {
	p, op, card, err := s.planEstimated(ctx, q, v)
	if err != nil {
		return err
	}
	env, err := s.env(v)
	if err != nil {
		return err
	}
	ctx = exec.WithParallelism(ctx, int(v.Int("parallel_pipeline_task_num")))
	var prof *exec.OpProfile
	if s.stmt != nil && len(s.stmt.plan.Scans()) > 0 {
		// A query with fragments gets a profile; its page shows the tree,
		// with each operator's rows and time once the statement ends.
		prof = exec.NewOpProfile()
		ctx = exec.WithOpProfile(ctx, prof)
		s.srv.notePlan(s.stmt.plan.ID(), op, card, nil)
		defer s.srv.notePlan(s.stmt.plan.ID(), op, card, prof)
	}
	ctx, endSpill, err := s.srv.spill.begin(ctx, v, s.stmt)
	if err != nil {
		return err
	}
	defer endSpill()
	rr, err := exec.OpenOp(ctx, env, op)
	if err != nil {
		return err
	}
	defer rr.Release()
	return writeRows(p.Columns(), rr, w, env)
}

// writeRows announces the columns and streams the reader's rows as text.
// Instants (timestamps with a time zone, e.g. Fluss TIMESTAMP_LTZ) are shown
// as wall-clock time in the session time zone, as Doris does.
func writeRows(cols []bind.Column, rr array.RecordReader, w mysqlwire.ResultWriter, env *expr.Env) error {
	if aw, audit := arrowWriterOf(w); aw != nil {
		return writeBatches(cols, rr, aw, audit, env)
	}
	wc := make([]mysqlwire.Column, len(cols))
	for i, c := range cols {
		wc[i] = mysqlwire.ColumnFor(c.Name, c.Type, c.Nullable)
	}
	if err := w.Columns(wc); err != nil {
		return err
	}
	vals := make([][]byte, len(cols))
	ends := make([]int, len(cols))
	var buf []byte
	local := make([]arrow.Array, len(cols))
	release := func() {
		for i, a := range local {
			if a != nil {
				a.Release()
				local[i] = nil
			}
		}
	}
	defer release()
	for rr.Next() {
		// Kernels and scans allocate through a counting-only view of the
		// statement's account: a batch they took past exec_mem_limit or
		// --mem-limit fails the statement here.
		if err := memlimit.Check(env.Mem); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(cols) {
			return fmt.Errorf("result batch has %d columns, plan says %d", rec.NumCols(), len(cols))
		}
		release()
		arrs := make([]arrow.Array, len(cols))
		for c := range cols {
			arrs[c] = rec.Column(c)
			if ts, ok := arrs[c].DataType().(*arrow.TimestampType); ok && ts.TimeZone != "" {
				local[c] = wallClock(arrs[c].(*array.Timestamp), ts, env)
				arrs[c] = local[c]
			}
		}
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			buf = buf[:0]
			for c := range cols {
				var ok bool
				buf, ok = render.AppendValue(buf, arrs[c], i)
				if ok {
					ends[c] = len(buf)
				} else {
					ends[c] = -1
				}
			}
			start := 0
			for c := range cols {
				if ends[c] < 0 {
					vals[c] = nil
					continue
				}
				vals[c] = buf[start:ends[c]]
				start = ends[c]
			}
			if err := w.Row(vals); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

// evalConstText evaluates a constant bound expression to text (NULL → "").
func (s *Session) evalConstText(e expr.Expr) (string, error) {
	env, err := s.env(s.vars)
	if err != nil {
		return "", err
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	a, err := e.Eval(env, one)
	if err != nil {
		return "", err
	}
	defer a.Release()
	b, ok := render.AppendValue(nil, a, 0)
	if !ok {
		return "", nil
	}
	return string(b), nil
}

// nestedPrunes returns the struct columns of p's scan that can be read
// narrowed, when enable_prune_nested_column is on.
func nestedPrunes(p bind.Plan, v *vars.Session) map[string]arrow.DataType {
	if on, _ := v.Get("enable_prune_nested_column"); on != "true" {
		return nil
	}
	return physical.NestedPrunes(p)
}

// explainLines renders EXPLAIN output rows.
func explainLines(op exec.Operator, card map[exec.Operator]float64) []string {
	return explainLinesMeasured(op, card, nil)
}

// explainLinesMeasured is explainLines with what each operator produced
// when prof is not nil (Doris's profile names: RowsProduced, ExecTime; the
// time is the operator's own, its inputs' time taken out).
func explainLinesMeasured(op exec.Operator, card map[exec.Operator]float64, prof *exec.OpProfile) []string {
	// Doris prints each node's estimated rows as cardinality=N.
	extra := func(o exec.Operator) []string {
		var out []string
		if n, ok := card[o]; ok {
			out = append(out, "cardinality="+strconv.FormatInt(int64(math.Round(n)), 10))
		}
		if prof != nil {
			out = append(out, measuredLine(o, prof))
		}
		return out
	}
	// Plans name files and warehouses: a URI's password is not shown.
	return strings.Split(strings.TrimRight(redact.URIPasswords(exec.ExplainTreeWith(op, extra)), "\n"), "\n")
}

// wallClock converts instants to wall-clock times in the session zone.
func wallClock(a *array.Timestamp, t *arrow.TimestampType, env *expr.Env) arrow.Array {
	loc := env.Loc
	if loc == nil {
		loc = time.UTC
	}
	perSec := int64(1)
	switch t.Unit {
	case arrow.Millisecond:
		perSec = 1e3
	case arrow.Microsecond:
		perSec = 1e6
	case arrow.Nanosecond:
		perSec = 1e9
	}
	b := array.NewTimestampBuilder(env.Mem, &arrow.TimestampType{Unit: t.Unit})
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := int64(a.Value(i))
		sec := v / perSec
		if v%perSec < 0 {
			sec--
		}
		_, off := time.Unix(sec, 0).In(loc).Zone()
		b.Append(arrow.Timestamp(v + int64(off)*perSec))
	}
	return b.NewArray()
}

// measuredLine is an operator's line of actuals: rows, batches, own time
// (its time less its inputs', which it spends pulling from them; parallel
// inputs can overlap it, so it is never shown below zero) and total time
// (its inputs' included). A step fused into a parallel pipeline measured
// its own time only.
func measuredLine(o exec.Operator, prof *exec.OpProfile) string {
	st, ok := prof.Stats(o)
	if !ok {
		return "RowsProduced=- (not measured on its own: fused into its parent's pipeline, or not run)"
	}
	var inputs time.Duration
	for _, c := range o.Children() {
		inputs += totalTime(c, prof)
	}
	self, total := st.Time, st.Time+inputs
	if !st.Own {
		self, total = max(st.Time-inputs, 0), st.Time
	}
	return fmt.Sprintf("RowsProduced=%d, Batches=%d, ExecTime=%s, TotalTime=%s", st.Rows, st.Batches, fmtDur(self), fmtDur(total))
}

// totalTime is the time o took with its inputs': a fused step measured
// only its own, so its inputs' are added.
func totalTime(o exec.Operator, prof *exec.OpProfile) time.Duration {
	st, ok := prof.Stats(o)
	if ok && !st.Own {
		return st.Time
	}
	var d time.Duration
	for _, c := range o.Children() {
		d += totalTime(c, prof)
	}
	return st.Time + d
}

// fmtDur prints a duration in milliseconds with three decimals, as the
// profile text does.
func fmtDur(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + "ms"
}
