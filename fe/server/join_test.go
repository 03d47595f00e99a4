package server

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Joins from issue 15 (defects 2 and 6), through a real MySQL driver.
// Expected values are derived by hand in the comments beside them.

// joinTables makes n(a) = 1..100 and two small tables with NULLs:
//
//	l(id, v): (1,10) (2,20) (3,NULL) (NULL,40)
//	r(id, w): (1,100) (1,101) (3,NULL) (5,500) (NULL,600)
func joinTables(t *testing.T) *sql.DB {
	t.Helper()
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	vals := make([]string, 100)
	for i := range vals {
		vals[i] = fmt.Sprintf("(%d)", i+1)
	}
	mustExec(t, db, "CREATE DATABASE j", "USE j",
		`CREATE TABLE n (a INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 3 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE l (id INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE r (id INT, w INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		"INSERT INTO n VALUES "+strings.Join(vals, ", "),
		"INSERT INTO l VALUES (1, 10), (2, 20), (3, NULL), (NULL, 40)",
		"INSERT INTO r VALUES (1, 100), (1, 101), (3, NULL), (5, 500), (NULL, 600)",
	)
	return f.db("j")
}

const fiveWay = `SELECT count(*) FROM n x1, n x2, n x3, n x4, n x5
	WHERE x1.a = x2.a AND x2.a = x3.a AND x3.a = x4.a AND x4.a = x5.a`

// Defect 2: WHERE equi-conditions of a comma join become hash keys of the
// lowest join that sees both sides; no cross product is built.
func TestJoinCommaWhereKeys(t *testing.T) {
	db := joinTables(t)
	// The plan is checked before the query runs: with a cross product the
	// query would exhaust memory instead of failing.
	plan := strings.Join(rows(t, db, "EXPLAIN "+fiveWay), "\n")
	keyed := 0
	for _, l := range strings.Split(plan, "\n") {
		if strings.Contains(l, "equal join conjunct: (") && strings.HasSuffix(l, "a = a)") {
			keyed++
		}
	}
	if got := keyed; got != 4 {
		t.Fatalf("EXPLAIN: %d joins on a = a, want 4:\n%s", got, plan)
	}
	for _, bad := range []string{"VNESTED LOOP JOIN", "(1 = 1)"} {
		if strings.Contains(plan, bad) {
			t.Fatalf("EXPLAIN shows %q:\n%s", bad, plan)
		}
	}

	// A single-table condition is a filter over its scan, below the join.
	plan = strings.Join(rows(t, db, "EXPLAIN SELECT count(*) FROM l, r WHERE r.w > 100 AND l.id = r.id"), "\n")
	join, sel := strings.Index(plan, "equal join conjunct: (id = id)"), strings.Index(plan, "VSELECT")
	if join < 0 || sel < join || !strings.Contains(plan[sel:], "predicates: (w > 100)") {
		t.Errorf("EXPLAIN: want the key id = id and a filter on w below it:\n%s", plan)
	}

	// Memory-bounded: 100 rows, 5 ways, answered at once.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	var got int64
	if err := db.QueryRowContext(ctx, fiveWay).Scan(&got); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if got != 100 {
		t.Errorf("5-way comma join: %d, want 100", got)
	}
	// A cross product of even three of the inputs is 10^6 rows; the keyed
	// plan builds five tables of 100 rows.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("5-way comma join allocated %d MiB", alloc>>20)
	}
	if took > 10*time.Second {
		t.Errorf("5-way comma join took %v", took)
	}

	cases := []struct{ q, want string }{
		// The same with JOIN ... ON.
		{`SELECT count(*) FROM n x1 JOIN n x2 ON x1.a = x2.a JOIN n x3 ON x2.a = x3.a JOIN n x4 ON x3.a = x4.a JOIN n x5 ON x4.a = x5.a`, "100"},
		// x3.a in 1..10, x2.a = x3.a, x1.a = x2.a + 1 in 2..11: 10 rows.
		{`SELECT count(*), sum(x1.a) FROM n x1, n x2, n x3 WHERE x1.a = x2.a + 1 AND x2.a = x3.a AND x3.a <= 10`, "10|65"},
		// Keys given the other way round (right = left): x2.a = 2*x1.a <= 100, x1.a in 1..50.
		{`SELECT count(*) FROM n x1, n x2 WHERE x2.a = x1.a * 2`, "50"},
		// A non-equi condition is a join filter: x2 in 1..4, x1 < x2: 0+1+2+3.
		{`SELECT count(*) FROM n x1, n x2 WHERE x1.a < x2.a AND x2.a <= 4`, "6"},
		// Two keys between the same pair plus a filter on each side.
		{`SELECT x1.a, x2.a FROM n x1, n x2 WHERE x1.a = x2.a AND x1.a + 1 = x2.a + 1 AND x1.a > 97 AND x2.a < 100 ORDER BY 1`, "98|98\n99|99"},
		// A condition over three tables is applied where all three meet:
		// x1.a = x2.a and x1.a + x2.a = x3.a give x3.a = 2*x1.a, x1.a <= 50.
		{`SELECT count(*) FROM n x1, n x2, n x3 WHERE x1.a = x2.a AND x1.a + x2.a = x3.a`, "50"},
		// Comma join beside an explicit JOIN and a derived table.
		{`SELECT count(*) FROM (SELECT a FROM n WHERE a < 5) d, n x JOIN n y ON x.a = y.a WHERE d.a = x.a`, "4"},
		// NULL keys never match: l.id = r.id pairs (1,1) twice and (3,3).
		{`SELECT l.id, l.v, r.w FROM l, r WHERE l.id = r.id ORDER BY r.w`, "3|NULL|NULL\n1|10|100\n1|10|101"},
		// A single-table condition on a comma join: r rows with w > 100, times l's 4 rows.
		{`SELECT count(*) FROM l, r WHERE r.w > 100`, "12"},
		// Null-safe equality is a join filter, not a key: NULL <=> NULL pairs too.
		{`SELECT count(*) FROM l, r WHERE l.id <=> r.id`, "4"},
		// A condition that is constant stays in WHERE.
		{`SELECT count(*) FROM l, r WHERE 1 = 0 AND l.id = r.id`, "0"},
		// Subqueries stay in WHERE.
		{`SELECT count(*) FROM l, r WHERE l.id = r.id AND r.w IN (SELECT a + 99 FROM n)`, "2"},
	}
	for _, c := range cases {
		wantRows(t, db, c.q, strings.Split(c.want, "\n")...)
	}
	// An unqualified column of two tables is still ambiguous.
	wantErr(t, db, `SELECT count(*) FROM n x1, n x2 WHERE a = 1`, 1052, "ambiguous")
}

// Defect 2, outer joins: a WHERE condition moves below an outer join only
// onto its preserved side.
func TestJoinWhereOuterJoins(t *testing.T) {
	db := joinTables(t)
	cases := []struct {
		q    string
		want []string
	}{
		// l LEFT JOIN r on id: (1,10,100) (1,10,101) (2,20,NULL) (3,NULL,NULL[w]) (NULL,40,NULL).
		// r.w IS NULL keeps 2, 3 (w is NULL in the matched row) and NULL;
		// pushed into r it would leave l 1 unmatched, so kept with w NULL.
		{`SELECT l.id, r.id FROM l LEFT JOIN r ON l.id = r.id WHERE r.w IS NULL ORDER BY l.id`,
			[]string{"NULL|NULL", "2|NULL", "3|3"}},
		// Preserved side: l.v > 10 keeps l 2 and NULL(40).
		{`SELECT l.id, r.w FROM l LEFT JOIN r ON l.id = r.id WHERE l.v > 10 ORDER BY l.v`,
			[]string{"2|NULL", "NULL|NULL"}},
		// RIGHT JOIN: r preserved. l.v IS NULL: r(3) meets l(3,NULL); r 5 and NULL unmatched.
		{`SELECT r.id, r.w FROM l RIGHT JOIN r ON l.id = r.id WHERE l.v IS NULL ORDER BY r.w`,
			[]string{"3|NULL", "5|500", "NULL|600"}},
		// A two-sided condition on a LEFT JOIN stays above it: coalesce(r.w, 0) < l.v
		// keeps 2 (0 < 20) and NULL (0 < 40).
		{`SELECT l.id FROM l LEFT JOIN r ON l.id = r.id WHERE coalesce(r.w, 0) < l.v ORDER BY l.v`,
			[]string{"2", "NULL"}},
		// FULL JOIN: nothing moves. Rows: (1,1)x2 (2,-) (3,3) (NULL,-) (-,5) (-,NULL).
		{`SELECT count(*) FROM l FULL OUTER JOIN r ON l.id = r.id WHERE l.id IS NULL`,
			[]string{"3"}},
		// A comma join over a LEFT JOIN: the key joins n to the outer join's output.
		// l LEFT JOIN r rows with l.id in n: 1,1,2,3.
		{`SELECT count(*) FROM l LEFT JOIN r ON l.id = r.id, n WHERE n.a = l.id`, []string{"4"}},
		// ... and a key on the null-supplied side: r.id in n for matched rows 1,1,3.
		{`SELECT count(*) FROM l LEFT JOIN r ON l.id = r.id, n WHERE n.a = r.id`, []string{"3"}},
	}
	for _, c := range cases {
		wantRows(t, db, c.q, c.want...)
	}
}

// Defect 6: FULL OUTER JOIN reads each input once (a live table read twice
// can change between the reads) and answers with every match, the
// unmatched left rows and the unmatched right rows.
func TestJoinFullOuterOnce(t *testing.T) {
	db := joinTables(t)
	q := `SELECT l.id, l.v, r.id, r.w FROM l FULL OUTER JOIN r ON l.id = r.id`
	plan := rows(t, db, "EXPLAIN "+q)
	scans := map[string]int{}
	for _, line := range plan {
		if i := strings.Index(line, "TABLE: "); i >= 0 {
			scans[strings.TrimSpace(line[i+len("TABLE: "):])]++
		}
	}
	if len(scans) != 2 {
		t.Fatalf("EXPLAIN: scans %v, want l and r:\n%s", scans, strings.Join(plan, "\n"))
	}
	for tbl, n := range scans {
		if n != 1 {
			t.Errorf("EXPLAIN scans %s %d times:\n%s", tbl, n, strings.Join(plan, "\n"))
		}
	}
	// Matches (1,1) twice and (3,3); l 2 and NULL unmatched; r 5 and NULL unmatched.
	wantRows(t, db, q+` ORDER BY l.id, r.id, r.w`,
		"NULL|40|NULL|NULL", "NULL|NULL|NULL|600", "NULL|NULL|5|500",
		"1|10|1|100", "1|10|1|101", "2|20|NULL|NULL", "3|NULL|3|NULL")
	// With a join filter: r.w > 100 leaves (1,101) matched; l 1 stays
	// matched, l 3 and r(1,100), r(3,NULL) become unmatched.
	wantRows(t, db, `SELECT l.id, r.id, r.w FROM l FULL JOIN r ON l.id = r.id AND r.w > 100 ORDER BY l.id, r.id, r.w`,
		"NULL|NULL|NULL", "NULL|NULL|600", "NULL|1|100", "NULL|3|NULL", "NULL|5|500",
		"1|1|101", "2|NULL|NULL", "3|NULL|NULL")
	// 7 rows; non-NULL l.id 1,1,2,3; non-NULL r.id 1,1,3,5.
	wantRows(t, db, `SELECT count(*), count(l.id), count(r.id) FROM l FULL JOIN r ON l.id = r.id`, "7|4|4")
	// No equality: ON l.v < r.w. Each of l.v 10, 20, 40 is below w 100,
	// 101, 500, 600: 12 matches, then l(3,NULL) and r(3,NULL) unmatched:
	// 14 rows. l.id: 4 (id 1) + 4 (id 2) + 0 (NULL) + 1 (3) = 9; r.id per
	// l row 1, 1, 5 (not NULL): 3 x 3 + 1 (3) = 10.
	wantRows(t, db, `SELECT count(*), count(l.id), count(r.id) FROM l FULL JOIN r ON l.v < r.w`, "14|9|10")
}

// TestCrossJoinStreamsAndStops is issue 13's defect 2: a cross join of
// three 1000-row tables (1e9 pairs) under LIMIT 10 answers at once instead
// of building every pair, and one that must count them all stops at
// query_timeout.
func TestCrossJoinStreamsAndStops(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE xj",
		"CREATE TABLE xj.n (x INT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 1")
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = fmt.Sprintf("(%d)", i)
	}
	mustExec(t, db, "INSERT INTO xj.n VALUES "+strings.Join(vals, ","))

	start := time.Now()
	wantRows(t, db, "SELECT count(*) FROM (SELECT a.x, b.x AS bx, c.x AS cx FROM xj.n a, xj.n b, xj.n c LIMIT 10) t", "10")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("LIMIT 10 over a 1e9-pair cross join took %v", d)
	}

	mustExec(t, db, "SET query_timeout = 1")
	start = time.Now()
	_, err := db.Exec("SELECT count(*) FROM xj.n a, xj.n b, xj.n c")
	if err == nil || !strings.Contains(err.Error(), "query_timeout") {
		t.Fatalf("counting 1e9 pairs under query_timeout=1: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled cross join stopped after %v, want about 1 s", d)
	}
}
