package server

import "testing"

// LARGEINT holds the whole int128 range (issue 15): both ends, stored and
// read back through the wire, compared, summed and cast. 2^127-1 =
// 170141183460469231731687303715884105727 and -2^127 =
// -170141183460469231731687303715884105728 (hand-derived: 2^127 =
// 2^64 · 2^63 = 18446744073709551616 · 9223372036854775808).
func TestLargeIntRange(t *testing.T) {
	const (
		maxV = "170141183460469231731687303715884105727"
		minV = "-170141183460469231731687303715884105728"
		d38  = "99999999999999999999999999999999999999" // 10^38-1, the DECIMAL(38) limit
	)
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE li", "USE li",
		`CREATE TABLE w (k INT, v LARGEINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		"INSERT INTO w VALUES (1, "+maxV+"), (2, "+minV+"), (3, 0), (4, NULL), (5, "+d38+"), (6, -1)",
		"INSERT INTO w VALUES (7, '"+maxV+"'), (8, '"+minV+"')",
	)
	db = f.db("li")
	wantRows(t, db, "SELECT k, v FROM w ORDER BY k",
		"1|"+maxV, "2|"+minV, "3|0", "4|NULL", "5|"+d38, "6|-1", "7|"+maxV, "8|"+minV)
	wantRows(t, db, "SELECT k FROM w WHERE v = "+maxV+" ORDER BY k", "1", "7")
	wantRows(t, db, "SELECT k FROM w WHERE v < -"+d38+" ORDER BY k", "2", "8")
	wantRows(t, db, "SELECT max(v), min(v), count(v) FROM w", maxV+"|"+minV+"|7")
	// max + min = -1; max + min + max + min + d38 + 0 + (-1) = d38 - 3.
	wantRows(t, db, "SELECT sum(v) FROM w WHERE k IN (1, 2)", "-1")
	wantRows(t, db, "SELECT sum(v) FROM w", "99999999999999999999999999999999999996")
	// LARGEINT op integer stays LARGEINT: max - 1 and min + 1.
	wantRows(t, db, "SELECT v - 1, v * 1 FROM w WHERE k = 1", "170141183460469231731687303715884105726|"+maxV)
	wantRows(t, db, "SELECT v + 1 FROM w WHERE k = 2", "-170141183460469231731687303715884105727")
	// % keeps LARGEINT (2^127-1 ends in 7, -2^127 in 8); / is DOUBLE (2^125 = 4.2535295865117308e37).
	wantRows(t, db, "SELECT v % 10, v / 4 FROM w WHERE k IN (1, 2) ORDER BY k", "7|4.253529586511731e+37", "-8|-4.253529586511731e+37")
	wantRows(t, db, "SELECT CAST('"+maxV+"' AS LARGEINT), CAST("+minV+" AS LARGEINT), "+maxV+", "+minV,
		maxV+"|"+minV+"|"+maxV+"|"+minV)
	wantRows(t, db, "SELECT CAST('170141183460469231731687303715884105728' AS LARGEINT)", "NULL")
	wantRows(t, db, "DESC w", "k|int|Yes|true|NULL|", "v|largeint|Yes|false|NULL|NONE")

	// Inserting past either end stores NULL, as an out-of-range DECIMAL
	// does here (Doris's non-strict INSERT); never a wrapped value.
	mustExec(t, db, "INSERT INTO w VALUES (9, 170141183460469231731687303715884105728), (10, '-170141183460469231731687303715884105729')")
	wantRows(t, db, "SELECT k, v FROM w WHERE k >= 9 ORDER BY k", "9|NULL", "10|NULL")

	// Past either end: an overflow error, never a wrapped value.
	for _, q := range []string{
		"SELECT v + 1 FROM w WHERE k = 1",
		"SELECT v - 1 FROM w WHERE k = 2",
		"SELECT v * 2 FROM w WHERE k = 1",
		"SELECT sum(v) FROM w WHERE k IN (1, 7)",
	} {
		if got, err := tryRows(db, q); err == nil {
			t.Errorf("%s = %v, want an out-of-range error", q, got)
		}
	}
}
