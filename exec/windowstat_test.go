package exec

import (
	"math"
	"strconv"
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// checkFloats compares the trailing columns of rendered rows with want
// (NaN = NULL) to a relative 1e-9; the leading columns must equal lead.
func checkFloats(t *testing.T, what string, got [][]string, lead int, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %v", what, len(got), len(want), got)
	}
	for i, r := range got {
		if len(r) != lead+len(want[i]) {
			t.Fatalf("%s: row %v, want %d values", what, r, len(want[i]))
		}
		for j, e := range want[i] {
			s := r[lead+j]
			if math.IsNaN(e) {
				if s != "NULL" {
					t.Errorf("%s: row %d (%v) column %d = %s, want NULL", what, i, r, j, s)
				}
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(v-e) > 1e-9*math.Max(1, math.Abs(e)) {
				t.Errorf("%s: row %d (%v) column %d = %s, want %v", what, i, r, j, s, e)
			}
		}
	}
}

// TestWindowStddevFrames: var_pop, var_samp and stddev_samp under every
// frame, over o = 1, 2, 2, 3 (partition x) and 5 (y), with the argument
// 1e9 + o (variance must not be lost to the offset) and a NULL row that is
// skipped. Each frame's rows are listed in the comments; the values are
// derived by hand ({1,2,2}: mean 5/3, M2 2/3; {1,2,2,3}: M2 2; {1,2}: M2
// 1/2; {2,2,3}: M2 2/3).
func TestWindowStddevFrames(t *testing.T) {
	s := sch("p", expr.StringT(), "o", expr.Int64T(), "f", expr.Float64T())
	scan := scanOf(s,
		[][]any{{"x", 1, 1e9 + 1}, {"x", 2, 1e9 + 2}, {"y", 5, 1e9 + 5}},
		[][]any{{"x", 2, 1e9 + 2}, {"x", 3, 1e9 + 3}, {"y", 6, nil}},
	)
	p, o, f := expr.Col(0, "p", expr.StringT()), expr.Col(1, "o", expr.Int64T()), expr.Col(2, "f", expr.Float64T())
	calls := []WindowCall{{Func: WinVarPop, Arg: f, Name: "vp"}, {Func: WinVarSamp, Arg: f, Name: "vs"},
		{Func: WinStddevSamp, Arg: o, Name: "ss"}}
	n := math.NaN()
	// row values: var_pop, var_samp, stddev_samp (of o, which has no NULL:
	// the y partition's second row counts there).
	cases := []struct {
		name     string
		frame    Frame
		from, to int64
		rfrom    float64
		rto      float64
		want     [][]float64
	}{
		{"default", FrameDefault, 0, 0, 0, 0, [][]float64{
			{0, n, n}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {0.5, 2.0 / 3, math.Sqrt(2.0 / 3)},
			{0, n, n}, {0, n, math.Sqrt(0.5)}}},
		{"rows to current", FrameRowsToCurrent, 0, 0, 0, 0, [][]float64{
			{0, n, n}, {0.25, 0.5, math.Sqrt(0.5)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {0.5, 2.0 / 3, math.Sqrt(2.0 / 3)},
			{0, n, n}, {0, n, math.Sqrt(0.5)}}},
		{"whole partition", FrameWholePartition, 0, 0, 0, 0, [][]float64{
			{0.5, 2.0 / 3, math.Sqrt(2.0 / 3)}, {0.5, 2.0 / 3, math.Sqrt(2.0 / 3)}, {0.5, 2.0 / 3, math.Sqrt(2.0 / 3)}, {0.5, 2.0 / 3, math.Sqrt(2.0 / 3)},
			{0, n, math.Sqrt(0.5)}, {0, n, math.Sqrt(0.5)}}},
		// {1,2} {1,2,2} {2,2,3} {2,3} | {5,6}
		{"rows 1 preceding 1 following", FrameRows, -1, 1, 0, 0, [][]float64{
			{0.25, 0.5, math.Sqrt(0.5)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {0.25, 0.5, math.Sqrt(0.5)},
			{0, n, math.Sqrt(0.5)}, {0, n, math.Sqrt(0.5)}}},
		// {2,3} {3} {} {} | {6} {}: empty frames are NULL
		{"rows 2 following 3 following", FrameRows, 2, 3, 0, 0, [][]float64{
			{0.25, 0.5, math.Sqrt(0.5)}, {0, n, n}, {n, n, n}, {n, n, n},
			{n, n, n}, {n, n, n}}},
		// {1,2} {2,2,3} {2,3} {3} | {5,6} {6}
		{"rows current to unbounded following", FrameRows, 0, Unbounded, 0, 0, [][]float64{
			{0.5, 2.0 / 3, math.Sqrt(2.0 / 3)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {0.25, 0.5, math.Sqrt(0.5)}, {0, n, n},
			{0, n, math.Sqrt(0.5)}, {n, n, n}}},
		// keys within [o-1, o]: {1} {1,2,2} {1,2,2} {2,2,3} | {5} {5,6}
		{"range 1 preceding current", FrameRange, 0, 0, -1, 0, [][]float64{
			{0, n, n}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)}, {2.0 / 9, 1.0 / 3, math.Sqrt(1.0 / 3)},
			{0, n, n}, {0, n, math.Sqrt(0.5)}}},
	}
	// The y partition's rows are (5, 1e9+5) and (6, NULL).
	for _, c := range cases {
		w := must(NewWindow(scan, []expr.Expr{p}, []SortKey{{Expr: o}}, calls))
		w.Frame, w.RowsFrom, w.RowsTo, w.RangeFrom, w.RangeTo = c.frame, c.from, c.to, c.rfrom, c.rto
		checkFloats(t, c.name, run(t, w), 3, c.want)
	}
	// Without ORDER BY: the whole partition.
	w := must(NewWindow(scan, []expr.Expr{p}, nil, calls[:1]))
	checkFloats(t, "no order by", run(t, w), 3, [][]float64{{0.5}, {0.5}, {0.5}, {0.5}, {0}, {0}})
	// Empty input: no rows.
	empty := must(NewWindow(must(NewFilter(scan, expr.Bool(false))), nil, nil, calls))
	wantRows(t, run(t, empty))
	for name, want := range map[string]WindowFunc{"stddev": WinStddevPop, "variance_samp": WinVarSamp, "ntile": Ntile, "cume_dist": CumeDist} {
		if got, ok := WindowFuncByName(name); !ok || got != want {
			t.Errorf("WindowFuncByName(%s) = %v, %v", name, got, ok)
		}
	}
}

// TestWindowDistribution: ntile, percent_rank and cume_dist as MySQL
// defines them. Partition x has o = 1, 2, 2, 3, 4 (5 rows), y one row.
func TestWindowDistribution(t *testing.T) {
	s := sch("p", expr.StringT(), "o", expr.Int64T())
	scan := scanOf(s, [][]any{{"x", 1}, {"x", 2}, {"y", 9}}, [][]any{{"x", 2}, {"x", 3}, {"x", 4}})
	p, o := expr.Col(0, "p", expr.StringT()), expr.Col(1, "o", expr.Int64T())
	calls := []WindowCall{
		{Func: Ntile, Offset: 2, Name: "n2"}, // 5 rows in 2 buckets: 3 + 2
		{Func: Ntile, Offset: 3, Name: "n3"}, // 2 + 2 + 1
		{Func: Ntile, Offset: 9, Name: "n9"}, // more buckets than rows: one row each
		{Func: PercentRank, Name: "pr"},      // (rank-1)/4: ranks 1 2 2 4 5
		{Func: CumeDist, Name: "cd"},         // 1/5, 3/5, 3/5, 4/5, 1
	}
	w := must(NewWindow(scan, []expr.Expr{p}, []SortKey{{Expr: o}}, calls))
	wantRows(t, run(t, w),
		"x|1|1|1|1|0|0.2",
		"x|2|1|1|2|0.25|0.6",
		"x|2|1|2|3|0.25|0.6",
		"x|3|2|2|4|0.75|0.8",
		"x|4|2|3|5|1|1",
		"y|9|1|1|1|0|1",
	)
	// Without ORDER BY every row is a peer of every other.
	w = must(NewWindow(scan, nil, nil, calls[3:]))
	got := run(t, w)
	for _, r := range got {
		if r[2] != "0" || r[3] != "1" {
			t.Errorf("unordered percent_rank/cume_dist: %v, want 0|1", r)
		}
	}
	if _, err := NewWindow(scan, nil, nil, []WindowCall{{Func: Ntile, Name: "n"}}); err == nil {
		t.Error("ntile(0) must be refused")
	}
}
