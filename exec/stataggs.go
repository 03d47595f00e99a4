package exec

import (
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
}

// StatAggByName maps a Doris statistical aggregate name (any alias, any
// case) to its function.
func StatAggByName(name string) (AggFunc, bool) {
	f, ok := statNames[strings.ToLower(name)]
	return f, ok
}

func isStatAgg(f AggFunc) bool { return f >= StddevPop && f <= VarSamp }

func statStateTypes() []arrow.DataType {
	return []arrow.DataType{expr.Int64T(), expr.Float64T(), expr.Float64T()}
}

func statStateSuffix(k int) string { return [...]string{"#count", "#mean", "#m2"}[k] }

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
	samp := a.f == StddevSamp || a.f == VarSamp
	for g := 0; g < n; g++ {
		c := a.n[g]
		if c == 0 || (samp && c == 1) {
			b.AppendNull()
			continue
		}
		d := float64(c)
		if samp {
			d--
		}
		v := a.m2[g] / d
		if v < 0 { // rounding can leave a tiny negative M2
			v = 0
		}
		if a.f == StddevPop || a.f == StddevSamp {
			v = math.Sqrt(v)
		}
		b.Append(v)
	}
	return b.NewArray()
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
