package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/render"
)

// TestRuntimeFilterUnderFilter: a probe scan's runtime filter below a
// Filter (and a Project) is applied in one selection with the Filter's
// predicate (pipeline.applyFirst). The answer of each join is derived in
// Go from the rows, for predicates over ints, strings and decimals with
// NULLs, with the predicate tested before the filter (Scan.Pre, direct
// kernels) or after it (no kernel), over batches where everything,
// nothing, or some rows pass.
func TestRuntimeFilterUnderFilter(t *testing.T) {
	dt := expr.DecimalT(10, 2)
	s := sch("k", expr.Int64T(), "v", expr.Int64T(), "s", expr.StringT(), "d", dt)
	// Rows are k, v, s, d (d in hundredths) as pointers, nil for NULL.
	i64 := func(x int64) *int64 { return &x }
	str := func(x string) *string { return &x }
	mk := func(k, v *int64, sv *string, d *int64) []any {
		r := []any{nil, nil, nil, nil}
		if k != nil {
			r[0] = *k
		}
		if v != nil {
			r[1] = *v
		}
		if sv != nil {
			r[2] = *sv
		}
		if d != nil {
			r[3] = decimal128.FromI64(*d)
		}
		return r
	}
	// Build keys: the even numbers below 200.
	var build [][]any
	for k := int64(0); k < 200; k += 2 {
		build = append(build, []any{k})
	}
	inBuild := func(k *int64) bool { return k != nil && *k >= 0 && *k < 200 && *k%2 == 0 }
	words := []string{"x", "apple", "a string longer than twelve bytes", ""}
	// Batches: mixed rows with NULLs; every key in the build side with
	// values that pass every predicate; no key in it; keys in it but
	// values that fail (or are NULL).
	var groups [][][]any
	var raw [][][4]any
	add := func(rows [][4]any) {
		var g [][]any
		for _, r := range rows {
			k, _ := r[0].(*int64)
			v, _ := r[1].(*int64)
			sv, _ := r[2].(*string)
			d, _ := r[3].(*int64)
			g = append(g, mk(k, v, sv, d))
		}
		groups = append(groups, g)
		raw = append(raw, rows)
	}
	var mixed, pass, none, fail [][4]any
	for i := int64(0); i < 300; i++ {
		var k, v, d any = i64(i), i64(i % 97), i64(i*7%500 - 100)
		var sv any = str(words[i%4])
		switch {
		case i%11 == 0:
			k = (*int64)(nil)
		case i%13 == 0:
			v = (*int64)(nil)
		case i%17 == 0:
			sv = (*string)(nil)
		case i%19 == 0:
			d = (*int64)(nil)
		}
		mixed = append(mixed, [4]any{k, v, sv, d})
	}
	for i := int64(0); i < 40; i++ {
		pass = append(pass, [4]any{i64(2 * i), i64(i), str("apple"), i64(150 + i)})
		none = append(none, [4]any{i64(2*i + 1), i64(i), str("apple"), i64(150 + i)})
		fail = append(fail, [4]any{i64(2 * i), i64(60 + i), str("x"), i64(-5 - i)})
	}
	fail[3][1] = (*int64)(nil)
	add(mixed)
	add(pass)
	add(none)
	add(fail)
	add(mixed[:7])

	col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	vLt := must(expr.Cmp(expr.Lt, col(1), expr.Int(50)))
	sNe := must(expr.Cmp(expr.Ne, col(2), expr.Str("x")))
	dGe := must(expr.Cmp(expr.Ge, col(3), must(expr.Decimal("1.00"))))
	vMod := must(expr.Cmp(expr.Eq, must(expr.Arith(expr.Mod, col(1), expr.Int(3))), expr.Int(1)))
	type pred struct {
		name string
		e    expr.Expr
		ok   func(v *int64, sv *string, d *int64) bool
	}
	preds := []pred{
		{"int", vLt, func(v *int64, _ *string, _ *int64) bool { return v != nil && *v < 50 }},
		{"string", sNe, func(_ *int64, sv *string, _ *int64) bool { return sv != nil && *sv != "x" }},
		{"decimal", dGe, func(_ *int64, _ *string, d *int64) bool { return d != nil && *d >= 100 }},
		{"int and string", must(expr.And(vLt, sNe)), func(v *int64, sv *string, _ *int64) bool {
			return v != nil && *v < 50 && sv != nil && *sv != "x"
		}},
		{"no kernel", vMod, func(v *int64, _ *string, _ *int64) bool { return v != nil && *v%3 == 1 }},
		{"no kernel and decimal", must(expr.And(vMod, dGe)), func(v *int64, _ *string, d *int64) bool {
			return v != nil && *v%3 == 1 && d != nil && *d >= 100
		}},
	}
	fmtRow := func(r [4]any, project bool) string {
		out := make([]string, 4)
		for i, x := range r {
			out[i] = "NULL"
			switch p := x.(type) {
			case *int64:
				if p != nil {
					out[i] = fmt.Sprint(*p)
					if i == 3 {
						out[i] = decimal128.FromI64(*p).ToString(2)
					}
				}
			case *string:
				if p != nil {
					out[i] = *p
				}
			}
		}
		if project {
			return out[0] + "|" + out[2]
		}
		return strings.Join(out, "|")
	}
	for _, p := range preds {
		for _, project := range []bool{false, true} {
			for _, typ := range []JoinType{InnerJoin, LeftSemiJoin, RightSemiJoin} {
				var want []string
				for _, g := range raw {
					for _, r := range g {
						k, _ := r[0].(*int64)
						v, _ := r[1].(*int64)
						sv, _ := r[2].(*string)
						d, _ := r[3].(*int64)
						if inBuild(k) && p.ok(v, sv, d) {
							w := fmtRow(r, project)
							if typ == InnerJoin {
								w += "|" + fmt.Sprint(*k)
							}
							if typ == RightSemiJoin {
								w = fmt.Sprint(*k)
							}
							want = append(want, w)
						}
					}
				}
				if typ == RightSemiJoin {
					slices.Sort(want)
					want = slices.Compact(want)
				}
				for _, par := range []int{1, 4} {
					name := fmt.Sprintf("%s/project=%v/%s/par=%d", p.name, project, typ, par)
					t.Run(name, func(t *testing.T) {
						sc := scanOf(s, groups...)
						rf := &RuntimeFilter{Kind: RFInOrBloom, MaxIn: 1024, Target: "k"}
						mm := &RuntimeFilter{Kind: RFMinMax, Target: "k"}
						sc.Filters = []ScanFilter{{RF: rf, Column: 0}, {RF: mm, Column: 0}}
						sc.Pre = p.e // as the planner sets it under a Filter
						var left Operator = must(NewFilter(sc, p.e))
						key := col(0)
						if project {
							left = must(NewProject(left, []expr.Expr{col(0), col(2)}, []string{"k", "s"}))
						}
						bs := sch("bk", expr.Int64T())
						bk := []expr.Expr{expr.Col(0, "bk", expr.Int64T())}
						// A right semi join outputs the build rows matched.
						j := must(NewHashJoin(left, scanOf(bs, build), typ, []expr.Expr{key}, bk, nil))
						if err := j.AddRuntimeFilters(rf, mm); err != nil {
							t.Fatal(err)
						}
						got := runAll(t, WithParallelism(context.Background(), par), j)
						if typ == RightSemiJoin {
							slices.Sort(got)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("got %d rows\n%s\nwant %d rows\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
						}
						if rf.Filtered.Load() == 0 {
							t.Fatal("the runtime filter dropped no row")
						}
						if typ != InnerJoin {
							return
						}
						// The probe side alone, with the filters published
						// by hand (the bitmap and min/max filters are
						// exact): the rows out are those of the join.
						env, mem := newEnv(t)
						defer mem.AssertSize(t, 0)
						kb := mkBatch(env.Mem, bs, build)
						n := int(kb.NumRows())
						rf.publish(env, []arrow.Array{kb.Column(0)}, n, n)
						mm.publish(env, []arrow.Array{kb.Column(0)}, n, n)
						defer rf.release(env)
						defer mm.release(env)
						kb.Release()
						rr, err := openPiped(WithParallelism(context.Background(), par), env, left)
						if err != nil {
							t.Fatal(err)
						}
						defer rr.Release()
						var side []string
						for rr.Next() {
							b := rr.RecordBatch()
							for i := range int(b.NumRows()) {
								row := make([]string, b.NumCols())
								for c := range row {
									row[c] = render.String(b.Column(c), i)
								}
								side = append(side, strings.Join(row, "|")+"|"+row[0])
							}
						}
						if err := rr.Err(); err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(side, want) {
							t.Fatalf("probe side: got %d rows\n%s\nwant %d rows\n%s", len(side), strings.Join(side, "\n"), len(want), strings.Join(want, "\n"))
						}
					})
				}
			}
		}
	}
}

// runAll drains op under ctx and returns its rows as text, checking that
// every byte it allocated was given back.
func runAll(t *testing.T, ctx context.Context, op Operator) []string {
	t.Helper()
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rr, err := op.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		b := rr.RecordBatch()
		for i := range int(b.NumRows()) {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = render.String(b.Column(c), i)
			}
			out = append(out, strings.Join(row, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
