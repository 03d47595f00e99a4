package server

import (
	"strings"
	"testing"
)

// TestPrimaryKeyTables: MySQL-shaped PRIMARY KEY tables become UNIQUE KEY
// tables (Doris's primary key model), through a real MySQL client.
func TestPrimaryKeyTables(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE d",
		"USE d",
		"CREATE TABLE p (pk INTEGER PRIMARY KEY, c0 INTEGER, c1 TEXT)",
		"CREATE TABLE p2 (a INT, b VARCHAR(4), v DOUBLE, PRIMARY KEY (a, b)) DISTRIBUTED BY HASH(a) BUCKETS 3",
		"INSERT INTO p VALUES (1, 10, 'a'), (2, 20, 'b'), (3, NULL, NULL)",
		"INSERT INTO p VALUES (2, 21, 'b2'), (4, 40, 'd')",
		"INSERT INTO p2 VALUES (1, 'x', 1.5), (1, 'y', 2.5), (1, NULL, 3.5), (2, 'x', 4.5)",
		"INSERT INTO p2 VALUES (1, 'x', 10.5), (1, NULL, 30.5)",
	)
	// The latest write wins per key, NULL key parts and composite keys too.
	wantRows(t, db, "SELECT pk, c0, c1 FROM p ORDER BY pk", "1|10|a", "2|21|b2", "3|NULL|NULL", "4|40|d")
	wantRows(t, db, "SELECT a, b, v FROM p2 ORDER BY a, b", "1|NULL|30.5", "1|x|10.5", "1|y|2.5", "2|x|4.5")

	// The key model is UNIQUE KEY; the PRIMARY KEY line is MySQL's, for
	// clients that reflect the key from SHOW CREATE TABLE (TestSQLAlchemy).
	for _, tc := range []struct{ table, want string }{
		{"p", "  PRIMARY KEY (`pk`)\n) ENGINE=OLAP UNIQUE KEY(`pk`) DISTRIBUTED BY HASH(`pk`) BUCKETS 1;"},
		{"p2", "  PRIMARY KEY (`a`, `b`)\n) ENGINE=OLAP UNIQUE KEY(`a`, `b`) DISTRIBUTED BY HASH(`a`) BUCKETS 3;"},
	} {
		sc := strings.Join(rows(t, db, "SHOW CREATE TABLE "+tc.table), "\n")
		if !strings.Contains(sc, tc.want) {
			t.Errorf("SHOW CREATE TABLE %s = %s, want %q", tc.table, sc, tc.want)
		}
	}
	// The table is a UNIQUE KEY table for DML too.
	mustExec(t, db, "UPDATE p SET c0 = c0 + 1 WHERE pk >= 2", "DELETE FROM p WHERE c1 IS NULL OR pk = 1")
	wantRows(t, db, "SELECT pk, c0, c1 FROM p ORDER BY pk", "2|22|b2", "4|41|d")
	wantErr(t, db, "UPDATE p SET pk = 9", 1105, "Only value columns of unique table could be updated")

	// Doris has neither UNIQUE column constraints nor REPLACE INTO.
	wantErr(t, db, "CREATE TABLE u (a INTEGER UNIQUE)", 1064, "column a: UNIQUE constraints are not supported")
	wantErr(t, db, "CREATE TABLE u (a TEXT, UNIQUE (a))", 1064, "UNIQUE constraints in CREATE TABLE are not supported")
	wantErr(t, db, "CREATE TABLE f (x DOUBLE PRIMARY KEY, y INT)", 1235, "Float or double can not used as a key")
	wantErr(t, db, "CREATE TABLE m (x INT PRIMARY KEY, y INT, PRIMARY KEY (y))", 1064, "multiple primary keys")
	wantErr(t, db, "REPLACE INTO p VALUES (2, 0, 'r')", 1064, "")
}
