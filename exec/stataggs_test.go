package exec

import (
	"math"
	"strconv"
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// statInput: group a holds {2,4,4,4,5,5,7,9} (split over batches, with
// NULLs), b one value, c only NULLs, big the same values as a shifted by
// 1e9 (a cancellation trap for sum-of-squares formulas).
func statInput() (*Scan, expr.Expr, expr.Expr, expr.Expr) {
	s := sch("g", expr.StringT(), "x", expr.Int64T(), "f", expr.Float64T())
	var b1, b2 [][]any
	for i, v := range []int64{2, 4, 4, 4, 5, 5, 7, 9} {
		rows := &b1
		if i%2 == 1 {
			rows = &b2
		}
		*rows = append(*rows, []any{"a", v, float64(v)}, []any{"big", v + 1e9, float64(v) + 1e9})
	}
	b1 = append(b1, []any{"a", nil, nil}, []any{"b", 3, 3.0}, []any{"c", nil, nil})
	b2 = append(b2, []any{"b", nil, nil}, []any{"c", nil, nil}, []any{"big", nil, nil})
	return scanOf(s, b1, b2), expr.Col(0, "g", expr.StringT()), expr.Col(1, "x", expr.Int64T()), expr.Col(2, "f", expr.Float64T())
}

// checkStat compares rendered rows with expected values: NaN means NULL.
func checkStat(t *testing.T, got [][]string, want map[string][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(want), got)
	}
	for _, r := range got {
		w, ok := want[r[0]]
		if !ok || len(r) != len(w)+1 {
			t.Fatalf("unexpected row %v", r)
		}
		for i, e := range w {
			s := r[i+1]
			if math.IsNaN(e) {
				if s != "NULL" {
					t.Errorf("group %s column %d = %s, want NULL", r[0], i, s)
				}
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(v-e) > 1e-9*math.Max(1, math.Abs(e)) {
				t.Errorf("group %s column %d = %s, want %v", r[0], i, s, e)
			}
		}
	}
}

var null = math.NaN()

func statCalls(arg expr.Expr) []AggCall {
	return []AggCall{
		{Func: StddevPop, Arg: arg, Name: "sp"},
		{Func: StddevSamp, Arg: arg, Name: "ss"},
		{Func: VarPop, Arg: arg, Name: "vp"},
		{Func: VarSamp, Arg: arg, Name: "vs"},
	}
}

func TestStddevVarianceAggregate(t *testing.T) {
	scan, g, x, f := statInput()
	// Hand-derived: mean 5, squared deviations sum to 32.
	want := map[string][]float64{
		"a":   {2, math.Sqrt(32.0 / 7), 4, 32.0 / 7},
		"big": {2, math.Sqrt(32.0 / 7), 4, 32.0 / 7},
		"b":   {0, null, 0, null},
		"c":   {null, null, null, null},
	}
	for _, arg := range []expr.Expr{x, f} {
		agg := must(NewHashAggregate(scan, []expr.Expr{g}, []string{"g"}, statCalls(arg), AggSingle))
		for i, fld := range agg.Schema().Fields()[1:] {
			if fld.Type.ID() != expr.Float64T().ID() {
				t.Fatalf("column %d is %s, want DOUBLE", i, fld.Type)
			}
		}
		checkStat(t, run(t, agg), want)
	}
	// Global aggregate over empty input: one row of NULLs.
	empty := must(NewFilter(scan, expr.Bool(false)))
	wantRows(t, run(t, must(NewHashAggregate(empty, nil, nil, statCalls(x), AggSingle))), "NULL|NULL|NULL|NULL")
	// DISTINCT a = {2,4,5,7,9}: mean 5.4, squared deviations sum to 29.2.
	dist := statCalls(x)
	for i := range dist {
		dist[i].Distinct = true
	}
	checkStat(t, run(t, must(NewHashAggregate(scan, []expr.Expr{g}, []string{"g"}, dist, AggSingle))), map[string][]float64{
		"a":   {math.Sqrt(29.2 / 5), math.Sqrt(29.2 / 4), 29.2 / 5, 29.2 / 4},
		"big": {math.Sqrt(29.2 / 5), math.Sqrt(29.2 / 4), 29.2 / 5, 29.2 / 4},
		"b":   {0, null, 0, null},
		"c":   {null, null, null, null},
	})
	if _, err := NewHashAggregate(scan, nil, nil, dist[:1], AggPartial); err == nil {
		t.Fatal("STDDEV(DISTINCT) in partial mode must be refused")
	}
	s := sch("d", expr.Date32T())
	if _, err := NewHashAggregate(scanOf(s), nil, nil, statCalls(expr.Col(0, "d", expr.Date32T()))[:1], AggSingle); err == nil {
		t.Fatal("STDDEV over DATE must be refused")
	}
}

func TestStddevVariancePartialFinal(t *testing.T) {
	scan, g, x, _ := statInput()
	partial := must(NewHashAggregate(scan, []expr.Expr{g}, []string{"g"}, statCalls(x), AggPartial))
	if n := partial.Schema().NumFields(); n != 1+4*3 {
		t.Fatalf("partial has %d columns, want 13 (count, mean, m2 per call)", n)
	}
	// Each group's values twice: {2,4,4,4,5,5,7,9}×2 has mean 5 and
	// squared deviations summing to 64 over 16 values.
	final := must(partial.FinalFor(must(NewUnion([]Operator{partial, partial}, false))))
	checkStat(t, run(t, final), map[string][]float64{
		"a":   {2, math.Sqrt(64.0 / 15), 4, 64.0 / 15},
		"big": {2, math.Sqrt(64.0 / 15), 4, 64.0 / 15},
		"b":   {0, 0, 0, 0},
		"c":   {null, null, null, null},
	})
}

func TestStatAggByName(t *testing.T) {
	for name, want := range map[string]AggFunc{
		"stddev": StddevPop, "STD": StddevPop, "stddev_pop": StddevPop, "stddev_samp": StddevSamp,
		"variance": VarPop, "var_pop": VarPop, "variance_pop": VarPop, "var_samp": VarSamp, "Variance_Samp": VarSamp,
		"covar": CovarPop, "COVAR_SAMP": CovarSamp, "corr": Corr,
	} {
		if f, ok := StatAggByName(name); !ok || f != want {
			t.Errorf("%s → %v, %v; want %v", name, f, ok, want)
		}
	}
	if _, ok := StatAggByName("sum"); ok {
		t.Error("sum is not a statistical aggregate")
	}
}

// TestStddevVarianceManyRows: 100k values 1e9 + (i mod 10) over several
// batches; the digits 0..9 equally often have population variance
// (10²-1)/12 = 8.25 whatever the offset.
func TestStddevVarianceManyRows(t *testing.T) {
	const n = 100_000
	s := sch("g", expr.StringT(), "f", expr.Float64T())
	var groups [][][]any
	for b := 0; b < 4; b++ {
		var rows [][]any
		for i := b * n / 4; i < (b+1)*n/4; i++ {
			rows = append(rows, []any{"g", 1e9 + float64(i%10)})
		}
		groups = append(groups, rows)
	}
	agg := must(NewHashAggregate(scanOf(s, groups...), []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"},
		statCalls(expr.Col(1, "f", expr.Float64T())), AggSingle))
	checkStat(t, run(t, agg), map[string][]float64{
		"g": {math.Sqrt(8.25), math.Sqrt(8.25 * n / (n - 1)), 8.25, 8.25 * n / (n - 1)},
	})
}
