package scan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/typemap"
)

// pkModel is the expected state of the test table, kept by the test.
type pkModel map[string]string // "id|k2|dt" → name ("NULL" for NULL)

func pkTableSpec(name string) minifluss.TableSpec {
	return minifluss.TableSpec{Database: "db", Name: name, Buckets: 3,
		PrimaryKey: []string{"id", "k2", "dt"}, PartitionKeys: []string{"dt"},
		Columns: []minifluss.Column{
			{Name: "id", Type: typemap.Int().NotNull()},
			{Name: "k2", Type: typemap.String().NotNull()},
			{Name: "dt", Type: typemap.String().NotNull()},
			{Name: "name", Type: typemap.String()},
			{Name: "v", Type: typemap.BigInt()},
			{Name: "price", Type: typemap.Decimal(10, 2)},
			{Name: "arr", Type: typemap.Array(typemap.Int())},
			{Name: "r", Type: typemap.Row(typemap.NewField("a", typemap.Int()), typemap.NewField("b", typemap.String()))},
		},
		Properties: map[string]string{"table.datalake.enabled": "true"}}
}

func pkRow(id int, k2, dt string, name any, v int64) []any {
	var arr any
	if id%4 != 0 {
		arr = []any{int32(id), nil, int32(-id)}
	}
	return []any{id, k2, dt, name, v, fmt.Sprintf("%d.%02d", id, id%100), arr, []any{int32(id * 2), fmt.Sprintf("s%d", id)}}
}

func (m pkModel) upsert(t testing.TB, c *minifluss.Cluster, table string, rows ...[]any) {
	t.Helper()
	if err := c.Upsert(context.Background(), "db", table, rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		name := "(null)"
		if r[3] != nil {
			name = r[3].(string)
		}
		m[fmt.Sprintf("%v|%v|%v", r[0], r[1], r[2])] = name
	}
}

func (m pkModel) delete(t testing.TB, c *minifluss.Cluster, table string, keys ...[]any) {
	t.Helper()
	if err := c.Delete(context.Background(), "db", table, keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		delete(m, fmt.Sprintf("%v|%v|%v", k[0], k[1], k[2]))
	}
}

func (m pkModel) rows() []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"|"+v)
	}
	slices.Sort(out)
	return out
}

// buildPKLake writes a primary-key table, tiers it twice (so buckets hold
// several level-0 files that need merging), freezes tiering and writes a
// tail of inserts, updates and deletes.
func buildPKLake(t testing.TB, hs *harness, table string, n int) pkModel {
	t.Helper()
	ctx := context.Background()
	if _, err := hs.c.CreateTable(ctx, pkTableSpec(table)); err != nil {
		t.Fatal(err)
	}
	m := pkModel{}
	var rows [][]any
	for i := 0; i < n; i++ {
		var name any = fmt.Sprintf("n%d", i)
		if i%7 == 0 {
			name = nil
		}
		rows = append(rows, pkRow(i, fmt.Sprintf("k%d", i%3), []string{"2024", "2025"}[i%2], name, int64(i)))
	}
	hs.c.FreezeTiering(false)
	m.upsert(t, hs.c, table, rows...)
	if _, err := hs.c.TierLake(ctx, "db", table); err != nil {
		t.Fatal(err)
	}
	// Second lake round: updates and deletes already in the lake.
	m.upsert(t, hs.c, table, pkRow(1, "k1", "2025", "lake-upd", 100), pkRow(2, "k2", "2024", nil, 200))
	m.delete(t, hs.c, table, []any{3, "k0", "2025"}, []any{4, "k1", "2024"})
	if _, err := hs.c.TierLake(ctx, "db", table); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	// The tail: updates of lake rows, new keys, deletes of lake keys, a key
	// inserted then deleted, a key deleted then re-inserted.
	m.upsert(t, hs.c, table, pkRow(5, "k2", "2025", "tail-upd", 500), pkRow(6, "k0", "2024", nil, 600),
		pkRow(n+1, "k9", "2024", "tail-new", 1), pkRow(n+2, "k9", "2025", "tail-new2", 2))
	m.delete(t, hs.c, table, []any{8, "k2", "2024"}, []any{9, "k0", "2025"}, []any{n + 1, "k9", "2024"})
	m.upsert(t, hs.c, table, pkRow(10, "k1", "2024", "back", 10), pkRow(5, "k2", "2025", "tail-upd2", 501))
	m.delete(t, hs.c, table, []any{12, "k0", "2024"})
	m.upsert(t, hs.c, table, pkRow(12, "k0", "2024", "reinserted", 12))
	return m
}

func TestUnionPKEqualsFlussOnly(t *testing.T) {
	hs := newHarness(t)
	m := buildPKLake(t, hs, "pk", 120)
	p := hs.planRead("pk", []string{"2024", "2025"})
	if !p.hasLake {
		t.Fatal("no readable lake snapshot after tiering")
	}
	all := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	union, ust := hs.run(hs.fragment(p, all, hs.unionPK(p)))
	fluss, fst := hs.run(hs.fragment(p, all, hs.flussPK(p)))
	sameRows(t, "union vs PK_FULL", union, fluss)

	keys, _ := hs.run(hs.fragment(p, []int32{0, 1, 2, 3}, hs.unionPK(p)))
	sameRows(t, "union vs model", keys, m.rows())

	// Projection without the keys, with a filter on an unprojected column.
	fu := hs.fragment(p, []int32{3, 5}, hs.unionPK(p))
	ff := hs.fragment(p, []int32{3, 5}, hs.flussPK(p))
	for _, f := range []*inletpb.Fragment{fu, ff} {
		f.Filters = []*inletpb.Filter{{Column: 4, Op: ">", Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: 50}}}},
			{Column: 3, Op: "IS NOT NULL"}}
	}
	gu, _ := hs.run(fu)
	gf, _ := hs.run(ff)
	sameRows(t, "filtered union vs PK_FULL", gu, gf)
	if len(gu) == 0 || len(gu) >= len(union) {
		t.Fatalf("filter kept %d of %d rows", len(gu), len(union))
	}

	c := ust.Counters
	for _, name := range []string{"FlussLakeSuppressRangeNum", "FlussPkTailRangeNum", "FlussUnionSuppressedRows", "FlussUnionTailKeysRead",
		"FlussUnionTailKeysRetained", "FlussLakeRowsReturned", "FlussLogRowsReturned", "FlussLakeReadTime", "FlussLogReadTime", "FlussUnionTailReadTime"} {
		if c[name] <= 0 {
			t.Errorf("union counter %s = %d, want > 0 (%v)", name, c[name], c)
		}
	}
	if _, ok := c["FlussPkFullRangeNum"]; ok {
		t.Errorf("union read registered FlussPkFullRangeNum: %v", c)
	}
	if got := c["FlussLakeRowsReturned"] + c["FlussLogRowsReturned"]; got != int64(len(union)) {
		t.Errorf("lake %d + log %d rows != %d rows returned", c["FlussLakeRowsReturned"], c["FlussLogRowsReturned"], len(union))
	}
	if fst.Counters["FlussPkFullRangeNum"] != 6 {
		t.Errorf("FlussPkFullRangeNum = %d, want 6", fst.Counters["FlussPkFullRangeNum"])
	}
	for name := range fst.Counters {
		if name == "FlussLakeReadTime" || name == "FlussUnionSuppressedRows" {
			t.Errorf("Fluss-only read registered %s", name)
		}
	}
	if len(ust.DoneRanges) != len(hs.unionPK(p)) {
		t.Errorf("done ranges %v, want %d", ust.DoneRanges, len(hs.unionPK(p)))
	}
}

// TestLakeAppliedFilter: a filter marked lake_applied is skipped on lake
// rows only when the fragment carries a Paimon predicate (the reader then
// applies it exactly); without one the BE still applies it, and Fluss
// rows always get it. Expectations come from the same filter over
// PK_FULL ranges (Fluss only, no lake).
func TestLakeAppliedFilter(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "pk", 120)
	p := hs.planRead("pk", []string{"2024", "2025"})
	if !p.hasLake {
		t.Fatal("no readable lake snapshot after tiering")
	}
	gt := func(v int64, applied bool) []*inletpb.Filter {
		return []*inletpb.Filter{{Column: 4, Op: ">", Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: v}}}, LakeApplied: applied}}
	}
	lakePred := func(v int64) []byte {
		b, err := json.Marshal(paimon.Gt("v", v))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ff := hs.fragment(p, []int32{0, 1, 2, 4}, hs.flussPK(p))
	ff.Filters = gt(50, false)
	want, _ := hs.run(ff)
	all, _ := hs.run(hs.fragment(p, []int32{0, 1, 2, 4}, hs.flussPK(p)))
	if len(want) == 0 || len(want) >= len(all) {
		t.Fatalf("v > 50 keeps %d of %d rows", len(want), len(all))
	}
	cases := []struct {
		name    string
		applied bool
		pred    []byte // the lake predicate, nil for none
		same    bool   // rows equal the Fluss-only read
	}{
		{"flag without lake predicate", true, nil, true},
		{"flag with the lake leaf", true, lakePred(50), true},
		{"no flag, weaker lake predicate", false, lakePred(0), true},
		// The BE trusts the flag: a lake predicate weaker than the
		// filter lets lake rows with 0 < v <= 50 through, which shows
		// the filter is not evaluated again on lake rows.
		{"flag, weaker lake predicate", true, lakePred(0), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := hs.fragment(p, []int32{0, 1, 2, 4}, hs.unionPK(p))
			f.Filters = gt(50, c.applied)
			f.Lake.Predicate = c.pred
			got, _ := hs.run(f)
			if c.same {
				sameRows(t, c.name, got, want)
			} else if len(got) <= len(want) {
				t.Errorf("%d rows, want more than the %d of v > 50", len(got), len(want))
			}
		})
	}
}

// TestRuntimeFilterIntoLakePredicate: a Paimon catalog's fragment (no
// Fluss table) hands the runtime min/max filters on integer columns to
// the lake reader, which drops the rows outside before returning them
// (FlussLakeRowsReturned counts only the rows inside); the answer is the
// one of the same bounds as planner filters, and a bound on a text
// column or a non-runtime filter stays the BE's (all lake rows returned).
func TestRuntimeFilterIntoLakePredicate(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "pk", 120)
	hs.c.FreezeTiering(false)
	if _, err := hs.c.TierLake(context.Background(), "db", "pk"); err != nil {
		t.Fatal(err)
	}
	p := hs.planRead("pk", []string{"2024", "2025"})
	if !p.hasLake {
		t.Fatal("no readable lake snapshot after tiering")
	}
	var lake []*inletpb.Range
	for _, sps := range hs.splitsOf(p) {
		for _, sp := range sps {
			lake = append(lake, &inletpb.Range{Type: inletpb.RangeType_LAKE, LakeSplit: sp})
		}
	}
	frag := func(filters ...*inletpb.Filter) *inletpb.Fragment {
		f := hs.fragment(p, []int32{0, 1, 2, 4}, lake)
		f.Fluss = nil // a Paimon catalog's fragment: columns index the lake schema
		f.Filters = filters
		return f
	}
	intBound := func(op string, v int64, runtime bool) *inletpb.Filter {
		return &inletpb.Filter{Column: 0, Op: op, Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: v}}}, Runtime: runtime}
	}
	all, allSt := hs.run(frag())
	want, _ := hs.run(frag(intBound(">=", 20, false), intBound("<=", 40, false)))
	if len(want) == 0 || len(want) >= len(all) {
		t.Fatalf("20 <= id <= 40 keeps %d of %d rows", len(want), len(all))
	}
	cases := []struct {
		name     string
		filters  []*inletpb.Filter
		want     []string
		returned int64 // FlussLakeRowsReturned
	}{
		{"runtime int bounds", []*inletpb.Filter{intBound(">=", 20, true), intBound("<=", 40, true)}, want, int64(len(want))},
		{"planner int bounds", []*inletpb.Filter{intBound(">=", 20, false), intBound("<=", 40, false)}, want, int64(len(all))},
		{"runtime text bound", []*inletpb.Filter{{Column: 1, Op: ">=", Values: []*inletpb.Value{{V: &inletpb.Value_Text{Text: "k9"}}}, Runtime: true}},
			nil, int64(len(all))},
	}
	// A union read (Fluss table, lake splits and their tail) takes the
	// runtime bounds into its lake predicate too.
	t.Run("union read", func(t *testing.T) {
		ff := hs.fragment(p, []int32{0, 1, 2, 4}, hs.flussPK(p))
		ff.Filters = []*inletpb.Filter{intBound(">=", 20, false), intBound("<=", 40, false)}
		wantU, _ := hs.run(ff)
		fu := hs.fragment(p, []int32{0, 1, 2, 4}, hs.unionPK(p))
		fu.Filters = []*inletpb.Filter{intBound(">=", 20, true), intBound("<=", 40, true)}
		got, st := hs.run(fu)
		sameRows(t, "union read", got, wantU)
		if r := st.Counters["FlussLakeRowsReturned"]; r <= 0 || r > int64(len(want)) {
			t.Errorf("FlussLakeRowsReturned = %d, want 1..%d", r, len(want))
		}
	})
	// The bounds the lake reader took are not evaluated again on the lake
	// rows, for a union read as for a Paimon catalog's fragment; the tail
	// and Fluss rows keep every filter, and a bound the reader cannot take
	// (text) stays on the lake rows too.
	t.Run("lake rows not filtered twice", func(t *testing.T) {
		ctx := context.Background()
		cases := []struct {
			name    string
			ranges  []*inletpb.Range
			fluss   bool
			filters []*inletpb.Filter
			lake    bool // the BE filters lake rows
		}{
			{"union, runtime int bounds", hs.unionPK(p), true, []*inletpb.Filter{intBound(">=", 20, true), intBound("<=", 40, true)}, false},
			{"union, planner int bounds", hs.unionPK(p), true, []*inletpb.Filter{intBound(">=", 20, false), intBound("<=", 40, false)}, true},
			{"union, runtime text bound", hs.unionPK(p), true, []*inletpb.Filter{{Column: 1, Op: ">=", Values: []*inletpb.Value{{V: &inletpb.Value_Text{Text: "k9"}}}, Runtime: true}}, true},
			{"paimon catalog, runtime int bounds", lake, false, []*inletpb.Filter{intBound(">=", 20, true), intBound("<=", 40, true)}, false},
		}
		for _, c := range cases {
			f := hs.fragment(p, []int32{0, 1, 2, 4}, c.ranges)
			if !c.fluss {
				f.Fluss = nil
			}
			f.Filters = c.filters
			lakeF, flussF, err := scan.LakeRowsFiltered(ctx, hs.ex, f, memory.NewGoAllocator())
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if lakeF != c.lake || !flussF {
				t.Errorf("%s: BE filters lake rows %v, Fluss rows %v; want %v, true", c.name, lakeF, flussF, c.lake)
			}
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, st := hs.run(frag(c.filters...))
			if c.want != nil {
				sameRows(t, c.name, got, c.want)
			}
			if r := st.Counters["FlussLakeRowsReturned"]; r != c.returned {
				t.Errorf("FlussLakeRowsReturned = %d, want %d (all: %d)", r, c.returned, allSt.Counters["FlussLakeRowsReturned"])
			}
		})
	}
}
