package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// AggFunc is an aggregate function.
type AggFunc int

const (
	CountStar   AggFunc = iota // COUNT(*)
	Count                      // COUNT(x): non-NULL x
	Sum                        // SUM(x): BIGINT for integers, DOUBLE for floats, DECIMAL(38,s)
	Min                        // MIN(x)
	Max                        // MAX(x)
	Avg                        // AVG(x): DOUBLE, or DECIMAL(38, max(s,4)) for decimals
	GroupConcat                // GROUP_CONCAT(x [SEPARATOR s]): non-NULL values as text, in input order
	AnyValue                   // ANY_VALUE(x): the first non-NULL value seen
)

func (f AggFunc) String() string {
	if isStatAgg(f) {
		return statAggString(f)
	}
	return [...]string{"count", "count", "sum", "min", "max", "avg", "group_concat", "any_value"}[f]
}

// AggCall is one aggregate in a HashAggregate.
type AggCall struct {
	Func AggFunc
	// Arg is the argument over the input's columns; nil for COUNT(*).
	Arg expr.Expr
	// Distinct aggregates each distinct non-NULL value once.
	Distinct bool
	// Name is the output column name.
	Name string
	// Sep is GROUP_CONCAT's separator; "" means the default ",". Use
	// SepSet to ask for an empty separator.
	Sep    string
	SepSet bool
}

func (c AggCall) separator() string {
	if c.Sep == "" && !c.SepSet {
		return ","
	}
	return c.Sep
}

func (c AggCall) String() string {
	if c.Func == CountStar {
		return "count(*)"
	}
	d := ""
	if c.Distinct {
		d = "DISTINCT "
	}
	return c.Func.String() + "(" + d + c.Arg.String() + ")"
}

// AggMode says which half of a split aggregation an operator computes.
type AggMode int

const (
	// AggSingle reads rows and produces final values.
	AggSingle AggMode = iota
	// AggPartial reads rows and produces per-group state columns (what a BE
	// would send): COUNT → count; SUM/MIN/MAX → value; AVG → sum, count;
	// STDDEV*/VAR* → count, mean, M2.
	AggPartial
	// AggFinal reads state columns (after the group columns, in AggCall
	// order) and merges them into final values.
	AggFinal
)

// HashAggregate groups rows by the GroupBy expressions (NULL keys form one
// group) and computes Aggs for each group. With no GroupBy it computes one
// row, even over empty input (COUNT 0, other aggregates NULL). Output
// columns are the group keys, then the aggregates (or their states in
// AggPartial mode). It reads its whole input before the first batch.
type HashAggregate struct {
	Input   Operator
	GroupBy []expr.Expr
	Aggs    []AggCall
	Mode    AggMode

	groupNames []string
	// splitKeys, when set, are the keys a global aggregate that spills its
	// rows splits them by (spill_agg_rows.go: expanded DISTINCT arguments).
	splitKeys  []expr.Expr
	argTypes   []arrow.DataType // type each argument is cast to
	outTypes   []arrow.DataType
	stateTypes [][]arrow.DataType
	schema     *arrow.Schema

	// estGroups is the optimizer's estimate of the groups (0: none), see
	// SetEstimate.
	estGroups float64
}

// SetEstimate passes the optimizer's estimate of the number of groups: it
// sizes the group tables once they hold an eighth of it (nextSize), and a
// large one routes the rows of aggregates whose states do not merge by
// key to one table per core from the start (agg_part.go).
func (h *HashAggregate) SetEstimate(groups float64) { h.estGroups = groups }

// NewHashAggregate type-checks the aggregates. groupNames names the group
// columns (one per GroupBy expression).
func NewHashAggregate(input Operator, groupBy []expr.Expr, groupNames []string, aggs []AggCall, mode AggMode) (*HashAggregate, error) {
	if len(groupNames) != len(groupBy) {
		return nil, fmt.Errorf("%w: aggregate has %d group expressions and %d names", ErrPlan, len(groupBy), len(groupNames))
	}
	h := &HashAggregate{Input: input, GroupBy: groupBy, Aggs: aggs, Mode: mode, groupNames: groupNames}
	var fields []arrow.Field
	for i, g := range groupBy {
		if !expr.Supported(g.DataType()) {
			return nil, errorf(ErrUnsupported, "GROUP BY %s: values of type %s", g, g.DataType())
		}
		fields = append(fields, arrow.Field{Name: groupNames[i], Type: g.DataType(), Nullable: true})
	}
	for _, a := range aggs {
		if a.Arg != nil && !expr.Supported(a.Arg.DataType()) && a.Func != Count {
			return nil, errorf(ErrUnsupported, "%s: values of type %s", a, a.Arg.DataType())
		}
		argT, outT, states, err := aggTypes(a)
		if err != nil {
			return nil, err
		}
		if a.Distinct && mode != AggSingle && a.Func != Min && a.Func != Max {
			return nil, fmt.Errorf("%w: %s in a split (partial/final) aggregation; plan it as AggSingle", ErrUnsupported, a)
		}
		h.argTypes = append(h.argTypes, argT)
		h.outTypes = append(h.outTypes, outT)
		h.stateTypes = append(h.stateTypes, states)
		if mode == AggPartial {
			for k, st := range states {
				fields = append(fields, arrow.Field{Name: a.Name + stateSuffix(a.Func, k), Type: st, Nullable: true})
			}
			continue
		}
		fields = append(fields, arrow.Field{Name: a.Name, Type: outT, Nullable: true})
	}
	if mode == AggFinal {
		// The states must sit after the group columns, as AggPartial emits them.
		in := input.Schema()
		col := len(groupBy)
		for i, a := range aggs {
			for _, st := range h.stateTypes[i] {
				if col >= in.NumFields() || !arrow.TypeEqual(in.Field(col).Type, st) {
					return nil, fmt.Errorf("%w: final %s expects a %s state in input column %d", ErrPlan, a, expr.TypeName(st), col)
				}
				col++
			}
		}
	}
	h.schema = arrow.NewSchema(fields, nil)
	return h, nil
}

func stateSuffix(f AggFunc, k int) string {
	if isStatAgg(f) {
		return statStateSuffix(f, k)
	}
	if f == Avg {
		return [...]string{"#sum", "#count"}[k]
	}
	return ""
}

// FinalFor builds the AggFinal operator that merges this AggPartial's
// output coming from input (which must have this operator's schema).
func (h *HashAggregate) FinalFor(input Operator) (*HashAggregate, error) {
	if h.Mode != AggPartial {
		return nil, fmt.Errorf("%w: FinalFor on a non-partial aggregate", ErrPlan)
	}
	gb := make([]expr.Expr, len(h.GroupBy))
	for i, g := range h.GroupBy {
		gb[i] = expr.Col(i, h.groupNames[i], g.DataType())
	}
	return NewHashAggregate(input, gb, h.groupNames, h.Aggs, AggFinal)
}

// aggTypes returns what the argument is cast to, the result type and the
// partial state types.
func aggTypes(a AggCall) (argT, outT arrow.DataType, states []arrow.DataType, err error) {
	i64, f64 := expr.Int64T(), expr.Float64T()
	if a.Func == CountStar {
		return nil, i64, []arrow.DataType{i64}, nil
	}
	if a.Arg == nil {
		return nil, nil, nil, fmt.Errorf("%w: %s without an argument", ErrPlan, a.Func)
	}
	t := a.Arg.DataType()
	numeric := func() bool {
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
			arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.BOOL, arrow.STRING, arrow.LARGE_STRING, arrow.NULL:
			return true
		}
		return false
	}
	switch a.Func {
	case Count:
		return t, i64, []arrow.DataType{i64}, nil
	case GroupConcat:
		switch t.ID() {
		case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
			return nil, nil, nil, fmt.Errorf("%w: %s over %s", ErrUnsupported, a, expr.TypeName(t))
		}
		s := expr.StringT()
		return s, s, []arrow.DataType{s}, nil
	case AnyValue:
		return t, t, []arrow.DataType{t}, nil
	case Min, Max:
		switch t.ID() {
		case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
			return nil, nil, nil, fmt.Errorf("%w: %s over %s", ErrUnsupported, a, expr.TypeName(t))
		}
		return t, t, []arrow.DataType{t}, nil
	case Sum, Avg:
		if !numeric() {
			return nil, nil, nil, fmt.Errorf("%w: %s over %s", expr.ErrType, a, expr.TypeName(t))
		}
		if d, ok := t.(*arrow.Decimal128Type); ok {
			sumT := expr.DecimalT(38, d.Scale)
			if expr.IsLargeInt(t) {
				sumT = t // LARGEINT sums in the int128 range
			}
			if a.Func == Sum {
				return t, sumT, []arrow.DataType{sumT}, nil
			}
			return t, expr.DecimalT(38, max(d.Scale, 4)), []arrow.DataType{sumT, i64}, nil
		}
		isInt := t.ID() != arrow.FLOAT32 && t.ID() != arrow.FLOAT64 && t.ID() != arrow.STRING && t.ID() != arrow.LARGE_STRING && t.ID() != arrow.NULL
		if a.Func == Sum && isInt {
			return i64, i64, []arrow.DataType{i64}, nil
		}
		if a.Func == Sum {
			return f64, f64, []arrow.DataType{f64}, nil
		}
		return f64, f64, []arrow.DataType{f64, i64}, nil
	}
	if isStatAgg(a.Func) {
		return statAggTypes(a, numeric())
	}
	return nil, nil, nil, fmt.Errorf("%w: aggregate function %d", ErrUnsupported, a.Func)
}

func (h *HashAggregate) Schema() *arrow.Schema { return h.schema }
func (h *HashAggregate) Children() []Operator  { return []Operator{h.Input} }
func (h *HashAggregate) Explain() string {
	mode := map[AggMode]string{AggSingle: "update finalize", AggPartial: "update serialize", AggFinal: "merge finalize"}[h.Mode]
	parts := make([]string, len(h.Aggs))
	for i, a := range h.Aggs {
		parts[i] = a.String()
	}
	lines := []string{"VAGGREGATE (" + mode + ")", "output: " + strings.Join(parts, ", ")}
	if len(h.GroupBy) > 0 {
		lines = append(lines, "group by: "+exprList(h.GroupBy))
	}
	return strings.Join(lines, "\n")
}

// outputChunk bounds the rows of each output batch.
const outputChunk = 64 * 1024

// openMaterialized opens input and returns a reader that, at the first Next,
// drains it through compute into one batch (nil for no rows), releases the
// input, and then hands the batch out in slices of at most outputChunk rows.
// It serves the operators that need all of their input before the first row
// out (aggregate, sort, window).
func openMaterialized(ctx context.Context, env *Env, input Operator, schema *arrow.Schema,
	compute func(ctx context.Context, env *Env, in array.RecordReader) (arrow.RecordBatch, error)) (array.RecordReader, error) {
	return openMaterializedParts(ctx, env, input, schema, func(ctx context.Context, env *Env, in array.RecordReader) ([]arrow.RecordBatch, error) {
		out, err := compute(ctx, env, in)
		if out == nil || err != nil {
			return nil, err
		}
		return []arrow.RecordBatch{out}, nil
	})
}

// openMaterializedParts is openMaterialized for a compute that yields its
// result in several batches (a partitioned aggregate's, one per worker),
// handed out one after the other.
func openMaterializedParts(ctx context.Context, env *Env, input Operator, schema *arrow.Schema,
	compute func(ctx context.Context, env *Env, in array.RecordReader) ([]arrow.RecordBatch, error)) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, err := OpenOp(ctx, env, input)
	if err != nil {
		return nil, err
	}
	var outs []arrow.RecordBatch
	var pos int64
	computed := false
	next := func() (arrow.RecordBatch, error) {
		if !computed {
			computed = true
			outs, err = compute(ctx, env, in)
			in.Release()
			in = nil
			if err != nil {
				return nil, err
			}
		}
		for len(outs) > 0 && (outs[0] == nil || pos >= outs[0].NumRows()) {
			if outs[0] != nil {
				outs[0].Release()
			}
			outs, pos = outs[1:], 0
		}
		if len(outs) == 0 {
			return nil, nil
		}
		out := outs[0]
		end := min(pos+outputChunk, out.NumRows())
		s := out.NewSlice(pos, end)
		pos = end
		return s, nil
	}
	closeFn := func() {
		if in != nil {
			in.Release()
		}
		for _, out := range outs {
			if out != nil {
				out.Release()
			}
		}
	}
	return newPullReader(ctx, schema, next, closeFn), nil
}

func (h *HashAggregate) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if h.globalFold() {
		return h.openGlobal(ctx, env)
	}
	if sp := spillOf(ctx); sp != nil {
		if h.canSpill(sp) {
			return h.openSpilling(ctx, env, sp) // spill_agg.go
		}
		if h.canSpillRows(sp) {
			return h.openSpillingRows(ctx, env, sp) // spill_agg_rows.go
		}
	}
	// The Filter right below yields selBatch values (consume reads them).
	return openMaterializedParts(ctx, env, pipedSel{h.Input}, h.schema, h.compute)
}

// accStateBytes approximates one group's state in one accumulator (a value
// and a seen flag in Go slices, grown by doubling), for the statement's
// memory account.
const accStateBytes = 24

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
