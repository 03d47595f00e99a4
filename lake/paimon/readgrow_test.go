package paimon_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestFilteredReadsGrow: a filter dropping rows in the reader (k in 20
// values 50 apart keeps one row in 50 of genBatch's, k = id mod 1000)
// reads more rows at once while its batches come out small: 100-row reads
// would make 200 batches of 2 rows; reads growing to 800 rows make about
// 30 of 16. Once the filter keeps every row (id >= 15000) the reads
// shrink back to the batch size within three reads, and the rows of a
// grown read that kept more than a batch come out in batches of at most
// the batch size. Every kept row is there once, in file order, the ids
// derived from genBatch's definition.
func TestFilteredReadsGrow(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer paimon.SetParquetFastPath(paimon.SetParquetFastPath(true))
	dir := t.TempDir()
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, benchFields(t, false), nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 20000
	rec := genBatch(bl.Schema(), mem, 0, rows, 1)
	if err := bl.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	const batch = 100
	var ks []any
	for k := int32(0); k < 1000; k += 50 {
		ks = append(ks, k)
	}
	spread := func(id int64) bool { return id%50 == 0 }
	for _, c := range []struct {
		name string
		pred *paimon.Predicate
		keep func(id int64) bool
		// most: the batch count allowed.
		most int
	}{
		{"2 % kept", paimon.In("k", ks...), spread, 40},
		{"2 %, then all", paimon.Or(paimon.In("k", ks...), paimon.Ge("id", int64(15000))),
			func(id int64) bool { return spread(id) || id >= 15000 }, 80},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: c.pred})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			batches, largest := 0, int64(0)
			for i := range plan.Splits {
				rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: []string{"id", "name"}, BatchSize: batch})
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
					r := rr.RecordBatch()
					batches++
					largest = max(largest, r.NumRows())
					got = append(got, r.Column(0).(*array.Int64).Int64Values()...)
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				rr.Release()
			}
			var want []int64
			for id := int64(0); id < rows; id++ {
				if c.keep(id) {
					want = append(want, id)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d: id %d, want %d", i, got[i], want[i])
				}
			}
			t.Logf("%d rows in %d batches (largest %d)", len(got), batches, largest)
			if batches > c.most {
				t.Errorf("%d batches for %d rows kept: reads did not grow (at most %d)", batches, len(got), c.most)
			}
			if largest > batch {
				t.Errorf("a batch of %d rows, above the batch size %d", largest, batch)
			}
		})
	}
}
