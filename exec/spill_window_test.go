package exec

import (
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// A window over partitions larger than memory splits its input by
// PARTITION BY: ranking, running and whole-partition aggregates and
// LAG come out as DuckDB computes them.
func TestSpillWindow(t *testing.T) {
	win := func(part []expr.Expr, order []SortKey, frame Frame, calls ...WindowCall) func(Operator) Operator {
		return func(in Operator) Operator {
			w := must(NewWindow(in, part, order, calls))
			w.Frame = frame
			return w
		}
	}
	byV := []SortKey{{Expr: dv}}
	checkSpillCases(t, 30000, 700, 4000, []spillCase{
		{"row_number and running sum", win([]expr.Expr{dk}, byV, FrameDefault,
			WindowCall{Func: RowNumber, Name: "rn"}, WindowCall{Func: WinSum, Arg: dv, Name: "rs"},
			WindowCall{Func: Lag, Arg: ds, Name: "lg"}),
			"SELECT k, s, v, row_number() OVER w, sum(v) OVER w, lag(s) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY v)",
			[]int64{2 << 20, 512 << 10}, false},
		{"rank by s over whole partitions", win([]expr.Expr{ds}, []SortKey{{Expr: dk}}, FrameDefault,
			WindowCall{Func: Rank, Name: "r"}, WindowCall{Func: WinCountStar, Name: "n"}),
			"SELECT k, s, v, rank() OVER w, count(*) OVER w FROM t WINDOW w AS (PARTITION BY s ORDER BY k NULLS FIRST)",
			[]int64{2 << 20}, false},
	})
}

// A statement cancelled while a window spills leaves no file.
func TestSpillWindowCancel(t *testing.T) {
	checkSpillCancel(t, func(in Operator) Operator {
		return must(NewWindow(in, []expr.Expr{dk}, []SortKey{{Expr: dv}}, []WindowCall{{Func: RowNumber, Name: "rn"}}))
	})
}
