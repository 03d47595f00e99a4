package exec

import (
	"context"
	"fmt"
	mbits "math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Filter keeps the rows where Pred is TRUE (NULL and FALSE drop the row).
// It streams: one input batch in, at most one output batch out.
//
// The predicate's conjuncts are tested one after another, each on the
// rows the earlier ones kept (a selection of row numbers), and only the
// columns a conjunct reads are gathered for it. As in LogicExpr, a
// conjunct may therefore not see rows an earlier one dropped, so an
// error it would raise only there (an overflow) need not fail the query. A Project directly above
// a Filter asks for the rows of just the columns it reads (see
// Project.Open), so a wide batch is never copied whole for one column.
type Filter struct {
	Input Operator
	Pred  expr.Expr
	// outNeed are the columns some operator above reads (nil: all), set
	// by PruneJoinColumns: only those are gathered for the rows kept, so
	// a column only the predicate reads (an internal table's l_shipdate
	// under TPC-H Q6's aggregate) is tested, never copied.
	outNeed []int
}

// NewFilter checks that pred is a boolean over input's columns.
func NewFilter(input Operator, pred expr.Expr) (*Filter, error) {
	if pred.DataType().ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: filter predicate %s is %s, not boolean", ErrPlan, pred, expr.TypeName(pred.DataType()))
	}
	return &Filter{Input: input, Pred: pred}, nil
}

func (f *Filter) Schema() *arrow.Schema { return f.Input.Schema() }
func (f *Filter) Children() []Operator  { return []Operator{f.Input} }
func (f *Filter) Explain() string       { return "VSELECT\npredicates: " + f.Pred.String() }

func (f *Filter) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	return f.open(ctx, env, f.Schema(), f.outNeed, func(b arrow.RecordBatch) (arrow.RecordBatch, error) { return b, nil })
}

// open runs the filter and hands each non-empty selected batch to emit,
// which owns it, and emits what emit returns as batches of schema; need
// names the columns gathered (nil: all).
func (f *Filter) open(ctx context.Context, env *Env, schema *arrow.Schema, need []int, emit func(arrow.RecordBatch) (arrow.RecordBatch, error)) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	if sc, ok := f.Input.(*Scan); ok && len(sc.Filters) > 0 && ctx.Value(deferRFKey{}) != sc {
		// The scan's runtime filters select with the predicate, and the
		// rows kept are gathered once (pipeline.applyFirst).
		p := splitPipeline(f)
		p.needs[0] = need
		in, _, err := p.openSource(ctx, env)
		if err != nil {
			return nil, err
		}
		var scratch []int64
		next := func() (arrow.RecordBatch, error) {
			for in.Next() {
				out, err := p.apply(kctx, env, in.RecordBatch(), &scratch)
				if err != nil {
					return nil, err
				}
				if out != nil {
					return emit(out)
				}
			}
			return nil, in.Err()
		}
		return newPullReader(ctx, schema, next, in.Release), nil
	}
	in, raw, err := openRaw(ctx, env, f.Input)
	if err != nil {
		return nil, err
	}
	s := newSelector(f.Pred)
	var scratch []int64 // row numbers, reused: apply copies what it keeps
	next := func() (arrow.RecordBatch, error) {
		for in.Next() {
			out, err := s.apply(kctx, env, in.RecordBatch(), need, &scratch)
			if err == nil && out != nil && raw {
				out, err = detachFrom(memlimit.Lenient(env.Mem), in.RecordBatch(), out, need)
			}
			if err != nil {
				return nil, err
			}
			if out != nil {
				return emit(out)
			}
		}
		return nil, in.Err()
	}
	return newPullReader(ctx, schema, next, in.Release), nil
}

// selector tests a predicate conjunct by conjunct on a shrinking
// selection of rows. It is read-only once built: goroutines may share one.
type selector struct {
	conj []expr.Expr
	cols [][]int     // the input columns each conjunct reads
	kern []selKernel // per conjunct, its direct kernel or nil
}

func newSelector(pred expr.Expr) *selector {
	s := &selector{}
	var fused []selKernel
	s.conj, fused = fuseRanges(expr.Conjuncts(pred))
	for k, c := range s.conj {
		s.cols = append(s.cols, expr.Columns(c))
		kern := fused[k]
		if kern == nil {
			kern = compileSelKernel(c)
		}
		s.kern = append(s.kern, kern)
	}
	return s
}

// apply returns the rows of b where every conjunct is TRUE, nil if none.
// Only the columns in need (nil: all) hold the selected rows; the others
// are zero-copy slices of b of the right length that nobody may read.
func (s *selector) apply(kctx context.Context, env *Env, b arrow.RecordBatch, need []int, scratch *[]int64) (arrow.RecordBatch, error) {
	rows, all, err := s.selectRows(kctx, env, b, scratch)
	switch {
	case err != nil:
		return nil, err
	case all:
		b.Retain()
		return b, nil
	case len(rows) == 0:
		return nil, nil
	}
	return gatherRows(kctx, env, b, rows, need)
}

// selectRows returns the row numbers of b where every conjunct is TRUE, in
// order, or all when every row is (rows nil); no rows and not all when
// none is. Only the columns a later conjunct reads are gathered for it.
// A conjunct with a kernel (compileSelKernel) selects straight into
// *scratch, which the rows returned may share until the next call.
func (s *selector) selectRows(kctx context.Context, env *Env, b arrow.RecordBatch, scratch *[]int64) (rows []int64, all bool, err error) {
	return s.selectFrom(kctx, env, b, nil, scratch)
}

// selectFrom is selectRows testing only the rows from (ascending; nil:
// every row), as a scan's runtime filters left them; from is compacted in
// place.
func (s *selector) selectFrom(kctx context.Context, env *Env, b arrow.RecordBatch, from []int64, scratch *[]int64) (rows []int64, all bool, err error) {
	n := int(b.NumRows())
	// rows: the selected row numbers; nil while every row is.
	rows = from
	for k, c := range s.conj {
		if kern := s.kern[k]; kern != nil {
			out := rows[:0]
			if rows == nil {
				if cap(*scratch) < n {
					*scratch = make([]int64, 0, n)
				}
				out = (*scratch)[:0]
			}
			if kept, ok := kern(b, rows, out); ok {
				switch {
				case len(kept) == 0:
					return nil, false, nil
				case rows == nil && len(kept) == n:
					continue
				}
				rows = kept
				continue
			}
		}
		// Over half the rows left: testing them all in place is cheaper
		// than gathering them (LogicExpr makes the same choice).
		whole := rows == nil || len(rows) > n/2
		in := b
		if !whole {
			var err error
			if in, err = gatherRows(kctx, env, b, rows, s.cols[k]); err != nil {
				return nil, false, err
			}
		}
		m, err := c.Eval(env, in)
		if in != b {
			in.Release()
		}
		if err != nil {
			return nil, false, err
		}
		var kept []int64
		if whole && rows != nil {
			kept = selectTrueAt(m.(*array.Boolean), rows)
		} else {
			kept = selectTrue(m.(*array.Boolean), rows)
		}
		m.Release()
		switch {
		case len(kept) == 0:
			return nil, false, nil
		case rows == nil && len(kept) == n:
			continue // every row passed: keep reading b itself
		}
		rows = kept
	}
	return rows, rows == nil, nil
}

// selectTrue returns the row numbers (rows[j], or j when rows is nil) of
// the positions j where mask is TRUE.
func selectTrue(mask *array.Boolean, rows []int64) []int64 {
	m := mask.Len()
	if m == 0 {
		return nil
	}
	bits, off := mask.Data().Buffers()[1].Bytes(), mask.Data().Offset()
	var valid []byte
	if mask.NullN() > 0 {
		valid = mask.Data().Buffers()[0].Bytes()
	}
	if off%8 == 0 {
		return selectTrueBytes(bits[off/8:], valid, off/8, m, rows)
	}
	out := make([]int64, 0, m)
	for j := 0; j < m; j++ {
		if !bitutil.BitIsSet(bits, off+j) || (valid != nil && !bitutil.BitIsSet(valid, off+j)) {
			continue
		}
		if rows != nil {
			out = append(out, rows[j])
		} else {
			out = append(out, int64(j))
		}
	}
	return out
}

// selectTrueBytes is selectTrue for a mask starting on a byte boundary:
// it sizes the output by a popcount (a selective filter allocates only
// what it keeps) and visits set bits a byte at a time, skipping bytes with
// none.
func selectTrueBytes(bits, valid []byte, voff, m int, rows []int64) []int64 {
	nb := (m + 7) / 8
	byteAt := func(i int) byte {
		b := bits[i]
		if valid != nil {
			b &= valid[voff+i]
		}
		if i == nb-1 && m%8 != 0 {
			b &= byte(1)<<(m%8) - 1
		}
		return b
	}
	n := 0
	for i := 0; i < nb; i++ {
		n += mbits.OnesCount8(byteAt(i))
	}
	out := make([]int64, 0, n)
	for i := 0; i < nb; i++ {
		b := byteAt(i)
		for b != 0 {
			j := i*8 + mbits.TrailingZeros8(b)
			b &= b - 1
			if rows != nil {
				out = append(out, rows[j])
			} else {
				out = append(out, int64(j))
			}
		}
	}
	return out
}

// selectTrueAt returns the rows where mask, one entry per row of the
// batch, is TRUE.
func selectTrueAt(mask *array.Boolean, rows []int64) []int64 {
	bits, off := mask.Data().Buffers()[1].Bytes(), mask.Data().Offset()
	var valid []byte
	if mask.NullN() > 0 {
		valid = mask.Data().Buffers()[0].Bytes()
	}
	out := rows[:0:0]
	for _, r := range rows {
		j := off + int(r)
		if bitutil.BitIsSet(bits, j) && (valid == nil || bitutil.BitIsSet(valid, j)) {
			out = append(out, r)
		}
	}
	return out
}

// columnsRead is the input columns the expressions (nil ones skipped)
// read, each once, in first-read order; never nil, as a nil column list
// means every column to gatherRows.
func columnsRead(es []expr.Expr) []int {
	cols := []int{}
	seen := map[int]bool{}
	for _, e := range es {
		if e == nil {
			continue
		}
		for _, c := range expr.Columns(e) {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// gatherRows returns a batch of len(rows) rows of b: the columns in cols
// (nil: all) hold rows' values, the others are zero-copy slices of b
// that nobody may read.
func gatherRows(kctx context.Context, env *Env, b arrow.RecordBatch, rows []int64, cols []int) (arrow.RecordBatch, error) {
	// The row numbers as an array only for a column arrow's Take copies.
	var idx arrow.Array
	defer func() {
		if idx != nil {
			idx.Release()
		}
	}()
	want := make([]bool, b.NumCols())
	for i := range want {
		want[i] = cols == nil
	}
	for _, c := range cols {
		if c >= 0 && c < len(want) {
			want[c] = true
		}
	}
	out := make([]arrow.Array, b.NumCols())
	for i := range out {
		if !want[i] {
			out[i] = array.NewSlice(b.Column(i), 0, int64(len(rows)))
			continue
		}
		if idx == nil && !gatherable(b.Column(i).DataType()) {
			ib := array.NewInt64Builder(env.Mem)
			ib.AppendValues(rows, nil)
			idx = ib.NewArray()
			ib.Release()
		}
		c, err := takeRows(kctx, memlimit.Lenient(env.Mem), b.Column(i), rows, idx)
		if err != nil {
			releaseCols(out)
			return nil, err
		}
		out[i] = c
	}
	res := array.NewRecordBatch(b.Schema(), out, int64(len(rows)))
	releaseCols(out)
	return res, nil
}

func releaseCols(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
