package paimon_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestRowGroupRunsWithDeletionVectors reads one Parquet file of nine row
// groups (7 rows each, the last 4) through one reader per run of unpruned
// row groups, with batches (5 rows) that straddle row-group boundaries:
// deletion-vector positions at group edges must still drop exactly their
// rows, also when pruning leaves two separate runs.
func TestRowGroupRunsWithDeletionVectors(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}, mem)
	b.RowGroupRows = 7
	var rows [][]any
	for k := 0; k < 60; k++ {
		rows = append(rows, []any{k, fmt.Sprintf("v%d", k), k * 10})
	}
	rec := paimontest.Rows(t, mem, b.Schema(), rows...)
	deleted := []uint32{0, 6, 7, 13, 20, 41, 59} // first/last rows of groups 0, 1, 2, 5, 8
	if err := b.Commit(ctx, []paimontest.File{{Rows: rec, Level: 5, Deleted: deleted}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(lo, hi int, drop ...int) []int32 {
		var out []int32
		for k := lo; k < hi; k++ {
			if !slices.Contains(drop, k) {
				out = append(out, int32(k))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		pred    *paimon.Predicate
		want    []int32
		skipped int64
	}{
		{"all groups, one run", nil, keys(0, 60, 0, 6, 7, 13, 20, 41, 59), 0},
		// Groups 2-4 (keys 14-34) pruned by key statistics: runs {0,1} and {5..8}.
		{"two runs", paimon.Or(paimon.Lt("k", 10), paimon.Ge("k", 40)),
			append(keys(1, 10, 6, 7), keys(40, 59, 41)...), 3},
		// Only group 5 (keys 35-41).
		{"one middle group", paimon.And(paimon.Ge("k", 36), paimon.Le("k", 41)), keys(36, 41), 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: tc.pred})
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			var skipped int64
			for i := range plan.Splits {
				rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: []string{"k", "w"}, BatchSize: 5})
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
					r := rr.RecordBatch()
					ks, ws := r.Column(0).(*array.Int32), r.Column(1).(*array.Int64)
					for j := 0; j < ks.Len(); j++ {
						if ws.Value(j) != int64(ks.Value(j))*10 {
							t.Fatalf("row k=%d has w=%d: columns out of step", ks.Value(j), ws.Value(j))
						}
						got = append(got, ks.Value(j))
					}
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				skipped += rr.(interface{ Metrics() paimon.Metrics }).Metrics().RowGroupsSkipped
				rr.Release()
			}
			if !slices.Equal(got, tc.want) || skipped != tc.skipped {
				t.Fatalf("keys %v (%d row groups skipped)\nwant %v (%d skipped)", got, skipped, tc.want, tc.skipped)
			}
		})
	}
}
