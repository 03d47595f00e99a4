package expr

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/render"
)

// TestDecimalAddMulFastMatchesRowwise runs +, - and * over random decimal
// columns of many precision/scale pairs, and against constants, through
// the int64-lane path (decimalFast) and the row-wise big.Int reference
// (decimalRowwise), row by row, errors included: values of up to 38 digits
// cross the int64 lane's limits in both directions.
func TestDecimalAddMulFastMatchesRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(23))
	types := [][2]int32{{1, 0}, {5, 0}, {15, 2}, {16, 2}, {18, 2}, {19, 4}, {20, 18}, {31, 4}, {38, 0}, {38, 10}, {9, 9}}
	const n = 2000
	consts := []string{"1", "-1", "0.06", "99999999999999999.99", "12345678901234567890123456.5"}
	for _, lt := range types {
		for _, rt := range types {
			x := randDecimals(mem, rng, n, lt[0], lt[1])
			y := randDecimals(mem, rng, n, rt[0], rt[1])
			sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: x.DataType()}, {Name: "y", Type: y.DataType()}}, nil)
			batch := array.NewRecordBatch(sc, []arrow.Array{x, y}, n)
			x.Release()
			y.Release()
			cx, cy := Col(0, "x", x.DataType()), Col(1, "y", y.DataType())
			for _, op := range []ArithOp{Add, Sub, Mul} {
				pairs := [][2]Expr{{cx, cy}}
				for _, c := range consts {
					v, err := decimal128.FromString(c, rt[0], rt[1])
					if err != nil || !v.FitsInPrecision(rt[0]) {
						continue
					}
					lit := &Literal{Value: v, Type: DecimalT(rt[0], rt[1])}
					pairs = append(pairs, [2]Expr{cx, lit}, [2]Expr{lit, cx})
				}
				for _, p := range pairs {
					e, err := Arith(op, p[0], p[1])
					if err != nil {
						continue // a result scale beyond 38
					}
					ae := e.(*ArithExpr)
					for lo := 0; lo < n; lo += 250 {
						sub := batch.NewSlice(int64(lo), int64(lo+250))
						compareFast(t, mem, ae, sub, fmt.Sprintf("%s %s rows %d…", TypeName(x.DataType()), TypeName(y.DataType()), lo))
						sub.Release()
					}
				}
			}
			batch.Release()
		}
	}
}

// compareFast evaluates ae through Eval (the fast path when it applies)
// and through decimalRowwise over the same operand arrays.
func compareFast(t *testing.T, mem memory.Allocator, ae *ArithExpr, batch arrow.RecordBatch, where string) {
	t.Helper()
	env := &Env{Mem: mem}
	operand := func(e Expr) arrow.Array {
		a, err := e.Eval(env, batch)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	xa, ya := operand(ae.L), operand(ae.R)
	defer xa.Release()
	defer ya.Release()
	x, y := xa.(*array.Decimal128), ya.(*array.Decimal128)
	got, err1 := ae.Eval(env, batch)
	want, err2 := ae.decimalRowwise(env, x, y, bothValid(x, y))
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
		t.Fatalf("%s %s: fast err %v, row-wise err %v", ae, where, err1, err2)
	}
	if err1 != nil {
		return
	}
	defer got.Release()
	defer want.Release()
	if got.NullN() != want.NullN() {
		t.Fatalf("%s %s: %d NULLs, row-wise %d", ae, where, got.NullN(), want.NullN())
	}
	for i := 0; i < got.Len(); i++ {
		if g, w := render.String(got, i), render.String(want, i); g != w {
			t.Fatalf("%s %s row %d (%s, %s): fast %s, row-wise %s", ae, where, i, render.String(x, i), render.String(y, i), g, w)
		}
	}
}
