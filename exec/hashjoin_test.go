package exec

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

func joinInputs() (left, right *Scan) {
	left = scanOf(sch("id", expr.Int64T(), "name", expr.StringT()),
		[][]any{{1, "a"}, {2, "b"}, {nil, "n"}},
		[][]any{{3, "c"}, {1, "a2"}},
	)
	right = scanOf(sch("rid", expr.Int32T(), "v", expr.Int64T()),
		[][]any{{1, 10}, {3, 30}, {1, 11}},
		[][]any{{nil, 99}, {4, 40}},
	)
	return left, right
}

func TestHashJoin(t *testing.T) {
	left, right := joinInputs()
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int32T())}
	// Residual over the joined row: v > 10.
	res := must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(10)))
	cases := []struct {
		typ  JoinType
		res  expr.Expr
		want []string
	}{
		{InnerJoin, nil, []string{"1|a|1|10", "1|a|1|11", "3|c|3|30", "1|a2|1|10", "1|a2|1|11"}},
		{InnerJoin, res, []string{"1|a|1|11", "3|c|3|30", "1|a2|1|11"}},
		{LeftOuterJoin, nil, []string{"1|a|1|10", "1|a|1|11", "2|b|NULL|NULL", "NULL|n|NULL|NULL", "3|c|3|30", "1|a2|1|10", "1|a2|1|11"}},
		{LeftOuterJoin, must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(20))), []string{"1|a|NULL|NULL", "2|b|NULL|NULL", "NULL|n|NULL|NULL", "3|c|3|30", "1|a2|NULL|NULL"}},
		{LeftSemiJoin, nil, []string{"1|a", "3|c", "1|a2"}},
		{LeftSemiJoin, must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(20))), []string{"3|c"}},
		{LeftAntiJoin, nil, []string{"2|b", "NULL|n"}},
		{LeftAntiJoin, res, []string{"2|b", "NULL|n"}},
		{NullAwareLeftAntiJoin, nil, nil}, // right side has a NULL key
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			j := must(NewHashJoin(left, right, c.typ, lk, rk, c.res))
			wantRows(t, run(t, j), c.want...)
		})
	}
}

func TestHashJoinNullAwareAndEmpty(t *testing.T) {
	left, _ := joinInputs()
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	right := scanOf(sch("rid", expr.Int64T()), [][]any{{1}, {5}})
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int64T())}
	// NOT IN (1, 5): NULL id is unknown, so dropped.
	wantRows(t, run(t, must(NewHashJoin(left, right, NullAwareLeftAntiJoin, lk, rk, nil))), "2|b", "3|c")
	empty := scanOf(sch("rid", expr.Int64T()))
	// NOT IN (empty) keeps everything, NULLs too.
	wantRows(t, run(t, must(NewHashJoin(left, empty, NullAwareLeftAntiJoin, lk, rk, nil))), "1|a", "2|b", "NULL|n", "3|c", "1|a2")
	wantRows(t, run(t, must(NewHashJoin(left, empty, InnerJoin, lk, rk, nil))))
	wantRows(t, run(t, must(NewHashJoin(left, empty, LeftOuterJoin, lk, rk, nil))), "1|a|NULL", "2|b|NULL", "NULL|n|NULL", "3|c|NULL", "1|a2|NULL")
}

func TestHashJoinMultiKeyStrings(t *testing.T) {
	left := scanOf(sch("a", expr.StringT(), "b", expr.Int64T()), [][]any{{"x", 1}, {"x", 2}, {"y", 1}, {nil, 1}})
	right := scanOf(sch("c", expr.StringT(), "d", expr.Float64T(), "e", expr.StringT()), [][]any{{"x", 2.0, "hit"}, {"y", 1.0, "hit2"}, {nil, 1.0, "null"}})
	j := must(NewHashJoin(left, right, InnerJoin,
		[]expr.Expr{expr.Col(0, "a", expr.StringT()), expr.Col(1, "b", expr.Int64T())},
		[]expr.Expr{expr.Col(0, "c", expr.StringT()), expr.Col(1, "d", expr.Float64T())}, nil))
	wantRows(t, run(t, j), "x|2|x|2|hit", "y|1|y|1|hit2")
	ex := ExplainTree(j)
	for _, w := range []string{"2:VHASH JOIN", "|  join op: INNER JOIN", "|----1:VOlapScanNode", "|       TABLE: t", "  0:VOlapScanNode"} {
		if !strings.Contains(ex, w) {
			t.Errorf("explain lacks %q:\n%s", w, ex)
		}
	}
}

func TestCrossJoin(t *testing.T) {
	left, right := joinInputs()
	// No keys: every pair; with a residual it is a theta join.
	cross := must(NewHashJoin(left, right, InnerJoin, nil, nil, nil))
	if got := len(run(t, cross)); got != 25 {
		t.Fatalf("cross join: %d rows, want 25", got)
	}
	theta := must(NewHashJoin(left, right, LeftOuterJoin, nil, nil,
		must(expr.Cmp(expr.Gt, expr.Col(0, "id", expr.Int64T()), expr.Col(2, "rid", expr.Int32T())))))
	wantRows(t, run(t, theta),
		"1|a|NULL|NULL", "2|b|1|10", "2|b|1|11", "NULL|n|NULL|NULL", "3|c|1|10", "3|c|1|11", "1|a2|NULL|NULL")
	if !strings.HasPrefix(theta.Explain(), "VNESTED LOOP JOIN") {
		t.Errorf("explain: %s", theta.Explain())
	}
}

// TestHashJoinOuterTypedColumns: a left outer join whose residual reads
// one build column copies only that one for it, then the passing pairs
// and the unmatched rows whole: build columns of every copy path (VARCHAR
// with NULLs, DECIMAL, BOOLEAN through arrow's take), NULL where a probe
// row has no passing pair, and more pairs than probe rows.
func TestHashJoinOuterTypedColumns(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	left := scanOf(sch("id", expr.Int64T(), "tag", expr.StringT()),
		[][]any{{1, "x"}, {2, "y"}},
		[][]any{{1, "z"}, {3, "w"}},
	)
	right := scanOf(sch("rid", expr.Int64T(), "s", expr.StringT(), "d", dec, "b", expr.BoolT()),
		[][]any{{1, "keep", decimal128.FromI64(150), true}, {1, nil, decimal128.FromI64(-5), false}, {1, "drop", decimal128.FromI64(7), nil}, {3, "keep", nil, true}},
	)
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int64T())}
	// s <> 'drop': NULL s fails it too.
	res := must(expr.Cmp(expr.Ne, expr.Col(3, "s", expr.StringT()), expr.Str("drop")))
	// Also tag <> 'z': a residual over both sides, tested pair by pair.
	both := must(expr.And(res, must(expr.Cmp(expr.Ne, expr.Col(1, "tag", expr.StringT()), expr.Str("z")))))
	cases := []struct {
		typ  JoinType
		res  expr.Expr
		want []string
	}{
		{InnerJoin, res, []string{"1|x|1|keep|1.50|1", "1|z|1|keep|1.50|1", "3|w|3|keep|NULL|1"}},
		{LeftOuterJoin, res, []string{"1|x|1|keep|1.50|1", "2|y|NULL|NULL|NULL|NULL", "1|z|1|keep|1.50|1", "3|w|3|keep|NULL|1"}},
		{LeftSemiJoin, res, []string{"1|x", "1|z", "3|w"}},
		{LeftAntiJoin, res, []string{"2|y"}},
		{FullOuterJoin, res, []string{"1|x|1|keep|1.50|1", "2|y|NULL|NULL|NULL|NULL", "1|z|1|keep|1.50|1", "3|w|3|keep|NULL|1", "NULL|NULL|1|NULL|-0.05|0", "NULL|NULL|1|drop|0.07|NULL"}},
		{InnerJoin, both, []string{"1|x|1|keep|1.50|1", "3|w|3|keep|NULL|1"}},
		{LeftOuterJoin, both, []string{"1|x|1|keep|1.50|1", "2|y|NULL|NULL|NULL|NULL", "1|z|NULL|NULL|NULL|NULL", "3|w|3|keep|NULL|1"}},
		{LeftAntiJoin, both, []string{"2|y", "1|z"}},
	}
	for _, c := range cases {
		t.Run(c.typ.String()+"/"+c.res.String(), func(t *testing.T) {
			wantRows(t, run(t, must(NewHashJoin(left, right, c.typ, lk, rk, c.res))), c.want...)
		})
	}
}
