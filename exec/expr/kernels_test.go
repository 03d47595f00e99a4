package expr

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// kernelBatch: six rows exercising the typed kernels' edge cases: NULLs
// in every column, empty strings, the least BIGINT, negative decimals of
// scales 2 and 4.
//
//	s      t      n                        i         f       d (10,2)      e (12,4)   u
//	'abc'  'abc'  '42'                     5         -2.5    -1.50         -1.5000    'Ärger'
//	''     'a'    ' -7 '                   -7        0       0.00          0.0001     ''
//	'ABD'  ''     '3.9'                    MIN       NULL    12.34         -12.3400   'straße'
//	NULL   'x'    'x1'                     NULL      3.25    NULL          5.0000     NULL
//	'ab'   NULL   NULL                     0         -0.125  -0.05         NULL       'a\xffb'
//	'-12'  'b'    '-9223372036854775808'   123       1234.5  -99999999.99  -0.0550    'xyz'
func kernelBatch(mem memory.Allocator) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: StringT()}, {Name: "t", Type: StringT()}, {Name: "n", Type: StringT()},
		{Name: "i", Type: Int64T()}, {Name: "f", Type: Float64T()},
		{Name: "d", Type: DecimalT(10, 2)}, {Name: "e", Type: DecimalT(12, 4)}, {Name: "u", Type: StringT()},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	d := func(s string) any { return MustLit(s, DecimalT(10, 2)).Value }
	e := func(s string) any { return MustLit(s, DecimalT(12, 4)).Value }
	rows := [][]any{
		{"abc", "abc", "42", int64(5), -2.5, d("-1.50"), e("-1.5000"), "Ärger"},
		{"", "a", " -7 ", int64(-7), 0.0, d("0.00"), e("0.0001"), ""},
		{"ABD", "", "3.9", int64(math.MinInt64), nil, d("12.34"), e("-12.3400"), "straße"},
		{nil, "x", "x1", nil, 3.25, nil, e("5.0000"), nil},
		{"ab", nil, nil, int64(0), -0.125, d("-0.05"), nil, "a\xffb"},
		{"-12", "b", "-9223372036854775808", int64(123), 1234.5, d("-99999999.99"), e("-0.0550"), "xyz"},
	}
	for _, r := range rows {
		for i, v := range r {
			Appender(b.Field(i))(v)
		}
	}
	return b.NewRecordBatch()
}

func evalKernel(t *testing.T, e Expr) (string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := kernelBatch(mem)
	defer b.Release()
	env := &Env{Mem: mem, Now: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
	a, err := e.Eval(env, b)
	if err != nil {
		return "", err
	}
	defer a.Release()
	if a.Len() != int(b.NumRows()) || !arrow.TypeEqual(a.DataType(), e.DataType()) {
		t.Fatalf("%s: %d rows of %s, want %d of %s", e, a.Len(), a.DataType(), b.NumRows(), e.DataType())
	}
	parts := make([]string, a.Len())
	for i := range parts {
		parts[i] = render.String(a, i)
	}
	return strings.Join(parts, ","), nil
}

// TestTypedKernels holds each typed loop to values derived by hand.
func TestTypedKernels(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := kernelBatch(mem)
	c := cols(b)
	b.Release()
	s, tt, n, i, f, d, e, u := c["s"], c["t"], c["n"], c["i"], c["f"], c["d"], c["e"], c["u"]
	lit := func(v any, t arrow.DataType) Expr { return MustLit(v, t) }
	str := func(v string) Expr { return lit(v, StringT()) }
	cm := func(op CmpOp, l, r Expr) Expr { return must(Cmp(op, l, r)) }
	ar := func(op ArithOp, l, r Expr) Expr { return must(Arith(op, l, r)) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	cast := func(x Expr, t arrow.DataType) Expr { return must(Cast(x, t)) }
	in := func(x Expr, not bool, vs ...Expr) Expr { return must(In(x, vs, not)) }
	when := func(c, v Expr) When { return When{Cond: c, Then: v} }
	big := lit("12345678901234567890.1234567890", DecimalT(38, 10))
	cases := []struct {
		name string
		e    Expr
		want string
	}{
		{"string=const", cm(Eq, s, str("abc")), "1,0,0,NULL,0,0"},
		{"string<const", cm(Lt, s, str("ab")), "0,1,1,NULL,0,1"},
		{"string>=empty", cm(Ge, s, str("")), "1,1,1,NULL,1,1"},
		{"string=empty", cm(Eq, s, str("")), "0,1,0,NULL,0,0"},
		{"string!=string", cm(Ne, s, tt), "0,1,1,NULL,NULL,1"},
		{"string>string", cm(Gt, s, tt), "0,0,1,NULL,NULL,0"},
		{"string<=>string", cm(NullSafeEq, s, tt), "1,0,0,0,0,0"},
		{"decimal>int", cm(Gt, d, lit(0, Int64T())), "0,0,1,NULL,0,0"},
		{"decimal<=const", cm(Le, d, lit("-0.05", DecimalT(3, 2))), "1,0,0,NULL,1,1"},
		{"decimal<decimal", cm(Lt, d, e), "0,1,0,NULL,NULL,1"},
		{"decimal=decimal", cm(Eq, d, e), "1,0,0,NULL,NULL,0"},
		{"decimal+decimal", ar(Add, d, e), "-3.0000,0.0001,0.0000,NULL,NULL,-100000000.0450"},
		{"decimal-decimal", ar(Sub, d, e), "0.0000,-0.0001,24.6800,NULL,NULL,-99999999.9350"},
		{"decimal*decimal", ar(Mul, d, e), "2.250000,0.000000,-152.275600,NULL,NULL,5499999.999450"},
		{"decimal*wide", ar(Mul, e, big), "-18518518351851851835.18518518350000,1234567890123456.78901234567890," +
			"-152345677641234567764.12345677626000,61728394506172839450.61728394500000,NULL,-679012339567901233.95679012339500"},
		{"abs(bigint)", fn("abs", i), "5,7,NULL,NULL,0,123"},
		{"abs(double)", fn("abs", f), "2.5,0,NULL,3.25,0.125,1234.5"},
		{"abs(decimal)", fn("abs", d), "1.50,0.00,12.34,NULL,0.05,99999999.99"},
		{"sqrt", fn("sqrt", f), "NULL,0,NULL,1.8027756377319946,NULL,35.13545218152173"},
		{"ln domain", IsNull(fn("ln", f), false), "1,1,1,0,1,0"},
		{"log2 exact", cm(Eq, fn("log2", fn("abs", f)), lit(-3, Int64T())), "0,NULL,NULL,0,1,0"},
		{"coalesce(double,int)", must(Coalesce(f, lit(7, Int64T()))), "-2.5,0,7,3.25,-0.125,1234.5"},
		{"coalesce(string)", must(Coalesce(tt, s, str("z"))), "abc,a,,x,ab,b"},
		{"coalesce(decimal)", must(Coalesce(e, d)), "-1.5000,0.0001,-12.3400,5.0000,-0.0500,-0.0550"},
		{"coalesce(all null)", must(Coalesce(i, i)), "5,-7,-9223372036854775808,NULL,0,123"},
		{"case int", must(Case(nil, []When{when(cm(Gt, i, lit(0, Int64T())), i)}, lit(-1, Int64T()))), "5,-1,-1,-1,-1,123"},
		{"case double no else", must(Case(nil, []When{when(cm(Lt, f, lit(0, Int64T())), f)}, nil)), "-2.5,NULL,NULL,NULL,-0.125,NULL"},
		{"case decimal", must(Case(nil, []When{when(cm(Lt, d, lit(0, Int64T())), e)}, d)), "-1.5000,0.0000,12.3400,NULL,NULL,-0.0550"},
		{"in int", in(i, false, lit(5, Int64T()), lit(0, Int64T()), lit(-1, Int64T())), "1,0,0,NULL,1,0"},
		{"not in int with null", in(i, true, lit(5, Int64T()), Null(NullT())), "0,NULL,NULL,NULL,NULL,NULL"},
		{"in string", in(s, false, str(""), str("ab"), str("zz")), "0,1,0,NULL,1,0"},
		{"not in string", in(s, true, str(""), str("ab")), "1,0,1,NULL,0,1"},
		{"upper ascii", fn("upper", s), "ABC,,ABD,NULL,AB,-12"},
		{"lower ascii", fn("lcase", s), "abc,,abd,NULL,ab,-12"},
		{"upper utf8", fn("upper", u), "ÄRGER,,STRAßE,NULL,A\uFFFDB,XYZ"},
		{"lower utf8", fn("lower", u), "ärger,,straße,NULL,a\uFFFDb,xyz"},
		{"length", fn("length", u), "6,0,7,NULL,3,3"},
		{"substring utf8", fn("substring", u, lit(2, Int64T()), lit(3, Int64T())), "rge,,tra,NULL,\uFFFDb,yz"},
		{"substring from end", fn("substr", s, lit(-2, Int64T())), "bc,,BD,NULL,ab,12"},
		{"substring pos 0", fn("mid", s, lit(0, Int64T()), lit(1, Int64T())), ",,,NULL,,"},
		{"substring negative len", fn("substring", s, lit(2, Int64T()), lit(-1, Int64T())), ",,,NULL,,"},
		{"substring pos column", fn("substring", s, i), ",,,NULL,,"},
		{"substring utf8 least bigint", fn("substring", u, i), "r,,,NULL,,"},
		{"substring longest len", fn("substring", s, lit(2, Int64T()), lit(int64(math.MaxInt64), Int64T())), "bc,,BD,NULL,b,12"},
		{"substring utf8 longest len", fn("substring", u, lit(2, Int64T()), lit(int64(math.MaxInt64), Int64T())), "rger,,traße,NULL,\uFFFDb,yz"},
		{"substring len column", fn("substring", tt, lit(1, Int64T()), i), "abc,,,NULL,NULL,b"},
		{"concat", fn("concat", s, str("-"), tt), "abc-abc,-a,ABD-,NULL,NULL,-12-b"},
		{"concat one", fn("concat", u), "Ärger,,straße,NULL,a\xffb,xyz"},
		{"bigint->string", cast(i, StringT()), "5,-7,-9223372036854775808,NULL,0,123"},
		{"string->bigint", cast(n, Int64T()), "42,-7,3,NULL,NULL,-9223372036854775808"},
		{"decimal->double", cast(d, Float64T()), "-1.5,0,12.34,NULL,-0.05,-99999999.99"},
		{"decimal->double wide", cast(ar(Mul, e, big), Float64T()), "-1.851851835185185e+19,1234567890123456.8," +
			"-1.5234567764123458e+20,6.172839450617284e+19,NULL,-6.790123395679012e+17"},
		{"decimal rescale down", cast(e, DecimalT(5, 1)), "-1.5,0.0,-12.3,5.0,NULL,-0.1"},
		{"decimal rescale overflow", cast(e, DecimalT(2, 1)), "-1.5,0.0,NULL,5.0,NULL,-0.1"},
		{"decimal rescale up", cast(d, DecimalT(12, 4)), "-1.5000,0.0000,12.3400,NULL,-0.0500,-99999999.9900"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalKernel(t, tc.e)
			if err != nil {
				t.Fatalf("%s: %v", tc.e, err)
			}
			if got != tc.want {
				t.Errorf("%s\n got  %s\n want %s", tc.e, got, tc.want)
			}
		})
	}
	// Results beyond DECIMAL(38) are errors, never a wrong value or a
	// panic: rescaling 10^38-1 to scale 4 exceeds 128 bits, which
	// arrow-go's IncreaseScaleBy panics on.
	huge := lit("99999999999999999999999999999999999999", DecimalT(38, 0))
	for _, x := range []Expr{ar(Mul, e, huge), ar(Add, huge, e), ar(Sub, e, huge), ar(Mod, huge, e)} {
		if _, err := evalKernel(t, x); !errors.Is(err, ErrOverflow) {
			t.Errorf("%s: err %v, want ErrOverflow", x, err)
		}
	}
	// A cast that does not fit is NULL, also beyond 128 bits (where
	// IncreaseScaleBy panics).
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{cast(cast(e, DecimalT(38, 0)), DecimalT(38, 37)), "-2.0000000000000000000000000000000000000,0.0000000000000000000000000000000000000,NULL,5.0000000000000000000000000000000000000,NULL,0.0000000000000000000000000000000000000"},
		{cast(i, DecimalT(38, 30)), "5.000000000000000000000000000000,-7.000000000000000000000000000000,NULL,NULL,0.000000000000000000000000000000,123.000000000000000000000000000000"},
	} {
		got, err := evalKernel(t, c.e)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.e, got, c.want)
		}
	}
}

// TestKernelsAllocationFree holds the typed paths to a bounded number of
// allocations per 64K-row batch: the row-wise paths they replace made one
// or more per row (boxed values), which this catches.
func TestKernelsAllocationFree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64K-row batch")
	}
	mem := memory.NewGoAllocator()
	batch := benchBatch(mem)
	defer batch.Release()
	c := cols(batch)
	lit := func(v any, t arrow.DataType) Expr { return MustLit(v, t) }
	cm := func(op CmpOp, l, r Expr) Expr { return must(Cmp(op, l, r)) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	gt0 := cm(Gt, c["n"], lit(0, Int64T()))
	exprs := []Expr{
		cm(Eq, c["s"], lit("k42", StringT())),
		cm(Lt, c["s"], c["ns"]),
		cm(Gt, c["d"], lit("12.34", DecimalT(18, 2))),
		cm(Lt, c["d"], c["e"]),
		must(Arith(Add, c["d"], c["e"])),
		must(Arith(Mul, c["d"], c["e"])),
		must(In(c["s"], []Expr{lit("k1", StringT()), lit("k7", StringT())}, false)),
		must(In(c["n"], []Expr{lit(1, Int64T()), lit(7, Int64T())}, true)),
		fn("abs", c["n"]), fn("abs", c["f"]), fn("abs", c["d"]),
		must(Coalesce(c["n"], c["i"])), must(Coalesce(c["s"], c["ns"])),
		must(Case(nil, []When{{Cond: gt0, Then: c["f"]}}, lit(0, Float64T()))),
		must(Cast(c["n"], StringT())), must(Cast(c["ns"], Int64T())), must(Cast(c["d"], Float64T())),
		fn("upper", c["s"]), fn("length", c["s"]), fn("substring", c["s"], lit(2, Int64T()), lit(2, Int64T())),
		fn("concat", c["s"], lit("-", StringT()), c["ns"]),
		must(Arith(Div, c["d"], c["e"])), must(Arith(Mod, c["d"], c["e"])), must(Arith(IntDiv, c["d"], c["e"])),
		must(Cast(c["ds"], Date32T())), must(Cast(c["dts"], DatetimeT())), must(Cast(c["dt"], DatetimeT())),
		must(Cast(c["ts"], Date32T())), must(Cast(c["ts"], &arrow.TimestampType{Unit: arrow.Second})),
		must(Cast(c["dt"], StringT())), must(Cast(c["ts"], StringT())), must(Cast(c["ymd"], Date32T())),
		fn("upper", c["u"]), fn("substring", c["u"], lit(2, Int64T()), lit(2, Int64T())), fn("char_length", c["u"]),
		fn("replace", c["s"], lit("k", StringT()), lit("key-", StringT())), fn("trim", c["p"]),
		fn("lpad", c["u"], lit(8, Int64T()), lit("é", StringT())), fn("locate", lit("ß", StringT()), c["u"]),
		fn("reverse", c["u"]), fn("repeat", c["s"], lit(3, Int64T())), fn("left", c["u"], lit(2, Int64T())),
		fn("right", c["u"], lit(2, Int64T())), fn("concat_ws", lit(",", StringT()), c["s"], c["u"]),
		fn("split_part", c["u"], lit("9", StringT()), lit(1, Int64T())), fn("starts_with", c["s"], lit("k9", StringT())),
		must(Case(nil, []When{{Cond: gt0, Then: c["s"]}}, lit("neg", StringT()))),
		must(Case(nil, []When{{Cond: gt0, Then: c["dt"]}}, nil)),
		cm(Lt, c["q"], must(Cast(lit(5, Int64T()), Int32T()))),
		fn("year", c["dt"]), fn("hour", c["ts"]), fn("datediff", c["dt"], c["dt"]),
		fn("date_add", c["dt"], lit(1, Int64T())), fn("months_add", c["ts"], lit(13, Int64T())),
		must(In(c["dt"], []Expr{lit("2000-01-01", Date32T())}, false)), must(In(c["f"], []Expr{lit(0.25, Float64T())}, false)),
		must(In(c["d"], []Expr{lit("1.01", DecimalT(18, 2))}, true)),
	}
	env := &Env{Mem: mem}
	for _, e := range exprs {
		allocs := testing.AllocsPerRun(3, func() {
			out, err := e.Eval(env, batch)
			if err != nil {
				t.Fatal(err)
			}
			out.Release()
		})
		if allocs > 300 {
			t.Errorf("%s: %.0f allocations per %d-row batch, want a bounded few", e, allocs, benchRows)
		}
	}
}

// TestDecimal128Fast checks the big.Int-free decimal steps against
// arrow-go's big.Int-based ones and math/big, on edge values of both
// signs: rounding halves, int64 limits, values wider than int64.
func TestDecimal128Fast(t *testing.T) {
	wide := decimal128.FromBigInt(new(big.Int).Lsh(big.NewInt(3), 80))
	vals := []decimal128.Num{
		decimal128.FromI64(0), decimal128.FromI64(1), decimal128.FromI64(-1),
		decimal128.FromI64(5), decimal128.FromI64(-5), decimal128.FromI64(149), decimal128.FromI64(-150),
		decimal128.FromI64(12345), decimal128.FromI64(-12345), decimal128.FromI64(999999999999999999),
		decimal128.FromI64(math.MaxInt64), decimal128.FromI64(math.MinInt64), wide, wide.Negate(),
	}
	for _, v := range vals {
		for k := int32(0); k <= 20; k++ {
			want := new(big.Int).Mul(v.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
			got, ok := scaleUp(v, k)
			if ok != (want.BitLen() <= 127) || ok && got.BigInt().Cmp(want) != 0 {
				t.Errorf("scaleUp(%s, %d) = %s, %v; want %s", v.BigInt(), k, got.BigInt(), ok, want)
			}
			if got, want := scaleDown(v, k), v.ReduceScaleBy(k, true); got != want {
				t.Errorf("scaleDown(%s, %d) = %s, want %s", v.BigInt(), k, got.BigInt(), want.BigInt())
			}
		}
		for _, w := range vals {
			want := new(big.Int).Mul(v.BigInt(), w.BigInt())
			got, ok := mulDecimal(v, w)
			if !ok {
				if want.BitLen() <= 126 && v.BigInt().IsInt64() && w.BigInt().IsInt64() {
					t.Errorf("mulDecimal(%s, %s) declined a product of %d bits", v.BigInt(), w.BigInt(), want.BitLen())
				}
				continue
			}
			if got.BigInt().Cmp(want) != 0 {
				t.Errorf("mulDecimal(%s, %s) = %s, want %s", v.BigInt(), w.BigInt(), got.BigInt(), want)
			}
		}
	}
	// Scale halves round away from zero.
	for _, c := range []struct{ v, k, want int64 }{{15, 1, 2}, {-15, 1, -2}, {14, 1, 1}, {-14, 1, -1}, {-5, 1, -1}, {4, 1, 0}, {-4999, 4, 0}, {-5000, 4, -1}} {
		if got := scaleDown(decimal128.FromI64(c.v), int32(c.k)); got != decimal128.FromI64(c.want) {
			t.Errorf("scaleDown(%d, %d) = %s, want %d", c.v, c.k, got.BigInt(), c.want)
		}
	}
	// The fast double conversion equals the text parse.
	for _, v := range vals {
		for s := int32(0); s <= 22; s++ {
			if got, want := decimalFloat(v, s), decimalToFloat(v, s); got != want {
				t.Errorf("decimalFloat(%s, %d) = %v, want %v", v.BigInt(), s, got, want)
			}
		}
	}
}

// TestTypedCompareMatchesRowwise checks every operator of the typed string
// and decimal comparisons against the row-wise ordering (compareValues,
// which they replace) on 64K rows with NULLs, row by row.
func TestTypedCompareMatchesRowwise(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64K-row batch")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := benchBatch(mem)
	defer batch.Release()
	c := cols(batch)
	env := &Env{Mem: mem}
	pairs := [][2]Expr{
		{c["s"], c["ns"]}, {c["ns"], MustLit("-1", StringT())}, {c["s"], MustLit("", StringT())},
		{c["d"], c["e"]}, {c["e"], MustLit("-3.125", DecimalT(10, 3))},
	}
	for _, p := range pairs {
		for op := Eq; op <= NullSafeEq; op++ {
			e := must(Cmp(op, p[0], p[1]))
			got, err := e.Eval(env, batch)
			if err != nil {
				t.Fatal(err)
			}
			ce := e.(*CmpExpr)
			la, _ := ce.L.Eval(env, batch)
			ra, _ := ce.R.Eval(env, batch)
			gl, gr := Getter(la), Getter(ra)
			ga := got.(*array.Boolean)
			for i := 0; i < ga.Len(); i++ {
				l, r := gl(i), gr(i)
				var want any
				switch {
				case op == NullSafeEq && (l == nil || r == nil):
					want = l == nil && r == nil
				case l == nil || r == nil:
					want = nil
				default:
					want = holds(op, compareValues(l, r, la.DataType()))
				}
				var have any
				if ga.IsValid(i) {
					have = ga.Value(i)
				}
				if have != want {
					t.Fatalf("%s row %d (%v, %v): got %v, want %v", e, i, l, r, have, want)
				}
			}
			la.Release()
			ra.Release()
			got.Release()
		}
	}
}

// FuzzStringKernels compares the typed string loops (every function
// stringExprs lists) with the row-wise functions they stand in for (the
// same rowFunc with its kernel removed) on arbitrary text, valid UTF-8 or
// not, and arbitrary positions and lengths.
func FuzzStringKernels(f *testing.F) {
	f.Add("abc", "", int64(2), int64(1))
	f.Add("Ärger", "x", int64(-2), int64(5))
	f.Add("a\xffb", "\xc3", int64(math.MinInt64), int64(-1))
	f.Add("", "ß", int64(0), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, a, b string, pos, l int64) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: StringT()}, {Name: "b", Type: StringT()}}, nil)
		rb := array.NewRecordBuilder(mem, sc)
		for _, r := range [][2]any{{a, b}, {b, a}, {nil, a}, {a, nil}} {
			Appender(rb.Field(0))(r[0])
			Appender(rb.Field(1))(r[1])
		}
		batch := rb.NewRecordBatch()
		rb.Release()
		defer batch.Release()
		ca, cb := Col(0, "a", StringT()), Col(1, "b", StringT())
		exprs := stringExprs(ca, cb, pos, l)
		env := &Env{Mem: mem}
		for _, e := range exprs {
			slow := *e.(*rowFunc)
			slow.vec = nil
			got, err1 := e.Eval(env, batch)
			want, err2 := slow.Eval(env, batch)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("%s: typed err %v, row-wise err %v", e, err1, err2)
			}
			if err1 != nil {
				continue
			}
			for i := 0; i < got.Len(); i++ {
				if g, w := render.String(got, i), render.String(want, i); g != w || got.IsNull(i) != want.IsNull(i) {
					t.Fatalf("%s row %d: typed %q, row-wise %q", e, i, g, w)
				}
			}
			got.Release()
			want.Release()
		}
	})
}
