package server

import (
	"strings"
	"testing"
)

// NTH_VALUE and FIRST_VALUE/LAST_VALUE skipping NULLs (issue 24): the
// frame's n-th row (NULL when the frame is shorter), and with IGNORE NULLS
// (or Doris's first_value(x, true)) the first/last/n-th non-NULL value of
// the frame, NULL when it has none. Rows, by hand:
//
//	g=1: o=1..5, v = 10, 20, NULL, 40, 50
//	g=2: o=1..2, v = NULL, 7
func TestWindowNthValueIgnoreNulls(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE wv", "USE wv",
		`CREATE TABLE w (g INT, o INT, v BIGINT) DISTRIBUTED BY HASH(o) BUCKETS 2`,
		"INSERT INTO w VALUES (1, 3, NULL), (1, 1, 10), (2, 2, 7), (1, 5, 50), (1, 2, 20), (2, 1, NULL), (1, 4, 40)")
	// Default frame (up to the current row): the 2nd row from o=2 on is
	// 20; the first non-NULL is 10; the last non-NULL at o=3 is still 20.
	// Descending from the current row to the end: o=3 sees NULL, 20, 10.
	wantRows(t, db, `SELECT g, o,
			nth_value(v, 2) OVER (PARTITION BY g ORDER BY o),
			first_value(v IGNORE NULLS) OVER (PARTITION BY g ORDER BY o),
			last_value(v) IGNORE NULLS OVER (PARTITION BY g ORDER BY o),
			first_value(v, true) OVER (PARTITION BY g ORDER BY o DESC ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			first_value(v, false) OVER (PARTITION BY g ORDER BY o DESC ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
		FROM w ORDER BY g, o`,
		"1|1|NULL|10|10|10|10",
		"1|2|20|10|20|20|20",
		"1|3|20|10|20|20|NULL",
		"1|4|20|10|40|40|40",
		"1|5|20|10|50|50|50",
		"2|1|NULL|NULL|NULL|NULL|NULL",
		"2|2|7|7|7|7|7",
	)
	// Whole partition: the 3rd row of g=1 is the NULL, its 3rd non-NULL
	// value 40; g=2 has no 3rd. One row either side: the 2nd of {10,20},
	// {10,20,NULL}, {20,NULL,40}, {NULL,40,50}, {40,50}.
	wantRows(t, db, `SELECT g, o,
			nth_value(v, 3) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
			nth_value(v, 3) IGNORE NULLS OVER (PARTITION BY g ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
			nth_value(v, 2) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			last_value(v) RESPECT NULLS OVER (PARTITION BY g ORDER BY o RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING)
		FROM w ORDER BY g, o`,
		"1|1|NULL|40|20|20",
		"1|2|NULL|40|20|NULL",
		"1|3|NULL|40|NULL|40",
		"1|4|NULL|40|40|50",
		"1|5|NULL|40|50|50",
		"2|1|NULL|NULL|7|7",
		"2|2|NULL|NULL|7|7",
	)
	wantErr(t, db, "SELECT nth_value(v, 0) OVER (ORDER BY o) FROM w", 1105, "nth_value: the row number must be a positive integer constant")
	wantErr(t, db, "SELECT lag(v) IGNORE NULLS OVER (ORDER BY o) FROM w", 1105, "IGNORE NULLS is only allowed with FIRST_VALUE, LAST_VALUE and NTH_VALUE")
}

// Named windows (WINDOW w AS (...), issue 24) by MySQL's rules: OVER w
// uses w as it is, OVER (w ...) may add an ORDER BY (when w has none) and
// a frame, never a PARTITION BY. Rows as in TestWindowNthValueIgnoreNulls.
func TestNamedWindows(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE nw", "USE nw",
		`CREATE TABLE w (g INT, o INT, v BIGINT) DISTRIBUTED BY HASH(o) BUCKETS 2`,
		"INSERT INTO w VALUES (1, 3, NULL), (1, 1, 10), (2, 2, 7), (1, 5, 50), (1, 2, 20), (2, 1, NULL), (1, 4, 40)")
	// sum over g: 120 and 7; rank by o descending; the first of the row
	// before and the current one: g=1 {10}, {10,20}, {20,NULL}, {NULL,40},
	// {40,50}; g=2 {NULL}, {NULL,7}.
	wantRows(t, db, `SELECT g, o, sum(v) OVER w, rank() OVER (w ORDER BY o DESC), first_value(v) OVER w2, count(*) OVER (w2)
		FROM w WINDOW w AS (PARTITION BY g), w2 AS (w ORDER BY o ROWS 1 PRECEDING) ORDER BY g, o`,
		"1|1|120|5|10|1",
		"1|2|120|4|10|2",
		"1|3|120|3|20|2",
		"1|4|120|2|NULL|2",
		"1|5|120|1|40|2",
		"2|1|7|2|NULL|1",
		"2|2|7|1|NULL|2",
	)
	// Over an aggregating block: running total of the groups' sums.
	wantRows(t, db, "SELECT g, sum(sum(v)) OVER w FROM w GROUP BY g WINDOW w AS (ORDER BY g) ORDER BY g", "1|120", "2|127")
	// A view keeps its named windows.
	mustExec(t, db, "CREATE VIEW vw AS SELECT g, o, sum(v) OVER (w ROWS 1 PRECEDING) AS s FROM w WINDOW w AS (PARTITION BY g ORDER BY o)")
	wantRows(t, db, "SELECT g, o, s FROM vw WHERE g = 1 ORDER BY o", "1|1|10", "1|2|30", "1|3|20", "1|4|40", "1|5|90")
	for _, c := range []struct{ q, msg string }{
		{"SELECT sum(v) OVER z FROM w", "Window name 'z' is not defined"},
		{"SELECT sum(v) OVER (w PARTITION BY o) FROM w WINDOW w AS (ORDER BY o)", "cannot have PARTITION BY"},
		{"SELECT sum(v) OVER (w ORDER BY g) FROM w WINDOW w AS (ORDER BY o)", "cannot have ORDER BY"},
		{"SELECT sum(v) OVER (w ROWS 2 PRECEDING) FROM w WINDOW w AS (ORDER BY o ROWS 1 PRECEDING)", "has a frame"},
		{"SELECT sum(v) OVER w FROM w WINDOW w AS (ORDER BY o), w AS (ORDER BY g)", "Window 'w' is defined twice"},
	} {
		wantErr(t, db, c.q, 1105, c.msg)
	}
}

// RANGE frames whose bounds are only CURRENT ROW and UNBOUNDED follow the
// peer groups, so they run over any ORDER BY keys (a DECIMAL key, two
// keys), where a RANGE offset needs one numeric key (issue 24). Keys (k,
// v), NULL first ascending: NULL 7; 1.50 1; 2.25 10 and 20; 3.00 100.
func TestWindowRangePeers(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE rp", "USE rp",
		`CREATE TABLE r (k DECIMAL(5,2), v BIGINT) DISTRIBUTED BY HASH(v) BUCKETS 2`,
		"INSERT INTO r VALUES (2.25, 20), (1.50, 1), (NULL, 7), (3.00, 100), (2.25, 10)")
	wantRows(t, db, `SELECT k, v,
			sum(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			sum(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND CURRENT ROW),
			count(*) OVER (ORDER BY k, v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			last_value(v) OVER (ORDER BY k DESC RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
		FROM r ORDER BY k, v`,
		"NULL|7|138|7|5|7",
		"1.50|1|131|1|4|7",
		"2.25|10|130|30|3|7",
		"2.25|20|130|30|2|7",
		"3.00|100|100|100|1|7",
	)
	// Offsets over a DECIMAL key (MySQL's RANGE): 0.75 PRECEDING at 2.25
	// reaches 1.50 exactly; 1 PRECEDING AND 1 FOLLOWING at 1.50 is [0.50,
	// 2.50], at 2.25 [1.25, 3.25], at 3.00 [2.00, 4.00]; NULL keys frame
	// the NULL rows.
	wantRows(t, db, `SELECT k, v,
			sum(v) OVER (ORDER BY k RANGE BETWEEN 0.75 PRECEDING AND CURRENT ROW),
			sum(v) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)
		FROM r ORDER BY k, v`,
		"NULL|7|7|7",
		"1.50|1|1|31",
		"2.25|10|31|131",
		"2.25|20|31|131",
		"3.00|100|130|130",
	)
	// The keys compare as decimals, not doubles: 1.10 - 0.1 is 1.00
	// exactly (1.0000000000000002 in binary floating point, which would
	// drop 1.00 from the frame of 1.10).
	mustExec(t, db, `CREATE TABLE d2 (k DECIMAL(4,2), v BIGINT) DISTRIBUTED BY HASH(v) BUCKETS 1`,
		"INSERT INTO d2 VALUES (1.00, 1), (1.10, 2), (1.20, 4)")
	wantRows(t, db, `SELECT k, sum(v) OVER (ORDER BY k RANGE BETWEEN 0.1 PRECEDING AND CURRENT ROW) FROM d2 ORDER BY k`,
		"1.00|1", "1.10|3", "1.20|6")
	if ex := strings.Join(rows(t, db, "EXPLAIN SELECT sum(v) OVER (ORDER BY k RANGE BETWEEN 0.75 PRECEDING AND 1 FOLLOWING) FROM d2"), "\n"); !strings.Contains(ex, "RANGE BETWEEN 0.75 PRECEDING AND 1 FOLLOWING") {
		t.Errorf("EXPLAIN = %s", ex)
	}
}

// RANGE offsets over DATE and DATETIME keys are INTERVALs of fixed length
// (as in MySQL). Rows (d, ts, v):
//
//	2024-01-01 2024-01-01 00:00:00  1
//	2024-01-02 2024-01-01 12:00:00  2
//	2024-01-04 2024-01-02 00:00:00  4
//	2024-02-29 2024-01-02 00:00:01  8
//	NULL       NULL                16
func TestWindowRangeTemporal(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE rt", "USE rt",
		`CREATE TABLE e (d DATE, ts DATETIME, v BIGINT) DISTRIBUTED BY HASH(v) BUCKETS 2`,
		`INSERT INTO e VALUES ('2024-02-29', '2024-01-02 00:00:01', 8), ('2024-01-01', '2024-01-01 00:00:00', 1),
			(NULL, NULL, 16), ('2024-01-04', '2024-01-02 00:00:00', 4), ('2024-01-02', '2024-01-01 12:00:00', 2)`)
	// d, 1 DAY PRECEDING: 01-02 takes 01-01; 01-04 is alone (no 01-03).
	// 2 DAY PRECEDING AND 1 WEEK FOLLOWING: 01-01 [12-30, 01-08] = 7,
	// 01-02 [12-31, 01-09] = 7, 01-04 [01-02, 01-11] = 6, 02-29 alone.
	// 36 HOUR over a date is one whole day. ts, 12 HOUR PRECEDING: 12:00
	// reaches 00:00 exactly, 01-02 00:00 reaches 01-01 12:00, 00:00:01
	// misses it by a second. DESC, 1 SECOND PRECEDING is [k, k+1s].
	wantRows(t, db, `SELECT v,
			sum(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW),
			sum(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND INTERVAL 1 WEEK FOLLOWING),
			sum(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 36 HOUR PRECEDING AND CURRENT ROW),
			sum(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 12 HOUR PRECEDING AND CURRENT ROW),
			sum(v) OVER (ORDER BY ts DESC RANGE BETWEEN INTERVAL 1 SECOND PRECEDING AND CURRENT ROW)
		FROM e ORDER BY v`,
		"1|1|7|1|1|1",
		"2|3|7|3|3|2",
		"4|4|6|4|6|12",
		"8|8|8|8|12|8",
		"16|16|16|16|16|16",
	)
	// EXPLAIN shows the bounds as written, in the key's terms.
	if ex := strings.Join(rows(t, db, "EXPLAIN SELECT sum(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 12 HOUR PRECEDING AND INTERVAL 1 DAY FOLLOWING) FROM e"), "\n"); !strings.Contains(ex, "RANGE BETWEEN INTERVAL 43200 SECOND PRECEDING AND INTERVAL 86400 SECOND FOLLOWING") {
		t.Errorf("EXPLAIN = %s", ex)
	}
	if ex := strings.Join(rows(t, db, "EXPLAIN SELECT sum(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND CURRENT ROW) FROM e"), "\n"); !strings.Contains(ex, "RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND CURRENT ROW") {
		t.Errorf("EXPLAIN = %s", ex)
	}
	// Months and years have no fixed length: refused by name.
	wantErr(t, db, "SELECT sum(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 MONTH PRECEDING AND CURRENT ROW) FROM e", 1235, "MONTH")
	wantErr(t, db, "SELECT sum(v) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM e", 1105, "must be an INTERVAL")
}
