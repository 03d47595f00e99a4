package exec

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

func sortInput() (*Scan, expr.Expr, expr.Expr) {
	s := sch("a", expr.Int64T(), "b", expr.StringT())
	scan := scanOf(s,
		[][]any{{3, "x"}, {nil, "n1"}, {1, "y"}},
		[][]any{{2, nil}, {1, "a"}, {nil, "n2"}, {3, "b"}},
	)
	return scan, expr.Col(0, "a", expr.Int64T()), expr.Col(1, "b", expr.StringT())
}

func TestSortAndTopN(t *testing.T) {
	scan, a, b := sortInput()
	cases := []struct {
		name string
		keys []SortKey
		want []string
	}{
		{"asc nulls first (MySQL default), stable", []SortKey{{Expr: a}},
			[]string{"NULL|n1", "NULL|n2", "1|y", "1|a", "2|NULL", "3|x", "3|b"}},
		{"desc nulls last", []SortKey{{Expr: a, Desc: true}},
			[]string{"3|x", "3|b", "2|NULL", "1|y", "1|a", "NULL|n1", "NULL|n2"}},
		{"asc nulls last, then b desc", []SortKey{{Expr: a, Nulls: NullsLast}, {Expr: b, Desc: true}},
			[]string{"1|y", "1|a", "2|NULL", "3|x", "3|b", "NULL|n2", "NULL|n1"}},
		{"string key", []SortKey{{Expr: b}},
			[]string{"2|NULL", "1|a", "3|b", "NULL|n1", "NULL|n2", "3|x", "1|y"}},
		{"desc nulls first", []SortKey{{Expr: b, Desc: true, Nulls: NullsFirst}},
			[]string{"2|NULL", "1|y", "3|x", "NULL|n2", "NULL|n1", "3|b", "1|a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantRows(t, run(t, must(NewSort(scan, c.keys))), c.want...)
			for _, lim := range []struct{ off, n int64 }{{0, 3}, {2, 3}, {0, 100}, {6, 5}, {10, 1}} {
				top := must(NewTopN(scan, c.keys, lim.off, lim.n))
				end := min(int(lim.off+lim.n), len(c.want))
				var w []string
				if int(lim.off) < len(c.want) {
					w = c.want[lim.off:end]
				}
				wantRows(t, run(t, top), w...)
			}
		})
	}
	wantRows(t, run(t, must(NewTopN(scan, []SortKey{{Expr: a}}, 0, 0))))
}

// TestTopNMatchesSort feeds many batches through TopN (forcing heap
// compaction) and compares with a full sort.
func TestTopNMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	s := sch("k", expr.Float64T(), "id", expr.Int64T())
	var groups [][][]any
	id := 0
	for b := 0; b < 80; b++ {
		var rows [][]any
		for i := 0; i < 50; i++ {
			var k any = float64(rng.Intn(200)) - 100
			if rng.Intn(10) == 0 {
				k = nil
			}
			rows = append(rows, []any{k, id})
			id++
		}
		groups = append(groups, rows)
	}
	scan := scanOf(s, groups...)
	keys := []SortKey{{Expr: expr.Col(0, "k", expr.Float64T()), Desc: true}, {Expr: expr.Col(1, "id", expr.Int64T())}}
	full := run(t, must(NewSort(scan, keys)))
	for _, n := range []int64{1, 10, 333} {
		got := run(t, must(NewTopN(scan, keys, 5, n)))
		if fmt.Sprint(got) != fmt.Sprint(full[5:5+n]) {
			t.Fatalf("top %d differs from sort", n)
		}
	}
	ids := make([]string, 0, len(full))
	for _, r := range full {
		ids = append(ids, r[1])
	}
	if u := slices.Compact(slices.Sorted(slices.Values(ids))); len(u) != 4000 {
		t.Fatalf("%d distinct rows, want 4000", len(u))
	}
}

func TestUnionDistinct(t *testing.T) {
	scan, a, b := sortInput()
	p := must(NewProject(scan, []expr.Expr{a}, []string{"a"}))
	v := must(NewValues(sch("x", expr.Float64T()), [][]expr.Expr{{expr.Float(1.5)}, {expr.Null(expr.NullT())}}))
	all := must(NewUnion([]Operator{p, v}, false))
	wantRows(t, run(t, all), "3", "NULL", "1", "2", "1", "NULL", "3", "1.5", "NULL")
	if all.Schema().Field(0).Name != "a" || all.Schema().Field(0).Type.ID() != expr.Float64T().ID() {
		t.Fatalf("union schema %s", all.Schema())
	}
	wantRows(t, run(t, must(NewUnion([]Operator{p, v}, true))), "3", "NULL", "1", "2", "1.5")
	wantRows(t, run(t, NewDistinct(must(NewProject(scan, []expr.Expr{b}, []string{"b"})))), "x", "n1", "y", "NULL", "a", "n2", "b")
	if _, err := NewUnion([]Operator{scan, p}, false); err == nil {
		t.Fatal("column count mismatch accepted")
	}
}
