package paimon_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// A read with no columns still returns the right number of rows (COUNT(*)),
// with deletion vectors, merges and ORC files alike.
func TestZeroColumnRead(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		dir  string
		rows int64
	}{
		{"parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv", 8},
		{"parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", 11},
		{"orc/append_09.db/append_09", 11},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, fixturesDir(t)+"/"+tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			for i := range plan.Splits {
				rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: []string{}})
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
					if rr.RecordBatch().NumCols() != 0 {
						t.Fatal("columns returned")
					}
					n += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				rr.Release()
			}
			if n != tc.rows {
				t.Fatalf("%d rows, want %d", n, tc.rows)
			}
		})
	}
}

func TestNestedProjection(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, fixturesDir(t)+"/parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid")
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"f3.f1", "f5", "f3.f0"}
	got := strings.Join(readRows(t, tbl, paimon.ScanOptions{}, cols, mem), " ")
	if want := "[2 24 true] [2 2456 true] [2222 245 false]"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := plan.OutputSchema(cols)
	if err != nil || sch.Field(0).Name != "f3.f1" || sch.Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("schema %v, %v", sch, err)
	}
	if _, err := plan.OutputSchema([]string{"f3.nope"}); err == nil {
		t.Fatal("unknown nested field accepted")
	}
}

func readMetrics(t *testing.T, tbl *paimon.Table, o paimon.ScanOptions, mem memory.Allocator) (rows int64, m paimon.Metrics) {
	t.Helper()
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		got := rr.(interface{ Metrics() paimon.Metrics }).Metrics()
		m.FilesOpened += got.FilesOpened
		m.RowGroupsSkipped += got.RowGroupsSkipped
		m.RowsRead += got.RowsRead
		m.RowsDeleted += got.RowsDeleted
		m.RowsFiltered += got.RowsFiltered
		rr.Release()
	}
	return rows, m
}

// Parquet row groups whose statistics exclude the predicate are not read.
func TestRowGroupPruning(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "INT")},
		{ID: 1, Name: "name", Type: mustType(t, "STRING")},
	}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	b.RowGroupRows = 100
	var rows [][]any
	for i := 0; i < 300; i++ {
		rows = append(rows, []any{i, fmt.Sprintf("n%03d", i)})
	}
	rec := paimontest.Rows(t, mem, b.Schema(), rows...)
	if err := b.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name               string
		pred               *paimon.Predicate
		rows, skipped, out int64
	}{
		{"none", nil, 300, 0, 0},
		{"id >= 250", paimon.Ge("id", 250), 50, 2, 50},
		{"id < 10 or id = 299", paimon.Or(paimon.Lt("id", 10), paimon.Eq("id", 299)), 11, 1, 189},
		{"name = n150", paimon.Eq("name", "n150"), 1, 2, 99},
		{"id > 1000", paimon.Gt("id", 1000), 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, m := readMetrics(t, tbl, paimon.ScanOptions{Predicate: tc.pred}, mem)
			if n != tc.rows || m.RowGroupsSkipped != tc.skipped || m.RowsFiltered != tc.out {
				t.Fatalf("rows %d, metrics %+v", n, m)
			}
		})
	}
}

// Manifests whose bucket range or partition statistics exclude the scan are
// not read, and the answer does not change.
func TestManifestPruning(t *testing.T) {
	ctx := context.Background()
	b2 := int32(2)
	for _, tc := range []struct {
		dir       string
		o         paimon.ScanOptions
		rows      int64
		skipsSome bool // false: one manifest holds every partition
	}{
		{"orc/pk_table_with_total_buckets.db/pk_table_with_total_buckets", paimon.ScanOptions{Bucket: &b2}, 0, true},
		{"parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", paimon.ScanOptions{Predicate: paimon.Eq("f1", 20)}, 2, true},
		{"parquet/append_with_empty_partition.db/append_with_empty_partition", paimon.ScanOptions{Predicate: paimon.Eq("f0", "2025")}, 1, false},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, fixturesDir(t)+"/"+tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := tbl.Plan(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if (plan.Stats.ManifestsSkipped > 0) != tc.skipsSome || (!tc.skipsSome && plan.Stats.FilesPruned == 0) {
				t.Fatalf("pruning: %+v", plan.Stats)
			}
			if n, _ := readMetrics(t, tbl, tc.o, mem); n != tc.rows {
				t.Fatalf("%d rows, want %d", n, tc.rows)
			}
		})
	}
}
