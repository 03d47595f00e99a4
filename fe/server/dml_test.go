package server

import (
	"strings"
	"testing"
)

// TestUniqueKeyDeleteUpdate drives UNIQUE KEY tables, DELETE and UPDATE
// through a real MySQL client, with a restart in the middle.
func TestUniqueKeyDeleteUpdate(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE d",
		"USE d",
		`CREATE TABLE u (k1 INT NOT NULL, k2 VARCHAR(8), v BIGINT DEFAULT '5', s VARCHAR(20))
			UNIQUE KEY(k1, k2) DISTRIBUTED BY HASH(k1) BUCKETS 4 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE dup (k INT, v INT, s VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2`,
		"INSERT INTO u VALUES (1, 'a', 10, 'x'), (1, 'b', 11, 'y'), (2, NULL, 20, 'z'), (3, 'c', 30, NULL)",
		// The latest INSERT wins per key, NULL key parts included.
		"INSERT INTO u VALUES (1, 'a', 100, 'x2'), (2, NULL, 200, NULL)",
		"INSERT INTO dup VALUES (1, 10, 'a'), (2, 20, NULL), (3, 30, 'c'), (1, 40, 'd'), (4, NULL, 'e')",
	)
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2",
		"1|a|100|x2", "1|b|11|y", "2|NULL|200|NULL", "3|c|30|NULL")
	if sc := strings.Join(rows(t, db, "SHOW CREATE TABLE u"), "\n"); !strings.Contains(sc, "UNIQUE KEY(`k1`, `k2`)") || !strings.Contains(sc, "BUCKETS 4") {
		t.Errorf("SHOW CREATE TABLE = %s", sc)
	}
	if ex := strings.Join(rows(t, db, "EXPLAIN SELECT * FROM u"), "\n"); !strings.Contains(ex, "UNIQUE KEY(k1, k2), buckets=4, merge-on-read") {
		t.Errorf("EXPLAIN = %s", ex)
	}

	// UPDATE: value columns of UNIQUE tables only, Doris's texts otherwise.
	mustExec(t, db, "UPDATE u SET v = v + 1, s = concat(k2, '!') WHERE k1 = 1")
	mustExec(t, db, "UPDATE u SET v = DEFAULT WHERE k2 IS NULL")
	wantErr(t, db, "UPDATE dup SET v = 1 WHERE k = 1", 1105, "Only unique table could be updated.")
	wantErr(t, db, "UPDATE u SET k1 = 9 WHERE k1 = 1", 1105, "Only value columns of unique table could be updated")
	wantErr(t, db, "UPDATE u SET nope = 9", 1054, "Unknown column 'nope'")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2",
		"1|a|101|a!", "1|b|12|b!", "2|NULL|5|NULL", "3|c|30|NULL")

	// DELETE on UNIQUE: any WHERE.
	mustExec(t, db, "DELETE FROM u WHERE v > 100 OR s IS NULL AND k1 = 3")
	wantRows(t, db, "SELECT k1, k2, v FROM u ORDER BY k1, k2", "1|b|12", "2|NULL|5")
	mustExec(t, db, "INSERT INTO u (k1, k2, v) VALUES (3, 'c', 33)")
	wantRows(t, db, "SELECT count(*), sum(v) FROM u", "3|50")

	// DELETE on DUPLICATE: simple conjunctions only.
	mustExec(t, db, "DELETE FROM dup WHERE k = 1 AND v >= 20")
	mustExec(t, db, "DELETE FROM dup WHERE s IS NULL")
	wantErr(t, db, "DELETE FROM dup WHERE k = 1 OR v = 3", 1105, "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate.")
	wantErr(t, db, "DELETE FROM dup WHERE v + 1 = 3", 1105, "Where clause only supports")
	mustExec(t, db, "INSERT INTO dup VALUES (1, 50, 'f')")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "1|10|a", "1|50|f", "3|30|c", "4|NULL|e")
	mustExec(t, db, "DELETE FROM dup WHERE k IN (3, 4)")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "1|10|a", "1|50|f")
	// BETWEEN is its two bounds, as Doris reads it; NOT BETWEEN is an OR.
	mustExec(t, db, "INSERT INTO dup VALUES (5, 1, 'g'), (6, 2, 'h'), (7, 3, 'i')")
	wantErr(t, db, "DELETE FROM dup WHERE k NOT BETWEEN 5 AND 6", 1105, "Where clause only supports")
	mustExec(t, db, "DELETE FROM dup WHERE k BETWEEN 5 AND 6 AND v BETWEEN 2 AND 3")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "1|10|a", "1|50|f", "5|1|g", "7|3|i")
	mustExec(t, db, "DELETE FROM dup WHERE k BETWEEN 5 AND 7")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "1|10|a", "1|50|f")

	// INSERT ... WITH LABEL: a replayed label changes nothing, after a
	// restart too.
	mustExec(t, db, "INSERT INTO dup WITH LABEL ins_1 VALUES (8, 80, 'h')")
	wantErr(t, db, "INSERT INTO dup WITH LABEL ins_1 VALUES (8, 80, 'h')", 1105, "Label [ins_1] has already been used, relate to txn [")
	wantRows(t, db, "SELECT count(*) FROM dup WHERE k = 8", "1")

	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("d")
	wantErr(t, db, "INSERT INTO u WITH LABEL ins_1 VALUES (8, 'x', 80, 'h')", 1105, "Label [ins_1] has already been used")
	mustExec(t, db, "DELETE FROM dup WHERE k = 8")
	wantRows(t, db, "SELECT k1, k2, v FROM u ORDER BY k1, k2", "1|b|12", "2|NULL|5", "3|c|33")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "1|10|a", "1|50|f")
	f.stop()
}
