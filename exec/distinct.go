package exec

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Distinct removes duplicate rows (NULLs equal to each other, as in
// SELECT DISTINCT). It streams: each batch passes on the rows whose value
// was not seen before, in first-seen order; only the set of seen rows is
// kept.
type Distinct struct {
	Input Operator
}

// NewDistinct is SELECT DISTINCT over input's columns. Columns of a type
// the evaluator cannot read make Open fail with ErrUnsupported.
func NewDistinct(input Operator) *Distinct { return &Distinct{Input: input} }

func (d *Distinct) Schema() *arrow.Schema { return d.Input.Schema() }
func (d *Distinct) Children() []Operator  { return []Operator{d.Input} }
func (d *Distinct) Explain() string {
	names := make([]string, 0, d.Schema().NumFields())
	for _, f := range d.Schema().Fields() {
		names = append(names, f.Name)
	}
	return "VAGGREGATE (update finalize)\noutput: \ngroup by: " + strings.Join(names, ", ")
}

func (d *Distinct) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if spillOf(ctx) != nil {
		// Under enable_spill: a hash aggregation over every column, whose
		// groups spill as partial states (spill_agg.go). Rows come out when
		// the input ends, partition by partition, not first-seen.
		if agg, err := d.asAggregate(); err == nil {
			return agg.Open(ctx, env)
		}
	}
	in, err := OpenOp(ctx, env, d.Input)
	if err != nil {
		return nil, err
	}
	schema := d.Schema()
	types := make([]arrow.DataType, schema.NumFields())
	for i, f := range schema.Fields() {
		if !expr.Supported(f.Type) {
			in.Release()
			return nil, errorf(ErrUnsupported, "DISTINCT over column %s of type %s", f.Name, f.Type)
		}
		types[i] = f.Type
	}
	gt := newGroupTable(env.Mem, types, false)
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	var gids []uint32
	next := func() (arrow.RecordBatch, error) {
		for in.Next() {
			b := in.RecordBatch()
			before := gt.n
			gids = gt.ids(b.Columns(), int(b.NumRows()), gids)
			if gt.n == before {
				continue
			}
			// Group ids are handed out in row order, so the first row of
			// each new group is the one whose id equals the next new id.
			keep := make([]bool, len(gids))
			want := uint32(before)
			for i, g := range gids {
				if g == want {
					keep[i] = true
					want++
				}
			}
			if int(want-uint32(before)) == len(gids) {
				b.Retain()
				return b, nil
			}
			bb := array.NewBooleanBuilder(env.Mem)
			bb.AppendValues(keep, nil)
			mask := bb.NewArray()
			bb.Release()
			out, err := compute.FilterRecordBatch(kctx, b, mask, compute.DefaultFilterOptions())
			mask.Release()
			return out, err
		}
		return nil, in.Err()
	}
	closeFn := func() {
		in.Release()
		gt.release()
	}
	return newPullReader(ctx, schema, next, closeFn), nil
}

// asAggregate is d as GROUP BY every column.
func (d *Distinct) asAggregate() (Operator, error) {
	schema := d.Schema()
	keys := make([]expr.Expr, schema.NumFields())
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		keys[i] = expr.Col(i, f.Name, f.Type)
		names[i] = f.Name
	}
	return NewHashAggregate(d.Input, keys, names, nil, AggSingle)
}
