package paimon_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
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
