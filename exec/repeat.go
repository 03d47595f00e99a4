package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
)

// Repeat emits every input batch once per grouping set, each time through
// that set's projection (Doris's RepeatNode): the grouping expressions a
// set leaves out come out NULL, and constant columns tell the sets apart,
// so one hash aggregate above computes ROLLUP, CUBE and GROUPING SETS in a
// single pass over its input. It streams.
type Repeat struct {
	Input  Operator
	Sets   [][]expr.Expr
	schema *arrow.Schema
}

// NewRepeat checks that every set projects the same types; names name the
// output columns.
func NewRepeat(input Operator, sets [][]expr.Expr, names []string) (*Repeat, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("%w: repeat without grouping sets", ErrPlan)
	}
	fields := make([]arrow.Field, len(names))
	for s, exprs := range sets {
		if len(exprs) != len(names) {
			return nil, fmt.Errorf("%w: repeat set %d has %d expressions and %d names", ErrPlan, s, len(exprs), len(names))
		}
		for i, e := range exprs {
			if s == 0 {
				fields[i] = arrow.Field{Name: names[i], Type: e.DataType(), Nullable: true}
			} else if !arrow.TypeEqual(fields[i].Type, e.DataType()) {
				return nil, fmt.Errorf("%w: repeat column %s is %s in one set and %s in another", ErrPlan, names[i], fields[i].Type, e.DataType())
			}
		}
	}
	return &Repeat{Input: input, Sets: sets, schema: arrow.NewSchema(fields, nil)}, nil
}

func (r *Repeat) Schema() *arrow.Schema { return r.schema }
func (r *Repeat) Children() []Operator  { return []Operator{r.Input} }
func (r *Repeat) Explain() string {
	sets := make([]string, len(r.Sets))
	for i, s := range r.Sets {
		parts := make([]string, len(s))
		for j, e := range s {
			parts[j] = e.String()
		}
		sets[i] = "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("VREPEAT_NODE\nrepeat: repeat %d lines %s", len(r.Sets), strings.Join(sets, ", "))
}

// Open evaluates each set's projection over an input batch before reading
// the next one, so the batch stays valid throughout.
func (r *Repeat) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, err := OpenOp(ctx, env, r.Input)
	if err != nil {
		return nil, err
	}
	set, have := 0, false
	next := func() (arrow.RecordBatch, error) {
		for !have || set == len(r.Sets) {
			if !in.Next() {
				return nil, in.Err()
			}
			have, set = true, 0
		}
		set++
		return evalBatch(env, r.schema, r.Sets[set-1], in.RecordBatch())
	}
	return newPullReader(ctx, r.schema, next, in.Release), nil
}
