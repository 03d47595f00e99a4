package server

import (
	"testing"
)

// TestSetGlobalNeedsAdmin: SET GLOBAL changes every later session, root's
// too, so Doris asks for ADMIN_PRIV (1227, "the ADMIN privilege(s)"); and
// even an admin cannot set a global value that fails every statement
// (1231), while a session may still choke itself.
func TestSetGlobalNeedsAdmin(t *testing.T) {
	f := startFE(t, t.TempDir(), "rootpw", false)
	root := f.db("")
	mustExec(t, root, "CREATE DATABASE d", "CREATE TABLE d.t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.t VALUES (1)", "CREATE USER u IDENTIFIED BY 'p'", "GRANT SELECT_PRIV ON d.* TO u")
	u := f.userDB("u", "p", "")
	const need = "Access denied; you need (at least one of) the ADMIN privilege(s) for this operation"
	for _, q := range []string{
		"SET GLOBAL exec_mem_limit = 1",
		"SET GLOBAL query_timeout = 1",
		"SET @@global.query_timeout = 1",
		"SET GLOBAL force_jni_scanner = true",
		"SET query_timeout = 100, GLOBAL batch_size = 1024",
		"SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED",
	} {
		wantErr(t, u, q, 1227, need)
	}
	// Nothing of the refused statements took effect.
	wantRows(t, f.db(""), "SELECT @@query_timeout, @@exec_mem_limit, @@batch_size", "900|2147483648|4064")
	// A session's own variables need no privilege.
	mustExec(t, u, "SET query_timeout = 100", "SET SESSION exec_mem_limit = 1000000")

	for _, tc := range []struct{ q, msg string }{
		{"SET GLOBAL exec_mem_limit = 1", "Variable 'exec_mem_limit' can't be set to the value of '1'"},
		{"SET GLOBAL query_timeout = 1", "Variable 'query_timeout' can't be set to the value of '1'"},
		{"SET GLOBAL wait_timeout = 1", "Variable 'wait_timeout' can't be set to the value of '1'"},
		{"SET GLOBAL batch_size = 1", "Variable 'batch_size' can't be set to the value of '1'"},
	} {
		wantErr(t, root, tc.q, 1231, tc.msg)
	}
	mustExec(t, root, "SET GLOBAL query_timeout = 600", "SET GLOBAL exec_mem_limit = 1073741824")
	// Every new session still runs statements.
	wantRows(t, f.userDB("u", "p", ""), "SELECT k, @@query_timeout, @@exec_mem_limit FROM d.t", "1|600|1073741824")
	wantRows(t, f.db(""), "SELECT count(*) FROM d.t", "1")
}
