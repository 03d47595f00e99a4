package server

import "testing"

// ROWS frames with offsets (issue 15). Every value derived by hand from
//
//	g=1: o=1..5, v = 10, 20, NULL, 40, 50
//	g=2: o=1..2, v = 5, 7
//
// e.g. at g=1, o=2 the frame 1 PRECEDING AND 1 FOLLOWING is {10, 20, NULL}:
// sum 30, count(v) 2, count(*) 3, first 10, last NULL.
func TestWindowRowsFrames(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE wf", "USE wf",
		`CREATE TABLE w (g INT, o INT, v BIGINT) DISTRIBUTED BY HASH(g) BUCKETS 2`,
		"INSERT INTO w VALUES (1, 3, NULL), (1, 1, 10), (2, 2, 7), (1, 5, 50), (1, 2, 20), (2, 1, 5), (1, 4, 40)")
	wantRows(t, db, `SELECT g, o,
			sum(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			count(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			count(*) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			min(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
			max(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			avg(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING),
			first_value(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			last_value(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
			max(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING)
		FROM w ORDER BY g, o`,
		"1|1|30|2|2|10|50|20|10|20|NULL",
		"1|2|30|2|3|10|50|40|10|NULL|10",
		"1|3|60|2|3|10|50|45|20|40|20",
		"1|4|90|2|3|20|50|50|NULL|50|20",
		"1|5|90|2|2|40|50|NULL|40|50|40",
		"2|1|12|2|2|5|7|7|5|7|NULL",
		"2|2|12|2|2|5|7|NULL|5|7|5",
	)
	// Without PARTITION BY, and the one-bound form (ROWS 1 PRECEDING = ROWS
	// BETWEEN 1 PRECEDING AND CURRENT ROW) over (g, o) order.
	wantRows(t, db, `SELECT sum(v) OVER (ORDER BY g, o ROWS 1 PRECEDING) FROM w ORDER BY g, o`,
		"10", "30", "20", "40", "90", "55", "12")
	// A RANGE frame over a non-numeric key is refused, not answered wrongly.
	if _, err := tryRows(db, `SELECT sum(v) OVER (ORDER BY cast(o AS char) RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w`); err == nil {
		t.Error("a RANGE frame over a string key ran")
	}
}

// RANGE frames with offsets: the frame of a row with key k holds the rows
// of its partition with keys in [k-n, k+m]; peers share a frame, and a
// NULL key's frame is the NULL rows. Keys (k, v):
//
//	(1,1) (2,10) (2,20) (5,100) (6,1000) (NULL,7) (NULL,3)
func TestWindowRangeFrames(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE rf", "USE rf",
		`CREATE TABLE r (k INT, v BIGINT) DISTRIBUTED BY HASH(v) BUCKETS 3`,
		"INSERT INTO r VALUES (5, 100), (1, 1), (NULL, 7), (2, 20), (6, 1000), (2, 10), (NULL, 3)")
	// Ascending, 1 PRECEDING AND CURRENT ROW: k=1 {1}; k=2 {1,10,20};
	// k=5 {100}; k=6 {100,1000}; NULL {7,3}. 2 PRECEDING AND 1 FOLLOWING:
	// k=1 {1,10,20}; k=2 {1,10,20}; k=5 {100,1000}; k=6 {100,1000}.
	// Descending, 1 PRECEDING AND CURRENT ROW means keys in [k, k+1]:
	// k=6 {1000}; k=5 {100,1000}; k=2 {10,20}; k=1 {1,10,20}.
	wantRows(t, db, `SELECT k, v,
			sum(v) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND CURRENT ROW),
			count(*) OVER (ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING),
			max(v) OVER (ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING),
			sum(v) OVER (ORDER BY k DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW),
			sum(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
		FROM r ORDER BY k, v`,
		"NULL|3|10|2|7|10|1141",
		"NULL|7|10|2|7|10|1141",
		"1|1|1|3|20|31|1131",
		"2|10|31|3|20|30|1130",
		"2|20|31|3|20|30|1130",
		"5|100|100|2|1000|1100|1100",
		"6|1000|1100|2|1000|1000|1000",
	)
}
