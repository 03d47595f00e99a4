package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/render"
)

func TestScanFilterProject(t *testing.T) {
	s := sch("id", expr.Int64T(), "name", expr.StringT(), "score", expr.Float64T())
	scan := scanOf(s,
		[][]any{{1, "a", 1.5}, {2, nil, 2.5}, {3, "c", nil}},
		[][]any{},
		[][]any{{4, "d", 10.0}, {nil, "e", 3.0}},
	)
	id := expr.Col(0, "id", expr.Int64T())
	score := expr.Col(2, "score", expr.Float64T())
	cases := []struct {
		name string
		pred expr.Expr
		want []string
	}{
		{"gt", must(expr.Cmp(expr.Gt, id, expr.Int(1))), []string{"2|NULL|2.5|4.5", "3|c|NULL|NULL", "4|d|10|14"}},
		{"null pred drops", must(expr.Cmp(expr.Gt, score, expr.Float(2))), []string{"2|NULL|2.5|4.5", "4|d|10|14", "NULL|e|3|NULL"}},
		{"or with null", must(expr.Or(must(expr.Cmp(expr.Eq, id, expr.Int(1))), expr.IsNull(id, false))), []string{"1|a|1.5|2.5", "NULL|e|3|NULL"}},
		{"none", must(expr.Cmp(expr.Gt, id, expr.Int(100))), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := must(NewFilter(scan, c.pred))
			sum := must(expr.Arith(expr.Add, id, score))
			p := must(NewProject(f, []expr.Expr{id, expr.Col(1, "name", expr.StringT()), score, sum}, []string{"id", "name", "score", "s"}))
			wantRows(t, run(t, p), c.want...)
		})
	}
}

func TestLimitOffset(t *testing.T) {
	s := sch("x", expr.Int64T())
	scan := scanOf(s, [][]any{{1}, {2}, {3}}, [][]any{{4}, {5}}, [][]any{{6}})
	cases := []struct {
		off, n int64
		want   []string
	}{
		{0, 2, []string{"1", "2"}},
		{2, 2, []string{"3", "4"}},
		{4, -1, []string{"5", "6"}},
		{1, 0, nil},
		{10, 5, nil},
		{0, 100, []string{"1", "2", "3", "4", "5", "6"}},
	}
	for _, c := range cases {
		wantRows(t, run(t, NewLimit(scan, c.off, c.n)), c.want...)
	}
}

func TestValues(t *testing.T) {
	s := sch("a", expr.Int64T(), "b", expr.StringT())
	v := must(NewValues(s, [][]expr.Expr{{expr.Int(1), expr.Str("x")}, {expr.Null(expr.NullT()), expr.Int(7)}}))
	wantRows(t, run(t, v), "1|x", "NULL|7")
	empty := must(NewValues(s, nil))
	wantRows(t, run(t, empty))
}

// TestLimitStopsPulling: LIMIT must not drain its input (a Fluss scan
// behind it stops early) and must release it as soon as it is satisfied.
func TestLimitStopsPulling(t *testing.T) {
	s := sch("x", expr.Int64T())
	pulled, released := 0, false
	src := SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		next := func() (arrow.RecordBatch, error) {
			pulled++
			return mkBatch(mem, s, [][]any{{pulled}, {pulled}}), nil
		}
		return newPullReader(ctx, s, next, func() { released = true }), nil
	})
	lim := NewLimit(must(NewFilter(NewScan("", "endless", src), expr.Bool(true))), 1, 2)
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rr, err := lim.Open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	for rr.Next() {
		b := rr.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			got = append(got, render.String(b.Column(0), i))
		}
	}
	if fmt.Sprint(got) != "[1 2]" || pulled != 2 || !released {
		t.Fatalf("rows %v, pulled %d batches, released %v", got, pulled, released)
	}
}
