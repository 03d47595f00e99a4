package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// foldBatch is three rows of a BIGINT column k = 1, NULL, 3: a folded tree
// and the original must agree on each.
func foldBatch(mem memory.Allocator) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues([]int64{1, 0, 3}, []bool{true, false, true})
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: Int64T(), Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, 3)
}

func TestFoldConstants(t *testing.T) {
	ok := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	k := Col(0, "k", Int64T())
	dec := func(s string) Expr {
		l, err := Decimal(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	fn := func(name string, args ...Expr) Expr { return ok(Func(name, args...)) }
	ar := func(op ArithOp, l, r Expr) Expr { return ok(Arith(op, l, r)) }
	cmp := func(op CmpOp, l, r Expr) Expr { return ok(Cmp(op, l, r)) }
	date := MustLit("2024-01-31", Date32T())
	dt := MustLit("2024-02-29 23:59:58", DatetimeT())
	cases := []struct {
		name string
		in   Expr
		// want is the folded tree as EXPLAIN prints it; wantType its
		// result type (nil: the type of in).
		want string
	}{
		{"int add", ar(Add, Int(1), Int(2)), "3"},
		{"nested int", ar(Mul, ar(Add, Int(10), Int(5)), ar(Sub, Int(7), Int(9))), "-30"},
		{"int div is double", ar(Div, Int(7), Int(2)), "3.5"},
		{"div by zero is NULL", ar(Div, Int(1), Int(0)), "NULL"},
		{"mod by zero is NULL", ar(Mod, Int(5), Int(0)), "NULL"},
		{"int DIV", ar(IntDiv, Int(-7), Int(2)), "-3"},
		{"narrow int cast", ok(Cast(Int(300), Int32T())), "300"},
		{"decimal 2+2", ar(Add, dec("1.25"), dec("2.50")), "3.75"},
		{"decimal scales", ar(Mul, dec("1.5"), dec("0.25")), "0.375"},
		{"decimal 38", ar(Sub, dec("12345678901234567890.123456"), dec("0.000001")), "12345678901234567890.123455"},
		{"decimal cast", ok(Cast(dec("3.14159"), DecimalT(10, 2))), "3.14"},
		{"double", ar(Mul, Float(1.5), Float(4)), "6"},
		{"sqrt", fn("sqrt", Float(2.25)), "1.5"},
		{"pi", fn("pi"), "3.141592653589793"},
		{"string concat", fn("concat", Str("ab"), Str("c'd")), "'abc''d'"},
		{"upper substr", fn("upper", fn("substr", Str("fluss"), Int(2), Int(3))), "'LUS'"},
		{"date add", ok(DateArith(date, Int(1), "MONTH", false)), "'2024-02-29'"},
		{"datetime add", ok(DateArith(dt, Int(3), "SECOND", false)), "'2024-03-01 00:00:01.000000'"},
		{"year", fn("year", date), "2024"},
		{"datediff", fn("datediff", dt, date), "29"},
		{"bool and", ok(And(cmp(Lt, Int(1), Int(2)), cmp(Ge, Str("b"), Str("a")))), "1"},
		{"bool or null", ok(Or(Null(BoolT()), Bool(false))), "NULL"},
		{"not", ok(Not(cmp(Eq, Int(1), Int(0)))), "1"},
		{"null arith", ar(Add, Int(1), Null(Int64T())), "NULL"},
		{"is null", IsNull(ar(Add, Int(1), Null(Int64T())), false), "1"},
		{"case", ok(Case(nil, []When{{Cond: cmp(Gt, Int(1), Int(2)), Then: Str("x")}, {Cond: Bool(true), Then: Str("y")}}, Str("z"))), "'y'"},
		{"case operand", ok(Case(Int(2), []When{{Cond: Int(1), Then: dec("1.5")}, {Cond: Int(2), Then: dec("2.25")}}, nil)), "2.25"},
		{"if", ok(If(Bool(false), Int(1), Int(2))), "2"},
		{"coalesce", ok(Coalesce(Null(Int64T()), ar(Add, Int(2), Int(2)), Int(9))), "4"},
		{"in", ok(In(ar(Add, Int(1), Int(1)), []Expr{Int(1), Int(2)}, false)), "1"},
		{"not in null", ok(In(Int(3), []Expr{Int(1), Null(Int64T())}, true)), "NULL"},
		{"like", ok(Like(Str("fluss"), fn("concat", Str("fl"), Str("%")), 0, false)), "1"},
		{"between", ok(Between(Int(5), Int(1), ar(Add, Int(2), Int(3)), false)), "1"},
		{"column stays", cmp(Lt, k, ar(Add, Int(10), Int(5))), "(k < 15)"},
		{"column in arith stays", ar(Add, k, ar(Mul, Int(2), Int(3))), "(k + 6)"},
		{"like over column", ok(Like(k, fn("concat", Str("1"), Str("%")), 0, false)), "CAST(k AS text) LIKE '1%'"},
		{"case over column", ok(Case(nil, []When{{Cond: cmp(Gt, k, ar(Add, Int(1), Int(0))), Then: ar(Add, Int(1), Int(1))}}, Null(Int64T()))), "CASE WHEN (k > 1) THEN 2 ELSE NULL END"},
		{"now stays", fn("now"), "now()"},
		{"curdate stays", fn("curdate"), "curdate()"},
		{"unix_timestamp stays", fn("unix_timestamp"), "unix_timestamp()"},
		{"rand stays", ar(Add, fn("rand"), Int(1)), "(rand() + 1)"},
		{"rand seed stays", fn("rand", Int(7)), "rand(7)"},
		{"uuid stays", fn("length", fn("uuid")), "length(uuid())"},
		{"random range stays", fn("random", Int(1), Int(5)), "random(1, 5)"},
		{"json stays json", fn("json_insert", Str("{}"), Str("$.k"), fn("json_parse", Str("{}"))), "json_insert('{}', '$.k', json_parse('{}'))"},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := &Env{Mem: mem, Now: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Fold(env, tc.in)
			if !arrow.TypeEqual(got.DataType(), tc.in.DataType()) {
				t.Fatalf("type %s, want %s", got.DataType(), tc.in.DataType())
			}
			if g := got.String(); !strings.EqualFold(g, tc.want) {
				t.Fatalf("folded %s to %s, want %s", tc.in, g, tc.want)
			}
			if strings.Contains(tc.name, "stays") {
				if _, ok := got.(*Literal); ok {
					t.Fatalf("%s folded to a literal", tc.in)
				}
			}
			if strings.Contains(tc.name, "rand") || strings.Contains(tc.name, "uuid") || strings.Contains(tc.name, "random") {
				return // values differ by design
			}
			batch := foldBatch(mem)
			defer batch.Release()
			a, err := tc.in.Eval(env, batch)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Release()
			b, err := got.Eval(env, batch)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Release()
			if !array.Equal(a, b) {
				t.Fatalf("rows differ: %v vs folded %v", a, b)
			}
		})
	}
}

// TestFoldKeepsErrors: a constant subtree that fails stays unfolded, so the
// statement fails when (and only when) rows are evaluated.
func TestFoldKeepsErrors(t *testing.T) {
	ok := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := &Env{Mem: mem}
	big := Int(9223372036854775807)
	ovf := ok(Arith(Add, big, Int(1)))
	k := Col(0, "k", Int64T())
	e := ok(Cmp(Gt, k, ovf))
	got := Fold(env, e)
	if got.String() != e.String() {
		t.Fatalf("folded an overflowing subtree: %s", got)
	}
	rep := ok(Func("repeat", Str("ab"), Int(MaxStringBytes)))
	if g := Fold(env, rep); g != rep {
		t.Fatalf("folded a too-large string: %s", g)
	}
	batch := foldBatch(mem)
	defer batch.Release()
	if _, err := got.Eval(env, batch); !errors.Is(err, ErrOverflow) {
		t.Fatalf("evaluation error %v, want ErrOverflow", err)
	}
	// With no rows the statement has nothing to evaluate, and no error.
	empty := batch.NewSlice(0, 0)
	defer empty.Release()
	a, err := got.Eval(env, empty)
	if err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	a.Release()
}

// TestFoldTypedNull: a folded NULL keeps the type of what it replaces.
func TestFoldTypedNull(t *testing.T) {
	ok := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := &Env{Mem: mem}
	d, _ := Decimal("1.50")
	e := ok(Arith(Add, d, Null(DecimalT(10, 2))))
	got := Fold(env, e)
	l, isLit := got.(*Literal)
	if !isLit || l.Value != nil || !arrow.TypeEqual(l.Type, e.DataType()) {
		t.Fatalf("got %#v, want a NULL of %s", got, e.DataType())
	}
	if Fold(nil, e) != e {
		t.Fatal("Fold without an env must return its input")
	}
}
