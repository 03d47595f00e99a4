package expr

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// The test batch: three rows, with NULLs in the last row of every column
// except k.
//
//	k  i     f     s        d          ts                   dec     b
//	1  10    2.5   'abc'    2024-01-31 2024-01-02 03:04:05  12.34   true
//	2  -3    0     'Hello'  2023-12-01 2023-06-15 23:59:59  -0.50   false
//	3  NULL  NULL  NULL     NULL       NULL                 NULL    NULL
func testBatch(mem memory.Allocator) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: Int64T()}, {Name: "i", Type: arrow.PrimitiveTypes.Int32},
		{Name: "f", Type: Float64T()}, {Name: "s", Type: StringT()},
		{Name: "d", Type: Date32T()}, {Name: "ts", Type: DatetimeT()},
		{Name: "dec", Type: DecimalT(10, 2)}, {Name: "b", Type: BoolT()},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	d := func(s string) any { v, _ := parseDatetime(s); return arrow.Date32(v / 86400_000_000) }
	ts := func(s string) any { v, _ := parseDatetime(s); return arrow.Timestamp(v) }
	dec := func(s string) any { return MustLit(s, DecimalT(10, 2)).Value }
	rows := [][]any{
		{int64(1), int64(10), 2.5, "abc", d("2024-01-31"), ts("2024-01-02 03:04:05"), dec("12.34"), true},
		{int64(2), int64(-3), 0.0, "Hello", d("2023-12-01"), ts("2023-06-15 23:59:59"), dec("-0.50"), false},
		{int64(3), nil, nil, nil, nil, nil, nil, nil},
	}
	for _, r := range rows {
		for i, v := range r {
			Appender(b.Field(i))(v)
		}
	}
	return b.NewRecordBatch()
}

func cols(b arrow.RecordBatch) map[string]Expr {
	m := map[string]Expr{}
	for i, f := range b.Schema().Fields() {
		m[f.Name] = Col(i, f.Name, f.Type)
	}
	return m
}

func evalStr(t *testing.T, e Expr) string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := testBatch(mem)
	defer b.Release()
	env := &Env{Mem: mem, Now: time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)}
	a, err := e.Eval(env, b)
	if err != nil {
		t.Fatalf("%s: eval: %v", e, err)
	}
	defer a.Release()
	if a.Len() != 3 {
		t.Fatalf("%s: %d rows", e, a.Len())
	}
	if !arrow.TypeEqual(a.DataType(), e.DataType()) {
		t.Fatalf("%s: array type %s, expr type %s", e, a.DataType(), e.DataType())
	}
	parts := make([]string, 3)
	for i := range parts {
		parts[i] = render.String(a, i)
	}
	return strings.Join(parts, ",")
}

func TestExpressions(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k, i, f, s, d, ts, dec, bo := c["k"], c["i"], c["f"], c["s"], c["d"], c["ts"], c["dec"], c["b"]
	ar := func(op ArithOp, l, r Expr) Expr { return must(Arith(op, l, r)) }
	cm := func(op CmpOp, l, r Expr) Expr { return must(Cmp(op, l, r)) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	lit := func(v any, t arrow.DataType) Expr { return MustLit(v, t) }
	cases := []struct {
		e    Expr
		typ  string
		want string
	}{
		// arithmetic
		{ar(Add, i, k), "bigint", "11,-1,NULL"},
		{ar(Sub, k, Int(1)), "bigint", "0,1,2"},
		{ar(Mul, f, Int(2)), "double", "5,0,NULL"},
		{ar(Div, i, k), "double", "10,-1.5,NULL"},
		{ar(Div, k, Int(0)), "double", "NULL,NULL,NULL"},
		{ar(Div, f, f), "double", "1,NULL,NULL"},
		{ar(Mod, i, Int(4)), "bigint", "2,-3,NULL"},
		{ar(Mod, k, Int(0)), "bigint", "NULL,NULL,NULL"},
		{ar(IntDiv, i, Int(4)), "bigint", "2,0,NULL"},
		{ar(IntDiv, f, Float(0.5)), "bigint", "5,0,NULL"},
		{ar(Add, dec, k), "decimal(22,2)", "13.34,1.50,NULL"},
		{ar(Mul, dec, dec), "decimal(20,4)", "152.2756,0.2500,NULL"},
		{ar(Div, dec, Int(3)), "decimal(14,6)", "4.113333,-0.166667,NULL"},
		{ar(Add, dec, f), "double", "14.84,-0.5,NULL"},
		{ar(Add, s, Int(1)), "double", "NULL,NULL,NULL"},
		{must(Neg(dec)), "decimal(10,2)", "-12.34,0.50,NULL"},
		// comparison, with implicit casts
		{cm(Gt, i, k), "boolean", "1,0,NULL"},
		{cm(Eq, i, Float(10.0)), "boolean", "1,0,NULL"},
		{cm(Lt, d, Str("2024-01-01")), "boolean", "0,1,NULL"},
		{cm(Ge, ts, d), "boolean", "0,0,NULL"},
		{cm(Eq, s, Str("abc")), "boolean", "1,0,NULL"},
		{cm(Lt, dec, Int(0)), "boolean", "0,1,NULL"},
		{cm(NullSafeEq, i, Null(NullT())), "boolean", "0,0,1"},
		{cm(Ne, bo, Bool(true)), "boolean", "0,1,NULL"},
		// three-valued logic
		{must(And(cm(Gt, k, Int(0)), bo)), "boolean", "1,0,NULL"},
		{must(And(cm(Gt, k, Int(1)), bo)), "boolean", "0,0,NULL"},
		{must(And(cm(Gt, k, Int(2)), bo)), "boolean", "0,0,NULL"},
		{must(And(cm(Lt, k, Int(3)), bo)), "boolean", "1,0,0"},
		{must(Or(bo, cm(Eq, k, Int(3)))), "boolean", "1,0,1"},
		{must(Or(bo, cm(Eq, k, Int(9)))), "boolean", "1,0,NULL"},
		{must(Not(bo)), "boolean", "0,1,NULL"},
		{IsNull(i, false), "boolean", "0,0,1"},
		{IsNull(i, true), "boolean", "1,1,0"},
		{must(Between(i, Int(-3), Int(5), false)), "boolean", "0,1,NULL"},
		{must(Between(k, Int(2), Int(3), true)), "boolean", "1,0,0"},
		{must(In(k, []Expr{Int(1), Int(3)}, false)), "boolean", "1,0,1"},
		{must(In(i, []Expr{Int(10), Null(NullT())}, false)), "boolean", "1,NULL,NULL"},
		{must(In(i, []Expr{Int(10), Null(NullT())}, true)), "boolean", "0,NULL,NULL"},
		{must(In(i, []Expr{Int(1), k}, false)), "boolean", "0,0,NULL"},
		{must(In(s, []Expr{Str("Hello")}, true)), "boolean", "1,0,NULL"},
		// LIKE
		{must(Like(s, Str("a%"), 0, false)), "boolean", "1,0,NULL"},
		{must(Like(s, Str("_ello"), 0, false)), "boolean", "0,1,NULL"},
		{must(Like(s, Str("%l%o"), 0, false)), "boolean", "0,1,NULL"},
		{must(Like(s, Str("%L%"), 0, true)), "boolean", "1,1,NULL"},
		{must(Like(Str("50%"), Str("50!%"), '!', false)), "boolean", "1,1,1"},
		{must(Like(Str("50x"), Str("50!%"), '!', false)), "boolean", "0,0,0"},
		{must(Like(Str("a_c"), Str(`a\_c`), 0, false)), "boolean", "1,1,1"},
		{fn("regexp", s, Str("^H.*o$")), "boolean", "0,1,NULL"},
		{fn("regexp_extract", Str("x=12,y=7"), Str(`y=(\d+)`), Int(1)), "text", "7,7,7"},
		// CASE family
		{must(Case(nil, []When{{cm(Gt, i, Int(0)), Str("pos")}, {cm(Lt, i, Int(0)), Str("neg")}}, Str("null"))), "text", "pos,neg,null"},
		{must(Case(k, []When{{Int(1), Str("one")}, {Int(2), Str("two")}}, nil)), "text", "one,two,NULL"},
		{must(Case(nil, []When{{bo, Int(1)}}, Float(0.5))), "double", "1,0.5,0.5"},
		{fn("if", bo, s, Str("-")), "text", "abc,-,-"},
		{fn("coalesce", i, f, Int(7)), "double", "10,-3,7"},
		{fn("ifnull", s, Str("z")), "text", "abc,Hello,z"},
		{fn("nullif", k, Int(2)), "bigint", "1,NULL,3"},
		// CAST
		{must(Cast(f, Int64T())), "bigint", "2,0,NULL"},
		{must(Cast(Str("12.7"), Int64T())), "bigint", "12,12,12"},
		{must(Cast(s, Int64T())), "bigint", "NULL,NULL,NULL"},
		{must(Cast(dec, StringT())), "text", "12.34,-0.50,NULL"},
		{must(Cast(ts, Date32T())), "date", "2024-01-02,2023-06-15,NULL"},
		{must(Cast(d, DatetimeT())), "datetime(6)", "2024-01-31 00:00:00.000000,2023-12-01 00:00:00.000000,NULL"},
		{must(Cast(Str("2024-02-30"), Date32T())), "date", "NULL,NULL,NULL"},
		{must(Cast(Str("2024-02-29 12:00:01.5"), DatetimeT())), "datetime(6)", "2024-02-29 12:00:01.500000,2024-02-29 12:00:01.500000,2024-02-29 12:00:01.500000"},
		{must(Cast(f, DecimalT(5, 1))), "decimal(5,1)", "2.5,0.0,NULL"},
		{must(Cast(Str("1e3"), Float64T())), "double", "1000,1000,1000"},
		{must(Cast(i, BoolT())), "boolean", "1,1,NULL"},
		{must(Cast(bo, StringT())), "text", "1,0,NULL"},
		{must(Cast(Int(300), arrow.PrimitiveTypes.Int8)), "tinyint", "NULL,NULL,NULL"},
		// string functions
		{fn("concat", s, Str("-"), k), "text", "abc-1,Hello-2,NULL"},
		{fn("concat_ws", Str(","), s, Null(StringT()), Str("z")), "text", "abc,z,Hello,z,z"},
		{fn("upper", s), "text", "ABC,HELLO,NULL"},
		{fn("lower", s), "text", "abc,hello,NULL"},
		{fn("length", Str("héllo")), "bigint", "6,6,6"},
		{fn("char_length", Str("héllo")), "bigint", "5,5,5"},
		{fn("substr", s, Int(2)), "text", "bc,ello,NULL"},
		{fn("substring", s, Int(-3), Int(2)), "text", "ab,ll,NULL"},
		{fn("substr", s, Int(0)), "text", ",,NULL"},
		{fn("trim", Str("  x  ")), "text", "x,x,x"},
		{fn("ltrim", Str("  x  ")), "text", "x  ,x  ,x  "},
		{fn("rtrim", Str("  x  ")), "text", "  x,  x,  x"},
		{fn("replace", s, Str("l"), Str("L")), "text", "abc,HeLLo,NULL"},
		{fn("lpad", s, Int(5), Str("*")), "text", "**abc,Hello,NULL"},
		{fn("rpad", s, Int(2), Str("*")), "text", "ab,He,NULL"},
		{fn("instr", s, Str("l")), "bigint", "0,3,NULL"},
		{fn("locate", Str("l"), s, Int(4)), "bigint", "0,4,NULL"},
		{fn("split_part", Str("a,b,c"), Str(","), k), "text", "a,b,c"},
		{fn("split_part", Str("a,b,c"), Str(","), Int(5)), "text", "NULL,NULL,NULL"},
		{fn("reverse", s), "text", "cba,olleH,NULL"},
		{fn("starts_with", s, Str("He")), "boolean", "0,1,NULL"},
		{fn("ends_with", s, Str("c")), "boolean", "1,0,NULL"},
		// math
		{fn("abs", i), "bigint", "10,3,NULL"},
		{fn("abs", dec), "decimal(10,2)", "12.34,0.50,NULL"},
		{fn("ceil", f), "bigint", "3,0,NULL"},
		{fn("floor", Float(-2.5)), "bigint", "-3,-3,-3"},
		{fn("round", f), "double", "3,0,NULL"},
		{fn("round", Float(1.2345), Int(2)), "double", "1.23,1.23,1.23"},
		{fn("round", dec, Int(1)), "decimal(10,1)", "12.3,-0.5,NULL"},
		{fn("truncate", Float(1.99), Int(1)), "double", "1.9,1.9,1.9"},
		{fn("mod", i, Int(3)), "bigint", "1,0,NULL"},
		{fn("pow", Int(2), k), "double", "2,4,8"},
		{fn("sqrt", f), "double", "1.5811388300841898,0,NULL"},
		{fn("sqrt", Int(-1)), "double", "NULL,NULL,NULL"},
		{fn("ln", Int(1)), "double", "0,0,0"},
		{fn("log10", Int(1000)), "double", "3,3,3"},
		{fn("greatest", k, i), "bigint", "10,2,NULL"},
		{fn("least", k, f), "double", "1,0,NULL"},
		// dates
		{fn("year", d), "bigint", "2024,2023,NULL"},
		{fn("month", ts), "bigint", "1,6,NULL"},
		{fn("day", d), "bigint", "31,1,NULL"},
		{fn("hour", ts), "bigint", "3,23,NULL"},
		{fn("minute", ts), "bigint", "4,59,NULL"},
		{fn("second", ts), "bigint", "5,59,NULL"},
		{fn("year", Str("2021-03-04")), "bigint", "2021,2021,2021"},
		{fn("date_format", ts, Str("%Y/%m/%d %H:%i:%s %W")), "text", "2024/01/02 03:04:05 Tuesday,2023/06/15 23:59:59 Thursday,NULL"},
		{must(DateArith(d, Int(1), "MONTH", false)), "date", "2024-02-29,2024-01-01,NULL"},
		{must(DateArith(d, k, "DAY", true)), "date", "2024-01-30,2023-11-29,NULL"},
		{must(DateArith(ts, Int(2), "HOUR", false)), "datetime(6)", "2024-01-02 05:04:05.000000,2023-06-16 01:59:59.000000,NULL"},
		{must(DateArith(d, Int(90), "MINUTE", false)), "datetime", "2024-01-31 01:30:00,2023-12-01 01:30:00,NULL"}, // DATE by minutes: DATETIME(0), as MySQL
		{fn("date_add", d, Int(1)), "date", "2024-02-01,2023-12-02,NULL"},
		{fn("datediff", d, ts), "bigint", "29,169,NULL"},
		{fn("to_date", ts), "date", "2024-01-02,2023-06-15,NULL"},
		// ts is DATETIME(6): the result keeps its six fractional digits.
		{fn("unix_timestamp", ts), "decimal(18,6)", "1704164645.000000,1686873599.000000,NULL"},
		{fn("from_unixtime", Int(0)), "text", "1970-01-01 00:00:00,1970-01-01 00:00:00,1970-01-01 00:00:00"},
		{fn("from_unixtime", Int(86400), Str("%Y%m%d")), "text", "19700102,19700102,19700102"},
		{fn("date_trunc", ts, Str("month")), "datetime(6)", "2024-01-01 00:00:00.000000,2023-06-01 00:00:00.000000,NULL"},
		{fn("date_trunc", Str("hour"), ts), "datetime(6)", "2024-01-02 03:00:00.000000,2023-06-15 23:00:00.000000,NULL"},
		{fn("now"), "datetime", "2024-05-06 07:08:09,2024-05-06 07:08:09,2024-05-06 07:08:09"},
		{fn("now", Int(6)), "datetime(6)", "2024-05-06 07:08:09.123456,2024-05-06 07:08:09.123456,2024-05-06 07:08:09.123456"},
		{fn("curdate"), "date", "2024-05-06,2024-05-06,2024-05-06"},
		{fn("unix_timestamp"), "bigint", "1715General,,"},
		// literals
		{lit("2024-01-02", Date32T()), "date", "2024-01-02,2024-01-02,2024-01-02"},
		{must(Decimal("-1.50")), "decimal(3,2)", "-1.50,-1.50,-1.50"},
	}
	for _, c := range cases {
		if c.want == "1715General,," {
			c.want = "1714979289,1714979289,1714979289"
		}
		t.Run(c.e.String(), func(t *testing.T) {
			if got := TypeName(c.e.DataType()); got != c.typ {
				t.Errorf("type %s, want %s", got, c.typ)
			}
			if got := evalStr(t, c.e); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	s := Col(0, "s", StringT())
	l := Col(1, "l", arrow.ListOf(Int64T()))
	cases := []struct {
		name string
		make func() (Expr, error)
		want string
	}{
		{"unknown func", func() (Expr, error) { return Func("no_such_fn", s) }, "unsupported: function no_such_fn"},
		{"arity", func() (Expr, error) { return Func("upper") }, "upper takes 1 argument(s), got 0"},
		{"cmp list", func() (Expr, error) { return Cmp(Eq, l, Int(1)) }, "no common type"},
		{"cast list to int", func() (Expr, error) { return Cast(l, Int64T()) }, "cannot CAST array<bigint> AS bigint"},
		{"bad interval", func() (Expr, error) { return DateArith(s, Int(1), "FORTNIGHT", false) }, "INTERVAL unit FORTNIGHT"},
		{"arith on list", func() (Expr, error) { return Arith(Add, l, Int(1)) }, "operator + on array<bigint> and bigint"},
		{"bad regexp", func() (Expr, error) { return Func("regexp", s, Str("(")) }, "regexp pattern"},
	}
	for _, c := range cases {
		_, err := c.make()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func TestOverflow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := testBatch(mem)
	defer b.Release()
	c := cols(b)
	env := &Env{Mem: mem}
	big := MustLit("99999999999999999999999999999999999999", DecimalT(38, 0))
	cases := []Expr{
		must(Arith(Add, Int(9223372036854775807), c["k"])),
		must(Arith(Sub, Int(-9223372036854775807), c["k"])),
		must(Arith(Mul, Int(4611686018427387904), c["k"])),
		must(Arith(IntDiv, Int(-9223372036854775807-1), must(Neg(c["k"])))),
		must(Arith(Add, big, c["k"])),
		must(Arith(Mul, big, big)),
	}
	for _, e := range cases {
		a, err := e.Eval(env, b)
		if err == nil {
			a.Release()
			t.Errorf("%s: no overflow error", e)
			continue
		}
		if !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: %v", e, err)
		}
	}
	// Up to the edge of the range is fine (10 + 9223372036854775797 = MaxInt64).
	ok := must(Arith(Add, Int(9223372036854775797), must(Cast(c["i"], Int64T()))))
	if a, err := ok.Eval(env, b); err != nil {
		t.Errorf("%s: %v", ok, err)
	} else {
		a.Release()
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newGo() memory.Allocator { return memory.NewGoAllocator() }
