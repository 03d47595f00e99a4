package server

import "testing"

// Comparisons with ANY/SOME/ALL (subquery) and IN with a row on the left
// (issue 24), by MySQL's NULL rules (Doris's are the same): x op ALL (S)
// is TRUE over an empty S (even for a NULL x), FALSE when some s makes x
// op s false, else NULL when x or some s is NULL; ANY is the dual. A row
// comparison is TRUE when every pair is equal, FALSE when some pair
// differs, else NULL. Every value derived by hand from
//
//	x (id, a): (1,1) (2,5) (3,10) (4,NULL)
//	s (g, b):  (1,2) (1,5) (2,5) (2,NULL) (3,NULL)
func TestQuantifiedComparisons(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE qc", "USE qc",
		`CREATE TABLE x (id INT, a INT) DISTRIBUTED BY HASH(id) BUCKETS 2`,
		`CREATE TABLE s (g INT, b INT) DISTRIBUTED BY HASH(g) BUCKETS 2`,
		"INSERT INTO x VALUES (1, 1), (2, 5), (3, 10), (4, NULL)",
		"INSERT INTO s VALUES (1, 2), (1, 5), (2, 5), (2, NULL), (3, NULL)")
	for _, c := range []struct {
		q    string
		want []string
	}{
		// S = {2, 5}, no NULL.
		{"SELECT id, a > ALL (SELECT b FROM s WHERE g = 1), a > ANY (SELECT b FROM s WHERE g = 1), a = ANY (SELECT b FROM s WHERE g = 1), a <> ALL (SELECT b FROM s WHERE g = 1), a <= SOME (SELECT b FROM s WHERE g = 1) FROM x ORDER BY id",
			[]string{"1|0|0|0|1|1", "2|0|1|1|0|1", "3|1|1|0|1|0", "4|NULL|NULL|NULL|NULL|NULL"}},
		// S = {5, NULL}: only a comparison with 5 that settles it answers.
		{"SELECT id, a > ALL (SELECT b FROM s WHERE g = 2), a < ANY (SELECT b FROM s WHERE g = 2), a = ALL (SELECT b FROM s WHERE g = 2), a != ANY (SELECT b FROM s WHERE g = 2) FROM x ORDER BY id",
			[]string{"1|0|1|0|1", "2|0|NULL|NULL|NULL", "3|NULL|NULL|0|1", "4|NULL|NULL|NULL|NULL"}},
		// Empty S: ALL is TRUE, ANY FALSE, whatever x is.
		{"SELECT id, a > ALL (SELECT b FROM s WHERE g = 9), a > ANY (SELECT b FROM s WHERE g = 9) FROM x ORDER BY id",
			[]string{"1|1|0", "2|1|0", "3|1|0", "4|1|0"}},
		{"SELECT id FROM x WHERE a >= ALL (SELECT b FROM s WHERE g = 1) ORDER BY id", []string{"2", "3"}},
		{"SELECT id FROM x WHERE a = ANY (SELECT b FROM s) ORDER BY id", []string{"2"}},
		{"SELECT id FROM x WHERE a <> ALL (SELECT b FROM s WHERE g = 1) ORDER BY id", []string{"1", "3"}},
		// <> ALL over a NULL is never TRUE (NOT IN).
		{"SELECT id FROM x WHERE a <> ALL (SELECT b FROM s WHERE g = 2) ORDER BY id", nil},
		// Correlated: S for id 1 {2,5}, 2 {5,NULL}, 3 {NULL}, 4 empty.
		{"SELECT id, a > ALL (SELECT b FROM s WHERE s.g = x.id) FROM x ORDER BY id",
			[]string{"1|0", "2|0", "3|NULL", "4|1"}},
		// The outer column only inside S (it must survive column pruning):
		// a=1 sees {2,5,5}, the others see no row.
		{"SELECT id, 1 > ALL (SELECT b FROM s WHERE s.b > x.a) FROM x ORDER BY id",
			[]string{"1|0", "2|1", "3|1", "4|1"}},
		// S with DISTINCT, ORDER BY and LIMIT: {NULL, 2} (NULL sorts first).
		{"SELECT id, a < ANY (SELECT DISTINCT b FROM s ORDER BY b LIMIT 2) FROM x ORDER BY id",
			[]string{"1|1", "2|NULL", "3|NULL", "4|NULL"}},
		// In HAVING: sums g=1 7, g=2 5, g=3 NULL against max {1, 5} = 5.
		{"SELECT g, sum(b) FROM s GROUP BY g HAVING sum(b) >= ALL (SELECT a FROM x WHERE a < 6) ORDER BY g",
			[]string{"1|7", "2|5"}},
		// Rows: (1,1) differs from every row of s; (2,5) is one; (3,10)
		// against (3,NULL) is NULL; (4,NULL) differs from all by id.
		{"SELECT id FROM x WHERE (id, a) IN (SELECT g, b FROM s) ORDER BY id", []string{"2"}},
		{"SELECT id, (id, a) IN (SELECT g, b FROM s), (id, a) NOT IN (SELECT g, b FROM s) FROM x ORDER BY id",
			[]string{"1|0|1", "2|1|0", "3|NULL|NULL", "4|0|1"}},
		{"SELECT id FROM x WHERE (id, a) NOT IN (SELECT g, b FROM s) ORDER BY id", []string{"1", "4"}},
		{"SELECT id FROM x WHERE (id, a) IN (SELECT g, b FROM s WHERE s.b > x.id) ORDER BY id", []string{"2"}},
		{"SELECT id FROM x WHERE (id, a) IN (SELECT DISTINCT g, b FROM s LIMIT 10) ORDER BY id", []string{"2"}},
		{"SELECT id, (id, a) IN ((1, 1), (3, NULL)), (id, a) NOT IN ((1, 1), (2, 6)) FROM x ORDER BY id",
			[]string{"1|1|0", "2|0|1", "3|NULL|1", "4|0|1"}},
	} {
		wantRows(t, db, c.q, c.want...)
	}
	// A view keeps the comparisons (and the names inside them qualified).
	mustExec(t, db, "CREATE VIEW v AS SELECT id, a > ALL (SELECT b FROM s WHERE g = 1) AS gt, (id, a) IN (SELECT g, b FROM s) AS r FROM x")
	wantRows(t, db, "SELECT id, gt, r FROM v ORDER BY id", "1|0|0", "2|0|1", "3|1|NULL", "4|NULL|0")
	wantErr(t, db, "SELECT id FROM x WHERE a > ALL (SELECT g, b FROM s)", 1105, "Operand should contain 1 column(s)")
	wantErr(t, db, "SELECT id FROM x WHERE (id, a) IN (SELECT g FROM s)", 1105, "Operand should contain 2 column(s)")
}
