package server

import (
	"strings"
	"testing"
)

func TestCatalogDDLPersistsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db,
		`CREATE CATALOG lake1 COMMENT 'first' PROPERTIES ('type'='localdir', 'sasl.password'='hunter2', 'batch.rows'='10')`,
		`CREATE CATALOG IF NOT EXISTS lake1 PROPERTIES ('type'='localdir')`,
		`CREATE CATALOG other PROPERTIES ('type'='localdir')`,
	)
	wantErr(t, db, `CREATE CATALOG lake1 PROPERTIES ('type'='localdir')`, 1105, "Catalog 'lake1' already exists")
	wantErr(t, db, `CREATE CATALOG h PROPERTIES ('type'='hive')`, 1105, "Unknown catalog type: hive")
	wantErr(t, db, `CREATE CATALOG h PROPERTIES ('type'='localdir', 'batch.rows'='zero')`, 1105, "property 'batch.rows' must be an integer")
	wantErr(t, db, `CREATE CATALOG h PROPERTIES ('a'='b')`, 1105, "missing required property 'type'")

	got := rows(t, db, "SHOW CATALOGS")
	if len(got) != 3 || !strings.HasPrefix(got[0], "0|internal|internal|yes|") || !strings.HasSuffix(got[0], "|Doris internal catalog") ||
		!strings.HasPrefix(got[1], "1|lake1|localdir||") || !strings.HasSuffix(got[1], "|first") || !strings.HasPrefix(got[2], "2|other|localdir||") {
		t.Fatalf("SHOW CATALOGS = %q", got)
	}
	if got := rows(t, db, "SHOW CATALOGS LIKE 'la%'"); len(got) != 1 || !strings.HasPrefix(got[0], "1|lake1|") {
		t.Fatalf("SHOW CATALOGS LIKE = %q", got)
	}
	create := rows(t, db, "SHOW CREATE CATALOG lake1")
	if len(create) != 1 || strings.Contains(create[0], "hunter2") || !strings.Contains(create[0], `"sasl.password" = "*XXX"`) || !strings.Contains(create[0], `"type" = "localdir"`) {
		t.Fatalf("SHOW CREATE CATALOG = %q", create)
	}

	mustExec(t, db,
		`ALTER CATALOG lake1 SET PROPERTIES ('batch.rows'='20')`,
		`ALTER CATALOG lake1 RENAME lake2`,
		`ALTER CATALOG lake2 MODIFY COMMENT 'renamed'`,
		`REFRESH CATALOG lake2`,
		// The external catalog is writable: a database and a table in it,
		// reached by three-part names from the internal catalog.
		`CREATE DATABASE lake2.sales`,
		`CREATE TABLE lake2.sales.t (k INT, v VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 1`,
		`INSERT INTO lake2.sales.t VALUES (1, 'one'), (2, 'two')`,
	)
	wantErr(t, db, `ALTER CATALOG lake1 RENAME x`, 1105, "Unknown catalog 'lake1'")
	wantErr(t, db, `ALTER CATALOG lake2 SET PROPERTIES ('batch.rows'='0')`, 1105, "property 'batch.rows' must be between 1 and 1048576")
	wantErr(t, db, `SWITCH nope`, 1105, "Unknown catalog 'nope'")
	wantRows(t, db, "SELECT v FROM lake2.sales.t WHERE k = 2", "two")
	mustExec(t, db, "SWITCH lake2", "USE sales")
	wantRows(t, db, "SELECT k, v FROM t ORDER BY k DESC", "2|two", "1|one")
	if got := rows(t, db, "SHOW CATALOGS LIKE 'lake2'"); len(got) != 1 || !strings.Contains(got[0], "|yes|") {
		t.Fatalf("current catalog not marked: %q", got)
	}

	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("")
	got = rows(t, db, "SHOW CATALOGS")
	if len(got) != 3 || !strings.HasPrefix(got[1], "1|lake2|localdir||") || !strings.HasSuffix(got[1], "|renamed") {
		t.Fatalf("after restart SHOW CATALOGS = %q", got)
	}
	if c := rows(t, db, "SHOW CREATE CATALOG lake2"); !strings.Contains(c[0], `"batch.rows" = "20"`) || strings.Contains(c[0], "hunter2") {
		t.Fatalf("after restart SHOW CREATE CATALOG = %q", c)
	}
	wantRows(t, db, "SELECT count(*) FROM lake2.sales.t", "2")
	mustExec(t, db, "DROP CATALOG other", "DROP CATALOG IF EXISTS other")
	wantErr(t, db, "DROP CATALOG other", 1105, "Unknown catalog 'other'")
	wantErr(t, db, "DROP CATALOG internal", 1235, "Cannot drop the internal catalog")

	f.stop()
	f = startFE(t, dir, "", false)
	if got := rows(t, f.db(""), "SHOW CATALOGS"); len(got) != 2 {
		t.Fatalf("drop did not persist: %q", got)
	}
}

func TestInformationSchema(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("")
	wantRows(t, db, "SHOW DATABASES", "information_schema", "mysql", "demo")
	// Doris lists an (here empty) mysql database in every catalog; tools USE it.
	wantRows(t, db, "SHOW TABLES FROM mysql")
	wantErr(t, db, "SELECT * FROM mysql.user", 1146, "Table 'mysql.user' doesn't exist")
	wantRows(t, db, "SELECT SCHEMA_NAME FROM information_schema.schemata ORDER BY 1", "demo", "information_schema")
	wantRows(t, db, "SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo' ORDER BY 1",
		"customers|demo customers", "orders|", "products|")
	wantRows(t, db, `SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE, COLUMN_KEY, COLUMN_COMMENT
		FROM internal.information_schema.columns WHERE TABLE_NAME = 'customers' ORDER BY ORDINAL_POSITION`,
		"id|1|NO|int|int|DUP|customer id", "name|2|YES|varchar|varchar(64)||display name",
		"country|3|YES|varchar|varchar(2)||", "signup_date|4|YES|date|date||")
	mustExec(t, db, "USE information_schema")
	wantRows(t, db, "SHOW TABLES", "columns", "key_column_usage", "parameters", "referential_constraints", "routines", "schemata", "statistics", "table_constraints", "tables", "views")
	wantRows(t, db, "SELECT count(*) FROM tables", "3")
	wantErr(t, db, "SELECT * FROM information_schema.nope", 1146, "Table 'information_schema.nope' doesn't exist")
}
