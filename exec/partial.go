package exec

import (
	"fmt"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// A fragment's partial aggregate (inletpb.PartialAggregate) is built by
// both sides from the same description: the BE runs it over the rows it
// reads, the FE finishes it (FinalFor) over what the BEs send. Both build
// it here, so the state columns they agree on cannot drift.

var aggByName = map[string]AggFunc{
	"count": Count, "count_star": CountStar, "sum": Sum, "min": Min, "max": Max, "avg": Avg,
	// The statistical aggregates send (count, mean, M2) and merge with
	// Chan's formula (stataggs.go); kurt and skew add M3 and M4, median and
	// approx_count_distinct send their values (statfn_*.go).
	"stddev_pop": StddevPop, "stddev_samp": StddevSamp, "var_pop": VarPop, "var_samp": VarSamp,
	"kurt": Kurt, "skew": Skew, "median": Median, "approx_count_distinct": ApproxCountDistinct,
	"group_bit_and": GroupBitAnd, "group_bit_or": GroupBitOr, "group_bit_xor": GroupBitXor,
	"bool_and": BoolAnd, "bool_or": BoolOr, "sum0": Sum0,
	// Several arguments: more_args and params (PackArgs).
	"covar_pop": CovarPop, "covar_samp": CovarSamp, "corr": Corr, "regr_slope": RegrSlope,
	"regr_intercept": RegrIntercept, "avg_weighted": AvgWeighted, "min_by": MinBy, "max_by": MaxBy,
	"percentile": Percentile, "percentile_approx": PercentileApprox, "topn": TopNAgg,
}

// AggName is the fragment name of an aggregate PartialAggregate supports;
// ok is false for the others (DISTINCT is refused by the caller).
func AggName(f AggFunc) (string, bool) {
	for n, g := range aggByName {
		if g == f {
			return n, true
		}
	}
	return "", false
}

// PartialFromFragment builds the AggPartial aggregate pa describes over in,
// whose schema is the fragment's output schema.
func PartialFromFragment(in Operator, pa *inletpb.PartialAggregate) (*HashAggregate, error) {
	sc := in.Schema()
	col := func(i int32) (expr.Expr, error) {
		if i < 0 || int(i) >= sc.NumFields() {
			return nil, fmt.Errorf("%w: partial aggregate column %d of %d", ErrPlan, i, sc.NumFields())
		}
		return expr.Col(int(i), sc.Field(int(i)).Name, sc.Field(int(i)).Type), nil
	}
	groups := make([]expr.Expr, len(pa.GetGroupBy()))
	names := make([]string, len(groups))
	for i, g := range pa.GetGroupBy() {
		e, err := col(g)
		if err != nil {
			return nil, err
		}
		groups[i], names[i] = e, sc.Field(int(g)).Name
	}
	calls := make([]AggCall, len(pa.GetCalls()))
	for i, c := range pa.GetCalls() {
		f, ok := aggByName[c.GetFunc()]
		if !ok {
			return nil, fmt.Errorf("%w: partial aggregate function %q", ErrUnsupported, c.GetFunc())
		}
		calls[i] = AggCall{Func: f, Name: c.GetName()}
		if f != CountStar {
			e, err := col(c.GetArg())
			if err != nil {
				return nil, err
			}
			calls[i].Arg = e
		}
		if len(c.GetMoreArgs()) > 0 || len(c.GetParams()) > 0 {
			args := []expr.Expr{calls[i].Arg}
			for _, m := range c.GetMoreArgs() {
				e, err := col(m)
				if err != nil {
					return nil, err
				}
				args = append(args, e)
			}
			for _, p := range c.GetParams() {
				if f == TopNAgg {
					args = append(args, expr.Int(int64(p)))
				} else {
					args = append(args, expr.Float(p))
				}
			}
			packed, err := PackArgs(f, args)
			if err != nil {
				return nil, err
			}
			calls[i].Arg = packed
		}
	}
	return NewHashAggregate(in, groups, names, calls, AggPartial)
}
