package exec

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
)

// opens counts how often an input is opened: a full join must read each
// input once (a live table read twice can change in between).
type opens struct {
	Operator
	n *int
}

func (o opens) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	*o.n++
	return o.Operator.Open(ctx, env)
}

func TestFullOuterJoin(t *testing.T) {
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int32T())}
	gtV := must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(10)))
	idGtRid := must(expr.Cmp(expr.Gt, expr.Col(0, "id", expr.Int64T()), expr.Col(2, "rid", expr.Int32T())))
	// left (id, name): (1,a) (2,b) (NULL,n) | (3,c) (1,a2)
	// right (rid, v): (1,10) (3,30) (1,11) | (NULL,99) (4,40)
	cases := []struct {
		name   string
		lk, rk []expr.Expr
		res    expr.Expr
		want   []string
	}{
		// Left rows in order with their matches, then right rows 3 and 4,
		// which nothing matched (a NULL key never matches).
		{"keys", lk, rk, nil, []string{"1|a|1|10", "1|a|1|11", "2|b|NULL|NULL", "NULL|n|NULL|NULL", "3|c|3|30",
			"1|a2|1|10", "1|a2|1|11", "NULL|NULL|NULL|99", "NULL|NULL|4|40"}},
		// v > 10 drops the pairs with (1,10), which is then unmatched.
		{"keys and filter", lk, rk, gtV, []string{"1|a|1|11", "2|b|NULL|NULL", "NULL|n|NULL|NULL", "3|c|3|30",
			"1|a2|1|11", "NULL|NULL|1|10", "NULL|NULL|NULL|99", "NULL|NULL|4|40"}},
		// id > rid with no keys: 2 and 3 each beat both rid 1 rows; rid 3,
		// NULL and 4 are beaten by none.
		{"no keys", nil, nil, idGtRid, []string{"1|a|NULL|NULL", "2|b|1|10", "2|b|1|11", "NULL|n|NULL|NULL",
			"3|c|1|10", "3|c|1|11", "1|a2|NULL|NULL", "NULL|NULL|3|30", "NULL|NULL|NULL|99", "NULL|NULL|4|40"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			left, right := joinInputs()
			var nl, nr int
			j := must(NewHashJoin(opens{left, &nl}, opens{right, &nr}, FullOuterJoin, c.lk, c.rk, c.res))
			wantRows(t, run(t, j), c.want...)
			if nl != 1 || nr != 1 {
				t.Errorf("inputs opened %d and %d times, want once each", nl, nr)
			}
			for _, f := range j.Schema().Fields() {
				if !f.Nullable {
					t.Errorf("column %s is not nullable", f.Name)
				}
			}
		})
	}
	left, right := joinInputs()
	if ex := must(NewHashJoin(left, right, FullOuterJoin, lk, rk, nil)).Explain(); !strings.Contains(ex, "join op: FULL OUTER JOIN") {
		t.Errorf("explain: %s", ex)
	}
}

func TestFullOuterJoinEmptyAndLarge(t *testing.T) {
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int64T())}
	left := scanOf(sch("id", expr.Int64T()), [][]any{{1}, {nil}})
	empty := scanOf(sch("rid", expr.Int64T()))
	wantRows(t, run(t, must(NewHashJoin(left, empty, FullOuterJoin, lk, rk, nil))), "1|NULL", "NULL|NULL")
	emptyLeft := scanOf(sch("id", expr.Int64T()))
	right := scanOf(sch("rid", expr.Int64T()), [][]any{{2}, {nil}})
	wantRows(t, run(t, must(NewHashJoin(emptyLeft, right, FullOuterJoin, lk, rk, nil))), "NULL|2", "NULL|NULL")

	// More unmatched right rows than one tail batch: 0..9999 against left
	// key 5; every right row appears once, 5 with its match.
	const n = 10000
	big := make([][]any, n)
	for i := range big {
		big[i] = []any{i}
	}
	got := run(t, must(NewHashJoin(scanOf(sch("id", expr.Int64T()), [][]any{{5}}), scanOf(sch("rid", expr.Int64T()), big), FullOuterJoin, lk, rk, nil)))
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	if g := strings.Join(got[0], "|"); g != "5|5" {
		t.Errorf("first row %s, want the match 5|5", g)
	}
	for i, r := range got[1:] {
		want := i
		if i >= 5 {
			want++
		}
		if r[0] != "NULL" || r[1] != itoa(want) {
			t.Fatalf("row %d: %v, want NULL|%d", i+1, r, want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestRightOuterJoin: the pairs that match in left order, then the right
// (build) rows no pair matched with NULL left columns; left rows without
// a match are dropped (the full join's rows above, less those). Each
// input is read once.
func TestRightOuterJoin(t *testing.T) {
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int32T())}
	gtV := must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(10)))
	// left (id, name): (1,a) (2,b) (NULL,n) | (3,c) (1,a2)
	// right (rid, v): (1,10) (3,30) (1,11) | (NULL,99) (4,40)
	for _, c := range []struct {
		name string
		res  expr.Expr
		want []string
	}{
		{"keys", nil, []string{"1|a|1|10", "1|a|1|11", "3|c|3|30", "1|a2|1|10", "1|a2|1|11", "NULL|NULL|NULL|99", "NULL|NULL|4|40"}},
		// v > 10 fails every pair with (1,10), which is then unmatched.
		{"keys and filter", gtV, []string{"1|a|1|11", "3|c|3|30", "1|a2|1|11", "NULL|NULL|1|10", "NULL|NULL|NULL|99", "NULL|NULL|4|40"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			left, right := joinInputs()
			var nl, nr int
			j := must(NewHashJoin(opens{left, &nl}, opens{right, &nr}, RightOuterJoin, lk, rk, c.res))
			wantRows(t, run(t, j), c.want...)
			if nl != 1 || nr != 1 {
				t.Errorf("inputs opened %d and %d times, want once each", nl, nr)
			}
		})
	}
	left, right := joinInputs()
	j := must(NewHashJoin(left, right, RightOuterJoin, lk, rk, nil))
	if ex := j.Explain(); !strings.Contains(ex, "join op: RIGHT OUTER JOIN") {
		t.Errorf("explain: %s", ex)
	}
	if err := j.AddRuntimeFilters(&RuntimeFilter{Kind: RFMinMax}); err != nil {
		t.Errorf("a right outer join drops unmatched probe rows, so it takes runtime filters: %v", err)
	}
}
