package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
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
	if len(h.GroupBy) > 0 {
		return true
	}
	_, ok := h.distinctSplitKey()
	return ok
}

// distinctSplitKey is the one argument every DISTINCT aggregate of a
// global aggregate reads, when all its aggregates combine across files
// split by it.
func (h *HashAggregate) distinctSplitKey() (expr.Expr, bool) {
	var key expr.Expr
	for _, a := range h.Aggs {
		switch a.Func {
		case CountStar, Count, Sum, Min, Max:
		default:
			return nil, false
		}
		if !a.Distinct {
			continue
		}
		if key == nil {
			key = a.Arg
		} else if key.String() != a.Arg.String() {
			return nil, false
		}
	}
	return key, key != nil
}

// aggRowCopies: the rows held, and a state about as large (the distinct
// values, the concatenated text).
const aggRowCopies = 2

func (h *HashAggregate) openSpillingRows(ctx context.Context, env *Env, sp *spillConfig) (array.RecordReader, error) {
	run := func(ctx context.Context, env *Env, in Operator) (array.RecordReader, error) {
		a := *h
		a.Input = in
		return a.Open(ctx, env)
	}
	if len(h.GroupBy) > 0 {
		return openPartitioned(ctx, env, sp, h.Input, h.GroupBy, "agg-rows", aggRowCopies, h.schema, run)
	}
	key, _ := h.distinctSplitKey()
	parts, err := openPartitioned(ctx, env, sp, h.Input, []expr.Expr{key}, "agg-distinct", aggRowCopies, h.schema, run)
	if err != nil {
		return nil, err
	}
	return h.combineParts(ctx, env, parts)
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
