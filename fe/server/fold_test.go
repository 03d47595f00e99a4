package server

import (
	"strings"
	"testing"
)

// scanLines are the PREDICATES and partition lines of a plan: what the
// scan was told and what it pruned.
func scanLines(t *testing.T, plan []string) []string {
	t.Helper()
	var out []string
	for _, l := range plan {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "PREDICATES:") || strings.HasPrefix(l, "partition=") {
			out = append(out, l)
		}
	}
	return out
}

// Constant folding (issue 15) end to end: a constant expression in WHERE
// reaches the Fluss scan exactly as the literal written by hand does (the
// hand-written query is the expectation), and prunes the same partitions.
func TestFoldPushesToFlussScan(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	cases := []struct{ folded, literal, want string }{
		// log_part: dt 20260101 (ids 1, 2), 20260102 (3), 20260103 (4).
		{"dt = concat('2026', '01', '01')", "dt = '20260101'", "1|2"},
		{"id < 1 + 2 AND dt IN (concat('2026010', 1 + 2), '20260101')", "id < 3 AND dt IN ('20260103', '20260101')", "1|2"},
		{"id BETWEEN 2 * 2 - 1 AND abs(-4)", "id BETWEEN 3 AND 4", "3|4"},
	}
	for _, c := range cases {
		q := "SELECT id FROM fl_auto.fluss_test.log_part WHERE "
		got := scanLines(t, rows(t, db, "EXPLAIN "+q+c.folded))
		want := scanLines(t, rows(t, db, "EXPLAIN "+q+c.literal))
		if len(want) < 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.folded, got, want)
		}
		if r := strings.Join(rows(t, db, q+c.folded+" ORDER BY id"), "|"); r != c.want {
			t.Errorf("%s: rows %s, want %s", c.folded, r, c.want)
		}
	}
}

// Folding in the plan (EXPLAIN shows the value), never of what changes per
// row, and never hiding an error.
func TestFoldInPlan(t *testing.T) {
	db := joinTables(t)
	if plan := strings.Join(rows(t, db, "EXPLAIN SELECT id FROM r WHERE w > 90 + 10"), "\n"); !strings.Contains(plan, "predicates: (w > 100)") {
		t.Errorf("WHERE w > 90 + 10 not folded:\n%s", plan)
	}
	if plan := strings.Join(rows(t, db, "EXPLAIN SELECT id, concat('a', 'b') FROM r"), "\n"); !strings.Contains(plan, "projections: id, 'ab'") {
		t.Errorf("select list not folded:\n%s", plan)
	}
	// r(id, w): (1,100) (1,101) (3,NULL) (5,500) (NULL,600).
	wantRows(t, db, "SELECT id, w FROM r WHERE w < 100 + 1 ORDER BY id", "1|100")
	wantRows(t, db, "SELECT count(*) FROM r WHERE 1 = 0", "0")
	wantRows(t, db, "SELECT count(*) FROM r WHERE NULL", "0")
	wantRows(t, db, "SELECT count(*) FROM r WHERE 1 + 1 = 2", "5")
	wantRows(t, db, "SELECT id, count(*) FROM r GROUP BY id HAVING count(*) > 3 - 2", "1|2")
	wantRows(t, db, "SELECT l.v FROM l JOIN r ON l.id = r.id AND r.w > 50 * 2", "10")
	wantRows(t, db, "SELECT 1 + 2, 7 / 2, CAST(1.50 AS DECIMAL(10,2)) * 2, date_add(DATE '2024-01-31', INTERVAL 1 MONTH), NULL + 1",
		"3|3.5|3.00|2024-02-29|NULL")
	// rand() and uuid() stay per row: 100 rows draw 100 values.
	wantRows(t, db, "SELECT count(DISTINCT rand()), count(DISTINCT uuid()) FROM n", "100|100")
	// An overflowing constant fails the statement only when rows are
	// evaluated, as without folding.
	if _, err := tryRows(db, "SELECT id FROM r WHERE w < 9223372036854775807 + 1"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("overflow: %v", err)
	}
}

// A date range written as TPC-H writes it (date 'x' + interval 'n' unit)
// reaches the scan as a hint with the folded bound, as the literal bound
// does: before, only the lower bound was pushed and a lake reader
// filtered and returned rows past the upper one.
func TestFoldIntervalBoundReachesScan(t *testing.T) {
	db := joinTables(t)
	mustExec(t, db, `CREATE TABLE dd (id INT, d DATE) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ('replication_num' = '1')`,
		"INSERT INTO dd VALUES (1, '1993-12-31'), (2, '1994-01-01'), (3, '1994-12-31'), (4, '1995-01-01'), (5, '1995-03-31'), (6, '1993-11-30')")
	cases := []struct{ where, hint, want string }{
		{"d >= date '1994-01-01' AND d < date '1994-01-01' + interval '1' year",
			"predicates=[`d` >= '1994-01-01' AND `d` < '1995-01-01']", "2|3"},
		{"d <= date '1995-04-01' - interval '1' day AND d > date '1995-01-01'",
			"predicates=[`d` <= '1995-03-31' AND `d` > '1995-01-01']", "5"},
		{"d < date '1994-01-01' - interval 1 month", "predicates=[`d` < '1993-12-01']", "6"},
	}
	for _, c := range cases {
		q := "SELECT id FROM dd WHERE " + c.where
		if plan := strings.Join(rows(t, db, "EXPLAIN VERBOSE "+q), "\n"); !strings.Contains(plan, c.hint) {
			t.Errorf("%s: plan lacks %s:\n%s", c.where, c.hint, plan)
		}
		if r := strings.Join(rows(t, db, q+" ORDER BY id"), "|"); r != c.want {
			t.Errorf("%s: rows %s, want %s", c.where, r, c.want)
		}
	}
}
