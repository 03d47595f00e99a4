package iceberg_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestSlicedPlans: data files of one row group each (iceberg-go's
// layout), with position deletes spread over them and an equality
// delete, planned with FileSplitSize and MinSplits cut into slices that
// share each row group by rows: every snapshot reads the rows derived by
// hand, under every cut, each row once; a file's row group is read by
// several slices (so the rows were shared, not given whole to one); the
// slices' row estimates add up to the files' records; EncodeSplit and
// DecodeSplit carry the slice, and a slice of another format or out of
// range is refused.
func TestSlicedPlans(t *testing.T) {
	ctx := context.Background()
	defer paimon.SetSliceLimitsForTest(1, 1, 100)()
	wh := t.TempDir()
	const n = 6000
	snaps, err := icebergtest.OrdersBig(ctx, wh, "db", "big", n, map[string]string{
		"write.parquet.page-size-bytes": "2048", "write.parquet.page-row-limit": "300", "write.parquet.row-group-limit": "1000000"})
	if err != nil {
		t.Fatal(err)
	}
	c003 := func(id int64) bool { return id%17 == 3 }
	both := func(id int64) bool { return id%17 == 3 || id%17 == 5 }
	expect := [][]int64{
		idRange(1, n, nil),
		idRange(1, n, c003),
		idRange(1, n, both),
		append(idRange(1, n, both), idRange(n+1, n+50, nil)...),
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "big"))
	if err != nil {
		t.Fatal(err)
	}
	for si, id := range snaps {
		whole, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: id})
		if err != nil {
			t.Fatal(err)
		}
		var records int64
		for _, sp := range whole.Splits {
			records += sp.Records
		}
		for _, c := range []struct {
			size      int64
			minSplits int
		}{{0, 0}, {1 << 40, 9}, {1 << 40, 7}, {5000, 0}, {20000, 5}} {
			plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: id, FileSplitSize: c.size, MinSplits: c.minSplits})
			if err != nil {
				t.Fatal(err)
			}
			if c.size > 0 && len(plan.Splits) <= len(whole.Splits) {
				t.Fatalf("size %d minSplits %d: %d splits for %d files", c.size, c.minSplits, len(plan.Splits), len(whole.Splits))
			}
			if d, _, _ := plan.FileCounts(); d != len(whole.Splits) {
				t.Errorf("FileCounts says %d data files, want %d", d, len(whole.Splits))
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var got []arrow.RecordBatch
			var planned int64
			withRows := map[string]int{}
			for j := range plan.Splits {
				sp := &plan.Splits[j]
				planned += sp.Records
				b, err := iceberg.EncodeSplit(sp)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := iceberg.DecodeSplit(b)
				if err != nil {
					t.Fatal(err)
				}
				if (dec.Slice == nil) != (sp.Slice == nil) {
					t.Fatalf("the codec lost the slice of %s", sp.Path)
				}
				rd, err := plan.Open(ctx, dec, mem, iceberg.ReadOptions{BatchSize: 100})
				if err != nil {
					t.Fatal(err)
				}
				k := 0
				for rd.Next() {
					rec := rd.RecordBatch()
					rec.Retain()
					got = append(got, rec)
					k += int(rec.NumRows())
				}
				if err := rd.Err(); err != nil {
					t.Fatal(err)
				}
				rd.Release()
				if testing.Verbose() {
					t.Logf("size %d min %d: %s slice %v: %d rows", c.size, c.minSplits, filepath.Base(sp.Path), sp.Slice, k)
				}
				if k > 0 {
					withRows[sp.Path]++
				}
			}
			rs := rows(t, got)
			for _, r := range got {
				r.Release()
			}
			mem.AssertSize(t, 0)
			if w := want(expect[si]); !slices.Equal(rs, w) {
				t.Fatalf("snapshot %d size %d minSplits %d: %d rows, want %d", si+1, c.size, c.minSplits, len(rs), len(w))
			}
			if planned != records {
				t.Errorf("snapshot %d size %d: slices estimate %d rows, the files hold %d", si+1, c.size, planned, records)
			}
			shared := 0
			for _, k := range withRows {
				shared = max(shared, k)
			}
			if c.size > 0 && shared < 2 {
				t.Errorf("snapshot %d size %d minSplits %d: no file's rows came from two slices", si+1, c.size, c.minSplits)
			}
		}
	}
	for name, sp := range map[string]iceberg.Split{
		"avro":     {Path: "/w/f.avro", Format: "AVRO", Slice: &paimon.FileSlice{Index: 0, Count: 2}},
		"index":    {Path: "/w/f.parquet", Slice: &paimon.FileSlice{Index: 2, Count: 2}},
		"negative": {Path: "/w/f.parquet", Slice: &paimon.FileSlice{Index: -1, Count: 2}},
	} {
		b, err := iceberg.EncodeSplit(&sp)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := iceberg.DecodeSplit(b); err == nil {
			t.Errorf("%s: slice accepted", name)
		}
	}
}
