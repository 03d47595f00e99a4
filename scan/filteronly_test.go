package scan_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/keybits"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

// TestFilterOnlyColumns: a fragment's filter_only columns are filtered by
// and not sent. The rows equal those of the same fragment returning every
// column, cut to the others, for a union read (lake splits suppressed by
// their tail, the tail itself), a Fluss-only read and a Paimon catalog's
// lake splits, under a lake-applied filter (v > 50, the lake reader's), a
// filter the lake predicate does not hold (name IS NOT NULL, the BE's) and
// a runtime key bitmap on id (the lake reader's too). A lake range asks
// its reader for neither v nor, when no key needs it, id; it still asks
// for name. Bad filter_only lists are clear errors.
func TestFilterOnlyColumns(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "pk", 120)
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
	pred, err := json.Marshal(paimon.Gt("v", int64(50)))
	if err != nil {
		t.Fatal(err)
	}
	var words [4]uint64
	for _, id := range []int{3, 60, 61, 62, 90, 119, 121, 122, 200} { // 121, 122: tail keys; 200: none
		words[id/64] |= 1 << (id % 64)
	}
	filters := func() []*inletpb.Filter {
		return []*inletpb.Filter{
			{Column: 4, Op: ">", Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: 50}}}, LakeApplied: true},
			{Column: 3, Op: "IS NOT NULL"},
			{Column: 0, Op: "IN_BITS", BitsLo: 0, Bits: keybits.Encode(words[:]), Runtime: true},
		}
	}
	frag := func(ranges []*inletpb.Range, fluss bool, filterOnly ...int32) *inletpb.Fragment {
		f := hs.fragment(p, []int32{0, 1, 2, 3, 4}, ranges)
		if !fluss {
			f.Fluss = nil
		}
		f.Lake.Predicate = pred
		f.Filters = filters()
		f.FilterOnly = filterOnly
		return f
	}
	// cut keeps the cells of rows outside drop.
	cut := func(rows []string, drop ...int) []string {
		var out []string
		for _, r := range rows {
			var cells []string
			for i, c := range strings.Split(r, "|") {
				if !slices.Contains(drop, i) {
					cells = append(cells, c)
				}
			}
			out = append(out, strings.Join(cells, "|"))
		}
		slices.Sort(out)
		return out
	}
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		ranges     []*inletpb.Range
		fluss      bool
		filterOnly []int32
		lakeCols   []string // what a lake range asks its reader for
	}{
		{"union read", hs.unionPK(p), true, []int32{3, 4}, []string{"id", "k2", "dt", "name"}},
		{"fluss only", hs.flussPK(p), true, []int32{3, 4}, []string{"id", "k2", "dt", "name"}},
		{"paimon catalog", lake, false, []int32{3, 4}, []string{"id", "k2", "dt", "name"}},
		{"paimon catalog, key bitmap column", lake, false, []int32{0, 4}, []string{"k2", "dt", "name"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			full, _ := hs.run(frag(c.ranges, c.fluss))
			all, _ := hs.run(hs.fragment(p, []int32{0, 1, 2, 3, 4}, c.ranges))
			if len(full) == 0 || len(full) >= len(all)/4 {
				t.Fatalf("the filters keep %d of %d rows", len(full), len(all))
			}
			f := frag(c.ranges, c.fluss, c.filterOnly...)
			got, _ := hs.run(f)
			var drop []int
			for _, d := range c.filterOnly {
				drop = append(drop, int(d))
			}
			sameRows(t, c.name, got, cut(full, drop...))
			cols, err := scan.LakeColumns(ctx, hs.ex, f, memory.NewGoAllocator())
			if err != nil {
				t.Fatal(err)
			}
			if c.fluss && c.name == "fluss only" {
				return // no lake range
			}
			if !slices.Equal(cols, c.lakeCols) {
				t.Errorf("lake ranges ask for %v, want %v", cols, c.lakeCols)
			}
		})
	}
	for _, c := range []struct {
		name   string
		edit   func(f *inletpb.Fragment)
		errMsg string
	}{
		{"out of range", func(f *inletpb.Fragment) { f.FilterOnly = []int32{5} }, "filter-only column 5 of 5"},
		{"negative", func(f *inletpb.Fragment) { f.FilterOnly = []int32{-1} }, "filter-only column -1"},
		{"twice", func(f *inletpb.Fragment) { f.FilterOnly = []int32{3, 3} }, "named twice"},
		{"every column", func(f *inletpb.Fragment) { f.FilterOnly = []int32{0, 1, 2, 3, 4} }, "every output column is filter-only"},
		{"with a range top-n", func(f *inletpb.Fragment) {
			f.FilterOnly = []int32{4}
			f.RangeTopN = &inletpb.RangeTopN{Keys: []*inletpb.SortColumn{{Column: 0}}, Limit: 3}
		}, "range top-n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := frag(lake, false)
			c.edit(f)
			_, err := hs.ex.Execute(ctx, f, memory.NewGoAllocator())
			if err == nil || !strings.Contains(err.Error(), c.errMsg) {
				t.Fatalf("error %v, want one saying %q", err, c.errMsg)
			}
		})
	}
}
