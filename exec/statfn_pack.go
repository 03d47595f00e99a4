package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
)

// PackArgs builds the STRUCT argument of an aggregate of several arguments
// (covar, corr, regr_*, avg_weighted, min_by, max_by, percentile,
// percentile_approx, topn) from its argument expressions, each cast to
// what the accumulator reads. A BE builds it from a fragment's columns; the
// binder builds the same shape on its side.
func PackArgs(f AggFunc, args []expr.Expr) (expr.Expr, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("%w: %s takes 2 arguments, got %d", ErrPlan, f, len(args))
	}
	var want [2]arrow.DataType
	switch f {
	case CovarPop, CovarSamp, Corr, RegrSlope, RegrIntercept, AvgWeighted, Percentile, PercentileApprox:
		want = [2]arrow.DataType{expr.Float64T(), expr.Float64T()}
	case TopNAgg:
		want = [2]arrow.DataType{expr.StringT(), expr.Int64T()}
	case MinBy, MaxBy:
	default:
		return nil, fmt.Errorf("%w: %s does not take several arguments", ErrPlan, f)
	}
	out := make([]expr.Expr, 2)
	for i, a := range args {
		t := want[i]
		if t == nil {
			t = a.DataType()
			if t.ID() == arrow.NULL {
				t = expr.StringT()
			}
		}
		c, err := expr.Cast(a, t)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return newArgStruct(out), nil
}

// argStruct evaluates its arguments into one STRUCT column (fields a0, a1).
type argStruct struct {
	args []expr.Expr
	typ  *arrow.StructType
}

func newArgStruct(args []expr.Expr) *argStruct {
	fs := make([]arrow.Field, len(args))
	for i, a := range args {
		fs[i] = arrow.Field{Name: "a" + strconv.Itoa(i), Type: a.DataType(), Nullable: true}
	}
	return &argStruct{args: args, typ: arrow.StructOf(fs...)}
}

func (p *argStruct) DataType() arrow.DataType { return p.typ }
func (p *argStruct) Children() []expr.Expr    { return p.args }

func (p *argStruct) String() string {
	s := make([]string, len(p.args))
	for i, a := range p.args {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

func (p *argStruct) Eval(env *expr.Env, batch arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, 0, len(p.args))
	defer func() { releaseArrays(cols) }() // the struct holds its own references
	names := make([]string, len(p.args))
	for i, a := range p.args {
		c, err := a.Eval(env, batch)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
		names[i] = p.typ.Field(i).Name
	}
	return array.NewStructArray(cols, names)
}

// TakesSeveralArgs reports whether f's argument is a PackArgs STRUCT.
func TakesSeveralArgs(f AggFunc) bool {
	switch f {
	case CovarPop, CovarSamp, Corr, RegrSlope, RegrIntercept, AvgWeighted, Percentile, PercentileApprox, TopNAgg, MinBy, MaxBy:
		return true
	}
	return false
}
