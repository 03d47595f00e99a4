package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Filter keeps the rows where Pred is TRUE (NULL and FALSE drop the row).
// It streams: one input batch in, at most one output batch out.
type Filter struct {
	Input Operator
	Pred  expr.Expr
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
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, err := f.Input.Open(ctx, env)
	if err != nil {
		return nil, err
	}
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	next := func() (arrow.RecordBatch, error) {
		for in.Next() {
			b := in.RecordBatch()
			out, err := applyFilter(kctx, env, f.Pred, b)
			if err != nil {
				return nil, err
			}
			if out != nil {
				return out, nil
			}
		}
		return nil, in.Err()
	}
	return newPullReader(ctx, f.Schema(), next, in.Release), nil
}

// applyFilter returns the rows of b where pred is TRUE, nil if none.
func applyFilter(kctx context.Context, env *Env, pred expr.Expr, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	m, err := pred.Eval(env, b)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	mask := m.(*array.Boolean)
	n := mask.Len()
	trues := 0
	for i := 0; i < n; i++ {
		if mask.IsValid(i) && mask.Value(i) {
			trues++
		}
	}
	switch trues {
	case 0:
		return nil, nil
	case n:
		b.Retain()
		return b, nil
	}
	return compute.FilterRecordBatch(kctx, b, mask, compute.DefaultFilterOptions())
}
