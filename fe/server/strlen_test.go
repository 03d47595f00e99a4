package server

import (
	"strings"
	"testing"
)

// TestInsertStringLength: Doris holds CHAR(n)/VARCHAR(n) to n bytes. With
// enable_insert_strict (its default) an INSERT carrying a longer value fails
// as a whole ("Insert has filtered data in strict mode") and names the
// column and its length; with it off the value is cut to n bytes and the
// row kept. Values of exactly n bytes, NULLs and STRING columns pass.
func TestInsertStringLength(t *testing.T) {
	f := startFE(t, t.TempDir(), "rootpw", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT, v VARCHAR(20), c CHAR(4), s STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"CREATE TABLE src (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO src VALUES (1, 'short'), (2, '"+strings.Repeat("y", 2<<20)+"')")
	x25 := strings.Repeat("x", 25)
	for _, tc := range []struct{ q, msg string }{
		{"INSERT INTO t VALUES (1, '" + x25 + "', 'a', 'a')", "column 'v' is varchar(20), but a value has 25 bytes"},
		{"INSERT INTO t VALUES (1, 'ok', 'a', 'a'), (2, 'ok', 'abcde', 'a')", "column 'c' is char(4), but a value has 5 bytes"},
		{"INSERT INTO t (k, v) SELECT k, v FROM src", "column 'v' is varchar(20), but a value has 2097152 bytes"},
		// 7 characters but 21 bytes: Doris counts bytes.
		{"INSERT INTO t (k, v) VALUES (1, '中文中文中文中')", "column 'v' is varchar(20), but a value has 21 bytes"},
	} {
		wantErr(t, db, tc.q, 1105, "Insert has filtered data in strict mode: "+tc.msg)
	}
	wantRows(t, db, "SELECT count(*) FROM t", "0")

	mustExec(t, db, "INSERT INTO t VALUES (1, '"+strings.Repeat("x", 20)+"', 'abcd', '"+x25+"'), (2, NULL, NULL, NULL)")
	mustExec(t, db, "SET enable_insert_strict = false",
		"INSERT INTO t VALUES (3, '"+x25+"', 'abcdef', 'a')",
		"INSERT INTO t (k, v) SELECT k + 10, v FROM src",
		"INSERT INTO t (k, v) VALUES (20, '中文中文中文中')")
	wantRows(t, db, "SELECT k, length(v), c, length(s) FROM t ORDER BY k",
		"1|20|abcd|25", "2|NULL|NULL|NULL", "3|20|abcd|1", "11|5|NULL|NULL", "12|20|NULL|NULL", "20|18|NULL|NULL")
}
