package iceberg_test

// An independent cross-check of the data and delete files: DuckDB
// (internal/duckrun, sharing no code with arrow-go or iceberg-go) reads
// the Parquet files of a table iceberg-go wrote, applies each split's
// position and equality deletes itself in SQL, and must return exactly
// the rows lake/iceberg returns for the split.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// duckDB starts the shared DuckDB runner (internal/duckrun); a machine
// without node or npm skips, CI fails (fixtures.Unavailable).
func duckDB(t *testing.T, threads int) *duckrun.DB {
	t.Helper()
	d, err := duckrun.Start(context.Background(), threads)
	if err != nil {
		fixtures.Unavailable(t, "DuckDB: %v", err)
	}
	t.Cleanup(d.Close)
	return d
}

func sqlList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestDuckDBAppliesTheSameDeletes: for every split of every snapshot,
// DuckDB's read_parquet of the data file minus the positions the split's
// position delete files name for it, minus the customers of its equality
// delete files, equals the split as lake/iceberg reads it.
func TestDuckDBAppliesTheSameDeletes(t *testing.T) {
	duck := duckDB(t, 1)
	ctx := context.Background()
	wh := t.TempDir()
	snaps, err := icebergtest.Orders(ctx, wh, "db")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	var ours [][]string
	for _, id := range snaps {
		plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: id})
		if err != nil {
			t.Fatal(err)
		}
		for i := range plan.Splits {
			sp := &plan.Splits[i]
			rd, err := plan.Open(ctx, sp, memory.NewGoAllocator(), iceberg.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var recs []arrow.RecordBatch
			for rd.Next() {
				r := rd.RecordBatch()
				r.Retain()
				recs = append(recs, r)
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
			ours = append(ours, rows(t, recs))
			for _, r := range recs {
				r.Release()
			}
			where := []string{"true"}
			if len(sp.PosDeletes) > 0 {
				var ps []string
				for _, d := range sp.PosDeletes {
					ps = append(ps, d.Path)
				}
				where = append(where, fmt.Sprintf("file_row_number NOT IN (SELECT pos FROM read_parquet(%s) WHERE file_path = '%s')", sqlList(ps), sp.Path))
			}
			if len(sp.EqDeletes) > 0 {
				var es []string
				for _, d := range sp.EqDeletes {
					if !slices.Equal(d.EqualityIDs, []int{2}) {
						t.Fatalf("equality delete file %s compares %v, not customer", d.Path, d.EqualityIDs)
					}
					es = append(es, d.Path)
				}
				where = append(where, fmt.Sprintf("customer NOT IN (SELECT customer FROM read_parquet(%s))", sqlList(es)))
			}
			stmts = append(stmts, fmt.Sprintf(`SELECT id::VARCHAR || '|' || customer || '|' || printf('%%.2f', amount) || '|' || strftime(day, '%%Y-%%m-%%d') || '|' || epoch_us(ts)::VARCHAR || '|' || region
				FROM read_parquet('%s', file_row_number = true) WHERE %s`, sp.Path, strings.Join(where, " AND ")))
		}
	}
	for i, q := range stmts {
		_, res, err := duck.Run(q)
		if err != nil {
			t.Fatalf("DuckDB: %v\n%s", err, q)
		}
		var theirs []string
		for _, r := range res {
			theirs = append(theirs, *r[0])
		}
		slices.Sort(theirs)
		if !slices.Equal(theirs, ours[i]) {
			t.Errorf("split %d: DuckDB %d rows, ours %d\n%s", i, len(theirs), len(ours[i]), q)
		}
	}
	if len(stmts) < 8 {
		t.Errorf("only %d splits compared", len(stmts))
	}
}
