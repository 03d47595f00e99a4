package exec

import (
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

func TestWindow(t *testing.T) {
	s := sch("dept", expr.StringT(), "sal", expr.Int64T())
	scan := scanOf(s,
		[][]any{{"a", 10}, {"b", 5}, {"a", 20}},
		[][]any{{"a", 20}, {"b", nil}, {nil, 7}, {"a", 30}},
	)
	dept, sal := expr.Col(0, "dept", expr.StringT()), expr.Col(1, "sal", expr.Int64T())
	calls := []WindowCall{
		{Func: RowNumber, Name: "rn"},
		{Func: Rank, Name: "rk"},
		{Func: DenseRank, Name: "drk"},
		{Func: WinSum, Arg: sal, Name: "run_sum"},
		{Func: WinCount, Arg: sal, Name: "cnt"},
		{Func: WinCountStar, Name: "cs"},
		{Func: WinAvg, Arg: sal, Name: "avg"},
		{Func: WinMin, Arg: sal, Name: "mn"},
		{Func: WinMax, Arg: sal, Name: "mx"},
	}
	w := must(NewWindow(scan, []expr.Expr{dept}, []SortKey{{Expr: sal}}, calls))
	// Partitions in key order (NULL first); peers (a,20),(a,20) share
	// rank and the running aggregates.
	wantRows(t, run(t, w),
		"NULL|7|1|1|1|7|1|1|7|7|7",
		"a|10|1|1|1|10|1|1|10|10|10",
		"a|20|2|2|2|50|3|3|16.666666666666668|10|20",
		"a|20|3|2|2|50|3|3|16.666666666666668|10|20",
		"a|30|4|4|3|80|4|4|20|10|30",
		"b|NULL|1|1|1|NULL|0|1|NULL|NULL|NULL",
		"b|5|2|2|2|5|1|2|5|5|5",
	)
	// No ORDER BY: the frame is the whole partition.
	whole := must(NewWindow(scan, []expr.Expr{dept}, nil, []WindowCall{{Func: WinSum, Arg: sal, Name: "s"}, {Func: RowNumber, Name: "rn"}}))
	wantRows(t, run(t, whole),
		"NULL|7|7|1",
		"a|10|80|1", "a|20|80|2", "a|20|80|3", "a|30|80|4",
		"b|5|5|1", "b|NULL|5|2",
	)
	// No PARTITION BY, descending order.
	global := must(NewWindow(scan, nil, []SortKey{{Expr: sal, Desc: true}}, []WindowCall{{Func: DenseRank, Name: "d"}}))
	wantRows(t, run(t, global),
		"a|30|1", "a|20|2", "a|20|2", "a|10|3", "NULL|7|4", "b|5|5", "b|NULL|6")
	empty := must(NewWindow(must(NewFilter(scan, expr.Bool(false))), nil, nil, []WindowCall{{Func: RowNumber, Name: "rn"}}))
	wantRows(t, run(t, empty))
}

func TestWindowValueFunctions(t *testing.T) {
	s := sch("p", expr.StringT(), "o", expr.Int64T(), "v", expr.StringT())
	scan := scanOf(s,
		[][]any{{"x", 1, "a"}, {"x", 2, "b"}, {"y", 1, "c"}},
		[][]any{{"x", 2, "b2"}, {"x", 3, nil}, {"y", 5, "d"}},
	)
	p, o, v := expr.Col(0, "p", expr.StringT()), expr.Col(1, "o", expr.Int64T()), expr.Col(2, "v", expr.StringT())
	calls := []WindowCall{
		{Func: Lag, Arg: v, Name: "lag"},
		{Func: Lead, Arg: v, Offset: 2, Default: expr.Str("-"), Name: "lead2"},
		{Func: FirstValue, Arg: v, Name: "first"},
		{Func: LastValue, Arg: v, Name: "last"},
		{Func: Lag, Arg: o, Default: expr.Int(0), Name: "lago"},
	}
	w := must(NewWindow(scan, []expr.Expr{p}, []SortKey{{Expr: o}}, calls))
	wantRows(t, run(t, w),
		"x|1|a|NULL|b2|a|a|0",
		"x|2|b|a|NULL|a|b2|1",
		"x|2|b2|b|-|a|b2|2",
		"x|3|NULL|b2|-|a|NULL|2",
		"y|1|c|NULL|-|c|c|0",
		"y|5|d|c|-|c|d|1",
	)
	whole := must(NewWindow(scan, []expr.Expr{p}, nil, []WindowCall{{Func: LastValue, Arg: v, Name: "last"}}))
	wantRows(t, run(t, whole), "x|1|a|NULL", "x|2|b|NULL", "x|2|b2|NULL", "x|3|NULL|NULL", "y|1|c|d", "y|5|d|d")
}

func TestWindowFrames(t *testing.T) {
	s := sch("p", expr.StringT(), "o", expr.Int64T())
	scan := scanOf(s, [][]any{{"x", 1}, {"x", 2}, {"x", 2}, {"x", 3}, {"y", 5}})
	p, o := expr.Col(0, "p", expr.StringT()), expr.Col(1, "o", expr.Int64T())
	calls := []WindowCall{{Func: WinSum, Arg: o, Name: "s"}, {Func: LastValue, Arg: o, Name: "lv"}, {Func: Rank, Name: "r"}}
	cases := []struct {
		frame Frame
		want  []string
	}{
		{FrameDefault, []string{"x|1|1|1|1", "x|2|5|2|2", "x|2|5|2|2", "x|3|8|3|4", "y|5|5|5|1"}},
		{FrameRowsToCurrent, []string{"x|1|1|1|1", "x|2|3|2|2", "x|2|5|2|2", "x|3|8|3|4", "y|5|5|5|1"}},
		{FrameWholePartition, []string{"x|1|8|3|1", "x|2|8|3|2", "x|2|8|3|2", "x|3|8|3|4", "y|5|5|5|1"}},
	}
	for _, c := range cases {
		w := must(NewWindow(scan, []expr.Expr{p}, []SortKey{{Expr: o}}, calls))
		w.Frame = c.frame
		wantRows(t, run(t, w), c.want...)
	}
}
