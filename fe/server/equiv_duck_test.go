package server

import (
	"fmt"
	"strings"
	"testing"
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
	tables := []duckTable{
		{"nat", "n_k INT, n_name INT", 25, func(i int) string { return fmt.Sprintf("(%d, %d)", i, i%5) }},
		{"cust", "c_k INT, c_n INT", 3000, func(i int) string { return fmt.Sprintf("(%d, %s)", i, nullEvery(i, 17, 3, fmt.Sprint(i%25))) }},
		{"supp", "s_k INT, s_n INT", 200, func(i int) string { return fmt.Sprintf("(%d, %s)", i, nullEvery(i, 13, 5, fmt.Sprint((i*7+i/25)%25))) }},
		{"fact", "f_c INT, f_s INT, v INT", 20000, func(i int) string {
			return fmt.Sprintf("(%s, %d, %d)", nullEvery(i, 101, 7, fmt.Sprint(i*7919%3001)), i*104729%211, i%97)
		}},
	}
	db, d := startJoinDuck(t, "eq", tables)
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
		if sameRowsAsDuck(t, db, d, c.name, c.q) == 0 {
			t.Errorf("%s: DuckDB has no rows: the case tests nothing", c.name)
		}
	}
}
