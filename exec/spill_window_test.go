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
	for _, part := range [][]expr.Expr{{dk}, nil} {
		checkSpillCancel(t, func(in Operator) Operator {
			return must(NewWindow(in, part, []SortKey{{Expr: dv}}, []WindowCall{{Func: RowNumber, Name: "rn"}}))
		})
	}
}

// A window without PARTITION BY is one partition: its ranking functions
// stream over the sort that spills, counts carried across batches, peers
// (equal keys, NULLs among them) ranked alike, as DuckDB ranks them.
func TestSpillWindowRankingWithoutPartition(t *testing.T) {
	win := func(order []SortKey, calls ...WindowCall) func(Operator) Operator {
		return func(in Operator) Operator { return must(NewWindow(in, nil, order, calls)) }
	}
	checkSpillCases(t, 30000, 700, 4000, []spillCase{
		{"rank and dense_rank by k", win([]SortKey{{Expr: dk, Nulls: NullsFirst}},
			WindowCall{Func: Rank, Name: "r"}, WindowCall{Func: DenseRank, Name: "d"}),
			"SELECT k, s, v, rank() OVER w, dense_rank() OVER w FROM t WINDOW w AS (ORDER BY k NULLS FIRST)",
			[]int64{2 << 20, 1 << 20}, false},
		{"row_number by s desc, v", win([]SortKey{{Expr: ds, Desc: true, Nulls: NullsLast}, {Expr: dv}},
			WindowCall{Func: RowNumber, Name: "rn"}, WindowCall{Func: Rank, Name: "r"}, WindowCall{Func: DenseRank, Name: "d"}),
			"SELECT k, s, v, row_number() OVER w, rank() OVER w, dense_rank() OVER w FROM t WINDOW w AS (ORDER BY s DESC NULLS LAST, v)",
			[]int64{1 << 20}, false},
	})
}
