package exec

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestRangeKernel: a lower and an upper bound on one column are fused into
// one conjunct whose kernel selects exactly the rows the two comparisons,
// evaluated row by row (CmpExpr.Eval), select: every bound type, strict
// and not, constant on either side, empty ranges and the int64 extremes,
// NULLs, DECIMAL values past int64, alone and after another conjunct.
func TestRangeKernel(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 30, Scale: 2}
	type colCase struct {
		typ  arrow.DataType
		val  func(i int) any
		lits []any // constants, as the column's literal values
	}
	const n = 2000
	cols := []colCase{
		{arrow.PrimitiveTypes.Int8, func(i int) any { return int64(i%200 - 100) }, []any{int64(-100), int64(-3), int64(0), int64(99)}},
		{expr.Int32T(), func(i int) any { return int64(i%1000 - 500) }, []any{int64(-7), int64(120), int64(math.MinInt32)}},
		{expr.Int64T(), func(i int) any {
			switch i % 97 {
			case 1:
				return int64(math.MaxInt64)
			case 2:
				return int64(math.MinInt64)
			}
			return int64(i%1000-500) * 1e9
		}, []any{int64(-3e11), int64(2e11), int64(math.MaxInt64), int64(math.MinInt64)}},
		{arrow.FixedWidthTypes.Date32, func(i int) any { return arrow.Date32(i%800 - 400) }, []any{arrow.Date32(-30), arrow.Date32(0), arrow.Date32(365)}},
		{dec, func(i int) any {
			if i%101 == 5 {
				return decimal128.New(int64(i%3)-1, uint64(i)*977) // past int64
			}
			return decimal128.FromI64(int64(i%300 - 150))
		}, []any{decimal128.FromI64(5), decimal128.FromI64(7), decimal128.FromI64(-150), decimal128.FromI64(math.MaxInt64)}},
	}
	lowers := []expr.CmpOp{expr.Ge, expr.Gt}
	uppers := []expr.CmpOp{expr.Le, expr.Lt}
	for _, c := range cols {
		for _, nulls := range []bool{false, true} {
			s := sch("c", c.typ, "id", expr.Int64T())
			var data [][]any
			for i := range n {
				var v any = c.val(i)
				if nulls && i%7 == 3 {
					v = nil
				}
				data = append(data, []any{v, int64(i)})
			}
			env, mem := newEnv(t)
			b := mkBatch(mem, s, data)
			col := expr.Col(0, "c", c.typ)
			for _, lo := range c.lits {
				for _, hi := range c.lits {
					for _, lop := range lowers {
						for _, uop := range uppers {
							for _, v := range []struct{ after, flip bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
								name := fmt.Sprintf("%s/nulls=%v/c %s %v and c %s %v/after=%v/flip=%v", c.typ, nulls, lop, lo, uop, hi, v.after, v.flip)
								t.Run(name, func(t *testing.T) {
									ll, hl := must(expr.Lit(lo, c.typ)), must(expr.Lit(hi, c.typ))
									lc, uc := must(expr.Cmp(lop, col, ll)), must(expr.Cmp(uop, col, hl))
									if v.flip {
										mirror := map[expr.CmpOp]expr.CmpOp{expr.Ge: expr.Le, expr.Gt: expr.Lt, expr.Le: expr.Ge, expr.Lt: expr.Gt}
										lc, uc = must(expr.Cmp(mirror[lop], ll, col)), must(expr.Cmp(mirror[uop], hl, col))
									}
									parts := []expr.Expr{lc, uc}
									if v.after {
										mod := must(expr.Arith(expr.Mod, expr.Col(1, "id", expr.Int64T()), must(expr.Lit(int64(3), expr.Int64T()))))
										parts = []expr.Expr{must(expr.Cmp(expr.Ne, mod, must(expr.Lit(int64(0), expr.Int64T())))), uc, lc}
									}
									pred := must(expr.And(parts...))
									sel := newSelector(pred)
									if len(sel.conj) != len(parts)-1 {
										t.Fatalf("%d conjuncts after fusing %d", len(sel.conj), len(parts))
									}
									var scratch []int64
									rows, all, err := sel.selectRows(context.Background(), env, b, &scratch)
									if err != nil {
										t.Fatal(err)
									}
									if all {
										rows = make([]int64, n)
										for i := range rows {
											rows[i] = int64(i)
										}
									}
									m := must(pred.Eval(env, b)).(*array.Boolean)
									defer m.Release()
									var want []int64
									for i := range n {
										if m.IsValid(i) && m.Value(i) {
											want = append(want, int64(i))
										}
									}
									if !slices.Equal(rows, want) && !(len(rows) == 0 && len(want) == 0) {
										t.Fatalf("selected %d rows %v…, want %d %v…", len(rows), head(rows), len(want), head(want))
									}
								})
							}
						}
					}
				}
			}
			b.Release()
			mem.AssertSize(t, 0)
		}
	}
}
