package paimon_test

import (
	"context"
	"testing"

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
