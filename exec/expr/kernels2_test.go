package expr

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// evalFirst evaluates e (over constants) on a one-row batch and renders
// the row.
func evalFirst(t *testing.T, e Expr) (string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: Int64T()}}, nil)
	rb := array.NewRecordBuilder(mem, sc)
	rb.Field(0).(*array.Int64Builder).Append(1)
	b := rb.NewRecordBatch()
	rb.Release()
	defer b.Release()
	a, err := e.Eval(&Env{Mem: mem}, b)
	if err != nil {
		return "", err
	}
	defer a.Release()
	if a.Len() != 1 || !arrow.TypeEqual(a.DataType(), e.DataType()) {
		t.Fatalf("%s: %d rows of %s", e, a.Len(), a.DataType())
	}
	return render.String(a, 0), nil
}

// TestDecimalDivModKernel holds DECIMAL /, % and DIV to hand-derived
// values: negative operands, scales 0, 2, 18 and 37, division by zero
// (NULL, as Doris), the least BIGINT, and overflow (an error).
func TestDecimalDivModKernel(t *testing.T) {
	d := func(v string, p, s int32) Expr { return MustLit(v, DecimalT(p, s)) }
	ar := func(op ArithOp, l, r Expr) Expr { return must(Arith(op, l, r)) }
	cases := []struct {
		name string
		e    Expr
		want string // "overflow": ErrOverflow
	}{
		{"div exact", ar(Div, d("7.00", 5, 2), d("2", 3, 0)), "3.500000"},
		{"div negative", ar(Div, d("-7.00", 5, 2), d("3", 3, 0)), "-2.333333"},
		{"div rounds half away", ar(Div, d("-2.00", 5, 2), d("3", 3, 0)), "-0.666667"},
		{"div up", ar(Div, d("2.00", 5, 2), d("3", 3, 0)), "0.666667"},
		{"div by negative scale", ar(Div, d("0.5", 2, 1), d("-0.25", 3, 2)), "-2.00000"},
		{"div by zero", ar(Div, d("1", 3, 0), d("0", 3, 0)), "NULL"},
		{"div by zero scaled", ar(Div, d("-1.50", 5, 2), d("0.000", 4, 3)), "NULL"},
		{"div zero by negative", ar(Div, d("0.00", 5, 2), d("-3", 3, 0)), "0.000000"},
		{"div scale 18", ar(Div, d("1.000000000000000000", 20, 18), d("3", 2, 0)), "0.3333333333333333333333"},
		{"div scale 18 negative", ar(Div, d("-2.000000000000000000", 20, 18), d("3", 2, 0)), "-0.6666666666666666666667"},
		{"div by scale 18", ar(Div, d("1", 2, 0), d("0.000000000000000004", 19, 18)), "250000000000000000.0000"},
		{"div overflow", ar(Div, d("10000000000000000000000000000000000000", 38, 0), d("0.1", 2, 1)), "overflow"},
		{"mod negative", ar(Mod, d("-7.50", 5, 2), d("2", 3, 0)), "-1.50"},
		{"mod mixed scales", ar(Mod, d("7.5", 2, 1), d("-2.25", 3, 2)), "0.75"},
		{"mod by zero", ar(Mod, d("5", 3, 0), d("0", 3, 0)), "NULL"},
		{"mod scale 18", ar(Mod, d("1.5", 3, 1), d("0.400000000000000000", 19, 18)), "0.300000000000000000"},
		{"mod scale 37", ar(Mod, d("-1.2345678901234567890123456789012345678", 38, 37), d("0.5000000000000000000000000000000000000", 38, 37)),
			"-0.2345678901234567890123456789012345678"},
		{"mod least bigint by -1", ar(Mod, d("-9223372036854775808", 19, 0), d("-1", 1, 0)), "0"},
		{"mod rescale overflow", ar(Mod, d("99999999999999999999999999999999999999", 38, 0), d("0.01", 3, 2)), "overflow"},
		{"div-int truncates", ar(IntDiv, d("-7.50", 5, 2), d("2", 3, 0)), "-3"},
		{"div-int scales", ar(IntDiv, d("1.5", 2, 1), d("0.25", 3, 2)), "6"},
		{"div-int by zero", ar(IntDiv, d("7", 3, 0), d("0.0", 2, 1)), "NULL"},
		{"div-int least bigint", ar(IntDiv, d("-9223372036854775808", 19, 0), d("1", 1, 0)), "-9223372036854775808"},
		{"div-int 2^63 by -1", ar(IntDiv, d("9223372036854775808", 20, 0), d("-1", 1, 0)), "-9223372036854775808"},
		{"div-int 2^63", ar(IntDiv, d("9223372036854775808", 20, 0), d("1", 1, 0)), "overflow"},
		{"div-int overflow", ar(IntDiv, d("99999999999999999999", 38, 0), d("1", 1, 0)), "overflow"},
		{"div-int scale 37", ar(IntDiv, d("-1.2345678901234567890123456789012345678", 38, 37), d("0.5000000000000000000000000000000000000", 38, 37)), "-2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalFirst(t, tc.e)
			if tc.want == "overflow" {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("%s = %s, %v; want ErrOverflow", tc.e, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%s = %s, %v; want %s", tc.e, got, err, tc.want)
			}
		})
	}
}

// randDecimals is a column of n decimals of type DECIMAL(p, s): every
// 10th NULL, every 7th zero, magnitudes spread over 1 to p digits, both
// signs.
func randDecimals(mem memory.Allocator, rng *rand.Rand, n int, p, s int32) arrow.Array {
	b := array.NewDecimal128Builder(mem, DecimalT(p, s).(*arrow.Decimal128Type))
	defer b.Release()
	for i := 0; i < n; i++ {
		switch {
		case i%10 == 9:
			b.AppendNull()
			continue
		case i%7 == 3:
			b.Append(decimal128.Num{})
			continue
		}
		digits := 1 + rng.Intn(int(p))
		txt := make([]byte, digits)
		for k := range txt {
			txt[k] = byte('0' + rng.Intn(10))
		}
		v, _ := decimal128.FromString(string(txt), p, 0)
		if rng.Intn(2) == 0 {
			v = v.Negate()
		}
		b.Append(v)
	}
	return b.NewArray()
}

// TestDecimalDivModMatchesRowwise runs /, % and DIV over random decimal
// columns of many scale pairs through the typed loop and the row-wise
// reference (decimalRowwise), row by row, errors included.
func TestDecimalDivModMatchesRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(14))
	types := [][2]int32{{5, 0}, {10, 2}, {18, 2}, {19, 4}, {20, 18}, {38, 0}, {38, 10}, {38, 37}, {9, 9}}
	const n = 4000
	for _, lt := range types {
		for _, rt := range types {
			x := randDecimals(mem, rng, n, lt[0], lt[1])
			y := randDecimals(mem, rng, n, rt[0], rt[1])
			sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: x.DataType()}, {Name: "y", Type: y.DataType()}}, nil)
			batch := array.NewRecordBatch(sc, []arrow.Array{x, y}, n)
			x.Release()
			y.Release()
			cx, cy := Col(0, "x", x.DataType()), Col(1, "y", y.DataType())
			for _, op := range []ArithOp{Div, Mod, IntDiv} {
				e, err := Arith(op, cx, cy)
				if err != nil {
					continue // a result scale beyond 38
				}
				ae := e.(*ArithExpr)
				// Row by row, so one overflowing row does not hide the rest.
				for lo := 0; lo < n; lo += 500 {
					sub := batch.NewSlice(int64(lo), int64(lo+500))
					compareDivMod(t, mem, ae, sub, fmt.Sprintf("%s %s rows %d…", TypeName(x.DataType()), TypeName(y.DataType()), lo))
					sub.Release()
				}
			}
			batch.Release()
		}
	}
}

func compareDivMod(t *testing.T, mem memory.Allocator, ae *ArithExpr, batch arrow.RecordBatch, where string) {
	t.Helper()
	env := &Env{Mem: mem}
	x, y := batch.Column(0).(*array.Decimal128), batch.Column(1).(*array.Decimal128)
	got, err1 := ae.Eval(env, batch)
	want, err2 := ae.decimalRowwise(env, x, y, bothValid(x, y))
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
		t.Fatalf("%s %s: typed err %v, row-wise err %v", ae, where, err1, err2)
	}
	if err1 != nil {
		return
	}
	defer got.Release()
	defer want.Release()
	for i := 0; i < got.Len(); i++ {
		if g, w := render.String(got, i), render.String(want, i); g != w {
			t.Fatalf("%s %s row %d (%s, %s): typed %s, row-wise %s", ae, where, i, render.String(x, i), render.String(y, i), g, w)
		}
	}
}

// FuzzDecimalDivMod compares the typed DECIMAL /, % and DIV with the
// row-wise reference on arbitrary operands and scales (values beyond
// int64 made by a shift).
func FuzzDecimalDivMod(f *testing.F) {
	f.Add(int64(-750), int64(200), uint8(2), uint8(0), uint8(0))
	f.Add(int64(math.MinInt64), int64(-1), uint8(0), uint8(0), uint8(0))
	f.Add(int64(1), int64(3), uint8(18), uint8(0), uint8(20))
	f.Add(int64(5), int64(0), uint8(37), uint8(37), uint8(1))
	f.Fuzz(func(t *testing.T, a, b int64, s1, s2, shift uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		sc1, sc2 := int32(s1%39), int32(s2%39)
		x := decimal128.FromI64(a)
		if shift%3 == 2 {
			x, _ = scaleUp(x, int32(shift%20)) // a value wider than int64
		}
		y := decimal128.FromI64(b)
		p1, p2 := max(sc1, 19), max(sc2, 19)
		if shift%3 == 2 {
			p1 = 38
		}
		if !x.FitsInPrecision(p1) {
			return
		}
		lt, rt := DecimalT(p1, sc1), DecimalT(p2, sc2)
		xa := arrayOf(mem, lt, x, nil, x)
		ya := arrayOf(mem, rt, y, y, decimal128.Num{})
		sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: lt}, {Name: "y", Type: rt}}, nil)
		batch := array.NewRecordBatch(sc, []arrow.Array{xa, ya}, 3)
		xa.Release()
		ya.Release()
		defer batch.Release()
		for _, op := range []ArithOp{Div, Mod, IntDiv} {
			e, err := Arith(op, Col(0, "x", lt), Col(1, "y", rt))
			if err != nil {
				continue
			}
			compareDivMod(t, mem, e.(*ArithExpr), batch, "")
		}
	})
}
