package exec

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

func aggInput() (*Scan, map[string]expr.Expr) {
	s := sch("g", expr.StringT(), "x", expr.Int64T(), "f", expr.Float64T(), "d", expr.DecimalT(10, 2))
	dec := func(v string) any { return expr.MustLit(v, expr.DecimalT(10, 2)).Value }
	scan := scanOf(s,
		[][]any{{"a", 1, 1.5, dec("1.10")}, {"b", 2, nil, dec("2.00")}, {nil, 3, 3.0, nil}},
		[][]any{{"a", nil, 2.5, dec("1.10")}, {"a", 5, nil, dec("3.33")}, {nil, nil, nil, nil}},
	)
	return scan, map[string]expr.Expr{
		"g": expr.Col(0, "g", expr.StringT()), "x": expr.Col(1, "x", expr.Int64T()),
		"f": expr.Col(2, "f", expr.Float64T()), "d": expr.Col(3, "d", expr.DecimalT(10, 2)),
	}
}

func sortedRows(rows [][]string) [][]string {
	sort.Slice(rows, func(i, j int) bool { return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j]) })
	return rows
}

func TestHashAggregate(t *testing.T) {
	scan, c := aggInput()
	aggs := []AggCall{
		{Func: CountStar, Name: "n"},
		{Func: Count, Arg: c["x"], Name: "cx"},
		{Func: Sum, Arg: c["x"], Name: "sx"},
		{Func: Min, Arg: c["f"], Name: "minf"},
		{Func: Max, Arg: c["x"], Name: "maxx"},
		{Func: Avg, Arg: c["x"], Name: "avgx"},
		{Func: Sum, Arg: c["d"], Name: "sd"},
		{Func: Avg, Arg: c["d"], Name: "ad"},
		{Func: Count, Arg: c["d"], Distinct: true, Name: "cdd"},
		{Func: Sum, Arg: c["d"], Distinct: true, Name: "sdd"},
	}
	agg := must(NewHashAggregate(scan, []expr.Expr{c["g"]}, []string{"g"}, aggs, AggSingle))
	wantRows(t, sortedRows(run(t, agg)),
		"NULL|2|1|3|3|3|3|NULL|NULL|0|NULL",
		"a|3|2|6|1.5|5|3|5.53|1.8433|2|4.43",
		"b|1|1|2|NULL|2|2|2.00|2.0000|1|2.00",
	)
	// Global aggregate: one row, also over empty input.
	global := must(NewHashAggregate(scan, nil, nil, aggs[:6], AggSingle))
	wantRows(t, run(t, global), "6|4|11|1.5|5|2.75")
	empty := must(NewFilter(scan, expr.Bool(false)))
	wantRows(t, run(t, must(NewHashAggregate(empty, nil, nil, aggs[:6], AggSingle))), "0|0|NULL|NULL|NULL|NULL")
	wantRows(t, run(t, must(NewHashAggregate(empty, []expr.Expr{c["g"]}, []string{"g"}, aggs[:6], AggSingle))))
}

func TestHashAggregateMultiKey(t *testing.T) {
	scan, c := aggInput()
	isBig := must(expr.Cmp(expr.Gt, c["x"], expr.Int(1)))
	agg := must(NewHashAggregate(scan, []expr.Expr{c["g"], isBig}, []string{"g", "big"},
		[]AggCall{{Func: CountStar, Name: "n"}}, AggSingle))
	wantRows(t, sortedRows(run(t, agg)),
		"NULL|1|1", "NULL|NULL|1", "a|0|1", "a|1|1", "a|NULL|1", "b|1|1")
}

func TestHashAggregatePartialFinal(t *testing.T) {
	scan, c := aggInput()
	aggs := []AggCall{
		{Func: CountStar, Name: "n"},
		{Func: Sum, Arg: c["x"], Name: "sx"},
		{Func: Min, Arg: c["g"], Name: "ming"},
		{Func: Avg, Arg: c["f"], Name: "af"},
		{Func: Avg, Arg: c["d"], Name: "ad"},
	}
	single := must(NewHashAggregate(scan, []expr.Expr{c["x"]}, []string{"x"}, aggs, AggSingle))
	partial := must(NewHashAggregate(scan, []expr.Expr{c["x"]}, []string{"x"}, aggs, AggPartial))
	// Partial output passed twice (as two BEs would send it) must merge.
	both := must(NewUnion([]Operator{partial, partial}, false))
	final := must(partial.FinalFor(both))
	got := sortedRows(run(t, final))
	want := sortedRows(run(t, single))
	// Counts and sums double, averages stay.
	if len(got) != len(want) {
		t.Fatalf("final %v, single %v", got, want)
	}
	wantRows(t, got,
		"1|2|2|a|1.5|1.1000",
		"2|2|4|b|NULL|2.0000",
		"3|2|6|NULL|3|NULL",
		"5|2|10|a|NULL|3.3300",
		"NULL|4|NULL|a|2.5|1.1000",
	)
	if _, err := NewHashAggregate(scan, nil, nil, []AggCall{{Func: Count, Arg: c["x"], Distinct: true, Name: "c"}}, AggPartial); err == nil {
		t.Fatal("COUNT(DISTINCT) in partial mode must be refused")
	}
}

func TestHashAggregateManyGroups(t *testing.T) {
	const n = 100_000
	s := sch("k", expr.Int64T(), "v", expr.Int64T())
	var groups [][][]any
	for b := 0; b < 4; b++ {
		var rows [][]any
		for i := 0; i < n/4; i++ {
			k := int64(b*(n/4) + i)
			rows = append(rows, []any{k % 50_000, k})
		}
		groups = append(groups, rows)
	}
	scan := scanOf(s, groups...)
	agg := must(NewHashAggregate(scan,
		[]expr.Expr{expr.Col(0, "k", expr.Int64T())}, []string{"k"},
		[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: expr.Col(1, "v", expr.Int64T()), Name: "s"}}, AggSingle))
	rows := run(t, agg)
	if len(rows) != 50_000 {
		t.Fatalf("%d groups, want 50000", len(rows))
	}
	for _, r := range rows {
		var k, cnt, sum int64
		fmt.Sscan(r[0], &k)
		fmt.Sscan(r[1], &cnt)
		fmt.Sscan(r[2], &sum)
		if cnt != 2 || sum != 2*k+50_000 {
			t.Fatalf("group %v: want count 2 sum %d", r, 2*k+50_000)
		}
	}
}

var _ = arrow.Null

func TestSumOverflow(t *testing.T) {
	s := sch("v", expr.Int64T())
	scan := scanOf(s, [][]any{{int64(9223372036854775000)}}, [][]any{{int64(1000)}})
	agg := must(NewHashAggregate(scan, nil, nil, []AggCall{{Func: Sum, Arg: expr.Col(0, "v", expr.Int64T()), Name: "s"}}, AggSingle))
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	if _, err := runEnv(env, agg); err == nil || !strings.Contains(err.Error(), "out of the range of bigint") {
		t.Fatalf("err %v", err)
	}
}

func TestGroupConcatAnyValue(t *testing.T) {
	scan, c := aggInput()
	aggs := []AggCall{
		{Func: GroupConcat, Arg: c["x"], Name: "gc"},
		{Func: GroupConcat, Arg: c["d"], Sep: "; ", Name: "gcd"},
		{Func: GroupConcat, Arg: c["g"], Distinct: true, SepSet: true, Name: "gcg"},
		{Func: AnyValue, Arg: c["f"], Name: "av"},
	}
	agg := must(NewHashAggregate(scan, []expr.Expr{expr.IsNull(c["g"], false)}, []string{"gnull"}, aggs, AggSingle))
	wantRows(t, run(t, agg),
		"0|1,2,5|1.10; 2.00; 1.10; 3.33|ab|1.5",
		"1|3|NULL|NULL|3",
	)
	partial := must(NewHashAggregate(scan, nil, nil, aggs[:2], AggPartial))
	final := must(partial.FinalFor(must(NewUnion([]Operator{partial, partial}, false))))
	wantRows(t, run(t, final), "1,2,3,5,1,2,3,5|1.10; 2.00; 1.10; 3.33; 1.10; 2.00; 1.10; 3.33")
}
