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
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestSelKernel: every comparison a kernel serves, over every column type
// it serves, with NULLs and without, alone and after another conjunct,
// selects the rows a row-by-row reading of SQL's rules selects.
func TestSelKernel(t *testing.T) {
	type colCase struct {
		name string
		typ  arrow.DataType
		val  func(i int) any // the Go value mkBatch takes
		num  func(i int) float64
	}
	cols := []colCase{
		{"tinyint", arrow.PrimitiveTypes.Int8, func(i int) any { return int64(i%9 - 4) }, func(i int) float64 { return float64(i%9 - 4) }},
		{"smallint", arrow.PrimitiveTypes.Int16, func(i int) any { return int64(i%301 - 150) }, func(i int) float64 { return float64(i%301 - 150) }},
		{"int", expr.Int32T(), func(i int) any { return int64(i%1000 - 500) }, func(i int) float64 { return float64(i%1000 - 500) }},
		{"bigint", expr.Int64T(), func(i int) any { return int64(i%1000-500) * 1e12 }, func(i int) float64 { return float64(int64(i%1000-500) * 1e12) }},
		{"double", expr.Float64T(), func(i int) any { return float64(i%1000-500) / 4 }, func(i int) float64 { return float64(i%1000-500) / 4 }},
		{"date", arrow.FixedWidthTypes.Date32, func(i int) any { return arrow.Date32(19000 + i%1000) }, func(i int) float64 { return float64(19000 + i%1000) }},
	}
	ops := []struct {
		op   expr.CmpOp
		test func(a, b float64) bool
	}{
		{expr.Eq, func(a, b float64) bool { return a == b }},
		{expr.NullSafeEq, func(a, b float64) bool { return a == b }},
		{expr.Ne, func(a, b float64) bool { return a != b }},
		{expr.Lt, func(a, b float64) bool { return a < b }},
		{expr.Le, func(a, b float64) bool { return a <= b }},
		{expr.Gt, func(a, b float64) bool { return a > b }},
		{expr.Ge, func(a, b float64) bool { return a >= b }},
	}
	const n = 3000
	for _, c := range cols {
		for _, nulls := range []bool{false, true} {
			// Column 0 is c (NULL every 7th row when nulls), column 1 id.
			s := sch("c", c.typ, "id", expr.Int64T())
			isNull := func(i int) bool { return nulls && i%7 == 3 }
			var data [][]any
			for i := range n {
				var v any = c.val(i)
				if isNull(i) {
					v = nil
				}
				data = append(data, []any{v, int64(i)})
			}
			env, mem := newEnv(t)
			b := mkBatch(mem, s, data)
			// The constant sits among the values (as a BIGINT or DOUBLE
			// literal, the way the binder types one).
			var konst float64
			var lit expr.Expr
			switch c.typ.ID() {
			case arrow.FLOAT64:
				konst = -12.25
				lit = must(expr.Lit(konst, expr.Float64T()))
			case arrow.DATE32:
				konst = c.num(510)
				lit = must(expr.Lit(arrow.Date32(konst), c.typ))
			default:
				konst = c.num(510)
				lit = must(expr.Lit(int64(konst), expr.Int64T()))
			}
			for _, o := range ops {
				for _, v := range []struct{ after, flip bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
					after, flip := v.after, v.flip
					name := fmt.Sprintf("%s/nulls=%v/%s/after=%v/constant-first=%v", c.name, nulls, o.op, after, flip)
					t.Run(name, func(t *testing.T) {
						cmp := must(expr.Cmp(o.op, expr.Col(0, "c", c.typ), lit))
						holds := func(x float64) bool { return o.test(x, konst) }
						if flip {
							cmp = must(expr.Cmp(o.op, lit, expr.Col(0, "c", c.typ)))
							holds = func(x float64) bool { return o.test(konst, x) }
						}
						pred := cmp
						if after {
							// id % 3 != 0 first: the kernel then reads a selection.
							mod := must(expr.Arith(expr.Mod, expr.Col(1, "id", expr.Int64T()), must(expr.Lit(int64(3), expr.Int64T()))))
							pred = must(expr.And(must(expr.Cmp(expr.Ne, mod, must(expr.Lit(int64(0), expr.Int64T())))), cmp))
						}
						sel := newSelector(pred)
						if sel.kern[len(sel.kern)-1] == nil {
							t.Fatalf("%s: no kernel", cmp)
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
						var want []int64
						for i := range n {
							if isNull(i) || (after && i%3 == 0) {
								continue
							}
							if holds(c.num(i)) {
								want = append(want, int64(i))
							}
						}
						if !slices.Equal(rows, want) && !(len(rows) == 0 && len(want) == 0) {
							t.Fatalf("selected %d rows %v…, want %d %v…", len(rows), head(rows), len(want), head(want))
						}
					})
				}
			}
			b.Release()
			mem.AssertSize(t, 0)
		}
	}
}

func head(r []int64) []int64 { return r[:min(len(r), 8)] }

// BenchmarkSelKernel: k < c over 64 K INT rows, kept in runs (k = i %
// 1000 < 100) and at random (half the rows), through the selection a
// one-group aggregate uses (go test ./exec -run XXX -bench SelKernel).
func BenchmarkSelKernel(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, tc := range []struct {
		name string
		k    func(i int) int32
		c    int64
	}{
		{"runs", func(i int) int32 { return int32(i % 1000) }, 100},
		{"random", func(i int) int32 { return int32((uint32(i) * 2654435761) >> 16 % 1000) }, 500},
	} {
		b.Run(tc.name, func(b *testing.B) {
			kb := array.NewInt32Builder(mem)
			for i := range benchBatch {
				kb.Append(tc.k(i))
			}
			col := kb.NewArray()
			kb.Release()
			s := sch("k", expr.Int32T())
			batch := array.NewRecordBatch(s, []arrow.Array{col}, int64(benchBatch))
			col.Release()
			defer batch.Release()
			sel := newSelector(must(expr.Cmp(expr.Lt, expr.Col(0, "k", expr.Int32T()), must(expr.Lit(tc.c, expr.Int64T())))))
			env := &Env{Mem: mem}
			var scratch []int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := sel.selectRows(context.Background(), env, batch, &scratch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchBatch, "ns/row")
		})
	}
}

// TestSelKernelString: VARCHAR column op constant, with NULLs, alone and
// after another conjunct, constant on either side, against Go's string
// order row by row.
func TestSelKernelString(t *testing.T) {
	const n = 2000
	s := sch("s", expr.StringT(), "id", expr.Int64T())
	val := func(i int) string { return fmt.Sprintf("s%02d", i%37) }
	isNull := func(i int) bool { return i%11 == 4 }
	var data [][]any
	for i := range n {
		var v any = val(i)
		if isNull(i) {
			v = nil
		}
		data = append(data, []any{v, int64(i)})
	}
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	b := mkBatch(mem, s, data)
	defer b.Release()
	const konst = "s17"
	lit := must(expr.Lit(konst, expr.StringT()))
	col := expr.Col(0, "s", expr.StringT())
	ops := map[expr.CmpOp]func(a, b string) bool{
		expr.Eq: func(a, b string) bool { return a == b }, expr.NullSafeEq: func(a, b string) bool { return a == b },
		expr.Ne: func(a, b string) bool { return a != b }, expr.Lt: func(a, b string) bool { return a < b },
		expr.Le: func(a, b string) bool { return a <= b }, expr.Gt: func(a, b string) bool { return a > b },
		expr.Ge: func(a, b string) bool { return a >= b },
	}
	for op, test := range ops {
		for _, v := range []struct{ after, flip bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			t.Run(fmt.Sprintf("%s/after=%v/constant-first=%v", op, v.after, v.flip), func(t *testing.T) {
				cmp := must(expr.Cmp(op, col, lit))
				holds := func(x string) bool { return test(x, konst) }
				if v.flip {
					cmp = must(expr.Cmp(op, lit, col))
					holds = func(x string) bool { return test(konst, x) }
				}
				pred := cmp
				if v.after {
					mod := must(expr.Arith(expr.Mod, expr.Col(1, "id", expr.Int64T()), must(expr.Lit(int64(3), expr.Int64T()))))
					pred = must(expr.And(must(expr.Cmp(expr.Ne, mod, must(expr.Lit(int64(0), expr.Int64T())))), cmp))
				}
				sel := newSelector(pred)
				if sel.kern[len(sel.kern)-1] == nil {
					t.Fatalf("%s: no kernel", cmp)
				}
				var scratch []int64
				rows, all, err := sel.selectRows(context.Background(), env, b, &scratch)
				if err != nil {
					t.Fatal(err)
				}
				if all {
					t.Fatal("every row selected")
				}
				var want []int64
				for i := range n {
					if !isNull(i) && !(v.after && i%3 == 0) && holds(val(i)) {
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

// TestSelKernelDecimal: DECIMAL column op constant (and the column cast
// to a wider precision, as Q6's CAST(l_quantity AS DECIMAL(21,2)) <
// 24.00), with NULLs and values beyond int64, alone and after another
// conjunct, constant on either side, selects the rows the predicate's
// own evaluation (CmpExpr.Eval) finds TRUE.
func TestSelKernelDecimal(t *testing.T) {
	typ := &arrow.Decimal128Type{Precision: 25, Scale: 2}
	const n = 3000
	s := sch("c", typ, "id", expr.Int64T())
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	for _, nulls := range []bool{false, true} {
		db := array.NewDecimal128Builder(mem, typ)
		ib := array.NewInt64Builder(mem)
		for i := range n {
			ib.Append(int64(i))
			switch {
			case nulls && i%7 == 3:
				db.AppendNull()
			case i%101 == 5:
				db.Append(decimal128.New(int64(i%3)-1, uint64(i)*977)) // beyond int64, either sign
			case i%211 == 7:
				db.Append(decimal128.FromI64(math.MaxInt64)) // the int64 bounds
			case i%211 == 8:
				db.Append(decimal128.FromI64(math.MinInt64))
			default:
				db.Append(decimal128.FromI64(int64(i%200-100) * 3))
			}
		}
		cols := []arrow.Array{db.NewArray(), ib.NewArray()}
		db.Release()
		ib.Release()
		b := array.NewRecordBatch(s, cols, n)
		releaseArrays(cols)
		col := expr.Col(0, "c", typ)
		casted := must(expr.Cast(col, &arrow.Decimal128Type{Precision: 30, Scale: 2}))
		for _, lit := range []expr.Expr{
			must(expr.Lit(decimal128.FromI64(5), &arrow.Decimal128Type{Precision: 3, Scale: 2})),   // 0.05
			must(expr.Lit(decimal128.FromI64(-30), &arrow.Decimal128Type{Precision: 4, Scale: 2})), // -0.30, a value
			must(expr.Lit(decimal128.FromI64(24), &arrow.Decimal128Type{Precision: 4, Scale: 0})),  // 24, rescaled
			// The int64 bounds (MaxInt64's c+1 is no int64) and past them.
			must(expr.Lit(decimal128.FromI64(math.MaxInt64), &arrow.Decimal128Type{Precision: 25, Scale: 2})),
			must(expr.Lit(decimal128.FromI64(math.MaxInt64-1), &arrow.Decimal128Type{Precision: 25, Scale: 2})),
			must(expr.Lit(decimal128.FromI64(math.MinInt64), &arrow.Decimal128Type{Precision: 25, Scale: 2})),
			must(expr.Lit(decimal128.New(0, 1<<63+5), &arrow.Decimal128Type{Precision: 25, Scale: 2})),
			must(expr.Lit(decimal128.New(-1, 1<<63-5), &arrow.Decimal128Type{Precision: 25, Scale: 2})),
		} {
			for _, op := range []expr.CmpOp{expr.Eq, expr.NullSafeEq, expr.Ne, expr.Lt, expr.Le, expr.Gt, expr.Ge} {
				for _, side := range []expr.Expr{col, casted} {
					for _, v := range []struct{ after, flip bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
						name := fmt.Sprintf("nulls=%v/%s/%s %s/after=%v/flip=%v", nulls, side, op, lit, v.after, v.flip)
						t.Run(name, func(t *testing.T) {
							cmp := must(expr.Cmp(op, side, lit))
							if v.flip {
								cmp = must(expr.Cmp(op, lit, side))
							}
							pred := cmp
							if v.after {
								mod := must(expr.Arith(expr.Mod, expr.Col(1, "id", expr.Int64T()), must(expr.Lit(int64(3), expr.Int64T()))))
								pred = must(expr.And(must(expr.Cmp(expr.Ne, mod, must(expr.Lit(int64(0), expr.Int64T())))), cmp))
							}
							sel := newSelector(pred)
							if sel.kern[len(sel.kern)-1] == nil {
								t.Fatalf("%s: no kernel", cmp)
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
		b.Release()
	}
}
