package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// Project computes one output column per expression. It streams.
type Project struct {
	Input  Operator
	Exprs  []expr.Expr
	schema *arrow.Schema
}

// NewProject names the outputs; names must have one entry per expression.
func NewProject(input Operator, exprs []expr.Expr, names []string) (*Project, error) {
	if len(names) != len(exprs) {
		return nil, fmt.Errorf("%w: project has %d expressions and %d names", ErrPlan, len(exprs), len(names))
	}
	fields := make([]arrow.Field, len(exprs))
	for i, e := range exprs {
		fields[i] = arrow.Field{Name: names[i], Type: e.DataType(), Nullable: true}
	}
	return &Project{Input: input, Exprs: exprs, schema: arrow.NewSchema(fields, nil)}, nil
}

func (p *Project) Schema() *arrow.Schema { return p.schema }
func (p *Project) Children() []Operator  { return []Operator{p.Input} }
func (p *Project) Explain() string {
	parts := make([]string, len(p.Exprs))
	for i, e := range p.Exprs {
		parts[i] = e.String()
	}
	return "VPROJECT\nprojections: " + strings.Join(parts, ", ")
}

// Open streams the projected batches. Over a Filter it runs the filter
// itself and gathers the selected rows of only the columns its
// expressions read: the filter's output is never seen by anyone else, so
// the other columns need not be copied.
func (p *Project) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if f, ok := p.Input.(*Filter); ok {
		return f.open(ctx, env, p.schema, columnsRead(p.Exprs), func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
			defer b.Release()
			return evalBatch(env, p.schema, p.Exprs, b)
		})
	}
	in, err := OpenOp(ctx, env, p.Input)
	if err != nil {
		return nil, err
	}
	next := func() (arrow.RecordBatch, error) {
		if !in.Next() {
			return nil, in.Err()
		}
		return evalBatch(env, p.schema, p.Exprs, in.RecordBatch())
	}
	return newPullReader(ctx, p.schema, next, in.Release), nil
}
