package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestMoreFunctions(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k, s, d, ts, dec := c["k"], c["s"], c["d"], c["ts"], c["dec"]
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	listT := arrow.ListOf(Int64T())
	l := MustLit([]any{int64(3), nil, int64(1)}, listT)
	mapT := arrow.MapOf(StringT(), Float64T())
	m := MustLit(MapValue{Keys: []any{"a", "b"}, Values: []any{1.5, nil}}, mapT)
	stT := arrow.StructOf(arrow.Field{Name: "x", Type: Int64T()}, arrow.Field{Name: "Y", Type: StringT()})
	st := MustLit([]any{int64(4), "w"}, stT)
	cases := []struct {
		e    Expr
		want string
	}{
		{fn("quarter", d), "1,4,NULL"},
		{fn("dayofweek", d), "4,6,NULL"},
		{fn("weekday", d), "2,4,NULL"},
		{fn("dayofyear", d), "31,335,NULL"},
		{fn("left", s, Int(2)), "ab,He,NULL"},
		{fn("right", s, Int(2)), "bc,lo,NULL"},
		{fn("right", s, Int(9)), "abc,Hello,NULL"},
		{fn("repeat", s, k), "abc,HelloHello,NULL"},
		{fn("ascii", s), "97,72,NULL"},
		{fn("strcmp", s, Str("b")), "-1,-1,NULL"},
		{fn("log2", Int(8)), "3,3,3"},
		{fn("exp", Int(0)), "1,1,1"},
		{fn("sign", dec), "1,-1,NULL"},
		{fn("pi"), "3.141592653589793,3.141592653589793,3.141592653589793"},
		{fn("greatest", s, Str("b")), "b,b,NULL"},
		{fn("ceil", dec), "13,0,NULL"},
		{fn("floor", dec), "12,-1,NULL"},
		{fn("truncate", dec, Int(1)), "12.3,-0.5,NULL"},
		{fn("round", Int(1250), Int(-2)), "1300,1300,1300"},
		{fn("abs", Float(-1.5)), "1.5,1.5,1.5"},
		{fn("date_format", ts, Str("%y %c %e %k %h %l %p %a %b %j %T %r %f %% %w %X")), "24 1 2 3 03 3 AM Tue Jan 002 03:04:05 03:04:05 AM 000000 % 2 2023,23 6 15 23 11 11 PM Thu Jun 166 23:59:59 11:59:59 PM 000000 % 4 2023,NULL"}, // %X: 2024-01-02 is before 2024's first Sunday
		{fn("months_add", d, Int(1)), "2024-02-29,2024-01-01,NULL"},
		{fn("years_sub", d, Int(1)), "2023-01-31,2022-12-01,NULL"},
		{fn("hours_add", d, Int(1)), "2024-01-31 01:00:00,2023-12-01 01:00:00,NULL"}, // Doris: DATETIMEV2(0) from a DATE
		{must(DateArith(ts, Int(1), "QUARTER", false)), "2024-04-02 03:04:05.000000,2023-09-15 23:59:59.000000,NULL"},
		{must(DateArith(ts, Int(1500), "MICROSECOND", true)), "2024-01-02 03:04:04.998500,2023-06-15 23:59:58.998500,NULL"},
		{must(DateArith(d, Int(2), "WEEK", false)), "2024-02-14,2023-12-15,NULL"},
		{fn("date_trunc", ts, Str("quarter")), "2024-01-01 00:00:00.000000,2023-04-01 00:00:00.000000,NULL"},
		{fn("date_trunc", d, Str("week")), "2024-01-29,2023-11-27,NULL"},
		{fn("date_trunc", ts, Str("minute")), "2024-01-02 03:04:00.000000,2023-06-15 23:59:00.000000,NULL"},
		{fn("date_trunc", ts, Str("year")), "2024-01-01 00:00:00.000000,2023-01-01 00:00:00.000000,NULL"},
		// nested
		{fn("element_at", l, k), "3,NULL,1"},
		{must(Element(m, Str("a"))), "1.5,1.5,1.5"},
		{must(Element(m, Str("zz"))), "NULL,NULL,NULL"},
		{must(Element(st, Int(2))), "w,w,w"},
		{must(Element(st, Str("y"))), "w,w,w"},
		{fn("struct_element", st, Str("x")), "4,4,4"},
		{fn("size", l), "3,3,3"},
		{fn("map_size", m), "2,2,2"},
		{fn("map_keys", m), `["a", "b"],["a", "b"],["a", "b"]`},
		{fn("map_values", m), "[1.5, null],[1.5, null],[1.5, null]"},
		{fn("reverse", l), "[1, null, 3],[1, null, 3],[1, null, 3]"},
		{fn("array", k, Int(0)), "[1, 0],[2, 0],[3, 0]"},
		{fn("array_contains", l, k), "1,0,1"},
		{must(Cast(l, arrow.ListOf(StringT()))), `["3", null, "1"],["3", null, "1"],["3", null, "1"]`},
		{must(Cast(st, StringT())), `{"x":4, "Y":"w"},{"x":4, "Y":"w"},{"x":4, "Y":"w"}`},
		{must(Cast(m, arrow.MapOf(StringT(), StringT()))), `{"a":"1.5", "b":null},{"a":"1.5", "b":null},{"a":"1.5", "b":null}`},
		// casts between temporal and numbers, strings and bool
		{must(Cast(d, Int64T())), "20240131,20231201,NULL"},
		{must(Cast(ts, Int64T())), "20240102030405,20230615235959,NULL"},
		{must(Cast(Int(20240102), Date32T())), "2024-01-02,2024-01-02,2024-01-02"},
		{must(Cast(Str("20240102030405"), DatetimeT())), "2024-01-02 03:04:05.000000,2024-01-02 03:04:05.000000,2024-01-02 03:04:05.000000"},
		{must(Cast(Str("true"), BoolT())), "1,1,1"},
		{must(Cast(Str("0.0"), BoolT())), "0,0,0"},
		{must(Cast(Str("x"), BoolT())), "NULL,NULL,NULL"},
		{must(Cast(dec, Int64T())), "12,0,NULL"},
		{must(Cast(dec, Float64T())), "12.34,-0.5,NULL"},
		{must(Cast(dec, DecimalT(10, 4))), "12.3400,-0.5000,NULL"},
		{must(Cast(Str("12.345"), DecimalT(10, 2))), "12.35,12.35,12.35"},
		{must(Cast(Float(1e30), Int64T())), "NULL,NULL,NULL"},
		{must(Cast(ts, &arrow.TimestampType{Unit: arrow.Second})), "2024-01-02 03:04:05,2023-06-15 23:59:59,NULL"},
		{must(Cast(Str("99-12-31"), Date32T())), "1999-12-31,1999-12-31,1999-12-31"},
		{must(Cast(Str("24-01-02 10:11"), DatetimeT())), "2024-01-02 10:11:00.000000,2024-01-02 10:11:00.000000,2024-01-02 10:11:00.000000"},
	}
	for _, c := range cases {
		t.Run(c.e.String(), func(t *testing.T) {
			if got := evalStr(t, c.e); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestCommonTypeAndNames(t *testing.T) {
	cases := []struct {
		a, b arrow.DataType
		want string
	}{
		{Int32T(), Int64T(), "bigint"},
		{arrow.PrimitiveTypes.Int8, Float64T(), "double"},
		{DecimalT(10, 2), Int32T(), "decimal(12,2)"},
		{DecimalT(10, 2), DecimalT(5, 4), "decimal(12,4)"},
		{DecimalT(10, 2), Float64T(), "double"},
		{StringT(), Int64T(), "double"},
		{StringT(), arrow.BinaryTypes.LargeString, "text"},
		{Date32T(), DatetimeT(), "datetime(6)"},
		{StringT(), Date32T(), "date"},
		{NullT(), BoolT(), "boolean"},
		{BoolT(), Int64T(), "bigint"},
		{arrow.ListOf(Int64T()), arrow.ListOf(Int64T()), "array<bigint>"},
		{arrow.MapOf(StringT(), Int32T()), arrow.MapOf(StringT(), Int32T()), "map<text,int>"},
		{arrow.StructOf(arrow.Field{Name: "a", Type: Int64T()}), arrow.StructOf(arrow.Field{Name: "a", Type: Int64T()}), "struct<a:bigint>"},
	}
	for _, c := range cases {
		got, err := CommonType(c.a, c.b)
		if err != nil {
			t.Errorf("CommonType(%s, %s): %v", c.a, c.b, err)
			continue
		}
		if TypeName(got) != c.want {
			t.Errorf("CommonType(%s, %s) = %s, want %s", c.a, c.b, TypeName(got), c.want)
		}
	}
	if _, err := CommonType(arrow.ListOf(Int64T()), Int64T()); err == nil {
		t.Error("list and bigint unified")
	}
	if _, err := CommonType(Date32T(), Float64T()); err == nil {
		t.Error("date and double unified")
	}
	names := map[arrow.DataType]string{
		arrow.PrimitiveTypes.Uint8: "smallint", arrow.PrimitiveTypes.Uint64: "largeint",
		arrow.PrimitiveTypes.Float32: "float", arrow.BinaryTypes.Binary: "varbinary",
		&arrow.TimestampType{Unit: arrow.Second}: "datetime", &arrow.TimestampType{Unit: arrow.Millisecond}: "datetime(3)",
	}
	for typ, w := range names {
		if TypeName(typ) != w {
			t.Errorf("TypeName(%s) = %s, want %s", typ, TypeName(typ), w)
		}
	}
}

func TestExprStrings(t *testing.T) {
	k := Col(0, "k", Int64T())
	cases := []struct {
		e    Expr
		want string
	}{
		{must(Arith(Add, k, Int(1))), "(k + 1)"},
		{must(Cmp(Eq, k, Str("x"))), "(CAST(k AS double) = NULL)"},
		{must(And(must(Cmp(Gt, k, Int(1))), IsNull(k, true))), "((k > 1) AND k IS NOT NULL)"},
		{must(In(k, []Expr{Int(1), Int(2)}, true)), "k NOT IN (1, 2)"},
		{must(Like(Str("a"), Str("b%"), 0, true)), "'a' NOT LIKE 'b%'"},
		{must(If(must(Cmp(Gt, k, Int(1))), Str("y"), Str("n"))), "if((k > 1), 'y', 'n')"},
		{must(Case(nil, []When{{must(Cmp(Lt, k, Int(0))), Int(-1)}}, Int(1))), "CASE WHEN (k < 0) THEN -1 ELSE 1 END"},
		{must(Cast(k, DecimalT(10, 2))), "CAST(k AS decimal(10,2))"},
		{must(DateArith(Col(1, "d", Date32T()), Int(3), "day", false)), "date_add(d, INTERVAL 3 DAY)"},
		{Col(2, "", Int64T()), "$2"},
		{MustLit("2024-01-02", Date32T()), "'2024-01-02'"},
		{must(Func("nullif", k, Int(1))), "nullif(k, 1)"},
		{must(Func("upper", Str("o'k"))), "upper('o''k')"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}

// TestCaseEvaluatesArmsOnTheirRows: an arm that would overflow on rows it
// never receives must not fail the expression.
func TestCaseEvaluatesArmsOnTheirRows(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k := c["k"]
	huge := must(Arith(Mul, k, Int(4611686018427387904))) // overflows for k >= 2
	e := must(Case(nil, []When{
		{must(Cmp(Eq, k, Int(1))), huge},
		{must(Cmp(Eq, must(Arith(Mul, k, Int(4611686018427387904))), Int(0))), Int(-1)}, // only reached by k = 2, 3: overflows
	}, Int(7)))
	mem2 := newGo()
	b2 := testBatch(mem2)
	defer b2.Release()
	if _, err := e.Eval(&Env{Mem: mem2}, b2); err == nil {
		t.Fatal("the second WHEN overflows on k=2 and must fail")
	}
	ok := must(If(must(Cmp(Eq, k, Int(1))), huge, Int(0)))
	if got := evalStr(t, ok); got != "4611686018427387904,0,0" {
		t.Fatalf("got %s", got)
	}
}

// TestAndSkipsDecidedRows: once most rows are FALSE, AND evaluates the
// next operand only on the rest (here the rest cannot overflow).
func TestAndSkipsDecidedRows(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k := c["k"]
	guarded := must(Cmp(Gt, must(Arith(Mul, k, Int(4611686018427387904))), Int(0)))
	e := must(And(must(Cmp(Eq, k, Int(1))), guarded))
	if got := evalStr(t, e); got != "1,0,0" {
		t.Fatalf("got %s", got)
	}
	o := must(Or(must(Cmp(Ne, k, Int(1))), must(Cmp(Gt, c["i"], Int(5)))))
	if got := evalStr(t, o); got != "1,1,1" {
		t.Fatalf("OR got %s", got)
	}
	o2 := must(Or(must(Cmp(Eq, k, Int(3))), must(Cmp(Gt, c["i"], Int(5))), IsNull(c["s"], false)))
	if got := evalStr(t, o2); got != "1,0,1" {
		t.Fatalf("OR3 got %s", got)
	}
}

func TestUnsupportedArgTypes(t *testing.T) {
	d := Col(0, "d", arrow.FixedWidthTypes.Duration_s)
	for name, f := range map[string]func() (Expr, error){
		"coalesce": func() (Expr, error) { return Coalesce(d, d) },
		"case":     func() (Expr, error) { return Case(nil, []When{{Bool(true), d}}, nil) },
		"upper":    func() (Expr, error) { return Func("upper", d) },
		"greatest": func() (Expr, error) { return Func("greatest", d, d) },
		"cmp":      func() (Expr, error) { return Cmp(Eq, d, d) },
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s over duration accepted", name)
		}
	}
}
