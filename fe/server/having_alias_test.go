package server

import "testing"

// TestHavingNameResolution: a HAVING name outside aggregate functions binds
// to a GROUP BY column first, then to a select alias, then to a table column
// (Doris's BindExpression order); inside an aggregate it is a table column.
// sqllogictest's random/groupby files have ~390 records of this shape.
func TestHavingNameResolution(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE g (col0 INT, col1 INT, col2 INT) DUPLICATE KEY(col0) DISTRIBUTED BY HASH(col0) BUCKETS 2",
		"INSERT INTO g VALUES (1, 10, 100), (2, 10, 200), (3, 20, 300), (4, NULL, NULL)")
	// col2 is not grouped: the alias (col1) is meant.
	wantRows(t, db, "SELECT col1 AS col2 FROM g GROUP BY col1 HAVING col2 > 15 ORDER BY 1", "20")
	wantRows(t, db, "SELECT DISTINCT g.col1 col2 FROM g GROUP BY g.col1 HAVING NULL NOT IN (col2) OR col2 IS NULL ORDER BY 1", "NULL")
	// col2 is grouped: the group column wins over the alias.
	wantRows(t, db, "SELECT col1 AS col2, count(*) FROM g GROUP BY col1, col2 HAVING col2 >= 200 ORDER BY 1", "10|1", "20|1")
	// Inside an aggregate the table column is meant.
	wantRows(t, db, "SELECT col1 AS col2 FROM g GROUP BY col1 HAVING avg(col2) > 150 ORDER BY 1", "20")
	// A name that is neither grouped nor an alias is still refused.
	wantErr(t, db, "SELECT col1 FROM g GROUP BY col1 HAVING col2 > 1", 1105, "col2 not in aggregate's output")
	f.stop()
}
