package minifluss

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/typemap"
)

// TestTierCompositeKeyPredicateOnSecondKey tiers a primary-key table with
// key (k1, k2) (plus the partition column) into the lake and reads it
// through lake/paimon with predicates on k2 alone. The lake's key
// statistics decide which files are read, so a file whose statistics were
// built from its first and last key only (k2 of 9 and 1 for the rows
// (1,9),(1,10),(2,1)) would hide k2 = 10.
func TestTierCompositeKeyPredicateOnSecondKey(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	_, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "ck", Buckets: 2, PrimaryKey: []string{"p", "k1", "k2"},
		PartitionKeys: []string{"p"}, BucketKeys: []string{"k1"},
		Columns: []Column{{Name: "p", Type: typemap.String().NotNull()}, {Name: "k1", Type: typemap.Int().NotNull()},
			{Name: "k2", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	// The rows written, as the test's own record of the table. Six k1 in
	// two buckets put several k1 in one file; each k1 has a k2 far below
	// and far above the others, so the extremes of k2 sit in middle rows of
	// a file, never in its first and last keys alone.
	type row struct {
		p      string
		k1, k2 int32
		v      any
	}
	var rows []row
	for _, p := range []string{"a", "b"} {
		rows = append(rows, row{p, 1, 9, "x"}, row{p, 1, 10, nil}, row{p, 2, 1, "y"})
		for k1 := int32(1); k1 <= 6; k1++ {
			var v any = fmt.Sprintf("v%d", k1)
			if k1%3 == 0 {
				v = nil
			}
			rows = append(rows, row{p, k1, -100 - k1, v}, row{p, k1, 100 + k1, "hi"})
		}
	}
	var vals [][]any
	for _, r := range rows {
		vals = append(vals, []any{r.p, r.k1, r.k2, r.v})
	}
	if err := c.Upsert(ctx, "db", "ck", vals); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "ck"); err != nil {
		t.Fatal(err)
	}
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "ck")
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		pred *paimon.Predicate
		want func(row) bool // the test's own reading of the predicate
	}
	probes := []probe{
		{paimon.Gt("k2", int32(104)), func(r row) bool { return r.k2 > 104 }},
		{paimon.Lt("k2", int32(-104)), func(r row) bool { return r.k2 < -104 }},
		{paimon.And(paimon.Eq("k1", int32(1)), paimon.Eq("k2", int32(10))), func(r row) bool { return r.k1 == 1 && r.k2 == 10 }},
		{paimon.IsNull("v"), func(r row) bool { return r.v == nil }},
	}
	seen := map[int32]bool{}
	for _, r := range rows {
		if k2 := r.k2; !seen[k2] {
			seen[k2] = true
			probes = append(probes, probe{paimon.Eq("k2", k2), func(r row) bool { return r.k2 == k2 }})
		}
	}
	for _, tc := range probes {
		p, err := pt.Plan(ctx, paimon.ScanOptions{Predicate: tc.pred})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range p.Splits {
			rr, err := p.Open(ctx, &p.Splits[i], memory.NewGoAllocator(), paimon.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for rr.Next() {
				rec := rr.RecordBatch()
				for r := 0; r < int(rec.NumRows()); r++ {
					got = append(got, fmt.Sprint(paimon.JSONRow(rec, r)[:4]))
				}
			}
			if rr.Err() != nil {
				t.Fatal(rr.Err())
			}
			rr.Release()
		}
		var want []string
		for _, r := range rows {
			if tc.want(r) {
				v := r.v
				if v == nil {
					v = "<nil>"
				}
				want = append(want, fmt.Sprintf("[%s %d %d %v]", r.p, r.k1, r.k2, v))
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the test expects no rows; it would prove nothing", tc.pred)
		}
		if sortedJoin(got) != sortedJoin(want) {
			t.Errorf("%s: lake read (%d splits)\n%s\nwant\n%s", tc.pred, len(p.Splits), sortedJoin(got), sortedJoin(want))
		}
	}
}
