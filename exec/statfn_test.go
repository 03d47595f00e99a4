package exec

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// pack is the argument STRUCT the binder (and a BE, PackArgs) builds.
func pack(args ...expr.Expr) expr.Expr { return newArgStruct(args) }

// wantSorted compares rows in any order (a hash aggregate's output order is
// not a contract).
func wantSorted(t *testing.T, got [][]string, want ...string) {
	t.Helper()
	g := make([]string, len(got))
	for i, r := range got {
		g[i] = strings.Join(r, "|")
	}
	w := slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Fatalf("rows (sorted):\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

// aggRun runs calls grouped by column 0 of scan on one node.
func aggRun(t *testing.T, scan Operator, calls []AggCall) [][]string {
	t.Helper()
	g := expr.Col(0, "g", scan.Schema().Field(0).Type)
	return run(t, must(NewHashAggregate(scan, []expr.Expr{g}, []string{"g"}, calls, AggSingle)))
}

// TestAggregateCovarianceFamily: covar, covar_samp, corr and regr_* by hand.
// a: (1,2) (2,4) (3,6) plus rows with a NULL side (skipped): means 2 and 4,
// C = 4, M2x = 2, M2y = 8, so covar 4/3, covar_samp 2, corr 1,
// regr_slope(y, x) 2 and regr_intercept 0. b: one pair. c: only NULLs.
// d: (1,3) (2,2) (3,1): corr -1, slope -1, intercept 4.
func TestAggregateCovarianceFamily(t *testing.T) {
	s := sch("g", expr.StringT(), "x", expr.Float64T(), "y", expr.Int64T())
	scan := scanOf(s,
		[][]any{{"a", 1.0, 2}, {"a", nil, 5}, {"b", 5.0, 7}, {"d", 1.0, 3}, {"d", 2.0, 2}},
		[][]any{{"a", 2.0, 4}, {"a", 3.0, 6}, {"a", 4.0, nil}, {"c", nil, nil}, {"d", 3.0, 1}},
	)
	x := expr.Col(1, "x", expr.Float64T())
	y := must(expr.Cast(expr.Col(2, "y", expr.Int64T()), expr.Float64T()))
	calls := []AggCall{
		{Func: CovarPop, Arg: pack(x, y), Name: "cp"},
		{Func: CovarSamp, Arg: pack(x, y), Name: "cs"},
		{Func: Corr, Arg: pack(x, y), Name: "r"},
		{Func: RegrSlope, Arg: pack(y, x), Name: "slope"},
		{Func: RegrIntercept, Arg: pack(y, x), Name: "icpt"},
	}
	want := map[string][]float64{
		"a": {4.0 / 3, 2, 1, 2, 0},
		"b": {0, null, 0, null, null}, // no spread: corr 0 as Doris, no regression line
		"c": {null, null, null, null, null},
		"d": {-2.0 / 3, -1, -1, -1, 4},
	}
	checkStat(t, aggRun(t, scan, calls), want)
	checkStat(t, splitRun(t, scan, calls), want)
}

// splitRun runs calls as a partial aggregate over each input batch group
// separately and a final one over their union: the distributed plan.
func splitRun(t *testing.T, scan *Scan, calls []AggCall) [][]string {
	t.Helper()
	src := scan.Src.(memSource)
	var parts []Operator
	var partial *HashAggregate
	for _, grp := range src.groups {
		one := scanOf(src.schema, grp)
		g := expr.Col(0, "g", src.schema.Field(0).Type)
		partial = must(NewHashAggregate(one, []expr.Expr{g}, []string{"g"}, calls, AggPartial))
		parts = append(parts, partial)
	}
	return run(t, must(partial.FinalFor(must(NewUnion(parts, false)))))
}

// TestAggregateMomentsDorisExample: Doris's documented kurt and skew of
// {-10, -20, 100, 100, 1000}; a group of one value or of equal values has
// no variance and gives NULL.
func TestAggregateMomentsDorisExample(t *testing.T) {
	s := sch("g", expr.StringT(), "v", expr.Float64T())
	scan := scanOf(s,
		[][]any{{"a", -10.0}, {"a", -20.0}, {"one", 5.0}, {"same", 2.0}},
		[][]any{{"a", 100.0}, {"a", 100.0}, {"a", nil}, {"a", 1000.0}, {"same", 2.0}, {"none", nil}},
	)
	v := expr.Col(1, "v", expr.Float64T())
	calls := []AggCall{{Func: Kurt, Arg: v, Name: "k"}, {Func: Skew, Arg: v, Name: "s"}}
	want := map[string][]float64{
		"a":   {0.162124583734851, 1.4337199628825619},
		"one": {null, null}, "same": {null, null}, "none": {null, null},
	}
	checkStat(t, aggRun(t, scan, calls), want)
	checkStat(t, splitRun(t, scan, calls), want)
}

// TestAggregateCovarianceLargeOffset: 3000 pairs 1e9 + small integers, in several
// batches and merged from partial states, against an exact big.Float
// reference; sum-of-products formulas lose every digit here.
func TestAggregateCovarianceLargeOffset(t *testing.T) {
	s := sch("g", expr.StringT(), "x", expr.Float64T(), "y", expr.Float64T())
	var groups [][][]any
	var xs, ys []float64
	for b := 0; b < 3; b++ {
		var rows [][]any
		for i := 0; i < 1000; i++ {
			k := b*1000 + i
			x := 1e9 + float64(k%17)
			y := 1e9 + float64((k*7)%23) + float64(k%17)/2
			rows = append(rows, []any{"g", x, y})
			xs, ys = append(xs, x), append(ys, y)
		}
		groups = append(groups, rows)
	}
	scan := scanOf(s, groups...)
	x, y := expr.Col(1, "x", expr.Float64T()), expr.Col(2, "y", expr.Float64T())
	calls := []AggCall{{Func: CovarPop, Arg: pack(x, y), Name: "c"}, {Func: Corr, Arg: pack(x, y), Name: "r"},
		{Func: RegrSlope, Arg: pack(y, x), Name: "s"}, {Func: RegrIntercept, Arg: pack(y, x), Name: "i"}}
	// Exact reference.
	prec := uint(256)
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	n := f(float64(len(xs)))
	sx, sy := f(0), f(0)
	for i := range xs {
		sx.Add(sx, f(xs[i]))
		sy.Add(sy, f(ys[i]))
	}
	mx, my := new(big.Float).SetPrec(prec).Quo(sx, n), new(big.Float).SetPrec(prec).Quo(sy, n)
	c, vx, vy := f(0), f(0), f(0)
	for i := range xs {
		dx := new(big.Float).SetPrec(prec).Sub(f(xs[i]), mx)
		dy := new(big.Float).SetPrec(prec).Sub(f(ys[i]), my)
		c.Add(c, new(big.Float).SetPrec(prec).Mul(dx, dy))
		vx.Add(vx, new(big.Float).SetPrec(prec).Mul(dx, dx))
		vy.Add(vy, new(big.Float).SetPrec(prec).Mul(dy, dy))
	}
	cf, _ := c.Float64()
	vxf, _ := vx.Float64()
	vyf, _ := vy.Float64()
	mxf, _ := mx.Float64()
	myf, _ := my.Float64()
	nf := float64(len(xs))
	slope := cf / vxf
	want := map[string][]float64{"g": {cf / nf, cf / math.Sqrt(vxf*vyf), slope, myf - slope*mxf}}
	checkStat(t, aggRun(t, scan, calls), want)
	checkStat(t, splitRun(t, scan, calls), want)
	// The naive formula (Σxy - ΣxΣy/n)/n is far off here: the test can tell.
	var sxy, sxf, syf float64
	for i := range xs {
		sxy += xs[i] * ys[i]
		sxf += xs[i]
		syf += ys[i]
	}
	if naive := (sxy - sxf*syf/nf) / nf; math.Abs(naive-cf/nf) < 1e-6*math.Abs(cf/nf) {
		t.Fatalf("naive covariance %v is as good as the reference %v: the data is not a trap", naive, cf/nf)
	}
}

// TestAggregatePercentiles: exact percentile (linear interpolation at p·(n-1)) and
// median of 1..10 with NULLs; percentile_approx as Doris's t-digest
// answers (centre of value i at rank i+1/2; floats), incl. Doris's
// documented p99 of its response-time example.
func TestAggregatePercentiles(t *testing.T) {
	s := sch("g", expr.StringT(), "v", expr.Float64T())
	var b1, b2 [][]any
	for i := 10; i >= 1; i-- { // unsorted input
		rows := &b1
		if i%2 == 0 {
			rows = &b2
		}
		*rows = append(*rows, []any{"ten", float64(i)})
	}
	b1 = append(b1, []any{"ten", nil}, []any{"one", 7.0}, []any{"none", nil})
	for _, v := range []float64{10.5, 15.2, 20.1, 25.8, 30.3, 35.7, 40.2, 45.9, 50.4, 100.6} {
		b2 = append(b2, []any{"rt", v})
	}
	scan := scanOf(s, b1, b2)
	v := expr.Col(1, "v", expr.Float64T())
	p := func(f AggFunc, q float64, name string) AggCall {
		return AggCall{Func: f, Arg: pack(v, expr.Float(q)), Name: name}
	}
	calls := []AggCall{p(Percentile, 0.5, "p50"), p(Percentile, 0.25, "p25"), p(Percentile, 0, "p0"), p(Percentile, 1, "p100"),
		{Func: Median, Arg: v, Name: "med"}, p(PercentileApprox, 0.5, "a50"), p(PercentileApprox, 0.25, "a25"),
		p(PercentileApprox, 0.99, "a99")}
	f32 := func(x float64) float64 { return float64(float32(x)) }
	want := map[string][]float64{
		// exact: p25 at position 2.25 → 3.25; approx: rank 2.5 is value 3's centre.
		"ten":  {5.5, 3.25, 1, 10, 5.5, 5.5, 3, 10},
		"one":  {7, 7, 7, 7, 7, 7, 7, 7},
		"none": {null, null, null, null, null, null, null, null},
		// rt (sorted as listed): exact p50 = (30.3+35.7)/2, p25 at 2.25 →
		// 20.1 + 0.25·5.7; approx p99 = the max as a float (Doris: 100.5999984741211).
		"rt": {33, 20.1 + 0.25*(25.8-20.1), 10.5, 100.6, 33,
			(f32(30.3) + f32(35.7)) / 2, f32(20.1), 100.5999984741211},
	}
	checkStat(t, aggRun(t, scan, calls), want)
	checkStat(t, splitRun(t, scan, calls), want)
}

// TestAggregateMisc: min_by/max_by (Doris's example: ties keep the first
// row), avg_weighted (Doris's example: 300; zero weights NaN),
// group_bit_and/or/xor of {7, 3, 6}, bool_and/or, sum0 (0 over no values),
// approx_count_distinct (exact; 0 over no values) and topn.
func TestAggregateMisc(t *testing.T) {
	s := sch("g", expr.StringT(), "k1", expr.Int64T(), "k2", expr.Int64T(), "b", expr.BoolT(), "s", expr.StringT())
	scan := scanOf(s,
		[][]any{{"a", 0, 100, true, "x"}, {"a", 1, 4, nil, "y"}, {"z", nil, nil, nil, nil}},
		[][]any{{"a", 3, 1, true, "x"}, {"a", 4, 1, false, "z"}, {"a", nil, 200, true, "x"}, {"a", 9, nil, true, "y"}},
	)
	k1, k2 := expr.Col(1, "k1", expr.Int64T()), expr.Col(2, "k2", expr.Int64T())
	f := func(e expr.Expr) expr.Expr { return must(expr.Cast(e, expr.Float64T())) }
	calls := []AggCall{
		{Func: MinBy, Arg: pack(k1, k2), Name: "minby"},          // least k2 is 1: rows (3,1) then (4,1) → 3
		{Func: MaxBy, Arg: pack(k1, k2), Name: "maxby"},          // greatest k2 is 200, whose k1 is NULL
		{Func: AvgWeighted, Arg: pack(f(k2), f(k1)), Name: "aw"}, // (100·0+4·1+1·3+1·4)/(0+1+3+4) = 11/8
		{Func: GroupBitAnd, Arg: k2, Name: "band"},               // 100 & 4 & 1 & 1 & 200 = 0
		{Func: GroupBitOr, Arg: k1, Name: "bor"},                 // 0|1|3|4|9 = 15
		{Func: GroupBitXor, Arg: k1, Name: "bxor"},               // 0^1^3^4^9 = 15
		{Func: BoolAnd, Arg: expr.Col(3, "b", expr.BoolT()), Name: "ba"},
		{Func: BoolOr, Arg: expr.Col(3, "b", expr.BoolT()), Name: "bo"},
		{Func: Sum0, Arg: k1, Name: "s0"},
		{Func: ApproxCountDistinct, Arg: expr.Col(4, "s", expr.StringT()), Name: "ndv"},
		{Func: TopNAgg, Arg: pack(expr.Col(4, "s", expr.StringT()), expr.Int(2)), Name: "top"},
	}
	wantSorted(t, aggRun(t, scan, calls),
		`a|3|NULL|1.375|0|15|15|0|1|17|3|{"x":3,"y":2}`,
		"z|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|0|0|NULL")
	wantSorted(t, splitRun(t, scan, calls),
		`a|3|NULL|1.375|0|15|15|0|1|17|3|{"x":3,"y":2}`,
		"z|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|0|0|NULL")
	// Zero weights: NaN, as Doris.
	zero := []AggCall{{Func: AvgWeighted, Arg: pack(f(k1), expr.Float(0)), Name: "aw"}}
	got := aggRun(t, scan, zero)
	if len(got) != 2 || !strings.EqualFold(got[0][1], "nan") {
		t.Errorf("avg_weighted with zero weights: %v, want NaN", got)
	}
	// Global aggregate over no rows: one row, sum0 and ndv 0, the others NULL.
	empty := must(NewFilter(scan, expr.Bool(false)))
	wantRows(t, run(t, must(NewHashAggregate(empty, nil, nil, calls, AggSingle))),
		"NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|0|0|NULL")
	// DISTINCT: sum0 and percentile of the distinct values.
	dist := []AggCall{{Func: Sum0, Arg: k2, Distinct: true, Name: "s"}, {Func: Median, Arg: f(k2), Distinct: true, Name: "m"},
		{Func: ApproxCountDistinct, Arg: k2, Distinct: true, Name: "n"}}
	// a's distinct k2: {100, 4, 1, 200} → 305, median (4+100)/2 = 52.
	wantSorted(t, aggRun(t, scan, dist), "a|305|52|4", "z|0|NULL|0")
}

// TestAggregateStatGroupByKeys: several group keys, NULL keys forming a group.
func TestAggregateStatGroupByKeys(t *testing.T) {
	s := sch("g", expr.StringT(), "h", expr.Int64T(), "v", expr.Float64T())
	scan := scanOf(s,
		[][]any{{"a", 1, 1.0}, {"a", 2, 10.0}, {"a", 1, 3.0}, {nil, nil, 4.0}},
		[][]any{{"a", 2, 20.0}, {"a", 1, 2.0}, {nil, nil, 6.0}},
	)
	g, h, v := expr.Col(0, "g", expr.StringT()), expr.Col(1, "h", expr.Int64T()), expr.Col(2, "v", expr.Float64T())
	calls := []AggCall{{Func: Median, Arg: v, Name: "m"}, {Func: CovarSamp, Arg: pack(v, v), Name: "c"}}
	wantSorted(t, run(t, must(NewHashAggregate(scan, []expr.Expr{g, h}, []string{"g", "h"}, calls, AggSingle))),
		"NULL|NULL|5|2", "a|1|2|1", "a|2|15|50")
}

// TestAggregatePartialSeveralArgs: the fragment form of aggregates of
// two arguments (more_args, params), as a BE builds them, split over the
// batch groups and merged, equals the single-node answer.
func TestAggregatePartialSeveralArgs(t *testing.T) {
	s := sch("g", expr.StringT(), "x", expr.Int64T(), "y", expr.Float64T(), "s", expr.StringT())
	scan := scanOf(s,
		[][]any{{"a", 1, 2.0, "p"}, {"a", 2, 4.0, "q"}, {"b", 5, nil, "p"}},
		[][]any{{"a", 3, 6.0, "p"}, {"a", nil, 1.0, nil}, {"b", 7, 1.0, "r"}},
	)
	pa := &inletpb.PartialAggregate{GroupBy: []int32{0}, Calls: []*inletpb.AggCall{
		{Func: "covar_samp", Arg: 1, MoreArgs: []int32{2}, Name: "c"},
		{Func: "percentile", Arg: 1, Params: []float64{0.5}, Name: "p"},
		{Func: "topn", Arg: 3, Params: []float64{1}, Name: "t"},
		{Func: "max_by", Arg: 3, MoreArgs: []int32{1}, Name: "m"},
	}}
	var parts []Operator
	var partial *HashAggregate
	for _, grp := range scan.Src.(memSource).groups {
		partial = must(PartialFromFragment(scanOf(s, grp), pa))
		parts = append(parts, partial)
	}
	// a: covar_samp of (1,2) (2,4) (3,6) = 2, median x 2, p most frequent,
	// s of the greatest x (3) is p; b: one pair, x {5, 7}, s r at x 7.
	wantSorted(t, run(t, must(partial.FinalFor(must(NewUnion(parts, false))))),
		`a|2|2|{"p":2}|p`, `b|NULL|6|{"p":1}|r`)
	// A global aggregate whose first partial saw no rows: p comes from the
	// side that did: percentile 0.25 of x = {1,2,3,5,7} is at position 1,
	// 2 (the default p 0.5 would give 3).
	glob := &inletpb.PartialAggregate{Calls: []*inletpb.AggCall{{Func: "percentile", Arg: 1, Params: []float64{0.25}, Name: "p"}}}
	emptyPart := must(PartialFromFragment(must(NewFilter(scan, expr.Bool(false))), glob))
	fullPart := must(PartialFromFragment(scan, glob))
	wantRows(t, run(t, must(fullPart.FinalFor(must(NewUnion([]Operator{emptyPart, fullPart}, false))))), "2")
	if _, err := PartialFromFragment(scan, &inletpb.PartialAggregate{Calls: []*inletpb.AggCall{
		{Func: "covar_samp", Arg: 1, MoreArgs: []int32{9}, Name: "c"}}}); err == nil {
		t.Error("a more_args column out of range must be refused")
	}
}
