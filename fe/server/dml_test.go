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

// TestUpdateFromDeleteUsing: Doris 2.x's UPDATE ... FROM and DELETE ...
// USING on UNIQUE KEY tables. The first case is the example of Doris's
// UPDATE documentation: t1 rows whose id is in t2 joined to t3 (only id 1)
// take t2's c1 and c3 * 100.
func TestUpdateFromDeleteUsing(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE d",
		"USE d",
		`CREATE TABLE t1 (id INT, c1 BIGINT, c2 STRING, c3 DOUBLE, c4 DATE)
			UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE t2 (id INT, c1 BIGINT, c2 STRING, c3 DOUBLE, c4 DATE) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`,
		`CREATE TABLE t3 (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`,
		`INSERT INTO t1 VALUES (1, 1, '1', 1.0, '2000-01-01'), (2, 2, '2', 2.0, '2000-01-02'), (3, 3, '3', 3.0, '2000-01-03')`,
		`INSERT INTO t2 VALUES (1, 10, '10', 10.0, '2000-01-10'), (2, 20, '20', 20.0, '2000-01-20'),
			(3, 30, '30', 30.0, '2000-01-30'), (4, 4, '4', 4.0, '2000-01-04'), (5, 5, '5', 5.0, '2000-01-05')`,
		`INSERT INTO t3 VALUES (1), (4), (5)`,
	)
	mustExec(t, db, `UPDATE t1 SET t1.c1 = t2.c1, t1.c3 = t2.c3 * 100 FROM t2 INNER JOIN t3 ON t2.id = t3.id WHERE t1.id = t2.id`)
	wantRows(t, db, "SELECT id, c1, c2, c3, c4 FROM t1 ORDER BY id",
		"1|10|1|1000|2000-01-01", "2|2|2|2|2000-01-02", "3|3|3|3|2000-01-03")
	// An alias, a column name both tables have (c2 reads t1's through the
	// alias), and a comma list.
	mustExec(t, db, `UPDATE t1 a SET c2 = concat(a.c2, '/', b.c2) FROM t2 b, t3 WHERE a.id = b.id AND b.id = t3.id + 1`)
	wantRows(t, db, "SELECT id, c2 FROM t1 ORDER BY id", "1|1", "2|2/20", "3|3")
	// No row of FROM joins: nothing changes.
	mustExec(t, db, `UPDATE t1 SET c1 = 0 FROM t3 WHERE t1.id = t3.id + 10`)
	wantRows(t, db, "SELECT sum(c1) FROM t1", "15")

	// DELETE ... USING: t1's ids 1 and 3 have a t2 row of c1 10 or 30;
	// id 1 joins two t3 rows after the insert and is still one delete.
	mustExec(t, db, "INSERT INTO t3 VALUES (1)")
	res, err := db.Exec(`DELETE FROM t1 USING t2, t3 WHERE t1.id = t2.id AND t2.c1 IN (10, 30) AND t3.id IN (1, 5)`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("DELETE ... USING affected %d rows, want 2 (ids 1 and 3)", n)
	}
	wantRows(t, db, "SELECT id FROM t1 ORDER BY id", "2")
	mustExec(t, db, `DELETE FROM t1 x USING t2 y WHERE x.id = y.id AND y.c4 > '2000-01-15'`)
	wantRows(t, db, "SELECT count(*) FROM t1", "0")
	wantErr(t, db, `DELETE FROM t2 USING t3 WHERE t2.id = t3.id`, 1235, "only supported on UNIQUE KEY tables")
	wantErr(t, db, `UPDATE t2 SET c1 = 1 FROM t3 WHERE t2.id = t3.id`, 1105, "Only unique table could be updated.")
}
