package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

func TestNestedColumns(t *testing.T) {
	listT := arrow.ListOf(expr.Int64T())
	mapT := arrow.MapOf(expr.StringT(), expr.Int64T())
	structT := arrow.StructOf(arrow.Field{Name: "a", Type: expr.Int64T(), Nullable: true}, arrow.Field{Name: "b", Type: expr.StringT(), Nullable: true})
	s := sch("id", expr.Int64T(), "l", listT, "m", mapT, "st", structT)
	scan := scanOf(s,
		[][]any{
			{1, []any{int64(1), int64(2)}, expr.MapValue{Keys: []any{"k"}, Values: []any{int64(10)}}, []any{int64(7), "x"}},
			{2, nil, nil, nil},
		},
		[][]any{
			{3, []any{int64(5), nil, int64(6)}, expr.MapValue{Keys: []any{"a", "k"}, Values: []any{nil, int64(30)}}, []any{nil, "z"}},
		},
	)
	l, m, st := expr.Col(1, "l", listT), expr.Col(2, "m", mapT), expr.Col(3, "st", structT)
	id := expr.Col(0, "id", expr.Int64T())
	p := must(NewProject(scan, []expr.Expr{
		id,
		must(expr.Element(l, expr.Int(1))),
		must(expr.Element(l, expr.Int(-1))),
		must(expr.Element(m, expr.Str("k"))),
		must(expr.Field(st, "b")),
		must(expr.Func("size", l)),
		must(expr.Func("array_contains", l, expr.Int(6))),
		l, m, st,
	}, []string{"id", "l1", "llast", "mk", "sb", "n", "has6", "l", "m", "st"}))
	// Filter and sort move nested columns through take/filter kernels.
	f := must(NewFilter(p, must(expr.Cmp(expr.Ne, id, expr.Int(2)))))
	sorted := must(NewSort(f, []SortKey{{Expr: expr.Col(0, "id", expr.Int64T()), Desc: true}}))
	wantRows(t, run(t, sorted),
		`3|5|6|30|z|3|1|[5, null, 6]|{"a":null, "k":30}|{"a":null, "b":"z"}`,
		`1|1|2|10|x|2|0|[1, 2]|{"k":10}|{"a":7, "b":"x"}`,
	)
	// Join and aggregate with nested payload columns.
	j := must(NewHashJoin(scan, scan, LeftSemiJoin, []expr.Expr{id}, []expr.Expr{id}, nil))
	wantRows(t, run(t, NewLimit(j, 1, 1)), `2|NULL|NULL|NULL`)
	// A list literal through Values and CAST to string.
	lit := expr.MustLit([]any{int64(1), nil}, listT)
	v := must(NewValues(sch("a", listT, "s", expr.StringT()), [][]expr.Expr{{lit, must(expr.Cast(lit, expr.StringT()))}}))
	wantRows(t, run(t, v), "[1, null]|[1, null]")
}
