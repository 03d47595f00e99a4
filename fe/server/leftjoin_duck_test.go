package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestLeftJoinBuildsPreservedVsDuckDB: a LEFT JOIN of a small table with
// one four times its size or more builds the small, preserved side (the
// executor's RIGHT OUTER JOIN of the swapped inputs, as TPC-H Q13's
// customers and orders), with ON conditions on the large side alone
// filtering it first and mixed ones tested on the pairs. And a semi or
// anti join of a few filtered rows with a large table reads its probe
// side first and filters the build side's scan by its keys (TPC-H Q21),
// except NOT IN, whose answer a NULL build key decides. The rows must
// equal DuckDB's, unmatched and NULL-keyed rows included.
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
		// One a value in seven: the few dim rows' keys filter big's scan.
		{"exists", `SELECT k, a FROM dim WHERE a = 3 AND EXISTS (SELECT * FROM big WHERE bk = k AND b <> a)`, probeFirst, ""},
		{"not exists", `SELECT k, a FROM dim WHERE a = 3 AND NOT EXISTS (SELECT * FROM big WHERE bk = k AND b > 10)`, probeFirst, ""},
		{"not in", `SELECT k, a FROM dim WHERE a = 3 AND k NOT IN (SELECT bk FROM big WHERE b > 10)`, "", probeFirst},
	} {
		ex := strings.Join(rows(t, db, "EXPLAIN "+c.q), "\n")
		if c.want != "" && !strings.Contains(ex, c.want) || c.deny != "" && strings.Contains(ex, c.deny) {
			t.Errorf("%s: plan must have %q and not %q:\n%s", c.name, c.want, c.deny, ex)
		}
		sameRowsAsDuck(t, db, d, c.name, c.q)
	}
}
