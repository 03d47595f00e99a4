package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// Argument and state types of the statistical aggregates. Functions of two
// arguments (covar, corr, regr_*, avg_weighted, min_by/max_by, percentile,
// topn) take one STRUCT argument whose fields are the arguments in order;
// the binder builds it (a constant second field for percentile's p and
// topn's n). NULL rows of any field are skipped unless noted.

func statAggTypes(a AggCall, numeric bool) (argT, outT arrow.DataType, states []arrow.DataType, err error) {
	t := a.Arg.DataType()
	i64, f64, str := expr.Int64T(), expr.Float64T(), expr.StringT()
	bad := func() (arrow.DataType, arrow.DataType, []arrow.DataType, error) {
		return nil, nil, nil, fmt.Errorf("%w: %s over %s", expr.ErrType, a, expr.TypeName(t))
	}
	// pair checks a STRUCT argument of n fields, the first two of the given
	// types (nil: any supported type).
	pair := func(x, y arrow.DataType) (*arrow.StructType, bool) {
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return nil, false
		}
		for i, want := range []arrow.DataType{x, y} {
			ft := st.Field(i).Type
			if (want != nil && !arrow.TypeEqual(ft, want)) || !expr.Supported(ft) {
				return nil, false
			}
		}
		return st, true
	}
	switch a.Func {
	case StddevPop, StddevSamp, VarPop, VarSamp:
		if !numeric {
			return bad()
		}
		return f64, f64, statStateTypes(), nil
	case Kurt, Skew:
		if !numeric {
			return bad()
		}
		return f64, f64, []arrow.DataType{i64, f64, f64, f64, f64}, nil
	case Median:
		if !numeric {
			return bad()
		}
		return f64, f64, []arrow.DataType{arrow.ListOf(f64), f64}, nil
	case Percentile, PercentileApprox:
		if _, ok := pair(f64, f64); !ok {
			return bad()
		}
		return t, f64, []arrow.DataType{arrow.ListOf(f64), f64}, nil
	case CovarPop, CovarSamp, Corr, RegrSlope, RegrIntercept:
		if _, ok := pair(f64, f64); !ok {
			return bad()
		}
		return t, f64, []arrow.DataType{i64, f64, f64, f64, f64, f64}, nil
	case AvgWeighted:
		if _, ok := pair(f64, f64); !ok {
			return bad()
		}
		return t, f64, []arrow.DataType{f64, f64, i64}, nil
	case MinBy, MaxBy:
		st, ok := pair(nil, nil)
		if !ok {
			return bad()
		}
		x, y := st.Field(0).Type, st.Field(1).Type
		return t, x, []arrow.DataType{x, y}, nil
	case TopNAgg:
		if _, ok := pair(str, i64); !ok {
			return bad()
		}
		return t, str, []arrow.DataType{arrow.ListOf(str), arrow.ListOf(i64), i64}, nil
	case ApproxCountDistinct:
		if !expr.Supported(t) {
			return bad()
		}
		return t, i64, []arrow.DataType{arrow.ListOf(str)}, nil
	case GroupBitAnd, GroupBitOr, GroupBitXor:
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.BOOL:
			return i64, i64, []arrow.DataType{i64}, nil
		}
		return bad()
	case BoolAnd, BoolOr:
		if !numeric && t.ID() != arrow.BOOL {
			return bad()
		}
		return expr.BoolT(), expr.BoolT(), []arrow.DataType{expr.BoolT()}, nil
	case Sum0:
		return aggTypes(AggCall{Func: Sum, Arg: a.Arg, Name: a.Name})
	case CollectList, CollectSet, ArrayAgg:
		if !expr.Supported(t) {
			return bad()
		}
		return t, arrow.ListOf(t), []arrow.DataType{arrow.ListOf(t)}, nil
	case Retention:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() < 1 || st.NumFields() > maxRetention {
			return bad()
		}
		for _, f := range st.Fields() {
			if f.Type.ID() != arrow.BOOL {
				return bad()
			}
		}
		return t, arrow.ListOf(expr.BoolT()), []arrow.DataType{i64}, nil
	case WindowFunnel:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() < 4 || st.NumFields() > 3+maxFunnelEvents ||
			st.Field(0).Type.ID() != arrow.INT64 || st.Field(1).Type.ID() != arrow.STRING {
			return bad()
		}
		switch st.Field(2).Type.ID() {
		case arrow.TIMESTAMP, arrow.DATE32:
		default:
			return bad()
		}
		for _, f := range st.Fields()[3:] {
			if f.Type.ID() != arrow.BOOL {
				return bad()
			}
		}
		return t, arrow.PrimitiveTypes.Int32, []arrow.DataType{arrow.ListOf(i64), arrow.ListOf(i64), i64, i64}, nil
	case MapAgg:
		st, ok := pair(nil, nil)
		if !ok {
			return bad()
		}
		kt, vt := st.Field(0).Type, st.Field(1).Type
		return t, arrow.MapOf(kt, vt), []arrow.DataType{arrow.ListOf(kt), arrow.ListOf(vt)}, nil
	case GroupArrayIntersect:
		lt, ok := t.(*arrow.ListType)
		if !ok || !expr.Supported(lt.Elem()) {
			return bad()
		}
		return t, t, []arrow.DataType{t, expr.BoolT()}, nil
	case TopNArray, TopNWeighted:
		st, ok := t.(*arrow.StructType)
		want := 2
		if a.Func == TopNWeighted {
			want = 3
		}
		if !ok || st.NumFields() != want || !expr.Supported(st.Field(0).Type) || st.Field(want-1).Type.ID() != arrow.INT64 ||
			(want == 3 && st.Field(1).Type.ID() != arrow.FLOAT64) {
			return bad()
		}
		x := st.Field(0).Type
		return t, arrow.ListOf(x), []arrow.DataType{arrow.ListOf(x), arrow.ListOf(f64), i64}, nil
	case CountByEnum:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() < 1 {
			return bad()
		}
		for _, f := range st.Fields() {
			if f.Type.ID() != arrow.STRING {
				return bad()
			}
		}
		return t, str, []arrow.DataType{arrow.ListOf(str), arrow.ListOf(i64), arrow.ListOf(i64)}, nil
	case PercentileApproxWeighted:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 3 {
			return bad()
		}
		for _, f := range st.Fields() {
			if f.Type.ID() != arrow.FLOAT64 {
				return bad()
			}
		}
		return t, f64, []arrow.DataType{arrow.ListOf(f64), arrow.ListOf(f64), f64}, nil
	case Histogram:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 2 || !expr.Supported(st.Field(0).Type) || st.Field(1).Type.ID() != arrow.INT64 {
			return bad()
		}
		return t, str, []arrow.DataType{arrow.ListOf(st.Field(0).Type), arrow.ListOf(i64), i64}, nil
	case LinearHistogram:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != 3 {
			return bad()
		}
		for _, f := range st.Fields() {
			if f.Type.ID() != arrow.FLOAT64 {
				return bad()
			}
		}
		return t, str, []arrow.DataType{arrow.ListOf(i64), arrow.ListOf(i64), f64, f64}, nil
	case SequenceMatch, SequenceCount:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() < 3 || st.NumFields() > 2+expr.MaxSequenceEvents || st.Field(0).Type.ID() != arrow.STRING {
			return bad()
		}
		switch st.Field(1).Type.ID() {
		case arrow.TIMESTAMP, arrow.DATE32:
		default:
			return bad()
		}
		for _, f := range st.Fields()[2:] {
			if f.Type.ID() != arrow.BOOL {
				return bad()
			}
		}
		out := expr.BoolT()
		if a.Func == SequenceCount {
			out = i64
		}
		return t, out, []arrow.DataType{arrow.ListOf(i64), arrow.ListOf(i64), str, expr.BoolT()}, nil
	}
	return nil, nil, nil, fmt.Errorf("%w: aggregate function %d", ErrUnsupported, a.Func)
}

// newStatFnAcc makes the accumulator of a statfn aggregate.
func newStatFnAcc(call AggCall, argT, out arrow.DataType) (accumulator, error) {
	switch call.Func {
	case Kurt, Skew:
		return &momentAcc{f: call.Func}, nil
	case CovarPop, CovarSamp, Corr, RegrSlope, RegrIntercept:
		return &coMomentAcc{f: call.Func}, nil
	case Percentile, PercentileApprox, Median:
		return &percentileAcc{f: call.Func}, nil
	case MinBy, MaxBy:
		st := argT.(*arrow.StructType)
		return &byAcc{max: call.Func == MaxBy, xT: st.Field(0).Type, yT: st.Field(1).Type}, nil
	case AvgWeighted:
		return &avgWeightedAcc{}, nil
	case ApproxCountDistinct:
		return &ndvAcc{typ: argT}, nil
	case GroupBitAnd, GroupBitOr, GroupBitXor:
		return &bitAcc{f: call.Func}, nil
	case BoolAnd, BoolOr:
		return &boolAcc{and: call.Func == BoolAnd}, nil
	case Sum0:
		plain := call
		plain.Func = Sum
		inner, err := newAccumulator(plain, argT, out)
		if err != nil {
			return nil, err
		}
		return &sum0Acc{accumulator: inner, typ: out}, nil
	case TopNAgg:
		return &topNAcc{}, nil
	case CollectList, CollectSet, ArrayAgg:
		return &collectAcc{f: call.Func, typ: argT}, nil
	case Retention:
		return &retentionAcc{n: argT.(*arrow.StructType).NumFields()}, nil
	case WindowFunnel:
		return &funnelAcc{n: argT.(*arrow.StructType).NumFields() - 3}, nil
	case GroupArrayIntersect:
		return &intersectAcc{elem: argT.(*arrow.ListType).Elem()}, nil
	case MapAgg:
		st := argT.(*arrow.StructType)
		return &mapAggAcc{kt: st.Field(0).Type, vt: st.Field(1).Type}, nil
	case TopNArray, TopNWeighted:
		st := argT.(*arrow.StructType)
		return &topArrayAcc{typ: st.Field(0).Type, weighted: call.Func == TopNWeighted}, nil
	case CountByEnum:
		return &countByEnumAcc{n: argT.(*arrow.StructType).NumFields()}, nil
	case PercentileApproxWeighted:
		return &weightedPercentileAcc{}, nil
	case Histogram:
		return &histogramAcc{typ: argT.(*arrow.StructType).Field(0).Type}, nil
	case LinearHistogram:
		return &linearHistogramAcc{}, nil
	case SequenceMatch, SequenceCount:
		return &seqAcc{count: call.Func == SequenceCount, n: argT.(*arrow.StructType).NumFields() - 2}, nil
	}
	return nil, fmt.Errorf("%w: aggregate %s over %s", ErrUnsupported, call.Func, expr.TypeName(argT))
}
