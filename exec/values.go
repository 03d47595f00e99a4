package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// Values yields literal rows (VALUES (...), (...), or SELECT without FROM).
// Each row is a list of constant expressions, cast to the schema's types.
type Values struct {
	schema *arrow.Schema
	Rows   [][]expr.Expr
}

// NewValues checks that every row has one castable expression per field.
// An empty rows slice gives an empty result; a SELECT without FROM is one
// row of zero or more columns.
func NewValues(schema *arrow.Schema, rows [][]expr.Expr) (*Values, error) {
	v := &Values{schema: schema}
	for r, row := range rows {
		if len(row) != schema.NumFields() {
			return nil, fmt.Errorf("%w: VALUES row %d has %d values, expected %d", ErrPlan, r+1, len(row), schema.NumFields())
		}
		out := make([]expr.Expr, len(row))
		for i, e := range row {
			c, err := expr.Cast(e, schema.Field(i).Type)
			if err != nil {
				return nil, fmt.Errorf("VALUES row %d column %s: %w", r+1, schema.Field(i).Name, err)
			}
			out[i] = c
		}
		v.Rows = append(v.Rows, out)
	}
	return v, nil
}

func (v *Values) Schema() *arrow.Schema { return v.schema }
func (v *Values) Children() []Operator  { return nil }
func (v *Values) Explain() string {
	lines := []string{"VUNION", "constant exprs: "}
	for _, r := range v.Rows {
		lines = append(lines, "    "+exprList(r))
	}
	return strings.Join(lines, "\n")
}

func (v *Values) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	done := false
	next := func() (arrow.RecordBatch, error) {
		if done || len(v.Rows) == 0 {
			return nil, nil
		}
		done = true
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		defer one.Release()
		builders := make([]array.Builder, v.schema.NumFields())
		for i, f := range v.schema.Fields() {
			builders[i] = array.NewBuilder(env.Mem, f.Type)
		}
		defer func() {
			for _, b := range builders {
				b.Release()
			}
		}()
		for _, row := range v.Rows {
			for i, e := range row {
				a, err := e.Eval(env, one)
				if err != nil {
					return nil, err
				}
				expr.Appender(builders[i])(expr.Getter(a)(0))
				a.Release()
			}
		}
		cols := make([]arrow.Array, len(builders))
		for i, b := range builders {
			cols[i] = b.NewArray()
		}
		out := array.NewRecordBatch(v.schema, cols, int64(len(v.Rows)))
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	}
	return newPullReader(ctx, v.schema, next, nil), nil
}
