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

// TestStringKernels2 holds the typed string functions to values derived
// by hand on kernelBatch (multi-byte text, invalid UTF-8 — re-encoded as
// U+FFFD where the function decodes characters —, empty strings, NULLs,
// the least BIGINT as a length).
func TestStringKernels2(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := kernelBatch(mem)
	c := cols(b)
	b.Release()
	s, tt, i, u := c["s"], c["t"], c["i"], c["u"]
	str := func(v string) Expr { return MustLit(v, StringT()) }
	num := func(v int64) Expr { return MustLit(v, Int64T()) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	cases := []struct {
		name string
		e    Expr
		want string
	}{
		{"char_length", fn("char_length", u), "5,0,6,NULL,3,3"},
		{"left utf8", fn("left", u, num(2)), "Är,,st,NULL,a\uFFFD,xy"},
		{"left column", fn("left", s, i), "abc,,,NULL,,-12"},
		{"right utf8", fn("right", u, num(3)), "ger,,aße,NULL,a\uFFFDb,xyz"},
		{"right column", fn("right", s, i), "abc,,,NULL,,-12"},
		{"trim chars", fn("trim", u, str("x")), "Ärger,,straße,NULL,a\xffb,yz"},
		{"ltrim chars", fn("ltrim", s, str("a")), "bc,,ABD,NULL,b,-12"},
		{"rtrim chars", fn("rtrim", tt, str("b")), "abc,a,,x,NULL,"},
		{"trim spaces", fn("trim", fn("concat", str(" "), s, str("  "))), "abc,,ABD,NULL,ab,-12"},
		{"replace utf8", fn("replace", u, str("r"), str("RR")), "ÄRRgeRR,,stRRaße,NULL,a\xffb,xyz"},
		{"replace empty", fn("replace", s, str(""), str("x")), "abc,,ABD,NULL,ab,-12"},
		{"lpad utf8", fn("lpad", u, num(7), str("é")), "ééÄrger,ééééééé,éstraße,NULL,ééééa\uFFFDb,ééééxyz"},
		{"rpad", fn("rpad", s, num(4), str("xy")), "abcx,xyxy,ABDx,NULL,abxy,-12x"},
		{"lpad cut", fn("lpad", s, num(2), str("")), "ab,,AB,NULL,ab,-1"},
		{"lpad negative", fn("lpad", s, num(-1), str("x")), "NULL,NULL,NULL,NULL,NULL,NULL"},
		{"instr utf8", fn("instr", u, str("e")), "4,0,6,NULL,0,0"},
		{"locate invalid utf8", fn("locate", str("b"), u), "0,0,0,NULL,3,0"},
		{"locate from", fn("locate", str("r"), u, num(3)), "5,0,3,NULL,0,0"},
		{"locate least bigint", fn("locate", str("a"), s, i), "0,0,0,NULL,0,0"},
		{"reverse utf8", fn("reverse", u), "regrÄ,,eßarts,NULL,b\uFFFDa,zyx"},
		{"repeat", fn("repeat", s, num(2)), "abcabc,,ABDABD,NULL,abab,-12-12"},
		{"repeat column", fn("repeat", tt, fn("abs", fn("mod", i, num(4)))), "abc,aaa,,NULL,NULL,bbb"},
		{"split_part", fn("split_part", u, str("r"), num(2)), "ge,NULL,aße,NULL,NULL,NULL"},
		{"split_part last", fn("split_part", u, str("r"), num(-1)), ",,aße,NULL,a\xffb,xyz"},
		{"starts_with", fn("starts_with", s, str("ab")), "1,0,0,NULL,1,0"},
		{"ends_with utf8", fn("ends_with", u, str("e")), "0,0,1,NULL,0,0"},
		{"strcmp", fn("strcmp", s, tt), "0,-1,1,NULL,NULL,-1"},
		{"ascii", fn("ascii", u), "195,0,115,NULL,97,120"},
		{"concat_ws", fn("concat_ws", str("-"), s, tt, u), "abc-abc-Ärger,-a-,ABD--straße,x,ab-a\xffb,-12-b-xyz"},
		{"concat_ws column sep", fn("concat_ws", tt, s, u), "abcabcÄrger,a,ABDstraße,,NULL,-12bxyz"},
		{"substring utf8 from end", fn("substring", u, num(-3), num(2)), "ge,,aß,NULL,a\uFFFD,xy"},
		{"space", fn("concat", str("["), fn("space", fn("abs", fn("mod", i, num(4)))), str("]")), "[ ],[   ],[],NULL,[],[   ]"},
		{"space too large", IsNull(fn("space", i), false), "0,0,0,1,0,0"},
		{"lower utf8", fn("lower", fn("upper", u)), "ärger,,straße,NULL,a\uFFFDb,xyz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if f, ok := tc.e.(*rowFunc); ok && f.vec == nil {
				t.Fatalf("%s has no typed kernel", tc.e)
			}
			got, err := evalKernel(t, tc.e)
			if err != nil {
				t.Fatalf("%s: %v", tc.e, err)
			}
			if got != tc.want {
				t.Errorf("%s\n got  %q\n want %q", tc.e, got, tc.want)
			}
		})
	}
}

// stringExprs are the string functions with kernels over string columns
// a and b and integer constants p and l.
func stringExprs(a, b Expr, p, l int64) []Expr {
	num := func(v int64) Expr { return MustLit(v, Int64T()) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	return []Expr{
		fn("upper", a), fn("lower", b), fn("length", a), fn("char_length", a),
		fn("substring", a, num(p)), fn("substring", b, num(p), num(l)),
		fn("concat", a, b, a), fn("concat_ws", b, a, b), fn("concat_ws", MustLit(",", StringT()), a, b),
		fn("left", a, num(p)), fn("right", b, num(p)),
		fn("trim", a), fn("ltrim", a, b), fn("rtrim", b, a), fn("trim", a, b),
		fn("replace", a, b, a), fn("replace", a, MustLit("a", StringT()), b),
		fn("lpad", a, num(p%64), b), fn("rpad", b, num(l%64), a),
		fn("instr", a, b), fn("locate", b, a), fn("locate", b, a, num(p)),
		fn("reverse", a), fn("repeat", b, num(p%8)),
		fn("split_part", a, b, num(p%6)), fn("starts_with", a, b), fn("ends_with", a, b),
		fn("strcmp", a, b), fn("ascii", b), fn("space", num(p%9)),
	}
}

// compareRowwise evaluates e with its kernel and without (the same
// rowFunc, vec removed) and compares them row by row.
func compareRowwise(t *testing.T, env *Env, e Expr, batch arrow.RecordBatch) {
	t.Helper()
	slow := *e.(*rowFunc)
	if slow.vec == nil {
		t.Fatalf("%s has no typed kernel", e)
	}
	slow.vec = nil
	got, err1 := e.Eval(env, batch)
	want, err2 := slow.Eval(env, batch)
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
		t.Fatalf("%s: typed err %v, row-wise err %v", e, err1, err2)
	}
	if err1 != nil {
		return
	}
	defer got.Release()
	defer want.Release()
	for i := 0; i < got.Len(); i++ {
		if g, w := render.String(got, i), render.String(want, i); g != w || got.IsNull(i) != want.IsNull(i) {
			t.Fatalf("%s row %d: typed %q, row-wise %q", e, i, g, w)
		}
	}
}

// TestStringKernelsMatchRowwise runs every typed string function and its
// row-wise form over random text: ASCII, multi-byte, invalid UTF-8,
// empty, NULL.
func TestStringKernelsMatchRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(14))
	alphabet := []string{"a", "b", "r", " ", "é", "ß", "Ä", "\xff", "\xc3", "日", ",", "ab"}
	word := func() any {
		if rng.Intn(12) == 0 {
			return nil
		}
		var sb strings.Builder
		for k := rng.Intn(9); k > 0; k-- {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return sb.String()
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: StringT()}, {Name: "b", Type: StringT()}}, nil)
	rb := array.NewRecordBuilder(mem, sc)
	for r := 0; r < 3000; r++ {
		Appender(rb.Field(0))(word())
		Appender(rb.Field(1))(word())
	}
	batch := rb.NewRecordBatch()
	rb.Release()
	defer batch.Release()
	env := &Env{Mem: mem}
	for _, pl := range [][2]int64{{1, 2}, {-2, 3}, {3, -1}, {0, 0}, {math.MinInt64, math.MaxInt64}, {7, 1}} {
		for _, e := range stringExprs(Col(0, "a", StringT()), Col(1, "b", StringT()), pl[0], pl[1]) {
			compareRowwise(t, env, e, batch)
		}
	}
}
