package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// Union concatenates its inputs (UNION ALL), or removes duplicate rows
// across them (UNION). Column names come from the first input; each
// column's type is the common type of that column in all inputs, and
// inputs are cast to it. Inputs are read one after another, streaming.
type Union struct {
	Inputs   []Operator
	Distinct bool
	casts    [][]expr.Expr // per input: one cast expression per column
	schema   *arrow.Schema
}

// NewUnion checks that the inputs have the same number of columns with
// unifiable types.
func NewUnion(inputs []Operator, distinct bool) (*Union, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%w: union of no inputs", ErrPlan)
	}
	first := inputs[0].Schema()
	types := make([]arrow.DataType, first.NumFields())
	for i, f := range first.Fields() {
		types[i] = f.Type
	}
	for k, in := range inputs[1:] {
		s := in.Schema()
		if s.NumFields() != len(types) {
			return nil, fmt.Errorf("%w: union input %d has %d columns, the first has %d", ErrPlan, k+2, s.NumFields(), len(types))
		}
		for i, f := range s.Fields() {
			t, err := expr.ResultType(types[i], f.Type)
			if err != nil {
				return nil, fmt.Errorf("union column %d (%s): %w", i+1, first.Field(i).Name, err)
			}
			types[i] = t
		}
	}
	u := &Union{Inputs: inputs, Distinct: distinct}
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		if t.ID() == arrow.NULL {
			t = expr.Int64T() // SELECT NULL UNION SELECT NULL
			types[i] = t
		}
		fields[i] = arrow.Field{Name: first.Field(i).Name, Type: t, Nullable: true}
	}
	u.schema = arrow.NewSchema(fields, nil)
	for _, in := range inputs {
		var cs []expr.Expr
		for i, f := range in.Schema().Fields() {
			c, err := expr.Cast(expr.Col(i, f.Name, f.Type), types[i])
			if err != nil {
				return nil, fmt.Errorf("union column %d (%s): %w", i+1, f.Name, err)
			}
			cs = append(cs, c)
		}
		u.casts = append(u.casts, cs)
	}
	return u, nil
}

func (u *Union) Schema() *arrow.Schema { return u.schema }
func (u *Union) Children() []Operator  { return u.Inputs }
func (u *Union) Explain() string {
	if u.Distinct {
		return "VUNION\ndistinct: true"
	}
	return "VUNION"
}

func (u *Union) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if u.Distinct {
		all := *u
		all.Distinct = false
		return (&Distinct{Input: &all}).Open(ctx, env)
	}
	idx := 0
	var cur array.RecordReader
	next := func() (arrow.RecordBatch, error) {
		for idx < len(u.Inputs) {
			if cur == nil {
				r, err := OpenOp(ctx, env, u.Inputs[idx])
				if err != nil {
					return nil, err
				}
				cur = r
			}
			if cur.Next() {
				return evalBatch(env, u.schema, u.casts[idx], cur.RecordBatch())
			}
			err := cur.Err()
			cur.Release()
			cur = nil
			if err != nil {
				return nil, err
			}
			idx++
		}
		return nil, nil
	}
	closeFn := func() {
		if cur != nil {
			cur.Release()
		}
	}
	return newPullReader(ctx, u.schema, next, closeFn), nil
}
