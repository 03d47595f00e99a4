package exec

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestFilterSelection: conjuncts tested one after another on the rows
// still selected, and a Project over a Filter gathering only the columns
// it reads, give the rows derived by hand from the data, NULLs included.
func TestFilterSelection(t *testing.T) {
	s := sch("a", expr.Int64T(), "b", expr.StringT(), "c", expr.Float64T(), "d", expr.Date32T())
	dt := func(v string) any { return expr.MustLit(v, expr.Date32T()).Value }
	scan := scanOf(s,
		[][]any{{1, "x", 1.5, dt("2024-01-01")}, {2, "y", nil, dt("1969-12-31")}, {3, nil, 3.5, nil}, {4, "Ä", -4.0, dt("9999-12-31")}},
		[][]any{},
		[][]any{{nil, "z", 5.0, dt("1900-02-28")}, {6, "x", 6.5, dt("2000-02-29")}, {7, "w", 7.0, dt("1970-01-01")}},
		[][]any{{8, "v", 8.0, dt("2024-06-01")}}, // every row passes the first conjunct
	)
	a, b := expr.Col(0, "a", expr.Int64T()), expr.Col(1, "b", expr.StringT())
	c, d := expr.Col(2, "c", expr.Float64T()), expr.Col(3, "d", expr.Date32T())
	gt := func(e expr.Expr, v int64) expr.Expr { return must(expr.Cmp(expr.Gt, e, expr.Int(v))) }
	and := func(es ...expr.Expr) expr.Expr { return must(expr.And(es...)) }
	ne := must(expr.Cmp(expr.Ne, b, expr.Str("x")))
	cases := []struct {
		name  string
		pred  expr.Expr
		exprs []expr.Expr
		want  []string
	}{
		// a > 1 drops 1 and NULL; b <> 'x' drops 6 and NULL b (row 3);
		// c > 0 drops NULL c (row 2) and -4.
		{"three conjuncts, one column", and(gt(a, 1), ne, gt(c, 0)), []expr.Expr{d}, []string{"1970-01-01", "2024-06-01"}},
		{"three conjuncts, every column", and(gt(a, 1), ne, gt(c, 0)), []expr.Expr{a, b, c, d},
			[]string{"7|w|7|1970-01-01", "8|v|8|2024-06-01"}},
		{"string and date", and(ne, must(expr.Cmp(expr.Lt, d, must(expr.Lit("2000-01-01", expr.Date32T()))))),
			[]expr.Expr{b, must(expr.Arith(expr.Mul, c, expr.Int(2)))}, []string{"y|NULL", "z|10", "w|14"}},
		{"none after the second", and(gt(a, 5), must(expr.Cmp(expr.Eq, b, expr.Str("q")))), []expr.Expr{a}, nil},
		{"no column read", gt(a, 6), []expr.Expr{expr.Int(1)}, []string{"1", "1"}},
		{"single conjunct", gt(c, 6), []expr.Expr{a, d}, []string{"6|2000-02-29", "7|1970-01-01", "8|2024-06-01"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, len(tc.exprs))
			for i := range names {
				names[i] = string(rune('p' + i))
			}
			p := must(NewProject(must(NewFilter(scan, tc.pred)), tc.exprs, names))
			wantRows(t, run(t, p), tc.want...)
			// The Filter alone returns every column of the same rows.
			all := run(t, must(NewFilter(scan, tc.pred)))
			if len(all) != len(tc.want) {
				t.Errorf("filter alone: %d rows, want %d", len(all), len(tc.want))
			}
		})
	}
}

// TestFilterSelectionNoLeak: an error in a later conjunct releases what
// the earlier ones gathered.
func TestFilterSelectionNoLeak(t *testing.T) {
	s := sch("a", expr.Int64T())
	scan := scanOf(s, [][]any{{1}, {2}, {int64(1) << 62}})
	a := expr.Col(0, "a", expr.Int64T())
	pred := must(expr.And(must(expr.Cmp(expr.Gt, a, expr.Int(1))),
		must(expr.Cmp(expr.Gt, must(expr.Arith(expr.Mul, a, expr.Int(4))), expr.Int(0)))))
	env := &Env{Mem: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer env.Mem.(*memory.CheckedAllocator).AssertSize(t, 0)
	if _, err := runEnv(env, must(NewProject(must(NewFilter(scan, pred)), []expr.Expr{a}, []string{"a"}))); err == nil {
		t.Fatal("2^62 * 4 did not overflow")
	}
}

// TestFilterSelectionRandom: a three-conjunct filter under a Project of
// one column, over batches where each conjunct keeps more or fewer than
// half of the rows left (both the in-place and the gathering step),
// against the predicate computed here row by row.
func TestFilterSelectionRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	s := sch("a", expr.Int64T(), "b", expr.StringT(), "c", expr.Float64T())
	limits := []int64{900, 100, 500, 1000, 0, 300} // a < limit in batch g
	var groups [][][]any
	for range limits {
		var rows [][]any
		for r := 0; r < 700; r++ {
			var a, b, c any = rng.Int63n(1000), string(rune('w' + rng.Intn(4))), float64(rng.Intn(100)) / 4
			if rng.Intn(9) == 0 {
				a = nil
			}
			if rng.Intn(11) == 0 {
				b = nil
			}
			rows = append(rows, []any{a, b, c})
		}
		groups = append(groups, rows)
	}
	a, b, c := expr.Col(0, "a", expr.Int64T()), expr.Col(1, "b", expr.StringT()), expr.Col(2, "c", expr.Float64T())
	passed := 0
	for g, rows := range groups {
		limit := limits[g]
		pred := must(expr.And(must(expr.Cmp(expr.Lt, a, expr.Int(limit))), must(expr.Cmp(expr.Ne, b, expr.Str("x"))),
			must(expr.Cmp(expr.Ge, c, expr.Float(5)))))
		p := must(NewProject(must(NewFilter(scanOf(s, rows), pred)), []expr.Expr{c}, []string{"c"}))
		got := run(t, p)
		var gotVals []string
		for _, r := range got {
			gotVals = append(gotVals, r[0])
		}
		var wantG []string
		for _, r := range rows {
			if r[0] != nil && r[0].(int64) < limit && r[1] != nil && r[1] != "x" && r[2].(float64) >= 5 {
				wantG = append(wantG, strconv.FormatFloat(r[2].(float64), 'f', -1, 64))
			}
		}
		passed += len(wantG)
		if strings.Join(gotVals, ",") != strings.Join(wantG, ",") {
			t.Fatalf("batch %d: got %d rows, want %d\n got  %v\n want %v", g, len(gotVals), len(wantG), gotVals, wantG)
		}
	}
	if passed == 0 {
		t.Fatal("no row passed: the data does not exercise the filter")
	}
}
