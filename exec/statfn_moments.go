package exec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Higher moments (KURT, SKEW) and co-moments (COVAR*, CORR, REGR_*), kept
// online in one pass: each group's values are measured from its first
// value (as statAcc does), updated with the Welford/Terriberry recurrences,
// and partial states merge with Chan's (Pébay's, for M3 and M4) pairwise
// formulas. Partial states carry the unshifted means.

// ---- KURT / SKEW ----

type momentAcc struct {
	f           AggFunc
	n           []int64
	shift, mean []float64
	m2, m3, m4  []float64
}

func (a *momentAcc) grow(n int) {
	a.n = growTo(a.n, n)
	a.shift, a.mean = growTo(a.shift, n), growTo(a.mean, n)
	a.m2, a.m3, a.m4 = growTo(a.m2, n), growTo(a.m3, n), growTo(a.m4, n)
}

func (a *momentAcc) update(gids []uint32, arg arrow.Array, rows int) {
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
		n1 := float64(a.n[g])
		a.n[g]++
		n := float64(a.n[g])
		d := x - a.mean[g]
		dn := d / n
		dn2 := dn * dn
		t1 := d * dn * n1
		a.mean[g] += dn
		a.m4[g] += t1*dn2*(n*n-3*n+3) + 6*dn2*a.m2[g] - 4*dn*a.m3[g]
		a.m3[g] += t1*dn*(n-2) - 3*dn*a.m2[g]
		a.m2[g] += t1
	}
}

func (a *momentAcc) merge(gids []uint32, states []arrow.Array) {
	cnt := states[0].(*array.Int64)
	col := func(k int) *array.Float64 { return states[k].(*array.Float64) }
	mean, m2, m3, m4 := col(1), col(2), col(3), col(4)
	for i, g := range gids {
		if cnt.IsNull(i) || cnt.Value(i) == 0 {
			continue
		}
		if a.n[g] == 0 {
			a.shift[g] = mean.Value(i)
		}
		na, nb := float64(a.n[g]), float64(cnt.Value(i))
		n := na + nb
		d := (mean.Value(i) - a.shift[g]) - a.mean[g]
		d2 := d * d
		am2, am3 := a.m2[g], a.m3[g]
		bm2, bm3 := m2.Value(i), m3.Value(i)
		a.mean[g] += d * nb / n
		a.m4[g] += m4.Value(i) + d2*d2*na*nb*(na*na-na*nb+nb*nb)/(n*n*n) +
			6*d2*(na*na*bm2+nb*nb*am2)/(n*n) + 4*d*(na*bm3-nb*am3)/n
		a.m3[g] += bm3 + d2*d*na*nb*(na-nb)/(n*n) + 3*d*(na*bm2-nb*am2)/n
		a.m2[g] += bm2 + d2*na*nb/n
		a.n[g] += cnt.Value(i)
	}
}

func (a *momentAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := 0; g < n; g++ {
		// Doris: NULL when the variance is zero (one value, or all equal).
		if a.n[g] == 0 || a.m2[g] <= 0 {
			b.AppendNull()
			continue
		}
		c := float64(a.n[g])
		if a.f == Kurt {
			b.Append(c*a.m4[g]/(a.m2[g]*a.m2[g]) - 3)
		} else {
			b.Append(math.Sqrt(c) * a.m3[g] / math.Pow(a.m2[g], 1.5))
		}
	}
	return b.NewArray()
}

func (a *momentAcc) states(mem memory.Allocator, n int) []arrow.Array {
	means := make([]float64, n)
	for g := range means {
		means[g] = a.shift[g] + a.mean[g]
	}
	return []arrow.Array{int64Array(mem, a.n[:n]), float64Array(mem, means),
		float64Array(mem, a.m2[:n]), float64Array(mem, a.m3[:n]), float64Array(mem, a.m4[:n])}
}

func int64Array(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

func float64Array(mem memory.Allocator, v []float64) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

// ---- COVAR / COVAR_SAMP / CORR / REGR_SLOPE / REGR_INTERCEPT ----

// coMomentAcc keeps, per group, the count, both means, both M2 and the
// co-moment C = Σ(x-x̄)(y-ȳ) of the pairs where neither side is NULL. The
// struct argument is (first, second); covar and corr are symmetric, and
// for REGR_*(y, x) the first field is y.
type coMomentAcc struct {
	f           AggFunc
	n           []int64
	sx, sy      []float64 // shifts: the group's first pair
	mx, my      []float64
	m2x, m2y, c []float64
}

func (a *coMomentAcc) grow(n int) {
	a.n = growTo(a.n, n)
	a.sx, a.sy = growTo(a.sx, n), growTo(a.sy, n)
	a.mx, a.my = growTo(a.mx, n), growTo(a.my, n)
	a.m2x, a.m2y, a.c = growTo(a.m2x, n), growTo(a.m2y, n), growTo(a.c, n)
}

func (a *coMomentAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	fx, fy := st.Field(0).(*array.Float64), st.Field(1).(*array.Float64)
	xs, ys := fx.Float64Values(), fy.Float64Values()
	for i, g := range gids[:rows] {
		if st.IsNull(i) || fx.IsNull(i) || fy.IsNull(i) {
			continue
		}
		if a.n[g] == 0 {
			a.sx[g], a.sy[g] = xs[i], ys[i]
		}
		x, y := xs[i]-a.sx[g], ys[i]-a.sy[g]
		a.n[g]++
		n := float64(a.n[g])
		dx := x - a.mx[g]
		a.mx[g] += dx / n
		dy := y - a.my[g]
		a.my[g] += dy / n
		a.c[g] += dx * (y - a.my[g])
		a.m2x[g] += dx * (x - a.mx[g])
		a.m2y[g] += dy * (y - a.my[g])
	}
}

func (a *coMomentAcc) merge(gids []uint32, states []arrow.Array) {
	cnt := states[0].(*array.Int64)
	col := func(k int) *array.Float64 { return states[k].(*array.Float64) }
	mx, my, m2x, m2y, c := col(1), col(2), col(3), col(4), col(5)
	for i, g := range gids {
		if cnt.IsNull(i) || cnt.Value(i) == 0 {
			continue
		}
		if a.n[g] == 0 {
			a.sx[g], a.sy[g] = mx.Value(i), my.Value(i)
		}
		na, nb := float64(a.n[g]), float64(cnt.Value(i))
		n := na + nb
		dx := (mx.Value(i) - a.sx[g]) - a.mx[g]
		dy := (my.Value(i) - a.sy[g]) - a.my[g]
		f := na * nb / n
		a.mx[g] += dx * nb / n
		a.my[g] += dy * nb / n
		a.c[g] += c.Value(i) + dx*dy*f
		a.m2x[g] += m2x.Value(i) + dx*dx*f
		a.m2y[g] += m2y.Value(i) + dy*dy*f
		a.n[g] += cnt.Value(i)
	}
}

func (a *coMomentAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := 0; g < n; g++ {
		if v, ok := a.value(g); ok {
			b.Append(v)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

func (a *coMomentAcc) value(g int) (float64, bool) {
	c := float64(a.n[g])
	switch {
	case a.n[g] == 0:
		return 0, false
	case a.f == CovarPop:
		return a.c[g] / c, true
	case a.f == CovarSamp:
		if a.n[g] < 2 {
			return 0, false
		}
		return a.c[g] / (c - 1), true
	case a.f == Corr:
		// Doris: 0 when either side does not vary.
		if a.m2x[g] <= 0 || a.m2y[g] <= 0 {
			return 0, true
		}
		return a.c[g] / math.Sqrt(a.m2x[g]*a.m2y[g]), true
	}
	// REGR_*(y, x): x is the second field.
	if a.m2y[g] <= 0 {
		return 0, false
	}
	slope := a.c[g] / a.m2y[g]
	if a.f == RegrSlope {
		return slope, true
	}
	return (a.sx[g] + a.mx[g]) - slope*(a.sy[g]+a.my[g]), true
}

func (a *coMomentAcc) states(mem memory.Allocator, n int) []arrow.Array {
	mx, my := make([]float64, n), make([]float64, n)
	for g := 0; g < n; g++ {
		mx[g], my[g] = a.sx[g]+a.mx[g], a.sy[g]+a.my[g]
	}
	return []arrow.Array{int64Array(mem, a.n[:n]), float64Array(mem, mx), float64Array(mem, my),
		float64Array(mem, a.m2x[:n]), float64Array(mem, a.m2y[:n]), float64Array(mem, a.c[:n])}
}
