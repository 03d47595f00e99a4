package exec

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// The statistical aggregates (Doris's stddev/variance family). They run
// over DOUBLE and return DOUBLE. NULL inputs are skipped; a group with no
// values is NULL, and so is a sample statistic of a single value.
//
// The state is (count, mean, M2) kept with Welford's update over values
// shifted by the group's first value: values far from zero (1e9 + small
// deltas) then neither lose their variance to cancellation (as
// sum-of-squares would) nor to the rounding of a large running mean (as
// plain Welford does, ~1e-8 relative at 1e9). Partial states carry the
// unshifted mean and merge with Chan's pairwise formula.
const (
	StddevPop  AggFunc = AnyValue + 1 + iota // STDDEV_POP(x) = STDDEV(x) = STD(x)
	StddevSamp                               // STDDEV_SAMP(x)
	VarPop                                   // VAR_POP(x) = VARIANCE(x) = VARIANCE_POP(x)
	VarSamp                                  // VAR_SAMP(x) = VARIANCE_SAMP(x)
)

// The aggregates of the statfn_*.go files, numbered after the stddev
// family so isStatAgg covers them all.
const (
	Kurt                     AggFunc = VarSamp + 1 + iota // KURT(x): population excess kurtosis m4/m2² - 3
	Skew                                                  // SKEW(x): population skewness m3/m2^1.5
	CovarPop                                              // COVAR(x, y) = COVAR_POP(x, y)
	CovarSamp                                             // COVAR_SAMP(x, y)
	Corr                                                  // CORR(x, y): Pearson's coefficient
	RegrSlope                                             // REGR_SLOPE(y, x)
	RegrIntercept                                         // REGR_INTERCEPT(y, x)
	Percentile                                            // PERCENTILE(x, p): exact, linear interpolation
	PercentileApprox                                      // PERCENTILE_APPROX(x, p): Doris's t-digest interpolation
	Median                                                // MEDIAN(x) = PERCENTILE(x, 0.5)
	MinBy                                                 // MIN_BY(x, y): x of the row with the least y
	MaxBy                                                 // MAX_BY(x, y): x of the row with the greatest y
	AvgWeighted                                           // AVG_WEIGHTED(x, w): Σxw / Σw
	ApproxCountDistinct                                   // APPROX_COUNT_DISTINCT(x) = NDV(x): exact here
	GroupBitAnd                                           // GROUP_BIT_AND(x)
	GroupBitOr                                            // GROUP_BIT_OR(x)
	GroupBitXor                                           // GROUP_BIT_XOR(x)
	BoolAnd                                               // BOOL_AND(x)
	BoolOr                                                // BOOL_OR(x)
	Sum0                                                  // SUM0(x): SUM, but 0 over no values
	TopNAgg                                               // TOPN(x, n): the n most frequent values as JSON
	CollectList                                           // COLLECT_LIST(x) = GROUP_ARRAY(x): the non-NULL values as an ARRAY
	CollectSet                                            // COLLECT_SET(x) = GROUP_UNIQ_ARRAY(x): the distinct non-NULL values
	ArrayAgg                                              // ARRAY_AGG(x): every value, NULLs included
	Retention                                             // RETENTION(c1, ..., cn): [any c1, any c1 and any c2, ...]
	WindowFunnel                                          // WINDOW_FUNNEL(window, mode, t, c1, ..., cn): the longest chain
	MapAgg                                                // MAP_AGG(k, v): the pairs as a MAP, first value per key
	GroupArrayIntersect                                   // GROUP_ARRAY_INTERSECT(arr): the elements every array holds
	TopNArray                                             // TOPN_ARRAY(x, n): the n most frequent values as an ARRAY
	TopNWeighted                                          // TOPN_WEIGHTED(x, w, n): the n values of greatest summed weight
	CountByEnum                                           // COUNT_BY_ENUM(e1, ..., en): value counts per column as JSON
	PercentileApproxWeighted                              // PERCENTILE_APPROX_WEIGHTED(x, w, p): the weighted t-digest quantile
	Histogram                                             // HISTOGRAM(x, n) = HIST: equal-height buckets as JSON
	LinearHistogram                                       // LINEAR_HISTOGRAM(x, interval, offset): equal-width buckets as JSON
	SequenceMatch                                         // SEQUENCE_MATCH(pattern, t, c1, ...): whether the events match
	SequenceCount                                         // SEQUENCE_COUNT(pattern, t, c1, ...): how many times they do
	lastStatAgg              = SequenceCount
)

var statNames = map[string]AggFunc{
	"stddev":        StddevPop,
	"std":           StddevPop,
	"stddev_pop":    StddevPop,
	"stddev_samp":   StddevSamp,
	"variance":      VarPop,
	"var_pop":       VarPop,
	"variance_pop":  VarPop,
	"var_samp":      VarSamp,
	"variance_samp": VarSamp,

	"kurt": Kurt, "kurt_pop": Kurt, "kurtosis": Kurt,
	"skew": Skew, "skew_pop": Skew, "skewness": Skew,
	"covar": CovarPop, "covar_pop": CovarPop, "covar_samp": CovarSamp, "corr": Corr,
	"regr_slope": RegrSlope, "regr_intercept": RegrIntercept,
	"percentile": Percentile, "percentile_approx": PercentileApprox, "median": Median,
	"min_by": MinBy, "max_by": MaxBy, "avg_weighted": AvgWeighted,
	"approx_count_distinct": ApproxCountDistinct, "ndv": ApproxCountDistinct,
	"group_bit_and": GroupBitAnd, "group_bit_or": GroupBitOr, "group_bit_xor": GroupBitXor,
	"bool_and": BoolAnd, "bool_or": BoolOr, "sum0": Sum0, "topn": TopNAgg,
	"collect_list": CollectList, "group_array": CollectList, "collect_set": CollectSet,
	"group_uniq_array": CollectSet, "array_agg": ArrayAgg, "retention": Retention,
	"window_funnel": WindowFunnel, "map_agg": MapAgg, "group_array_intersect": GroupArrayIntersect,
	"topn_array": TopNArray, "topn_weighted": TopNWeighted, "count_by_enum": CountByEnum,
	"percentile_approx_weighted": PercentileApproxWeighted, "histogram": Histogram, "hist": Histogram,
	"linear_histogram": LinearHistogram, "sequence_match": SequenceMatch, "sequence_count": SequenceCount,
}

// statFuncNames are the names the functions print as (EXPLAIN, fragments).
var statFuncNames = [...]string{"stddev_pop", "stddev_samp", "var_pop", "var_samp",
	"kurt", "skew", "covar_pop", "covar_samp", "corr", "regr_slope", "regr_intercept",
	"percentile", "percentile_approx", "median", "min_by", "max_by", "avg_weighted",
	"approx_count_distinct", "group_bit_and", "group_bit_or", "group_bit_xor",
	"bool_and", "bool_or", "sum0", "topn", "collect_list", "collect_set", "array_agg", "retention", "window_funnel", "map_agg", "group_array_intersect",
	"topn_array", "topn_weighted", "count_by_enum", "percentile_approx_weighted", "histogram", "linear_histogram",
	"sequence_match", "sequence_count"}

// StatAggByName maps a Doris aggregate name this file family adds (any
// alias, any case) to its function.
func StatAggByName(name string) (AggFunc, bool) {
	f, ok := statNames[strings.ToLower(name)]
	return f, ok
}

func isStatAgg(f AggFunc) bool { return f >= StddevPop && f <= lastStatAgg }

func statAggString(f AggFunc) string { return statFuncNames[f-StddevPop] }

func statStateTypes() []arrow.DataType {
	return []arrow.DataType{expr.Int64T(), expr.Float64T(), expr.Float64T()}
}

func statStateSuffix(f AggFunc, k int) string {
	if f <= VarSamp {
		return [...]string{"#count", "#mean", "#m2"}[k]
	}
	return fmt.Sprintf("#%d", k)
}

type statAcc struct {
	f     AggFunc
	n     []int64
	shift []float64 // the group's first value; mean is relative to it
	mean  []float64
	m2    []float64
}

func (a *statAcc) grow(n int) {
	for len(a.n) < n {
		a.n = append(a.n, 0)
		a.shift = append(a.shift, 0)
		a.mean = append(a.mean, 0)
		a.m2 = append(a.m2, 0)
	}
}

func (a *statAcc) update(gids []uint32, arg arrow.Array, rows int) {
	v := arg.(*array.Float64)
	vals := v.Float64Values()
	nulls := v.NullN() > 0
	for i, g := range gids[:rows] {
		if nulls && v.IsNull(i) {
			continue
		}
		if a.n[g] == 0 {
			a.shift[g] = vals[i]
		}
		x := vals[i] - a.shift[g]
		a.n[g]++
		d := x - a.mean[g]
		a.mean[g] += d / float64(a.n[g])
		a.m2[g] += d * (x - a.mean[g])
	}
}

func (a *statAcc) merge(gids []uint32, states []arrow.Array) {
	cnt := states[0].(*array.Int64)
	mean := states[1].(*array.Float64)
	m2 := states[2].(*array.Float64)
	for i, g := range gids {
		if cnt.IsNull(i) || cnt.Value(i) == 0 {
			continue
		}
		nb := cnt.Value(i)
		na := a.n[g]
		if na == 0 {
			a.shift[g], a.mean[g] = mean.Value(i), 0
		}
		n := na + nb
		d := (mean.Value(i) - a.shift[g]) - a.mean[g]
		a.mean[g] += d * float64(nb) / float64(n)
		a.m2[g] += m2.Value(i) + d*d*float64(na)*float64(nb)/float64(n)
		a.n[g] = n
	}
}

func (a *statAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := 0; g < n; g++ {
		if v, ok := statFinal(a.f, a.n[g], a.m2[g]); ok {
			b.Append(v)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

// statFinal is f's value from a count and M2; ok is false for NULL (no
// values, or a sample statistic of one value).
func statFinal(f AggFunc, c int64, m2 float64) (float64, bool) {
	samp := f == StddevSamp || f == VarSamp
	if c == 0 || (samp && c == 1) {
		return 0, false
	}
	d := float64(c)
	if samp {
		d--
	}
	v := m2 / d
	if v < 0 { // rounding can leave a tiny negative M2
		v = 0
	}
	if f == StddevPop || f == StddevSamp {
		v = math.Sqrt(v)
	}
	return v, true
}

func (a *statAcc) states(mem memory.Allocator, n int) []arrow.Array {
	cb := array.NewInt64Builder(mem)
	defer cb.Release()
	cb.AppendValues(a.n[:n], nil)
	mb := array.NewFloat64Builder(mem)
	defer mb.Release()
	mb.Reserve(n)
	for g := 0; g < n; g++ {
		mb.Append(a.shift[g] + a.mean[g])
	}
	qb := array.NewFloat64Builder(mem)
	defer qb.Release()
	qb.AppendValues(a.m2[:n], nil)
	return []arrow.Array{cb.NewArray(), mb.NewArray(), qb.NewArray()}
}
