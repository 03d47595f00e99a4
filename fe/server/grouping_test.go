package server

import (
	"strings"
	"testing"
)

// ROLLUP, CUBE, GROUPING SETS and WITH ROLLUP (issue 24), Doris's
// semantics: a grouping expression a set leaves out is NULL in that set's
// rows, GROUPING(e) is 1 there (0 where e is grouped, even when e's value
// is a NULL of the data), GROUPING_ID(e1, ..., en) packs those bits with
// e1 the highest. Rows (g, h, v), derived by hand below:
//
//	(a,1,10) (a,2,20) (a,NULL,5) (b,1,7) (NULL,1,3)
func TestGroupingSets(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE gs", "USE gs",
		`CREATE TABLE t (g VARCHAR(10), h INT, v INT) DISTRIBUTED BY HASH(v) BUCKETS 3`,
		"INSERT INTO t VALUES ('a', 1, 10), ('a', 2, 20), ('a', NULL, 5), ('b', 1, 7), (NULL, 1, 3)")
	// ROLLUP(g, h): sets (g, h), (g), (). (g): a 10+20+5, b 7, NULL 3;
	// (): 45 over 5 rows.
	rollup := []string{
		"NULL|1|3|0|0|0|1",
		"a|NULL|5|0|0|0|1",
		"a|1|10|0|0|0|1",
		"a|2|20|0|0|0|1",
		"b|1|7|0|0|0|1",
		"NULL|NULL|3|0|1|1|1",
		"a|NULL|35|0|1|1|3",
		"b|NULL|7|0|1|1|1",
		"NULL|NULL|45|1|1|3|5",
	}
	wantRows(t, db, `SELECT g, h, sum(v), grouping(g), grouping(h), grouping_id(g, h), count(*)
		FROM t GROUP BY ROLLUP(g, h) ORDER BY grouping_id(g, h), g, h`, rollup...)
	// MySQL's spelling of the same sets.
	wantRows(t, db, `SELECT g, h, sum(v), grouping(g), grouping(h), grouping_id(g, h), count(*)
		FROM t GROUP BY g, h WITH ROLLUP ORDER BY grouping_id(g, h), g, h`, rollup...)
	// CUBE(g, h): sets (g, h), (g), (h), (). (h): NULL 5, 1 10+7+3, 2 20.
	wantRows(t, db, `SELECT g, h, sum(v), grouping_id(g, h) FROM t GROUP BY CUBE(g, h) ORDER BY 4, g, h`,
		"NULL|1|3|0", "a|NULL|5|0", "a|1|10|0", "a|2|20|0", "b|1|7|0",
		"NULL|NULL|3|1", "a|NULL|35|1", "b|NULL|7|1",
		"NULL|NULL|5|2", "NULL|1|20|2", "NULL|2|20|2",
		"NULL|NULL|45|3")
	// GROUPING SETS with an expression, an aggregate over a grouping
	// column (it sees the column's values, not the set's NULLs), DISTINCT
	// and HAVING on GROUPING(). (g): a sum(h) 1+2, b 1, NULL 1, distinct
	// g 1, 1, 0. (h+1): NULL 5, 2 20, 3 20, none over 20 and GROUPING(g)
	// is 1, so HAVING drops them. (): sum(h) 5, two distinct g, sum(v) 45.
	wantRows(t, db, `SELECT g, h + 1, sum(h), count(DISTINCT g), grouping(g) FROM t
		GROUP BY GROUPING SETS ((g), (h + 1), ()) HAVING grouping(g) = 0 OR sum(v) > 20
		ORDER BY grouping(g), g, h + 1`,
		"NULL|NULL|1|0|0", "a|NULL|3|1|0", "b|NULL|1|1|0", "NULL|NULL|5|2|1")
	// A view keeps its grouping sets.
	mustExec(t, db, `CREATE VIEW vc AS SELECT g, h, sum(v) AS s FROM t GROUP BY CUBE(g, h)`,
		`CREATE VIEW vs AS SELECT h, count(*) AS c FROM t GROUP BY GROUPING SETS ((h), ())`)
	wantRows(t, db, "SELECT count(*), sum(s) FROM vc", "12|180")
	wantRows(t, db, "SELECT h, c FROM vs ORDER BY c, h", "NULL|1", "2|1", "1|3", "NULL|5")
	// No input rows, no groups: the () set's total is not made up (MySQL
	// WITH ROLLUP and Doris's repeat node give no rows either).
	mustExec(t, db, `CREATE TABLE e (a INT, b INT) DISTRIBUTED BY HASH(a) BUCKETS 1`)
	wantRows(t, db, "SELECT a, count(*) FROM e GROUP BY ROLLUP(a)")
	// EXPLAIN shows the repeat under the aggregate.
	plan := rows(t, db, "EXPLAIN SELECT g, count(*) FROM t GROUP BY ROLLUP(g)")
	if !strings.Contains(strings.Join(plan, "\n"), "VREPEAT_NODE") {
		t.Errorf("EXPLAIN has no repeat node:\n%s", strings.Join(plan, "\n"))
	}
	// Only the () set: the grand total. A correlated subquery with
	// grouping sets is refused, not answered as a plain aggregate.
	wantRows(t, db, "SELECT sum(v), count(*) FROM t GROUP BY GROUPING SETS (())", "45|5")
	wantErr(t, db, "SELECT g, (SELECT sum(v) FROM t u WHERE u.g = t.g GROUP BY ROLLUP(h) LIMIT 1) FROM t", 1235, "ROLLUP, CUBE or GROUPING SETS in a correlated subquery")
	wantErr(t, db, "SELECT g, (SELECT sum(v) FROM t u WHERE u.g = t.g GROUP BY GROUPING SETS (())) FROM t", 1235, "ROLLUP, CUBE or GROUPING SETS in a correlated subquery")
	// GROUPING() needs grouping sets and a grouping expression.
	wantErr(t, db, "SELECT g, grouping(g) FROM t GROUP BY g", 1105, "GROUPING() is only allowed with GROUP BY ROLLUP, CUBE or GROUPING SETS")
	wantErr(t, db, "SELECT grouping(v) FROM t GROUP BY ROLLUP(g)", 1105, "the argument v of GROUPING() is not a GROUP BY expression")
	wantErr(t, db, "SELECT g FROM t WHERE grouping(g) = 0 GROUP BY ROLLUP(g)", 1105, "GROUPING() is only allowed")
	wantErr(t, db, "SELECT v FROM t GROUP BY ROLLUP(g)", 1105, "v not in aggregate's output")
}
