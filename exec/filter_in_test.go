package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/exec/expr"
)

// inTable is the table the IN tests read, built the same way in Go and in
// DuckDB: column, type, Go value of row i (nil: NULL), DuckDB expression
// of row i (over range(n) r(i)).
var inStrings = []string{"", "A", "MAIL", "SHIP", "MAIL ", "AIR REG", "REG AIR", "SM CASE", "MED PACK", "LONGER THAN EIGHT", "LONGER THAN EIGHX", "RAIL", "TRUCK", "FOB"}

type inCol struct {
	name, duckType, duck string
	typ                  arrow.DataType
	val                  func(i int) any
}

func inCols() []inCol {
	return []inCol{
		{"i8", "TINYINT", "CASE WHEN i % 11 = 5 THEN NULL ELSE CAST(i % 13 - 6 AS TINYINT) END", arrow.PrimitiveTypes.Int8, func(i int) any {
			if i%11 == 5 {
				return nil
			}
			return int64(i%13 - 6)
		}},
		{"i32", "INTEGER", "CASE WHEN i % 7 = 3 THEN NULL ELSE CAST(i % 50 AS INTEGER) END", expr.Int32T(), func(i int) any {
			if i%7 == 3 {
				return nil
			}
			return int64(i % 50)
		}},
		{"i32nn", "INTEGER", "CAST(i % 50 AS INTEGER)", expr.Int32T(), func(i int) any { return int64(i % 50) }},
		{"i64", "BIGINT", "CAST(i % 40 AS BIGINT) * 100000000000 - 7", expr.Int64T(), func(i int) any { return int64(i%40)*100000000000 - 7 }},
		{"d", "DATE", "CASE WHEN i % 9 = 1 THEN NULL ELSE DATE '1970-01-01' + CAST(9000 + i % 30 AS INTEGER) END", arrow.FixedWidthTypes.Date32, func(i int) any {
			if i%9 == 1 {
				return nil
			}
			return arrow.Date32(9000 + i%30)
		}},
		{"dec", "DECIMAL(12,2)", "CASE WHEN i % 10 = 0 THEN NULL ELSE CAST((i % 25) * 0.25 AS DECIMAL(12,2)) END", expr.DecimalT(12, 2), func(i int) any {
			if i%10 == 0 {
				return nil
			}
			return decimal128.FromI64(int64(i%25) * 25)
		}},
		{"s", "VARCHAR", fmt.Sprintf("CASE WHEN i %% 8 = 6 THEN NULL ELSE ([%s])[1 + i %% %d] END", duckStrList(inStrings), len(inStrings)), expr.StringT(), func(i int) any {
			if i%8 == 6 {
				return nil
			}
			return inStrings[i%len(inStrings)]
		}},
		{"snn", "VARCHAR", fmt.Sprintf("([%s])[1 + i %% %d]", duckStrList(inStrings), len(inStrings)), expr.StringT(), func(i int) any { return inStrings[i%len(inStrings)] }},
		{"f", "DOUBLE", "CASE WHEN i % 6 = 2 THEN NULL ELSE (i % 10) / 2.0 END", expr.Float64T(), func(i int) any {
			if i%6 == 2 {
				return nil
			}
			return float64(i%10) / 2
		}},
	}
}

func duckStrList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

// inCase is one IN predicate: the column, the list as SQL and as Inlet
// constants, and whether a selection kernel must serve it.
type inCase struct {
	col    string
	not    bool
	sql    string
	list   []expr.Expr
	kernel bool
}

func inCases(t *testing.T) []inCase {
	i := func(v int64) expr.Expr { return expr.Int(v) }
	s := func(v string) expr.Expr { return expr.Str(v) }
	dec := func(v string) expr.Expr { return must(expr.Decimal(v)) }
	date := func(days int) expr.Expr { return must(expr.Lit(arrow.Date32(days), expr.Date32T())) }
	null := expr.Null(expr.NullT())
	var long []expr.Expr
	var longSQL []string
	for k := 0; k < 20; k++ {
		v := fmt.Sprintf("X%d", k)
		if k < len(inStrings) {
			v = inStrings[k]
		}
		long = append(long, s(v))
		longSQL = append(longSQL, "'"+v+"'")
	}
	var many []expr.Expr
	var manySQL []string
	for k := int64(0); k < 12; k++ {
		many = append(many, i(k*300000000000-7))
		manySQL = append(manySQL, fmt.Sprint(k*300000000000-7))
	}
	cases := []inCase{
		{col: "i32", sql: "3, 7, 7, 49", list: []expr.Expr{i(3), i(7), i(7), i(49)}, kernel: true},
		{col: "i32", sql: "3, NULL", list: []expr.Expr{i(3), null}, kernel: true},
		{col: "i32nn", sql: "3, NULL", list: []expr.Expr{i(3), null}, kernel: true},
		{col: "i32", sql: "-5, 1000000", list: []expr.Expr{i(-5), i(1000000)}, kernel: true},
		{col: "i32nn", sql: "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12", list: []expr.Expr{i(0), i(1), i(2), i(3), i(4), i(5), i(6), i(7), i(8), i(9), i(10), i(11), i(12)}, kernel: true},
		{col: "i8", sql: "300, 5, -6", list: []expr.Expr{i(300), i(5), i(-6)}, kernel: true}, // a cast to BIGINT
		{col: "i8", sql: "NULL", list: []expr.Expr{null}},
		{col: "i64", sql: "-7, 299999999993, 3899999999993, -1", list: []expr.Expr{i(-7), i(299999999993), i(3899999999993), i(-1)}, kernel: true},
		{col: "i64", sql: strings.Join(manySQL, ", "), list: many, kernel: true},
		{col: "d", sql: "DATE '1994-08-23', DATE '1994-09-10', DATE '2000-01-01'", list: []expr.Expr{date(9000), date(9018), date(10957)}, kernel: true},
		{col: "dec", sql: "1.25, 2.50, 3, 2.5", list: []expr.Expr{dec("1.25"), dec("2.50"), i(3), dec("2.5")}, kernel: true},
		{col: "dec", sql: "0.25, NULL", list: []expr.Expr{dec("0.25"), null}, kernel: true},
		{col: "s", sql: "'MAIL', 'SHIP'", list: []expr.Expr{s("MAIL"), s("SHIP")}, kernel: true},
		{col: "snn", sql: "'MAIL', 'SHIP', 'MAIL'", list: []expr.Expr{s("MAIL"), s("SHIP"), s("MAIL")}, kernel: true},
		{col: "s", sql: "'', 'LONGER THAN EIGHT', 'MED PACK', 'SM CAS'", list: []expr.Expr{s(""), s("LONGER THAN EIGHT"), s("MED PACK"), s("SM CAS")}, kernel: true},
		{col: "s", sql: "'MAIL', NULL", list: []expr.Expr{s("MAIL"), null}, kernel: true},
		{col: "snn", sql: strings.Join(longSQL, ", "), list: long, kernel: true},
		{col: "f", sql: "1.5, 2, 9", list: []expr.Expr{must(expr.Lit(1.5, expr.Float64T())), i(2), i(9)}},
	}
	var out []inCase
	for _, c := range cases {
		out = append(out, c)
		c.not = true
		out = append(out, c)
	}
	return out
}

// TestInKernels: x [NOT] IN (constant list) over every type the compiled
// probes serve (and one they do not), with NULLs in the column and in the
// list, duplicates, long lists and constants of other types, gives
// DuckDB's answer row by row through Eval, the same answer as the list
// spelled as ORs of =, and selects through the filter's kernel (alone and
// after another conjunct) exactly the rows where it is TRUE.
func TestInKernels(t *testing.T) {
	const n = 3000
	cols := inCols()
	fields := []any{"id", expr.Int64T()}
	idx := map[string]int{}
	for k, c := range cols {
		fields = append(fields, c.name, c.typ)
		idx[c.name] = k + 1
	}
	s := sch(fields...)
	var data [][]any
	for r := 0; r < n; r++ {
		row := []any{int64(r)}
		for _, c := range cols {
			row = append(row, c.val(r))
		}
		data = append(data, row)
	}
	env, mem := newEnv(t)
	b := mkBatch(mem, s, data)
	defer b.Release()

	d := spillDuck(t)
	var sel []string
	for _, c := range cols {
		sel = append(sel, fmt.Sprintf("CAST(%s AS %s) AS %s", c.duck, c.duckType, c.name))
	}
	duckRows(t, d, fmt.Sprintf("CREATE OR REPLACE TABLE in_t AS SELECT i AS id, %s FROM range(%d) r(i)", strings.Join(sel, ", "), n))
	// The same table on both sides, checked on every column.
	for _, c := range cols {
		want := duckRows(t, d, fmt.Sprintf("SELECT count(*), count(%[1]s), count(DISTINCT %[1]s) FROM in_t", c.name))
		got := [3]int{n, 0, 0}
		seen := map[any]bool{}
		for r := 0; r < n; r++ {
			if v := c.val(r); v != nil {
				got[1]++
				seen[v] = true
			}
		}
		got[2] = len(seen)
		if fmt.Sprint(want[0]) != fmt.Sprintf("[%d %d %d]", got[0], got[1], got[2]) {
			t.Fatalf("column %s: DuckDB has %v, Go %v", c.name, want[0], got)
		}
	}

	for _, tc := range inCases(t) {
		kw := "IN"
		if tc.not {
			kw = "NOT IN"
		}
		name := fmt.Sprintf("%s %s (%s)", tc.col, kw, tc.sql)
		t.Run(name, func(t *testing.T) {
			k := idx[tc.col]
			col := expr.Col(k, tc.col, s.Field(k).Type)
			pred := must(expr.In(col, tc.list, tc.not))
			var ors []expr.Expr
			for _, x := range tc.list {
				ors = append(ors, must(expr.Cmp(expr.Eq, col, x)))
			}
			ref := must(expr.Or(ors...))
			if tc.not {
				ref = must(expr.Not(ref))
			}
			got := boolTexts(t, env, pred, b)
			if want := boolTexts(t, env, ref, b); !slices.Equal(got, want) {
				t.Fatalf("Eval differs from the ORs of = at row %d: %s, want %s", firstDiff(got, want), got[firstDiff(got, want)], want[firstDiff(got, want)])
			}
			// A slice of the batch (arrays with an offset) reads the same.
			part := b.NewSlice(17, n-5)
			gotPart := boolTexts(t, env, pred, part)
			part.Release()
			if !slices.Equal(gotPart, got[17:n-5]) {
				t.Fatalf("over a slice from row 17: row %d differs", 17+firstDiff(gotPart, got[17:n-5]))
			}
			duck := duckRows(t, d, fmt.Sprintf("SELECT %s %s (%s) FROM in_t ORDER BY id", tc.col, kw, tc.sql))
			for r := range got {
				w := strings.ToUpper(duck[r][0])
				if got[r] != w {
					t.Fatalf("row %d (%v): %s, DuckDB says %s", r, data[r][k], got[r], w)
				}
			}
			for _, after := range []bool{false, true} {
				p := pred
				if after {
					mod := must(expr.Arith(expr.Mod, expr.Col(0, "id", expr.Int64T()), expr.Int(3)))
					p = must(expr.And(must(expr.Cmp(expr.Ne, mod, expr.Int(0))), pred))
				}
				sl := newSelector(p)
				if tc.kernel && sl.kern[len(sl.kern)-1] == nil {
					t.Fatalf("%s: no kernel", pred)
				}
				var scratch []int64
				rows, all, err := sl.selectRows(context.Background(), env, b, &scratch)
				if err != nil {
					t.Fatal(err)
				}
				if all {
					rows = nil
					for r := 0; r < n; r++ {
						rows = append(rows, int64(r))
					}
				}
				var want []int64
				for r := range got {
					if got[r] == "TRUE" && !(after && r%3 == 0) {
						want = append(want, int64(r))
					}
				}
				if !slices.Equal(rows, want) {
					t.Fatalf("after=%v: selected %d rows %v…, want %d %v…", after, len(rows), head(rows), len(want), head(want))
				}
			}
		})
	}
	// ORs of conjunctions whose every conjunct has a kernel (Q19's shape)
	// select the rows DuckDB finds TRUE.
	i32 := expr.Col(idx["i32"], "i32", expr.Int32T())
	str := expr.Col(idx["s"], "s", expr.StringT())
	dc := expr.Col(idx["dec"], "dec", expr.DecimalT(12, 2))
	dt := expr.Col(idx["d"], "d", arrow.FixedWidthTypes.Date32)
	wide := must(expr.Cast(dc, expr.DecimalT(21, 2)))
	cmp := func(op expr.CmpOp, l, r expr.Expr) expr.Expr { return must(expr.Cmp(op, l, r)) }
	and := func(xs ...expr.Expr) expr.Expr { return must(expr.And(xs...)) }
	ors := []struct {
		sql  string
		pred expr.Expr
	}{
		{"(s IN ('MAIL', 'SHIP') AND i32 >= 10 AND i32 <= 30) OR (CAST(dec AS DECIMAL(21,2)) >= 1.00 AND CAST(dec AS DECIMAL(21,2)) <= 2.50) OR d = DATE '1994-08-25'",
			must(expr.Or(
				and(must(expr.In(str, []expr.Expr{expr.Str("MAIL"), expr.Str("SHIP")}, false)), cmp(expr.Ge, i32, expr.Int(10)), cmp(expr.Le, i32, expr.Int(30))),
				and(cmp(expr.Ge, wide, must(expr.Decimal("1.00"))), cmp(expr.Le, wide, must(expr.Decimal("2.50")))),
				cmp(expr.Eq, dt, must(expr.Lit(arrow.Date32(9002), expr.Date32T())))))},
		{"i32 NOT IN (1, 2, NULL) OR s = 'FOB' OR i32 < 0",
			must(expr.Or(must(expr.In(i32, []expr.Expr{expr.Int(1), expr.Int(2), null0()}, true)), cmp(expr.Eq, str, expr.Str("FOB")), cmp(expr.Lt, i32, expr.Int(0))))},
		{"(i32 > 40 AND s <> 'RAIL') OR (i32 > 45 AND i32 < 48)",
			must(expr.Or(and(cmp(expr.Gt, i32, expr.Int(40)), cmp(expr.Ne, str, expr.Str("RAIL"))), and(cmp(expr.Gt, i32, expr.Int(45)), cmp(expr.Lt, i32, expr.Int(48)))))},
	}
	for _, o := range ors {
		t.Run(o.sql, func(t *testing.T) {
			var want []int64
			for _, r := range duckRows(t, d, "SELECT id FROM in_t WHERE "+o.sql+" ORDER BY id") {
				var v int64
				fmt.Sscan(r[0], &v)
				want = append(want, v)
			}
			if txt := boolTexts(t, env, o.pred, b); slices.Index(txt, "TRUE") < 0 && len(want) > 0 {
				t.Fatalf("Eval finds no TRUE row, DuckDB %d", len(want))
			}
			sl := newSelector(o.pred)
			if sl.kern[0] == nil {
				t.Fatalf("%s: no kernel", o.pred)
			}
			var scratch []int64
			rows, _, err := sl.selectRows(context.Background(), env, b, &scratch)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, want) {
				t.Fatalf("selected %d rows %v…, DuckDB %d %v…", len(rows), head(rows), len(want), head(want))
			}
			// After another kernel (a selection to start from).
			sl = newSelector(must(expr.And(cmp(expr.Lt, expr.Col(0, "id", expr.Int64T()), expr.Int(n/2)), o.pred)))
			rows, _, err = sl.selectRows(context.Background(), env, b, &scratch)
			if err != nil {
				t.Fatal(err)
			}
			var half []int64
			for _, r := range want {
				if r < n/2 {
					half = append(half, r)
				}
			}
			if !slices.Equal(rows, half) {
				t.Fatalf("after id < %d: selected %d rows %v…, DuckDB %d %v…", n/2, len(rows), head(rows), len(half), head(half))
			}
		})
	}
	t.Run("empty list", func(t *testing.T) {
		if _, err := expr.In(expr.Col(1, "i8", arrow.PrimitiveTypes.Int8), nil, false); !errors.Is(err, expr.ErrArity) {
			t.Fatalf("IN (): %v, want an arity error", err)
		}
	})
}

func null0() expr.Expr { return expr.Null(expr.NullT()) }

// boolTexts evaluates a boolean e over b: TRUE, FALSE or NULL per row.
func boolTexts(t *testing.T, env *Env, e expr.Expr, b arrow.RecordBatch) []string {
	t.Helper()
	a, err := e.Eval(env, b)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	m := a.(*array.Boolean)
	out := make([]string, m.Len())
	for i := range out {
		switch {
		case m.IsNull(i):
			out[i] = "NULL"
		case m.Value(i):
			out[i] = "TRUE"
		default:
			out[i] = "FALSE"
		}
	}
	return out
}

func firstDiff(a, b []string) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// TestColumnsKernel: column op column over every type the kernel serves,
// NULLs on either side or none, NaN among doubles, alone and after
// another conjunct, selects the rows where a row-by-row reading of SQL's
// rules (NULL never selected, NaN unequal to everything) says TRUE.
func TestColumnsKernel(t *testing.T) {
	const n = 2000
	types := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, expr.Int32T(), expr.Int64T(), expr.Float64T(), arrow.FixedWidthTypes.Date32}
	ops := []struct {
		op   expr.CmpOp
		test func(a, b float64) bool
	}{
		{expr.Eq, func(a, b float64) bool { return a == b }},
		{expr.Ne, func(a, b float64) bool { return a != b }},
		{expr.Lt, func(a, b float64) bool { return a < b }},
		{expr.Le, func(a, b float64) bool { return a <= b }},
		{expr.Gt, func(a, b float64) bool { return a > b }},
		{expr.Ge, func(a, b float64) bool { return a >= b }},
	}
	num := func(i, mod int) float64 { return float64(i*7%mod - mod/2) }
	for _, typ := range types {
		for _, nulls := range []string{"none", "left", "both"} {
			isNull := func(i int, right bool) bool {
				return nulls == "both" && i%5 == 1 || nulls == "left" && !right && i%4 == 2 || nulls == "both" && right && i%6 == 3
			}
			x := func(i int) float64 { return num(i, 9) }
			y := func(i int) float64 { return num(i, 7) }
			nan := func(i int) bool { return typ.ID() == arrow.FLOAT64 && i%13 == 0 }
			goVal := func(v float64) any {
				switch typ.ID() {
				case arrow.FLOAT64:
					return v
				case arrow.DATE32:
					return arrow.Date32(20000 + int32(v))
				}
				return int64(v)
			}
			var data [][]any
			for i := 0; i < n; i++ {
				var a, b any = goVal(x(i)), goVal(y(i))
				if nan(i) {
					a = math.NaN()
				}
				if isNull(i, false) {
					a = nil
				}
				if isNull(i, true) {
					b = nil
				}
				data = append(data, []any{a, b, int64(i)})
			}
			s := sch("a", typ, "b", typ, "id", expr.Int64T())
			env, mem := newEnv(t)
			bt := mkBatch(mem, s, data)
			for _, o := range ops {
				for _, after := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/nulls=%s/%s/after=%v", typ, nulls, o.op, after), func(t *testing.T) {
						c := must(expr.Cmp(o.op, expr.Col(0, "a", typ), expr.Col(1, "b", typ)))
						pred := c
						if after {
							mod := must(expr.Arith(expr.Mod, expr.Col(2, "id", expr.Int64T()), expr.Int(3)))
							pred = must(expr.And(must(expr.Cmp(expr.Ne, mod, expr.Int(0))), c))
						}
						sel := newSelector(pred)
						if sel.kern[len(sel.kern)-1] == nil {
							t.Fatalf("%s: no kernel", c)
						}
						var scratch []int64
						rows, all, err := sel.selectRows(context.Background(), env, bt, &scratch)
						if err != nil {
							t.Fatal(err)
						}
						if all {
							rows = nil
							for i := 0; i < n; i++ {
								rows = append(rows, int64(i))
							}
						}
						var want []int64
						for i := 0; i < n; i++ {
							if isNull(i, false) || isNull(i, true) || (after && i%3 == 0) {
								continue
							}
							a := x(i)
							if nan(i) {
								a = math.NaN()
							}
							if o.test(a, y(i)) {
								want = append(want, int64(i))
							}
						}
						if !slices.Equal(rows, want) {
							t.Fatalf("selected %d rows %v…, want %d %v…", len(rows), head(rows), len(want), head(want))
						}
					})
				}
			}
			bt.Release()
			mem.AssertSize(t, 0)
		}
	}
}
