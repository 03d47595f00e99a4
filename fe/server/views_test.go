package server

import (
	"strings"
	"testing"
)

// Views (issue 15): CREATE [OR REPLACE] VIEW, DROP VIEW [IF EXISTS], SHOW
// CREATE VIEW, views over external catalogs, kept across restarts. Rows
// derived by hand from the tables of subqueryDB:
//
//	t(a, b): (1,10) (2,20) (2,20) (3,NULL) (NULL,5)
//	u(x, y): (1,100) (2,200) (2,201) (NULL,300)
func TestViews(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE sq", "USE sq",
		`CREATE TABLE t (a INT, b INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 2 PROPERTIES ('replication_num' = '1')`,
		`CREATE TABLE u (x INT, y BIGINT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 3 PROPERTIES ('replication_num' = '1')`,
		"INSERT INTO t VALUES (1, 10), (2, 20), (2, 20), (3, NULL), (NULL, 5)",
		"INSERT INTO u VALUES (1, 100), (2, 200), (2, 201), (NULL, 300)",
		"CREATE VIEW big AS SELECT a, b FROM t WHERE a > 1",
		// Renamed columns over an aggregate and a join.
		"CREATE VIEW per_a (k, n, total) AS SELECT a, count(*), sum(y) FROM t JOIN u ON t.a = u.x GROUP BY a",
	)
	wantRows(t, db, "SELECT * FROM big ORDER BY a, b", "2|20", "2|20", "3|NULL")
	// a=1 joins (1,100); each a=2 row joins (2,200) and (2,201).
	wantRows(t, db, "SELECT k, n, total FROM per_a ORDER BY k", "1|1|100", "2|4|802")
	// A view in a join, under an alias, and inside a subquery.
	wantRows(t, db, "SELECT v.a, p.n FROM big v JOIN per_a p ON v.a = p.k ORDER BY v.a", "2|4", "2|4")
	wantRows(t, db, "SELECT a FROM t WHERE a IN (SELECT k FROM per_a) ORDER BY a", "1", "2", "2")

	// Listed with the tables, described by the columns their query gives
	// (count(*) is never NULL).
	wantRows(t, db, "SHOW FULL TABLES", "big|VIEW", "per_a|VIEW", "t|BASE TABLE", "u|BASE TABLE")
	wantRows(t, db, "DESC per_a", "k|int|Yes|false|NULL|", "n|bigint|No|false|NULL|", "total|bigint|Yes|false|NULL|")
	wantErr(t, db, "CREATE VIEW big AS SELECT 1", 1050, "already exists")
	wantErr(t, db, "CREATE VIEW t AS SELECT 1", 1050, "already exists")
	mustExec(t, db, "CREATE VIEW IF NOT EXISTS big AS SELECT 1 AS one")
	wantRows(t, db, "SELECT count(*) FROM big", "3")
	mustExec(t, db, "CREATE OR REPLACE VIEW big AS SELECT a, b FROM t WHERE a >= 3")
	wantRows(t, db, "SELECT * FROM big", "3|NULL")

	// The definition is qualified when created: it reads sq.t from any
	// database.
	show := rows(t, db, "SHOW CREATE VIEW big")
	if len(show) != 1 || !strings.HasPrefix(show[0], "big|CREATE VIEW big AS SELECT a, b FROM internal.sq.t WHERE") {
		t.Errorf("SHOW CREATE VIEW: %q", show)
	}
	mustExec(t, db, "CREATE DATABASE other", "USE other", "CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1", "INSERT INTO t VALUES (99)")
	wantRows(t, db, "SELECT * FROM sq.big", "3|NULL")

	// A view over an external catalog's table.
	mustExec(t, db,
		"CREATE CATALOG ext PROPERTIES ('type'='localdir')",
		"CREATE DATABASE ext.d",
		"CREATE TABLE ext.d.e (c INT) DISTRIBUTED BY HASH(c) BUCKETS 1",
		"INSERT INTO ext.d.e VALUES (5), (6)",
		"CREATE VIEW sq.ev AS SELECT c * 10 AS c10 FROM ext.d.e",
	)
	wantRows(t, db, "SELECT c10 FROM sq.ev ORDER BY c10", "50", "60")

	wantErr(t, db, "DROP VIEW sq.nope", 1146, "Unknown view 'sq.nope'")
	mustExec(t, db, "DROP VIEW IF EXISTS sq.nope")

	// Kept across a restart.
	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("sq")
	wantRows(t, db, "SELECT * FROM big", "3|NULL")
	wantRows(t, db, "SELECT k, n FROM per_a ORDER BY k", "1|1", "2|4")
	wantRows(t, db, "SELECT c10 FROM ev ORDER BY c10", "50", "60")
	mustExec(t, db, "DROP VIEW big")
	if _, err := tryRows(db, "SELECT * FROM big"); err == nil || !strings.Contains(err.Error(), "doesn't exist") {
		t.Errorf("a dropped view still answers: %v", err)
	}
	// DROP DATABASE drops its views.
	mustExec(t, db, "DROP DATABASE sq", "CREATE DATABASE sq", "USE sq",
		`CREATE TABLE t (a INT, b INT) DISTRIBUTED BY HASH(a) BUCKETS 1`)
	if _, err := tryRows(db, "SELECT * FROM per_a"); err == nil {
		t.Error("a view outlived its database")
	}
}
