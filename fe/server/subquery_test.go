package server

import (
	"strings"
	"testing"
)

// Subqueries in any expression position and correlated subqueries (issue
// 15), decorrelated into joins. Every expected row is derived by hand from
// the two tables below, with SQL's three-valued logic; the duplicate row of
// t checks that decorrelation keeps equal outer rows apart.
//
//	t(a, b): (1,10) (2,20) (2,20) (3,NULL) (NULL,5)
//	u(x, y): (1,100) (2,200) (2,201) (NULL,300)
func subqueryDB(t *testing.T) *testFE {
	t.Helper()
	f := startFE(t, t.TempDir(), "", false)
	mustExec(t, f.db(""), "CREATE DATABASE sq", "USE sq",
		`CREATE TABLE t (a INT, b INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE u (x INT, y BIGINT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 3 PROPERTIES ('replication_num' = '1')`,
		"INSERT INTO t VALUES (1, 10), (2, 20), (2, 20), (3, NULL), (NULL, 5)",
		"INSERT INTO u VALUES (1, 100), (2, 200), (2, 201), (NULL, 300)",
	)
	return f
}

func TestCorrelatedScalarSubqueries(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// count of u.x below a: a=1 none; a=2 {1}; a=3 {1,2,2}; NULL none.
	wantRows(t, db, `SELECT a, b, (SELECT count(*) FROM u WHERE u.x < t.a) FROM t ORDER BY a, b`,
		"NULL|5|0", "1|10|0", "2|20|1", "2|20|1", "3|NULL|3")
	// Equality correlation: no match is sum NULL and count 0, never a
	// missing or doubled row.
	wantRows(t, db, `SELECT a, (SELECT sum(y) FROM u WHERE u.x = t.a), (SELECT count(*) FROM u WHERE x = a) FROM t ORDER BY a, b`,
		"NULL|NULL|0", "1|100|1", "2|401|2", "2|401|2", "3|NULL|0")
	// count(1) + 1 over no rows is 1 (the NULL-extended row is not counted).
	wantRows(t, db, `SELECT a, (SELECT count(1) + 1 FROM u WHERE u.x = t.a) AS c FROM t ORDER BY a, b`,
		"NULL|1", "1|2", "2|3", "2|3", "3|1")
	// Inside an expression and in WHERE: max(y) of x <= a, compared.
	// a=1: 100; a=2: 201; a=3: 201; NULL: NULL.
	wantRows(t, db, `SELECT a FROM t WHERE (SELECT max(y) FROM u WHERE u.x <= t.a) > 150 ORDER BY a`, "2", "2", "3")
	wantRows(t, db, `SELECT a, 1000 - (SELECT max(y) FROM u WHERE u.x <= t.a) FROM t ORDER BY a, b`,
		"NULL|NULL", "1|900", "2|799", "2|799", "3|799")
	// In ORDER BY: by the count of u.x above a (a=1: 2, a=2: 0, a=3: 0,
	// NULL: 0), then a descending.
	wantRows(t, db, `SELECT a FROM t ORDER BY (SELECT count(*) FROM u WHERE u.x > t.a) DESC, a DESC`,
		"1", "3", "2", "2", "NULL")
}

func TestExistsAndInAnywhere(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// EXISTS as a value, correlated, also inside CASE.
	wantRows(t, db, `SELECT a, EXISTS (SELECT 1 FROM u WHERE u.x = t.a),
			CASE WHEN EXISTS (SELECT * FROM u WHERE u.x > t.a) THEN 'y' ELSE 'n' END FROM t ORDER BY a, b`,
		"NULL|0|n", "1|1|y", "2|1|n", "2|1|n", "3|0|n")
	// Uncorrelated EXISTS as a value.
	wantRows(t, db, `SELECT EXISTS (SELECT 1 FROM u WHERE y > 250), EXISTS (SELECT 1 FROM u WHERE y > 1000)`, "1|0")
	// An OR branch: b > 15 OR EXISTS(x = a AND y > 150). (1,10): F OR F;
	// (2,20): T; (3,NULL): NULL OR F = NULL; (NULL,5): F OR F.
	wantRows(t, db, `SELECT a, b FROM t WHERE b > 15 OR EXISTS (SELECT 1 FROM u WHERE u.x = t.a AND u.y > 150) ORDER BY a, b`,
		"2|20", "2|20")
	// IN and NOT IN as values; u.x holds a NULL, so a value not found is
	// NULL, and a NULL probe is NULL against a non-empty set.
	wantRows(t, db, `SELECT a, a IN (SELECT x FROM u), a NOT IN (SELECT x FROM u) FROM t ORDER BY a, b`,
		"NULL|NULL|NULL", "1|1|0", "2|1|0", "2|1|0", "3|NULL|NULL")
	wantRows(t, db, `SELECT a, a IN (SELECT x FROM u WHERE x IS NOT NULL), a NOT IN (SELECT x FROM u WHERE x IS NOT NULL) FROM t ORDER BY a, b`,
		"NULL|NULL|NULL", "1|1|0", "2|1|0", "2|1|0", "3|0|1")
	// Against an empty set IN is FALSE, even for NULL.
	wantRows(t, db, `SELECT a, a IN (SELECT x FROM u WHERE y > 1000), a NOT IN (SELECT x FROM u WHERE y > 1000) FROM t ORDER BY a, b`,
		"NULL|0|1", "1|0|1", "2|0|1", "2|0|1", "3|0|1")
	wantRows(t, db, `SELECT 2 IN (SELECT x FROM u), 5 IN (SELECT x FROM u), NULL IN (SELECT x FROM u WHERE x = 7)`, "1|NULL|0")
}

func TestCorrelatedWhereSubqueries(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// x = a with y > 10*b: (2,20) has y=201 > 200; (1,10) needs y > 100.
	wantRows(t, db, `SELECT a, b FROM t WHERE a IN (SELECT x FROM u WHERE u.y > t.b * 10) ORDER BY a, b`, "2|20", "2|20")
	wantRows(t, db, `SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.x = t.a) ORDER BY a`, "NULL", "3")
	wantRows(t, db, `SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x < t.a) ORDER BY a`, "2", "2", "3")
	// NOT IN over a per-row set: (1,10) {1}: F; (2,20) {1,2}: F; (3,NULL)
	// and (NULL,5) see an empty set: TRUE.
	wantRows(t, db, `SELECT a, b FROM t WHERE a NOT IN (SELECT x FROM u WHERE u.y <= t.b * 10) ORDER BY a, b`,
		"NULL|5", "3|NULL")
	// An aggregate without GROUP BY yields one row, so EXISTS holds for
	// every row even where nothing matches; a wrong name is an error.
	wantRows(t, db, `SELECT count(*) FROM t WHERE EXISTS (SELECT max(y) FROM u WHERE u.x = t.a)`, "5")
	wantRows(t, db, `SELECT count(*) FROM t WHERE NOT EXISTS (SELECT count(*) FROM u WHERE u.x = t.a)`, "0")
	wantRows(t, db, `SELECT a, EXISTS (SELECT max(y) FROM u WHERE u.x = t.a) FROM t WHERE a = 3`, "3|1")
	if _, err := tryRows(db, `SELECT a FROM t WHERE EXISTS (SELECT nosuch FROM u WHERE u.x = t.a)`); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a wrong name in an EXISTS select list: %v", err)
	}
	// Inner names shadow outer ones: x and y resolve in u, a in t.
	wantRows(t, db, `SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u t2 WHERE x = a AND y = 100)`, "1")
}

func TestSubqueryShapesNotDecorrelated(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// A correlated scalar subquery without an aggregate may return several
	// rows per outer row; it is refused, never run per row.
	if _, err := tryRows(db, `SELECT (SELECT y FROM u WHERE u.x = t.a) FROM t`); err == nil {
		t.Error("a correlated scalar subquery without an aggregate ran")
	}
	if _, err := tryRows(db, `SELECT (SELECT count(*) FROM u WHERE u.x = t.a GROUP BY y) FROM t`); err == nil {
		t.Error("a correlated subquery with GROUP BY ran")
	}
}

// count(DISTINCT a, b) counts distinct tuples of non-NULL values (MySQL).
func TestCountDistinctTuples(t *testing.T) {
	f := subqueryDB(t)
	db := f.db("sq")
	// Non-NULL pairs: (1,10), (2,20) twice → 2.
	wantRows(t, db, `SELECT count(DISTINCT a, b), count(DISTINCT a), count(DISTINCT b) FROM t`, "2|3|3")
	mustExec(t, db, `CREATE TABLE s (g INT, p VARCHAR(10), q VARCHAR(10)) DISTRIBUTED BY HASH(g) BUCKETS 2`,
		`INSERT INTO s VALUES (1, 'a,b', 'c'), (1, 'a', 'b,c'), (1, 'ab', 'c'), (1, 'a', 'bc'), (1, 'a', 'bc'),
			(2, 'x', NULL), (2, NULL, 'y'), (2, 'x', 'y'), (2, '', 'xy'), (2, 'x', 'y')`)
	// Group 1: four different pairs, one repeated; group 2: (x,y) twice
	// and ('',xy); the pairs with a NULL do not count.
	wantRows(t, db, `SELECT g, count(DISTINCT p, q), count(DISTINCT q, p, g) FROM s GROUP BY g ORDER BY g`, "1|4|4", "2|2|2")
}

// A correlated subquery is planned once, as joins, never re-run per row:
// an aggregate of it is computed per distinct correlation value (the
// domain, t's distinct a joined to u on the correlation as a hash key,
// grouped by a) and LEFT JOINed to t, so u is hashed only for the values
// t has and t is not regrouped; the answer over no rows (count 0) comes
// from an empty input, reading no table. The domain is taken from the
// filtered t (an unfiltered outer table keeps the row-number join).
func TestCorrelatedSubqueryPlan(t *testing.T) {
	db := subqueryDB(t).db("sq")
	plan := strings.Join(rows(t, db, `EXPLAIN SELECT a, (SELECT count(*) FROM u WHERE u.x = t.a) FROM t WHERE b > 5`), "\n")
	for _, want := range []string{"join op: LEFT OUTER JOIN", "join op: INNER JOIN", "equal join conjunct: (a = x)", "group by: a"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "row_number()") {
		t.Errorf("EXPLAIN numbers the rows to regroup them:\n%s", plan)
	}
	if n := strings.Count(plan, "TABLE: internal.sq.u"); n != 1 {
		t.Errorf("u is scanned %d times:\n%s", n, plan)
	}
	wantRows(t, db, `SELECT a, (SELECT count(*) FROM u WHERE u.x = t.a) FROM t WHERE b > 5 ORDER BY a, b`, "1|1", "2|2", "2|2")
}

// Subqueries in the select list and HAVING of an aggregating query see its
// groups. Groups of t by a: NULL (1 row), 1 (1), 2 (2), 3 (1).
func TestSubqueriesOverGroups(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// u rows with x = a and y > 150: only a=2 has two.
	wantRows(t, db, `SELECT a, (SELECT count(*) FROM u WHERE x = a AND y > 150) c FROM t GROUP BY a ORDER BY a`,
		"NULL|0", "1|0", "2|2", "3|0")
	// count(*) >= matches + 1: NULL 1 >= 1, 1: 1 >= 2 no, 2: 2 >= 3 no, 3: 1 >= 1.
	wantRows(t, db, `SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= (SELECT count(*) FROM u WHERE x = a) + 1 ORDER BY a`,
		"NULL|1", "3|1")
	wantRows(t, db, `SELECT count(*), (SELECT max(y) FROM u), EXISTS (SELECT 1 FROM u WHERE x > 2) FROM t`, "5|300|0")
	// Inside an aggregate the subquery is per row: a in {1,2,2,NULL} for
	// a = 1, 2, 2; per group of a, the correlated count of u rows.
	wantRows(t, db, `SELECT count(*), sum(CASE WHEN a IN (SELECT x FROM u) THEN 1 ELSE 0 END) FROM t`, "5|3")
	// Two subqueries that look alike to the aggregate stay apart: NOT IN
	// is never TRUE against a set holding a NULL.
	wantRows(t, db, `SELECT sum(CASE WHEN a IN (SELECT x FROM u) THEN 1 ELSE 0 END), sum(CASE WHEN a NOT IN (SELECT x FROM u) THEN 1 ELSE 0 END),
			sum(CASE WHEN a NOT IN (SELECT x FROM u WHERE x IS NOT NULL) THEN 1 ELSE 0 END) FROM t`, "3|0|1")
	wantRows(t, db, `SELECT b > 15, sum((SELECT count(*) FROM u WHERE u.x = t.a)) FROM t GROUP BY b > 15 ORDER BY 1`,
		"NULL|0", "0|1", "1|4")
}

// RIGHT JOIN with a non-equality ON condition (issue 15): every u row once,
// NULL-extended where no t row meets the condition.
func TestRightJoinNonEqui(t *testing.T) {
	db := subqueryDB(t).db("sq")
	// x=1: no a < 1; x=2: a=1 (b=10); x=NULL: nothing.
	wantRows(t, db, `SELECT t.a, t.b, u.x, u.y FROM t RIGHT JOIN u ON t.a < u.x ORDER BY u.y, t.a`,
		"NULL|NULL|1|100", "1|10|2|200", "1|10|2|201", "NULL|NULL|NULL|300")
	// a = x AND 10*b < y: only y=201 meets it, with both (2,20) rows.
	wantRows(t, db, `SELECT t.a, t.b, u.x, u.y FROM t RIGHT JOIN u ON t.a = u.x AND t.b * 10 < u.y ORDER BY u.y, t.a`,
		"NULL|NULL|1|100", "NULL|NULL|2|200", "2|20|2|201", "2|20|2|201", "NULL|NULL|NULL|300")
	wantRows(t, db, `SELECT count(*), count(t.a) FROM t RIGHT JOIN u ON t.a < u.x WHERE u.y > 150`, "3|2")
}

// Correlated subqueries with LIMIT, GROUP BY, HAVING, DISTINCT, non-equality
// correlations and two levels of nesting, decorrelated over the distinct
// correlation values (fe/bind/lateral.go). Answers derived by hand from
// subqueryDB's tables:
//
//	t(a, b): (1,10) (2,20) (2,20) (3,NULL) (NULL,5)
//	u(x, y): (1,100) (2,200) (2,201) (NULL,300)
func TestCorrelatedSubqueryShapes(t *testing.T) {
	f := subqueryDB(t)
	db := f.db("sq")
	mustExec(t, db, `CREATE TABLE e (x INT, y BIGINT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 1 PROPERTIES ('replication_num' = '1')`)
	cases := []struct {
		q    string
		want []string
	}{
		// LIMIT 1 scalar lookup: the largest y of the matching x.
		{`SELECT a, (SELECT y FROM u WHERE u.x = t.a ORDER BY y DESC LIMIT 1) FROM t ORDER BY a, b`,
			[]string{"NULL|NULL", "1|100", "2|201", "2|201", "3|NULL"}},
		// LIMIT 1 OFFSET 1: the second smallest; only x=2 has two.
		{`SELECT a, (SELECT y FROM u WHERE u.x = t.a ORDER BY y LIMIT 1 OFFSET 1) FROM t ORDER BY a, b`,
			[]string{"NULL|NULL", "1|NULL", "2|201", "2|201", "3|NULL"}},
		// Top-1 per group in WHERE (IN over LIMIT): x=1 → 100, x=2 → 201;
		// the NULL x has no rows equal to it.
		{`SELECT x, y FROM u WHERE y IN (SELECT y FROM u u2 WHERE u2.x = u.x ORDER BY y DESC LIMIT 1) ORDER BY x`,
			[]string{"1|100", "2|201"}},
		// GROUP BY the correlated column: one group per outer value; no
		// group (a=3, NULL) is NULL, not 0, as SQL says.
		{`SELECT a, (SELECT sum(y) FROM u WHERE u.x = t.a GROUP BY u.x), (SELECT count(*) FROM u WHERE u.x = t.a GROUP BY u.x) FROM t ORDER BY a, b`,
			[]string{"NULL|NULL|NULL", "1|100|1", "2|401|2", "2|401|2", "3|NULL|NULL"}},
		// Non-equality correlation with GROUP BY and LIMIT: the largest
		// group of u.x <= a. a=1: {1:1} → 1; a=2: {1:1, 2:2} → 2; a=3 → 2.
		{`SELECT a, (SELECT count(*) FROM u WHERE u.x <= t.a GROUP BY u.x ORDER BY count(*) DESC LIMIT 1) FROM t ORDER BY a, b`,
			[]string{"NULL|NULL", "1|1", "2|2", "2|2", "3|2"}},
		// HAVING with GROUP BY under EXISTS / NOT EXISTS: only x=2 has two rows.
		{`SELECT a FROM t WHERE EXISTS (SELECT u.x FROM u WHERE u.x = t.a GROUP BY u.x HAVING count(*) > 1) ORDER BY a`,
			[]string{"2", "2"}},
		{`SELECT a FROM t WHERE NOT EXISTS (SELECT u.x FROM u WHERE u.x = t.a GROUP BY u.x HAVING count(*) > 1) ORDER BY a`,
			[]string{"NULL", "1", "3"}},
		// HAVING without GROUP BY: count over nothing is 0, so a=3 and
		// a=NULL (x = NULL matches nothing) pass count(*) = 0.
		{`SELECT a FROM t WHERE EXISTS (SELECT count(*) FROM u WHERE u.x = t.a HAVING count(*) = 0) ORDER BY a`,
			[]string{"NULL", "3"}},
		{`SELECT a, (SELECT count(*) FROM u WHERE u.x = t.a HAVING count(*) < 2) FROM t ORDER BY a, b`,
			[]string{"NULL|0", "1|1", "2|NULL", "2|NULL", "3|0"}},
		// An empty inner side: count 0, sum NULL, EXISTS false, for every
		// outer row including the duplicates.
		{`SELECT a, (SELECT count(*) FROM e WHERE e.x = t.a HAVING count(*) >= 0), EXISTS (SELECT DISTINCT e.x FROM e WHERE e.x = t.a), (SELECT y FROM e WHERE e.x = t.a LIMIT 1) FROM t ORDER BY a, b`,
			[]string{"NULL|0|0|NULL", "1|0|0|NULL", "2|0|0|NULL", "2|0|0|NULL", "3|0|0|NULL"}},
		// NOT IN as a value over a LIMIT per correlation value (three-valued):
		// a=NULL: no rows, TRUE; a=1: {100} holds 100; a=2: {201,200} holds
		// 200; a=3: b NULL against a non-empty set, NULL.
		{`SELECT a, b, b * 10 NOT IN (SELECT y FROM u WHERE u.x <= t.a ORDER BY y DESC LIMIT 2) FROM t ORDER BY a, b`,
			[]string{"NULL|5|1", "1|10|0", "2|20|0", "2|20|0", "3|NULL|NULL"}},
		// DISTINCT under EXISTS with a non-equality correlation.
		{`SELECT a, EXISTS (SELECT DISTINCT u.x FROM u WHERE u.x < t.a) FROM t ORDER BY a, b`,
			[]string{"NULL|0", "1|0", "2|1", "2|1", "3|1"}},
		// A correlation value that is NULL is answered too: u.x <=> t.a
		// matches the NULL row of u (y=300) for a=NULL.
		{`SELECT a, (SELECT y FROM u WHERE u.x <=> t.a ORDER BY y LIMIT 1) FROM t ORDER BY a, b`,
			[]string{"NULL|300", "1|100", "2|200", "2|200", "3|NULL"}},
		// Two levels: a u row of x = a that has a bigger y in u for the
		// same x (x=2: 200 < 201).
		{`SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.a AND EXISTS (SELECT 1 FROM u u2 WHERE u2.x = u.x AND u2.y > u.y)) ORDER BY a`,
			[]string{"2", "2"}},
		// Two levels, the inner one reading the outermost query: y > b*10
		// for x = a. a=1,b=10: 100 > 100 no; a=2,b=20: 201 > 200 yes;
		// a=3: no u rows; NULL: none.
		{`SELECT a, b FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.a AND EXISTS (SELECT 1 FROM u u2 WHERE u2.x = u.x AND u2.y > t.b * 10)) ORDER BY a`,
			[]string{"2|20", "2|20"}},
		// Two levels in the select list: per a, the count of u rows of x = a
		// whose y is above the average y of all rows of the same x.
		// x=1: avg 100 → 0; x=2: avg 200.5 → 1 (201).
		{`SELECT a, (SELECT count(*) FROM u WHERE u.x = t.a AND u.y > (SELECT avg(y) FROM u u2 WHERE u2.x = u.x)) FROM t ORDER BY a, b`,
			[]string{"NULL|0", "1|0", "2|1", "2|1", "3|0"}},
		// A correlated subquery in the select list of one with LIMIT:
		// the max y of the x of the first u row of x = a.
		{`SELECT a, (SELECT (SELECT max(y) FROM u u2 WHERE u2.x = u.x) FROM u WHERE u.x = t.a LIMIT 1) FROM t ORDER BY a, b`,
			[]string{"NULL|NULL", "1|100", "2|201", "2|201", "3|NULL"}},
	}
	for _, c := range cases {
		wantRows(t, db, c.q, c.want...)
	}
	// A correlated scalar subquery without an aggregate runs while each
	// outer row sees at most one row (t's a=2 twice is still one row each:
	// u has only 200 below 201 for x=2); a second row for an outer row
	// fails at run time with 1242 as in MySQL, never duplicates outer rows.
	wantRows(t, db, `SELECT a, (SELECT y FROM u WHERE u.x = t.a AND u.y < 201) FROM t ORDER BY a, b`,
		"NULL|NULL", "1|100", "2|200", "2|200", "3|NULL")
	wantRows(t, db, `SELECT a, (SELECT y FROM u WHERE u.x = t.a) FROM t WHERE a <> 2 ORDER BY a`, "1|100", "3|NULL")
	wantErr(t, db, `SELECT a, (SELECT y FROM u WHERE u.x = t.a) FROM t`, 1242, "more than 1 row")
	wantErr(t, db, `SELECT a, (SELECT max(y) FROM u WHERE u.x = t.a GROUP BY y) FROM t`, 1242, "more than 1 row")
	wantRows(t, db, `SELECT a, (SELECT max(y) FROM u WHERE u.x = t.a GROUP BY y) FROM t WHERE a = 1`, "1|100")
	// A theta correlation too: x in [a-1, a) is x=1 for a=2 and none for
	// a=1; for a=3 it is x=2's two rows.
	wantRows(t, db, `SELECT a, (SELECT y FROM u WHERE u.x < t.a AND u.x >= t.a - 1) FROM t WHERE a < 3 ORDER BY a`, "1|NULL", "2|100", "2|100")
	wantErr(t, db, `SELECT a, (SELECT y FROM u WHERE u.x < t.a AND u.x >= t.a - 1) FROM t`, 1242, "more than 1 row")
}
