package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestAggregateRewritesVsDuckDB checks two rewrites against DuckDB on rows
// with NULL keys and values, duplicate keys, keys without partners and
// groups whose values are all NULL:
//   - a total over the same rows as a grouped aggregate is the total of
//     its groups, computed once for both (fe/opt totalsFromGroups, TPC-H
//     Q11); count is never rolled up (0 of no rows, not NULL);
//   - a correlated avg/min/max over the table the enclosing query joins
//     by the correlation key alone is a window over the enclosing rows
//     (fe/bind windowValue, TPC-H Q17) when they are few; a filter on
//     that table, a second read of it, sum, count or many enclosing rows
//     keep the decorrelated join.
func TestAggregateRewritesVsDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	tables := []duckTable{
		// dim: keys 0..599, NULL every 53rd, key 7 twice (a duplicate
		// part, both rows alike).
		{"dim", "k INT, a INT, tag VARCHAR(10)", 601, func(i int) string {
			k, j := fmt.Sprint(i), i
			if i == 600 {
				k, j = "7", 7
			}
			return fmt.Sprintf("(%s, %d, 't%d')", nullEvery(i, 53, 9, k), j%7, j%3)
		}},
		// fact: keys over 0..799 (some without a dim row), NULL every 41st;
		// v NULL every 17th and on every row of key 11 (an all-NULL group).
		{"fact", "fk INT, g INT, v DECIMAL(12,2), q INT", 12000, func(i int) string {
			k := i * 7919 % 800
			v := fmt.Sprintf("%d.%02d", i%97, i%100)
			if k == 11 {
				v = "NULL"
			}
			return fmt.Sprintf("(%s, %d, %s, %d)", nullEvery(i, 41, 2, fmt.Sprint(k)), i%9, nullEvery(i, 17, 4, v), i%50)
		}},
		// grp: one row per fact key, 40 names (Q2's part to fact's partsupp).
		{"grp", "gk INT, name VARCHAR(10)", 800, func(i int) string { return fmt.Sprintf("(%d, 'n%d')", i, i%40) }},
	}
	db, d := startJoinDuck(t, "aggrw", tables)
	const shared, window = "VSHARED", "partition by:"
	for _, c := range []struct {
		name, q    string
		want, deny string // in EXPLAIN
	}{
		{"total in having", `SELECT g, CAST(sum(v) AS DOUBLE) FROM fact, dim WHERE fk = k AND a < 5 GROUP BY g
			HAVING sum(v) > (SELECT sum(v) * 0.1 FROM fact, dim WHERE fk = k AND a < 5)`, shared, ""},
		{"min max totals", `SELECT fk, CAST(min(v) AS DOUBLE), CAST(max(v) AS DOUBLE) FROM fact WHERE q < 30 GROUP BY fk
			HAVING max(v) >= (SELECT max(v) FROM fact WHERE q < 30) - 10 OR min(v) <= (SELECT min(v) FROM fact WHERE q < 30)`, shared, ""},
		{"integer total", `SELECT fk, sum(q) FROM fact GROUP BY fk HAVING sum(q) * 200 > (SELECT sum(q) FROM fact)`, shared, ""},
		{"empty total", `SELECT CAST((SELECT sum(v) FROM fact WHERE q > 100) AS DOUBLE), count(*) FROM (SELECT fk, sum(v) FROM fact WHERE q > 100 GROUP BY fk) x`, shared, ""},
		{"count kept", `SELECT fk, count(v) FROM fact GROUP BY fk HAVING count(v) * 700 > (SELECT count(v) FROM fact)`, "", shared},
		{"other filter kept", `SELECT fk, CAST(sum(v) AS DOUBLE) FROM fact WHERE q < 30 GROUP BY fk HAVING sum(v) * 50 > (SELECT sum(v) FROM fact WHERE q < 31)`, "", shared},

		{"avg below", `SELECT CAST(sum(v) AS DOUBLE), count(*) FROM fact, dim WHERE fk = k AND a = 0 AND tag = 't1'
			AND v < (SELECT 0.8 * avg(v) FROM fact WHERE fk = k)`, window, ""},
		{"min max per key", `SELECT fk, q, CAST(v AS DOUBLE) FROM fact, dim WHERE k = fk AND tag = 't1' AND a = 2
			AND (v = (SELECT min(v) FROM fact f2 WHERE f2.fk = k) OR v = (SELECT max(v) FROM fact f2 WHERE f2.fk = k))`, window, ""},
		{"correlated to own column", `SELECT count(*), sum(q) FROM fact, dim WHERE fk = k AND a > 4 AND tag = 't0'
			AND q > (SELECT avg(q) FROM fact f2 WHERE f2.fk = fact.fk)`, window, ""},
		{"select list", `SELECT k, q, (SELECT max(q) - min(q) FROM fact f2 WHERE f2.fk = dim.k) FROM dim, fact WHERE k = fk AND a = 1 AND tag = 't2'`, window, ""},
		{"filtered outer table kept", `SELECT count(*) FROM fact, dim WHERE fk = k AND a = 3 AND tag = 't0' AND q < 25
			AND v < (SELECT avg(v) FROM fact f2 WHERE f2.fk = k)`, "", window},
		{"sum kept", `SELECT count(*) FROM fact, dim WHERE fk = k AND a = 0 AND tag = 't1'
			AND v * 20 < (SELECT sum(v) FROM fact f2 WHERE f2.fk = k)`, "", window},
		{"filtered subquery kept", `SELECT count(*) FROM fact, dim WHERE fk = k AND a = 3 AND tag = 't0'
			AND v < (SELECT avg(v) FROM fact f2 WHERE f2.fk = k AND f2.q < 25)`, "", window},
		// Q2's shape: the subquery's FROM is two of the enclosing tables
		// with the same conditions, correlated to the third.
		{"joined from", `SELECT gk, k, q, CAST(v AS DOUBLE) FROM grp, fact, dim WHERE gk = fk AND fk = k AND tag = 't1' AND name = 'n3'
			AND v = (SELECT min(v) FROM fact f2, dim d2 WHERE f2.fk = d2.k AND d2.tag = 't1' AND f2.fk = gk)`, window, ""},
		{"joined from, other condition kept", `SELECT gk, k, q, CAST(v AS DOUBLE) FROM grp, fact, dim WHERE gk = fk AND fk = k AND tag = 't1' AND name = 'n3'
			AND v >= (SELECT min(v) FROM fact f2, dim d2 WHERE f2.fk = d2.k AND d2.a < 5 AND f2.fk = gk)`, "", window},
		{"joined from, same filter on both", `SELECT count(*) FROM grp, fact, dim WHERE gk = fk AND fk = k AND tag = 't1' AND name = 'n3' AND q < 40
			AND v >= (SELECT avg(v) FROM fact f2, dim d2 WHERE f2.fk = d2.k AND d2.tag = 't1' AND f2.q < 40 AND f2.fk = gk)`, window, ""},
		{"constant false subquery kept", `SELECT count(*) FROM fact, dim WHERE fk = k AND a = 0 AND tag = 't1'
			AND coalesce((SELECT avg(v) FROM fact f2 WHERE f2.fk = k AND 1 = 0), 1000) > v`, "", window},
		// Most of fact joins: reading it again beats sorting it.
		{"many enclosing rows kept", `SELECT count(*) FROM fact, dim WHERE fk = k
			AND v < (SELECT avg(v) FROM fact f2 WHERE f2.fk = k)`, "", window},
		{"left join kept", `SELECT count(*), sum(q) FROM dim LEFT JOIN fact ON fk = k WHERE a = 3
			AND coalesce(q, 0) <= (SELECT max(q) FROM fact f2 WHERE f2.fk = k)`, "", window},
	} {
		ex := strings.Join(rows(t, db, "EXPLAIN "+c.q), "\n")
		if c.want != "" && !strings.Contains(ex, c.want) || c.deny != "" && strings.Contains(ex, c.deny) {
			t.Errorf("%s: plan must have %q and not %q:\n%s", c.name, c.want, c.deny, ex)
		}
		if n := sameRowsAsDuck(t, db, d, c.name, c.q); n == 0 {
			t.Errorf("%s: DuckDB returns no rows; the case tests nothing", c.name)
		}
	}
}
