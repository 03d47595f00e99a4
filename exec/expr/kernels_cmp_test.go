package expr

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// TestNarrowCompareKernel: comparisons on INT, SMALLINT, TINYINT,
// unsigned, FLOAT and BOOLEAN columns, hand-derived, NULLs and range
// ends included.
func TestNarrowCompareKernel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	i32 := arrayOf(mem, Int32T(), int64(math.MinInt32), int64(-1), nil, int64(0), int64(math.MaxInt32))
	i8 := arrayOf(mem, arrow.PrimitiveTypes.Int8, int64(-128), int64(-1), nil, int64(0), int64(127))
	u16 := arrayOf(mem, arrow.PrimitiveTypes.Uint16, int64(0), int64(1), nil, int64(300), int64(65535))
	f32 := arrayOf(mem, arrow.PrimitiveTypes.Float32, -1.5, float64(float32(0.1)), nil, 0.0, 3.25)
	bl := arrayOf(mem, BoolT(), true, false, nil, false, true)
	sc := arrow.NewSchema([]arrow.Field{{Name: "i32", Type: Int32T()}, {Name: "i8", Type: i8.DataType()},
		{Name: "u16", Type: u16.DataType()}, {Name: "f32", Type: f32.DataType()}, {Name: "b", Type: BoolT()}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{i32, i8, u16, f32, bl}, 5)
	for _, a := range []arrow.Array{i32, i8, u16, f32, bl} {
		a.Release()
	}
	defer batch.Release()
	c := cols(batch)
	lit := func(v any, t arrow.DataType) Expr { return must(Cast(MustLit(v, Int64T()), t)) }
	cases := []struct {
		e    Expr
		want string
	}{
		{must(Cmp(Lt, c["i32"], lit(0, Int32T()))), "1,1,NULL,0,0"},
		{must(Cmp(Ge, c["i32"], lit(int64(math.MaxInt32), Int32T()))), "0,0,NULL,0,1"},
		{must(Cmp(Eq, c["i8"], lit(-128, arrow.PrimitiveTypes.Int8))), "1,0,NULL,0,0"},
		{must(Cmp(Gt, c["u16"], lit(299, arrow.PrimitiveTypes.Uint16))), "0,0,NULL,1,1"},
		{must(Cmp(Ne, c["i32"], c["i32"])), "0,0,NULL,0,0"},
		{must(Cmp(NullSafeEq, c["i8"], c["i8"])), "1,1,1,1,1"},
		{must(Cmp(Le, c["f32"], must(Cast(MustLit(0.1, Float64T()), arrow.PrimitiveTypes.Float32)))), "1,1,NULL,1,0"},
		{must(Cmp(Gt, c["b"], MustLit(false, BoolT()))), "1,0,NULL,0,1"},
		{must(Cmp(Lt, c["b"], must(Not(c["b"])))), "0,1,NULL,1,0"},
	}
	for _, tc := range cases {
		a, err := tc.e.Eval(&Env{Mem: mem}, batch)
		if err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		if got := renderAll(a); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.e, got, tc.want)
		}
		a.Release()
	}
}

// TestNarrowCompareMatchesRowwise checks every operator on narrow
// integer, FLOAT and BOOLEAN columns against compareValues row by row.
func TestNarrowCompareMatchesRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(14))
	types := []arrow.DataType{Int32T(), arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8,
		arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Float32, BoolT()}
	const n = 5000
	for _, typ := range types {
		gen := func() []any {
			out := make([]any, n)
			for i := range out {
				if i%9 == 4 {
					continue
				}
				switch {
				case typ.ID() == arrow.BOOL:
					out[i] = rng.Intn(2) == 0
				case typ.ID() == arrow.FLOAT32:
					out[i] = float64(float32(rng.NormFloat64() * 100))
				default:
					lo, hi := intRange(typ)
					out[i] = lo + rng.Int63n(min(hi-lo, 1<<40)+1)
					if rng.Intn(5) == 0 {
						out[i] = []int64{lo, hi, 0}[rng.Intn(3)]
					}
				}
			}
			return out
		}
		x, y := arrayOf(mem, typ, gen()...), arrayOf(mem, typ, gen()...)
		sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ}, {Name: "y", Type: typ}}, nil)
		batch := array.NewRecordBatch(sc, []arrow.Array{x, y}, n)
		x.Release()
		y.Release()
		cx, cy := Col(0, "x", typ), Col(1, "y", typ)
		gy := Getter(batch.Column(1))
		konst := &Literal{Value: gy(0), Type: typ}
		for op := Eq; op <= NullSafeEq; op++ {
			for _, r := range []Expr{cy, konst} {
				e := &CmpExpr{Op: op, L: cx, R: r} // Cmp would widen the constant's type
				got, err := e.Eval(&Env{Mem: mem}, batch)
				if err != nil {
					t.Fatal(err)
				}
				gl := Getter(batch.Column(0))
				ga := got.(*array.Boolean)
				for i := 0; i < n; i++ {
					l, rv := gl(i), konst.Value
					if r == cy {
						rv = gy(i)
					}
					var want any
					switch {
					case op == NullSafeEq && (l == nil || rv == nil):
						want = l == nil && rv == nil
					case l == nil || rv == nil:
					default:
						want = holds(op, compareValues(l, rv, typ))
					}
					var have any
					if ga.IsValid(i) {
						have = ga.Value(i)
					}
					if have != want {
						t.Fatalf("%s %s row %d (%v, %v): got %v, want %v", typ, e, i, l, rv, have, want)
					}
				}
				got.Release()
			}
		}
		batch.Release()
	}
}

// TestCaseAssemblyMatchesRowwise: CASE over STRING, DATE, DATETIME, INT
// and BOOLEAN results assembled by the typed loops equals the value by
// value assembly, NULL arms and missing ELSE included.
func TestCaseAssemblyMatchesRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := benchBatch(mem)
	defer batch.Release()
	c := cols(batch)
	gt0 := must(Cmp(Gt, c["n"], MustLit(0, Int64T())))
	lt9 := must(Cmp(Lt, c["i"], MustLit(-9000, Int64T())))
	w := func(cond, then Expr) When { return When{Cond: cond, Then: then} }
	exprs := []Expr{
		must(Case(nil, []When{w(gt0, c["s"])}, MustLit("neg", StringT()))),
		must(Case(nil, []When{w(gt0, c["u"]), w(lt9, c["s"])}, nil)),
		must(Case(nil, []When{w(gt0, c["dt"])}, nil)),
		must(Case(nil, []When{w(gt0, c["ts"]), w(lt9, Null(DatetimeT()))}, must(Cast(c["dt"], DatetimeT())))),
		must(Case(nil, []When{w(lt9, c["q"])}, must(Cast(MustLit(7, Int64T()), Int32T())))),
		must(Case(nil, []When{w(lt9, gt0)}, must(Cmp(Eq, c["s"], MustLit("k1", StringT()))))),
		must(If(gt0, c["ds"], c["u"])),
	}
	env := &Env{Mem: mem}
	for _, e := range exprs {
		slow := *e.(*CaseExpr)
		slow.rowwise = true
		got, err1 := e.Eval(env, batch)
		want, err2 := slow.Eval(env, batch)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", e, err1, err2)
		}
		if !array.Equal(got, want) {
			t.Errorf("%s: typed and row-wise assembly differ", e)
		}
		got.Release()
		want.Release()
	}
}

// TestInKernels: IN over DATE, DATETIME, DOUBLE, DECIMAL and INT lists
// probes unboxed sets; hand-derived results, then every type against the
// boxed set (the same InExpr with its typed sets removed).
func TestInKernels(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := benchBatch(mem)
	defer batch.Release()
	c := cols(batch)
	in := func(e Expr, not bool, vs ...Expr) Expr { return must(In(e, vs, not)) }
	lit := MustLit
	exprs := []Expr{
		in(c["dt"], false, lit("1969-12-31", Date32T()), lit("2000-01-01", Date32T())),
		in(c["ts"], true, lit("1970-01-01 00:00:00.123456", DatetimeT()), Null(DatetimeT())),
		in(must(Cast(c["ts"], tsSec)), false, must(Cast(lit("1970-01-01 01:00:00", DatetimeT()), tsSec))),
		in(c["f"], false, lit(math.Copysign(0, -1), Float64T()), lit(0.25, Float64T()), lit(math.NaN(), Float64T())),
		in(c["d"], true, lit("-1.01", DecimalT(18, 2)), lit("0", DecimalT(18, 2))),
		in(c["q"], false, must(Cast(lit(-1, Int64T()), Int32T())), must(Cast(lit(7, Int64T()), Int32T()))),
	}
	// Rows: i = row - 32768, every 10th row NULL; dt = i days, ts = i
	// hours + 0.123456 s, f = i/4, d = i·1.01, q = i.
	want := []string{"1,0,NULL,0", "NULL,NULL,NULL,0", "0,0,NULL,0", "0,0,NULL,1", "0,1,NULL,0", "1,0,NULL,0"}
	rows := []int{32767, 0, 9, 32768} // i = -1, -32768, NULL row, 0
	for k, e := range exprs {
		got, err := e.Eval(&Env{Mem: mem}, batch)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, r := range rows {
			parts = append(parts, render.String(got, r))
		}
		if s := strings.Join(parts, ","); s != want[k] {
			t.Errorf("%s rows %v: got %s, want %s", e, rows, s, want[k])
		}
		slow := *e.(*InExpr)
		slow.ints, slow.floats, slow.decs, slow.strs = nil, nil, nil, nil
		ref, err := slow.Eval(&Env{Mem: mem}, batch)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got, ref) {
			t.Errorf("%s: typed and boxed sets differ", e)
		}
		got.Release()
		ref.Release()
	}
}
