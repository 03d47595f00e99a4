package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestLeftJoinBuildsPreservedVsDuckDB: a LEFT JOIN of a small table with
// one four times its size or more builds the small, preserved side (the
// executor's RIGHT OUTER JOIN of the swapped inputs, as TPC-H Q13's
// customers and orders), with ON conditions on the large side alone
// filtering it first and mixed ones tested on the pairs. And a semi or
// anti join of a few filtered rows with a large table hashes the few rows
// (RIGHT SEMI / RIGHT ANTI JOIN, fe/opt semi.go); with a large side
// estimated too small for that, it reads its probe side first and filters
// the build side's scan by its keys; NOT IN, whose answer a NULL build
// key decides, does neither. The rows must equal DuckDB's, unmatched and
// NULL-keyed rows included.
func TestLeftJoinBuildsPreservedVsDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	tables := []duckTable{
		// dim: keys 0..2999 step 1 (NULL every 97th); big's keys cover 0..3999,
		// so some dim rows have no partner and some big rows none either.
		{"dim", "k INT, a INT", 3000, func(i int) string { return fmt.Sprintf("(%s, %d)", nullEvery(i, 97, 5, fmt.Sprint(i)), i%7) }},
		{"big", "bk INT, b INT, c VARCHAR(10)", 40000, func(i int) string {
			return fmt.Sprintf("(%s, %d, '%c')", nullEvery(i, 89, 3, fmt.Sprint(i*7919%4001)), i%13, 'p'+i%5)
		}},
	}
	db, d := startJoinDuck(t, "lj", tables)
	const flipped, probeFirst = "RIGHT OUTER JOIN", "probe-side runtime filters"
	for _, c := range []struct {
		name, q    string
		want, deny string // in EXPLAIN
	}{
		{"pairs", `SELECT k, a, bk, b, c FROM dim LEFT JOIN big ON k = bk`, flipped, ""},
		// Q13's shape: a count per left row, zero for the unmatched.
		{"count", `SELECT cnt, count(*) FROM (SELECT k, count(bk) AS cnt FROM dim LEFT JOIN big ON k = bk AND c <> 'q' GROUP BY k) x GROUP BY cnt`, flipped, ""},
		{"right-only condition", `SELECT k, a, bk, b FROM dim LEFT JOIN big ON k = bk AND b > 6`, flipped, ""},
		{"mixed condition", `SELECT k, a, bk, b FROM dim LEFT JOIN big ON k = bk AND b < a`, flipped, ""},
		// The other way round the large side is preserved: no flip.
		{"large left", `SELECT count(*), count(k) FROM big LEFT JOIN dim ON bk = k`, "", flipped},
		// One a value in seven: the few dim rows are hashed and big streams
		// (fe/opt semi.go), its rows marking the dim rows they match.
		{"exists", `SELECT k, a FROM dim WHERE a = 3 AND EXISTS (SELECT * FROM big WHERE bk = k AND b <> a)`, "RIGHT SEMI JOIN", probeFirst},
		{"not exists", `SELECT k, a FROM dim WHERE a = 3 AND NOT EXISTS (SELECT * FROM big WHERE bk = k AND b > 1)`, "RIGHT ANTI JOIN", probeFirst},
		// big filtered to an estimated few thousand rows: not worth
		// hashing the other side, but still read after dim's keys.
		{"not exists few", `SELECT k, a FROM dim WHERE a = 3 AND NOT EXISTS (SELECT * FROM big WHERE bk = k AND b > 10)`, probeFirst, "RIGHT ANTI JOIN"},
		// All of dim: NULL keys and keys big lacks are kept.
		{"not exists all", `SELECT k, a FROM dim WHERE NOT EXISTS (SELECT * FROM big WHERE bk = k)`, "RIGHT ANTI JOIN", ""},
		{"exists mixed", `SELECT k, a FROM dim WHERE EXISTS (SELECT * FROM big WHERE bk = k AND b < a AND c <> 'r')`, "RIGHT SEMI JOIN", ""},
		// NOT IN's answer depends on a NULL among big's keys: never the right anti join.
		{"not in", `SELECT k, a FROM dim WHERE a = 3 AND k NOT IN (SELECT bk FROM big WHERE b > 10)`, "", "RIGHT ANTI JOIN"},
		// The large side preserved: it streams as bound.
		{"exists large", `SELECT bk, b FROM big WHERE EXISTS (SELECT * FROM dim WHERE k = bk AND a < b)`, "LEFT SEMI JOIN", "RIGHT SEMI JOIN"},
		{"not exists large", `SELECT bk, b FROM big WHERE NOT EXISTS (SELECT * FROM dim WHERE k = bk)`, "LEFT ANTI JOIN", "RIGHT ANTI JOIN"},
	} {
		ex := strings.Join(rows(t, db, "EXPLAIN "+c.q), "\n")
		if c.want != "" && !strings.Contains(ex, c.want) || c.deny != "" && strings.Contains(ex, c.deny) {
			t.Errorf("%s: plan must have %q and not %q:\n%s", c.name, c.want, c.deny, ex)
		}
		sameRowsAsDuck(t, db, d, c.name, c.q)
	}
}

// TestRightSemiJoinSQLVsDuckDB: Doris's a RIGHT SEMI JOIN b (RIGHT ANTI
// JOIN) is b's rows with (without) a match in a, b's columns alone; the
// rows must equal DuckDB's EXISTS (NOT EXISTS) of the same, whichever
// side the optimiser hashes.
func TestRightSemiJoinSQLVsDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	tables := []duckTable{
		{"dim", "k INT, a INT", 3000, func(i int) string { return fmt.Sprintf("(%s, %d)", nullEvery(i, 97, 5, fmt.Sprint(i)), i%7) }},
		{"big", "bk INT, b INT, c VARCHAR(10)", 40000, func(i int) string {
			return fmt.Sprintf("(%s, %d, '%c')", nullEvery(i, 89, 3, fmt.Sprint(i*7919%4001)), i%13, 'p'+i%5)
		}},
	}
	db, d := startJoinDuck(t, "rs", tables)
	for _, c := range []struct {
		name, q, duck, plan string
	}{
		{"semi", `SELECT * FROM big RIGHT SEMI JOIN dim ON bk = k`,
			`SELECT * FROM dim WHERE EXISTS (SELECT 1 FROM big WHERE bk = k)`, "RIGHT SEMI JOIN"},
		{"anti", `SELECT * FROM big RIGHT ANTI JOIN dim ON bk = k`,
			`SELECT * FROM dim WHERE NOT EXISTS (SELECT 1 FROM big WHERE bk = k)`, "RIGHT ANTI JOIN"},
		{"semi with condition", `SELECT k, a FROM big RIGHT SEMI JOIN dim ON dim.k = big.bk AND b > a AND c = 'q'`,
			`SELECT k, a FROM dim WHERE EXISTS (SELECT 1 FROM big WHERE bk = k AND b > a AND c = 'q')`, "RIGHT SEMI JOIN"},
		{"anti with condition", `SELECT a, count(*) FROM big RIGHT ANTI JOIN dim ON bk = k AND b < a GROUP BY a`,
			`SELECT a, count(*) FROM dim WHERE NOT EXISTS (SELECT 1 FROM big WHERE bk = k AND b < a) GROUP BY a`, "RIGHT ANTI JOIN"},
		// The preserved side is big: it streams, dim is hashed.
		{"semi large preserved", `SELECT bk, b, c FROM dim RIGHT SEMI JOIN big ON k = bk AND a <> b`,
			`SELECT bk, b, c FROM big WHERE EXISTS (SELECT 1 FROM dim WHERE k = bk AND a <> b)`, "LEFT SEMI JOIN"},
		{"anti large preserved", `SELECT * FROM dim d RIGHT ANTI JOIN big ON d.k = big.bk`,
			`SELECT * FROM big WHERE NOT EXISTS (SELECT 1 FROM dim d WHERE d.k = big.bk)`, "LEFT ANTI JOIN"},
		{"left semi written out", `SELECT * FROM dim LEFT SEMI JOIN big ON k = bk AND b = 3`,
			`SELECT * FROM dim WHERE EXISTS (SELECT 1 FROM big WHERE k = bk AND b = 3)`, "RIGHT SEMI JOIN"},
	} {
		if ex := strings.Join(rows(t, db, "EXPLAIN "+c.q), "\n"); !strings.Contains(ex, "join op: "+c.plan) {
			t.Errorf("%s: plan lacks %q:\n%s", c.name, c.plan, ex)
		}
		got, want := rows(t, db, c.q), duckText(t, d, c.duck)
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: inlet %d rows, DuckDB %d; first differences:\n%s%s", c.name, len(got), len(want),
				firstDiffs("Inlet", got, want, 4), firstDiffs("DuckDB", want, got, 4))
		}
	}
	// SELECT * of a right semi join is the right side's columns.
	r, err := db.Query("SELECT * FROM big RIGHT SEMI JOIN dim ON bk = k LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if cols, _ := r.Columns(); !slices.Equal(cols, []string{"k", "a"}) {
		t.Errorf("SELECT * columns %v, want [k a]", cols)
	}
}
