package exec

import (
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// NOT IN against a set larger than memory: the build side spills; a NULL
// in it keeps no row, and without one the probe rows with a NULL key go
// and the rest are anti-joined partition by partition (DuckDB's answer).
func TestSpillNotIn(t *testing.T) {
	const n = 30000
	right := lazyScan(spillSchema, dupRows(n, 700, 4000))
	twoV := must(expr.Arith(expr.Mul, dv, expr.Int(2)))
	// Three values, so most partitions get no build row: a NULL probe key
	// must go even where its partition's build side is empty.
	few := lazyScan(spillSchema, dupRows(6000, 700, 4000))
	v3 := must(expr.Arith(expr.Add, must(expr.Arith(expr.Mod, dv, expr.Int(3))), expr.Int(5)))
	notIn := func(lk, rk expr.Expr) func(Operator) Operator {
		return func(in Operator) Operator {
			return must(NewHashJoin(in, right, NullAwareLeftAntiJoin, []expr.Expr{lk}, []expr.Expr{rk}, nil))
		}
	}
	checkSpillCases(t, n, 700, 4000, []spillCase{
		{"k not in 2v", notIn(dk, twoV), "SELECT * FROM t WHERE k NOT IN (SELECT v * 2 FROM t)", []int64{1 << 20, 256 << 10}, false},
		{"v not in 2v", notIn(dv, twoV), "SELECT * FROM t WHERE v NOT IN (SELECT v * 2 FROM t)", []int64{1 << 20}, false},
		{"v not in a set with NULL", notIn(dv, dk), "SELECT * FROM t WHERE v NOT IN (SELECT k FROM t)", []int64{1 << 20}, false},
		{"k not in three values", func(in Operator) Operator {
			return must(NewHashJoin(in, few, NullAwareLeftAntiJoin, []expr.Expr{dk}, []expr.Expr{v3}, nil))
		}, "SELECT * FROM t WHERE k NOT IN (SELECT v % 3 + 5 FROM t WHERE v < 6000)", []int64{256 << 10}, false},
	})
}

// A statement cancelled while a NOT IN join spills leaves no file.
func TestSpillNotInCancel(t *testing.T) {
	checkSpillCancel(t, func(in Operator) Operator {
		return must(NewHashJoin(lazyScan(spillSchema, dupRows(30000, 700, 4000)), in, NullAwareLeftAntiJoin,
			[]expr.Expr{dv}, []expr.Expr{dv}, nil))
	})
}
