package scan_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/typemap"
)

// lfRow is row i of the table TestLogRowsKeepEveryFilter reads: id i,
// k = i mod 17, s = "s<i mod 13>" (NULL when 7 divides i), price =
// (i*37 mod 1000).(i mod 100) (NULL when 11 divides i), d = 2024-01-01
// plus i mod 30 days.
type lfRow struct {
	id, k    int64
	s        *string
	cents    int64 // price in cents; -1 for NULL
	dayOfJan int   // 1..30
}

func lfData(i int) lfRow {
	r := lfRow{id: int64(i), k: int64(i % 17), cents: int64(i*37%1000)*100 + int64(i%100), dayOfJan: i%30 + 1}
	if i%7 != 0 {
		s := fmt.Sprintf("s%d", i%13)
		r.s = &s
	}
	if i%11 == 0 {
		r.cents = -1
	}
	return r
}

func lfRows(from, to int) [][]any {
	var rows [][]any
	for i := from; i < to; i++ {
		r := lfData(i)
		var s, price any
		if r.s != nil {
			s = *r.s
		}
		if r.cents >= 0 {
			price = fmt.Sprintf("%d.%02d", r.cents/100, r.cents%100)
		}
		rows = append(rows, []any{r.id, "a", s, fmt.Sprintf("2024-01-%02d", r.dayOfJan), price, int32(r.k)})
	}
	return rows
}

// TestLogRowsKeepEveryFilter: the BE's filters select log rows (and the
// lake rows of a union read) exactly, through every kind of conjunct the
// compiled row filter serves (IN list, decimal compare, fused range,
// string <> and NOT IN, IS [NOT] NULL, date compare) and the ones it does
// not; the rows expected follow from lfData by hand, and the output keeps
// only id while the filters read other columns.
func TestLogRowsKeepEveryFilter(t *testing.T) {
	const n, tail = 300, 140
	hs := newHarness(t)
	ctx := context.Background()
	spec := minifluss.TableSpec{Database: "db", Name: "lf", Buckets: 2, PartitionKeys: []string{"dt"},
		Columns: []minifluss.Column{
			{Name: "id", Type: typemap.BigInt()},
			{Name: "dt", Type: typemap.String()},
			{Name: "s", Type: typemap.String()},
			{Name: "d", Type: typemap.Date()},
			{Name: "price", Type: typemap.Decimal(10, 2)},
			{Name: "k", Type: typemap.Int()},
		},
		Properties: map[string]string{"table.datalake.enabled": "true"}}
	if _, err := hs.c.CreateTable(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := hs.c.Append(ctx, "db", "lf", lfRows(0, n)); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(false)
	if _, err := hs.c.TierLake(ctx, "db", "lf"); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	if err := hs.c.Append(ctx, "db", "lf", lfRows(n, n+tail)); err != nil {
		t.Fatal(err)
	}
	p := hs.planRead("lf", []string{"a"})
	if !p.hasLake {
		t.Fatal("no readable lake snapshot after tiering")
	}

	ints := func(vs ...int64) []*inletpb.Value {
		var out []*inletpb.Value
		for _, v := range vs {
			out = append(out, &inletpb.Value{V: &inletpb.Value_Int{Int: v}})
		}
		return out
	}
	texts := func(vs ...string) []*inletpb.Value {
		var out []*inletpb.Value
		for _, v := range vs {
			out = append(out, &inletpb.Value{V: &inletpb.Value_Text{Text: v}})
		}
		return out
	}
	flt := func(col int32, op string, vs []*inletpb.Value) *inletpb.Filter {
		return &inletpb.Filter{Column: col, Op: op, Values: vs}
	}
	sIs := func(r lfRow, not ...string) bool {
		return r.s != nil && !slices.Contains(not, *r.s)
	}
	cases := []struct {
		name    string
		filters []*inletpb.Filter
		keep    func(r lfRow) bool
	}{
		{"IN list and decimal >=",
			[]*inletpb.Filter{flt(5, "IN", ints(1, 3, 5)), flt(4, ">=", texts("500.50"))},
			func(r lfRow) bool { return (r.k == 1 || r.k == 3 || r.k == 5) && r.cents >= 50050 }},
		{"fused range and string <>",
			[]*inletpb.Filter{flt(0, ">=", ints(100)), flt(0, "<=", ints(350)), flt(2, "<>", texts("s3"))},
			func(r lfRow) bool { return r.id >= 100 && r.id <= 350 && sIs(r, "s3") }},
		{"NOT IN, IS NOT NULL and date <",
			[]*inletpb.Filter{flt(2, "NOT IN", texts("s1", "s2")), flt(4, "IS NOT NULL", nil), flt(3, "<", texts("2024-01-15"))},
			func(r lfRow) bool { return sIs(r, "s1", "s2") && r.cents >= 0 && r.dayOfJan < 15 }},
		{"IS NULL and decimal <",
			[]*inletpb.Filter{flt(2, "IS NULL", nil), flt(4, "<", texts("300"))},
			func(r lfRow) bool { return r.s == nil && r.cents >= 0 && r.cents < 30000 }},
		{"decimal = and k <>",
			[]*inletpb.Filter{flt(4, "=", texts("777.21")), flt(5, "<>", ints(0))},
			func(r lfRow) bool { return r.cents == 77721 && r.k != 0 }},
		{"no row", []*inletpb.Filter{flt(0, ">", ints(10000))}, func(lfRow) bool { return false }},
		{"every row", []*inletpb.Filter{flt(0, ">=", ints(0))}, func(lfRow) bool { return true }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for i := 0; i < n+tail; i++ {
				if c.keep(lfData(i)) {
					want = append(want, strconv.Itoa(i))
				}
			}
			slices.Sort(want)
			if c.name != "no row" && len(want) == 0 {
				t.Fatal("the case selects no row: it tests nothing")
			}
			for _, read := range []struct {
				name   string
				ranges []*inletpb.Range
			}{{"log only", hs.flussLog(p)}, {"union", hs.unionLog(p)}} {
				f := hs.fragment(p, []int32{0}, read.ranges)
				f.Filters = c.filters
				got, _ := hs.run(f)
				sameRows(t, read.name, got, want)
			}
		})
	}
}
