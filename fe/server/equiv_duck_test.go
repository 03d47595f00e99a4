package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
)

// TestJoinEquivalencesVsDuckDB: equalities a = b AND b = c between three
// or more tables give a = c (fe/opt's equivalence classes), so a table
// linked to the others only through a middle one can join early, and
// where two parts of the plan join, one equality of the class is the key.
// Each query's plan must join on the derived equality and its rows must
// equal DuckDB's; the keys hold NULLs (never equal to anything, so the
// derived equality must not create matches through them).
func TestJoinEquivalencesVsDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := duckrun.Start(ctx, 1)
	if err != nil {
		fixtures.Unavailable(t, "DuckDB: %v", err)
	}
	defer d.Close()
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE eq", "USE eq")
	null := func(i, m, r int, v string) string {
		if i%m == r {
			return "NULL"
		}
		return v
	}
	// A star as TPC-H Q5: fact rows reference cust and supp, both of
	// which have a nation; nat is filtered to one nation by its name.
	tables := []struct {
		name, cols string
		rows       int
		row        func(i int) string
	}{
		{"nat", "n_k INT, n_name INT", 25, func(i int) string { return fmt.Sprintf("(%d, %d)", i, i%5) }},
		{"cust", "c_k INT, c_n INT", 3000, func(i int) string { return fmt.Sprintf("(%d, %s)", i, null(i, 17, 3, fmt.Sprint(i%25))) }},
		{"supp", "s_k INT, s_n INT", 200, func(i int) string { return fmt.Sprintf("(%d, %s)", i, null(i, 13, 5, fmt.Sprint((i*7+i/25)%25))) }},
		{"fact", "f_c INT, f_s INT, v INT", 20000, func(i int) string {
			return fmt.Sprintf("(%s, %d, %d)", null(i, 101, 7, fmt.Sprint(i*7919%3001)), i*104729%211, i%97)
		}},
	}
	for _, tb := range tables {
		mustExec(t, db, "CREATE TABLE "+tb.name+" ("+tb.cols+") DISTRIBUTED BY HASH("+strings.Fields(tb.cols)[0]+") BUCKETS 1")
		if _, _, err := d.Run("CREATE TABLE " + tb.name + " (" + strings.ReplaceAll(tb.cols, "INT", "INTEGER") + ")"); err != nil {
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
	for _, c := range []struct {
		name, q string
		want    []string // in EXPLAIN
	}{
		// c_n = s_n AND s_n = n_k: the one nation's customers join nat
		// on c_n = n_k, which no condition of the query says.
		{"star", `SELECT n_k, count(*), sum(v) FROM cust, supp, fact, nat
			WHERE c_k = f_c AND s_k = f_s AND c_n = s_n AND s_n = n_k AND n_name = 1 GROUP BY n_k`,
			[]string{"(c_n = n_k)"}},
		// The same through ON clauses, the class written the other way round.
		{"on", `SELECT count(*), sum(v) FROM fact JOIN cust ON f_c = c_k JOIN supp ON f_s = s_k AND s_n = c_n
			JOIN nat ON n_k = s_n WHERE n_name = 2`,
			[]string{"(c_n = n_k)"}},
		// Every column of the class in the output: each row's three equal.
		{"columns", `SELECT c_k, s_k, n_k, c_n, s_n FROM cust, supp, fact, nat
			WHERE c_k = f_c AND s_k = f_s AND c_n = s_n AND s_n = n_k AND n_name = 3`,
			[]string{"(c_n = n_k)"}},
	} {
		ex := strings.Join(rows(t, db, "EXPLAIN "+c.q), "\n")
		for _, w := range c.want {
			if !strings.Contains(ex, w) {
				t.Errorf("%s: plan lacks %q:\n%s", c.name, w, ex)
			}
		}
		got := rows(t, db, c.q)
		want := duckText(t, d, c.q)
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 {
			t.Errorf("%s: DuckDB has no rows: the case tests nothing", c.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: inlet %d rows, DuckDB %d; first differences:\n%s%s", c.name, len(got), len(want),
				firstDiffs("Inlet", got, want, 4), firstDiffs("DuckDB", want, got, 4))
		}
	}
}
