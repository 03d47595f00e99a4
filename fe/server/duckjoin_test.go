package server

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
)

// duckTable is one table of a join test: its Inlet column list (INT and
// VARCHAR(10) map to DuckDB's INTEGER and VARCHAR) and its rows as SQL
// value tuples.
type duckTable struct {
	name, cols string
	rows       int
	row        func(i int) string
}

// nullEvery renders v, or NULL for every m-th i (at remainder r).
func nullEvery(i, m, r int, v string) string {
	if i%m == r {
		return "NULL"
	}
	return v
}

// startJoinDuck starts DuckDB and an FE with database dbName, loads the
// same rows into both and analyses them in Inlet, for join tests whose
// answers DuckDB gives.
func startJoinDuck(t *testing.T, dbName string, tables []duckTable) (*sql.DB, *duckrun.DB) {
	t.Helper()
	// The DuckDB process lives as long as ctx: until the test ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	d, err := duckrun.Start(ctx, 1)
	if err != nil {
		fixtures.Unavailable(t, "DuckDB: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE "+dbName, "USE "+dbName)
	duckCols := strings.NewReplacer("INT", "INTEGER", "VARCHAR(10)", "VARCHAR")
	for _, tb := range tables {
		mustExec(t, db, "CREATE TABLE "+tb.name+" ("+tb.cols+") DISTRIBUTED BY HASH("+strings.Fields(tb.cols)[0]+") BUCKETS 1")
		if _, _, err := d.Run("CREATE TABLE " + tb.name + " (" + duckCols.Replace(tb.cols) + ")"); err != nil {
			t.Fatal(err)
		}
		var vals []string
		for i := range tb.rows {
			vals = append(vals, tb.row(i))
			if len(vals) == 5000 || i == tb.rows-1 {
				ins := "INSERT INTO " + tb.name + " VALUES " + strings.Join(vals, ", ")
				mustExec(t, db, ins)
				if _, _, err := d.Run(ins); err != nil {
					t.Fatal(err)
				}
				vals = vals[:0]
			}
		}
		mustExec(t, db, "ANALYZE TABLE "+tb.name)
	}
	return db, d
}

// sameRowsAsDuck runs q on both engines and reports a difference in the
// rows (order ignored); it returns DuckDB's row count.
func sameRowsAsDuck(t *testing.T, db *sql.DB, d *duckrun.DB, name, q string) int {
	t.Helper()
	got := rows(t, db, q)
	want := duckText(t, d, q)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: inlet %d rows, DuckDB %d; first differences:\n%s%s", name, len(got), len(want),
			firstDiffs("Inlet", got, want, 4), firstDiffs("DuckDB", want, got, 4))
	}
	return len(want)
}
