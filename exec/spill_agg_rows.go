package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Aggregates whose states do not merge (DISTINCT ones, GROUP_CONCAT,
// ARRAY_AGG, the statistical ones) spill their input rows instead of
// their states (spill_rows.go): split by the group keys, every group's
// rows are in one file and the aggregate runs over each file as over a
// table of its own. Without GROUP BY, aggregates over the DISTINCT values
// of one argument split by that argument: each value's rows are in one
// file, so the files' results add up (COUNT and SUM) or take the least
// or greatest (MIN, MAX); COUNT(*) and the plain COUNT, SUM, MIN and MAX
// beside them add up likewise.

// canSpillRows says whether a HashAggregate that cannot spill its states
// may spill its rows.
func (h *HashAggregate) canSpillRows(sp *spillConfig) bool {
	if h.Mode != AggSingle || sp.level >= spillMaxLevel {
		return false
	}
	if len(h.GroupBy) > 0 || h.splitKeys != nil {
		return true
	}
	return len(h.distinctArgs()) > 0
}

// distinctArgs are the arguments of a global aggregate's DISTINCT
// aggregates, each once, when all its aggregates combine across files
// (nil otherwise).
func (h *HashAggregate) distinctArgs() []expr.Expr {
	var args []expr.Expr
	for _, a := range h.Aggs {
		switch a.Func {
		case CountStar, Count, Sum, Min, Max:
		default:
			return nil
		}
		if a.Distinct && distinctIndex(args, a.Arg) < 0 {
			args = append(args, a.Arg)
		}
	}
	return args
}

func distinctIndex(args []expr.Expr, e expr.Expr) int {
	for i, a := range args {
		if a.String() == e.String() && arrow.TypeEqual(a.DataType(), e.DataType()) {
			return i
		}
	}
	return -1
}

// aggRowCopies: the rows held, and a state about as large (the distinct
// values, the concatenated text).
const aggRowCopies = 2

func (h *HashAggregate) openSpillingRows(ctx context.Context, env *Env, sp *spillConfig) (array.RecordReader, error) {
	if _, _, ok := memlimit.Usage(env.Mem); !ok {
		// No limit to spill under.
		return openMaterializedParts(ctx, env, pipedSel{h.Input}, h.schema, h.compute)
	}
	run := func(ctx context.Context, env *Env, in Operator) (array.RecordReader, error) {
		a := *h
		a.Input = in
		return a.Open(ctx, env)
	}
	fold := func(env *Env) (rowFolder, error) { return h.newAggState(env) }
	if len(h.GroupBy) > 0 {
		return openPartitioned(ctx, env, sp, h.Input, h.GroupBy, "agg-rows", aggRowCopies, h.schema, run, fold)
	}
	keys, input, run := h.splitKeys, h.Input, run
	if keys == nil {
		args := h.distinctArgs()
		if len(args) == 1 {
			keys = args
		} else {
			var err error
			if keys, input, run, fold, err = h.expandDistinct(args); err != nil {
				return nil, err
			}
		}
	}
	parts, err := openPartitioned(ctx, env, sp, input, keys, "agg-distinct", aggRowCopies, h.schema, run, fold)
	if err != nil {
		return nil, err
	}
	return h.combineParts(ctx, env, parts)
}

// expandDistinct is the split of a global aggregate over the DISTINCT
// values of several arguments: each input row becomes one row per
// argument, tagged with its number, carrying that argument's value (the
// others NULL), and the first of them also the plain aggregates'
// arguments and a mark COUNT(*) counts. Split by (tag, values), every
// argument's equal values meet in one file, and each file's aggregate,
// over those columns, combines with the others' as with one argument.
func (h *HashAggregate) expandDistinct(args []expr.Expr) ([]expr.Expr, Operator, partitionedRun, folderFunc, error) {
	fields := []arrow.Field{{Name: "$tag", Type: arrow.PrimitiveTypes.Int64}}
	for i, a := range args {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("$d%d", i), Type: a.DataType(), Nullable: true})
	}
	keys := make([]expr.Expr, len(fields))
	for i, f := range fields {
		keys[i] = expr.Col(i, f.Name, f.Type)
	}
	fields = append(fields, arrow.Field{Name: "$first", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	first := expr.Col(len(fields)-1, "$first", arrow.PrimitiveTypes.Int64)
	var plain []expr.Expr
	calls := make([]AggCall, len(h.Aggs))
	for i, a := range h.Aggs {
		c := a
		switch {
		case a.Distinct:
			c.Arg = keys[1+distinctIndex(args, a.Arg)]
		case a.Func == CountStar:
			c.Func, c.Arg = Count, first
		default:
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("$x%d", len(plain)), Type: a.Arg.DataType(), Nullable: true})
			c.Arg = expr.Col(len(fields)-1, fields[len(fields)-1].Name, a.Arg.DataType())
			plain = append(plain, a.Arg)
		}
		calls[i] = c
	}
	ex := &expandOp{input: h.Input, schema: arrow.NewSchema(fields, nil), args: args, plain: plain}
	expanded, err := NewHashAggregate(ex, nil, nil, calls, AggSingle)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	expanded.splitKeys = keys
	run := func(ctx context.Context, env *Env, in Operator) (array.RecordReader, error) {
		a := *expanded
		a.Input = in
		return a.Open(ctx, env)
	}
	fold := func(env *Env) (rowFolder, error) { return expanded.newAggState(env) }
	return keys, ex, run, fold, nil
}

// expandOp is expandDistinct's rows.
type expandOp struct {
	input  Operator
	schema *arrow.Schema
	args   []expr.Expr // one tag each
	plain  []expr.Expr // on the first row only
}

func (e *expandOp) Schema() *arrow.Schema { return e.schema }
func (e *expandOp) Children() []Operator  { return []Operator{e.input} }
func (e *expandOp) Explain() string       { return "VEXPAND DISTINCT ARGUMENTS" }

func (e *expandOp) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	in, err := OpenOp(ctx, env, e.input)
	if err != nil {
		return nil, err
	}
	var pending []arrow.RecordBatch
	next := func() (arrow.RecordBatch, error) {
		if len(pending) == 0 {
			if !in.Next() {
				return nil, in.Err()
			}
			if pending, err = e.expand(env, in.RecordBatch()); err != nil {
				return nil, err
			}
		}
		b := pending[0]
		pending = pending[1:]
		return b, nil
	}
	closeFn := func() {
		in.Release()
		for _, b := range pending {
			b.Release()
		}
	}
	return newPullReader(ctx, e.schema, next, closeFn), nil
}

// expand makes b's rows once per argument.
func (e *expandOp) expand(env *Env, b arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	n := int(b.NumRows())
	vals, err := evalKeys(env, e.args, b)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(vals)
	plain, err := evalKeys(env, e.plain, b)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(plain)
	out := make([]arrow.RecordBatch, 0, len(e.args))
	for tag := range e.args {
		cols := make([]arrow.Array, 0, e.schema.NumFields())
		cols = append(cols, constInt64(env, int64(tag), n))
		for i, v := range vals {
			if i == tag {
				v.Retain()
				cols = append(cols, v)
			} else {
				cols = append(cols, array.MakeArrayOfNull(env.Mem, v.DataType(), n))
			}
		}
		if tag == 0 {
			cols = append(cols, constInt64(env, 1, n))
		} else {
			cols = append(cols, array.MakeArrayOfNull(env.Mem, arrow.PrimitiveTypes.Int64, n))
		}
		for _, p := range plain {
			if tag == 0 {
				p.Retain()
				cols = append(cols, p)
			} else {
				cols = append(cols, array.MakeArrayOfNull(env.Mem, p.DataType(), n))
			}
		}
		out = append(out, array.NewRecordBatch(e.schema, cols, int64(n)))
		releaseArrays(cols)
	}
	return out, nil
}

func constInt64(env *Env, v int64, n int) arrow.Array {
	bld := array.NewInt64Builder(env.Mem)
	defer bld.Release()
	bld.Reserve(n)
	for range n {
		bld.UnsafeAppend(v)
	}
	return bld.NewArray()
}

// combineParts folds the one-row results of the files (or of the held
// rows) into the one row of the whole input.
func (h *HashAggregate) combineParts(ctx context.Context, env *Env, parts array.RecordReader) (array.RecordReader, error) {
	held := &batchesOp{schema: h.schema}
	release := func() {
		for _, b := range held.batches {
			b.Release()
		}
		held.batches = nil
	}
	for parts.Next() {
		b := parts.RecordBatch()
		b.Retain()
		held.batches = append(held.batches, b)
	}
	err := parts.Err()
	parts.Release()
	if err != nil {
		release()
		return nil, err
	}
	if len(held.batches) == 1 && held.batches[0].NumRows() == 1 {
		// The rows fit: the one result is the answer.
		return held.Open(ctx, env)
	}
	calls := make([]AggCall, len(h.Aggs))
	for i, a := range h.Aggs {
		f := h.schema.Field(i)
		c := AggCall{Func: Sum, Arg: expr.Col(i, f.Name, f.Type), Name: f.Name}
		if a.Func == Min || a.Func == Max {
			c.Func = a.Func
		}
		calls[i] = c
	}
	comb, err := NewHashAggregate(held, nil, nil, calls, AggSingle)
	if err != nil {
		release()
		return nil, err
	}
	// Sums come back in the aggregates' own types (a count, however many
	// files, is a count).
	exprs := make([]expr.Expr, len(calls))
	names := make([]string, len(calls))
	for i := range calls {
		f := comb.schema.Field(i)
		if exprs[i], err = expr.Cast(expr.Col(i, f.Name, f.Type), h.outTypes[i]); err != nil {
			release()
			return nil, err
		}
		names[i] = h.schema.Field(i).Name
	}
	proj, err := NewProject(comb, exprs, names)
	if err != nil {
		release()
		return nil, err
	}
	r, err := proj.Open(ctx, env)
	if err != nil {
		release()
		return nil, err
	}
	return &schemaReader{RecordReader: r, schema: h.schema, env: env}, nil
}

// schemaReader hands out its reader's batches under schema (same column
// types, other field flags).
type schemaReader struct {
	array.RecordReader
	schema *arrow.Schema
	env    *Env
	cur    arrow.RecordBatch
}

func (s *schemaReader) Schema() *arrow.Schema { return s.schema }

func (s *schemaReader) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if !s.RecordReader.Next() {
		return false
	}
	b := s.RecordReader.RecordBatch()
	s.cur = array.NewRecordBatch(s.schema, b.Columns(), b.NumRows())
	return true
}

func (s *schemaReader) RecordBatch() arrow.RecordBatch { return s.cur }
func (s *schemaReader) Record() arrow.RecordBatch      { return s.cur }

func (s *schemaReader) Release() {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	s.RecordReader.Release()
}
