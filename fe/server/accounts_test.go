package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// userDB opens a one-connection pool as user:pass.
func (f *testFE) userDB(user, pass, dbName string) *sql.DB {
	f.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, pass, "tcp", f.fe.Addr().String(), dbName
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	f.t.Cleanup(func() { d.Close() })
	return d
}

func wantQueryErr(t *testing.T, db *sql.DB, q string, num uint16, msg string) {
	t.Helper()
	_, err := tryRows(db, q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != num || !strings.Contains(me.Message, msg) {
		t.Errorf("%s: got %v, want %d containing %q", q, err, num, msg)
	}
}

// jackPassword is distinctive so the test can look for it in every file.
const jackPassword = "J4ck-Pa55w0rd-unique"

// TestPrivilegesEndToEnd: a user without SELECT_PRIV is refused with
// Doris's 1142, gets it after GRANT, loses it after REVOKE; LOAD, CREATE,
// DROP and the admin statements likewise; grants survive a restart and the
// password is stored only as its hash.
func TestPrivilegesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "rootpw", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE DATABASE db1",
		"CREATE TABLE db1.t (k INT, v VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"CREATE TABLE db1.t2 (k INT, w INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO db1.t VALUES (1, 'a'), (2, NULL)",
		"INSERT INTO db1.t2 VALUES (1, 10)",
		"CREATE USER 'jack'@'%' IDENTIFIED BY '"+jackPassword+"'",
	)
	wantErr(t, root, "CREATE USER 'jack'@'%' IDENTIFIED BY 'other'", 1396, "Operation CREATE USER failed for 'jack'@'%'")
	mustExec(t, root, "CREATE USER IF NOT EXISTS 'jack'@'%' IDENTIFIED BY 'other'")

	jack := f.userDB("jack", jackPassword, "")
	const denied = "command denied to user 'jack'@'127.0.0.1' for table "
	wantQueryErr(t, jack, "SELECT k FROM db1.t", 1142, "SELECT "+denied+"'internal: db1: t'")
	wantErr(t, jack, "USE db1", 1044, "Access denied for user 'jack'@'127.0.0.1' to database 'db1'")

	mustExec(t, root, "GRANT SELECT_PRIV ON db1.t TO 'jack'@'%'")
	wantRows(t, jack, "SELECT k, v FROM db1.t ORDER BY k", "1|a", "2|NULL")
	mustExec(t, jack, "USE db1")
	wantRows(t, jack, "SELECT count(*) FROM t", "2")
	// Every table of a query is checked: joins, subqueries, INSERT … SELECT.
	wantQueryErr(t, jack, "SELECT t.k FROM t JOIN t2 ON t.k = t2.k", 1142, "SELECT "+denied+"'internal: db1: t2'")
	wantQueryErr(t, jack, "SELECT k FROM t WHERE k IN (SELECT k FROM db1.t2)", 1142, "SELECT "+denied+"'internal: db1: t2'")
	wantErr(t, jack, "INSERT INTO t VALUES (3, 'c')", 1142, "LOAD "+denied+"'internal: db1: t'")

	mustExec(t, root, "GRANT LOAD_PRIV ON db1.* TO 'jack'@'%'")
	mustExec(t, jack, "INSERT INTO t VALUES (3, 'c')")
	wantErr(t, jack, "INSERT INTO t SELECT k, 'x' FROM t2", 1142, "SELECT "+denied+"'internal: db1: t2'")
	wantErr(t, jack, "CREATE TABLE db1.t3 (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1", 1142, "CREATE "+denied+"'internal: db1: t3'")
	wantErr(t, jack, "DROP TABLE db1.t", 1142, "DROP "+denied+"'internal: db1: t'")
	wantErr(t, jack, "CREATE DATABASE db9", 1044, "Access denied for user 'jack'@'127.0.0.1' to database 'db9'")
	wantErr(t, jack, "CREATE USER 'x'@'%'", 1227, "Access denied; you need (at least one of) the (Grant_priv) privilege(s) for this operation")
	wantErr(t, jack, "GRANT SELECT_PRIV ON *.*.* TO 'jack'@'%'", 1227, "(Grant_priv)")
	wantErr(t, jack, "CREATE CATALOG c2 PROPERTIES ('type'='localdir')", 1227, "(Admin_priv)")
	wantQueryErr(t, jack, "SHOW GRANTS FOR root", 1227, "(Grant_priv)")
	wantRows(t, jack, "SHOW GRANTS",
		"'jack'@'%'||Yes||NULL|NULL|internal.db1: Load_priv|internal.db1.t: Select_priv|NULL|NULL|NULL")

	mustExec(t, root, "GRANT CREATE_PRIV, DROP_PRIV ON internal.db1.* TO jack")
	mustExec(t, jack, "CREATE TABLE db1.t3 (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1", "DROP TABLE db1.t3")

	mustExec(t, root, "REVOKE SELECT_PRIV ON db1.t FROM 'jack'@'%'")
	wantQueryErr(t, jack, "SELECT k FROM db1.t", 1142, "SELECT "+denied+"'internal: db1: t'")
	wantErr(t, root, "REVOKE SELECT_PRIV ON db1.t FROM 'jack'@'%'", 1141, "There is no such grant defined for user 'jack' on host '%'")

	// Wrong password, unknown user: 1045, and the password is not echoed.
	for _, c := range []struct{ user, pass string }{{"jack", "wrong"}, {"jack", ""}, {"nobody", jackPassword}} {
		err := f.userDB(c.user, c.pass, "").Ping()
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1045 || !strings.Contains(me.Message, "Access denied for user '"+c.user+"'@'127.0.0.1'") ||
			strings.Contains(me.Message, jackPassword) {
			t.Errorf("login %s/%q: %v", c.user, c.pass, err)
		}
	}

	// Restart: the user, the password and the grants are back.
	f.stop()
	f = startFE(t, dir, "rootpw", false)
	jack = f.userDB("jack", jackPassword, "db1")
	mustExec(t, jack, "INSERT INTO t VALUES (4, 'd')")
	wantQueryErr(t, jack, "SELECT k FROM t", 1142, "SELECT "+denied+"'internal: db1: t'")
	root = f.db("")
	wantRows(t, root, "SELECT count(*) FROM db1.t", "4")
	wantRows(t, root, "SHOW GRANTS FOR 'jack'@'%'",
		"'jack'@'%'||Yes||NULL|NULL|internal.db1: Load_priv,Create_priv,Drop_priv|NULL|NULL|NULL|NULL")

	// SET PASSWORD: jack changes its own; root can change anyone's.
	mustExec(t, jack, "SET PASSWORD = PASSWORD('n3w')")
	if err := f.userDB("jack", "n3w", "").Ping(); err != nil {
		t.Fatalf("new password: %v", err)
	}
	if err := f.userDB("jack", jackPassword, "").Ping(); err == nil {
		t.Fatal("old password still works")
	}
	wantErr(t, jack, "SET PASSWORD FOR root = PASSWORD('x')", 1227, "(Grant_priv)")
	mustExec(t, root, "SET PASSWORD FOR 'jack'@'%' = PASSWORD('"+jackPassword+"')")

	// The password is in no file under the meta dir; its hash is in users.json.
	f.stop()
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), jackPassword) || strings.Contains(string(b), "rootpw") {
			t.Errorf("%s holds a password", path)
		}
		found = found || filepath.Base(path) == "users.json" && strings.Contains(string(b), `"jack"`)
		return nil
	})
	if err != nil || !found {
		t.Fatalf("walk: %v, users.json with jack found: %v", err, found)
	}

	// DROP USER: jack can no longer log in.
	f = startFE(t, dir, "rootpw", false)
	mustExec(t, f.db(""), "DROP USER 'jack'@'%'")
	if err := f.userDB("jack", jackPassword, "").Ping(); err == nil {
		t.Fatal("dropped user logs in")
	}
	wantErr(t, f.db(""), "DROP USER 'jack'@'%'", 1396, "Operation DROP USER failed for 'jack'@'%'")
	mustExec(t, f.db(""), "DROP USER IF EXISTS 'jack'@'%'")
}

// TestPrivilegesExternalCatalog: scans of an external catalog's tables need
// SELECT_PRIV too, granted per catalog (ctl.*.*) or globally (*.*.*).
func TestPrivilegesExternalCatalog(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE CATALOG ext PROPERTIES ('type'='localdir')",
		"CREATE DATABASE ext.d",
		"CREATE TABLE ext.d.t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1",
		"INSERT INTO ext.d.t VALUES (7)",
		"CREATE USER u IDENTIFIED BY 'p'",
	)
	u := f.userDB("u", "p", "")
	wantQueryErr(t, u, "SELECT a FROM ext.d.t", 1142, "SELECT command denied to user 'u'@'127.0.0.1' for table 'ext: d: t'")
	mustExec(t, root, "GRANT SELECT_PRIV ON internal.*.* TO u")
	wantQueryErr(t, u, "SELECT a FROM ext.d.t", 1142, "for table 'ext: d: t'")
	mustExec(t, root, "GRANT SELECT_PRIV ON ext.*.* TO u")
	wantRows(t, u, "SELECT a FROM ext.d.t", "7")
	wantErr(t, u, "INSERT INTO ext.d.t VALUES (8)", 1142, "LOAD command denied")
	wantErr(t, u, "DROP CATALOG ext", 1221, "(Drop_priv) privilege(s) on catalog ext")
	mustExec(t, root, "REVOKE SELECT_PRIV ON ext.*.* FROM u", "GRANT SELECT_PRIV, LOAD_PRIV ON *.*.* TO u")
	mustExec(t, u, "INSERT INTO ext.d.t VALUES (8)")
	wantRows(t, u, "SELECT a FROM ext.d.t ORDER BY a", "7", "8")
	// information_schema stays open to everyone.
	mustExec(t, root, "REVOKE SELECT_PRIV, LOAD_PRIV ON *.*.* FROM u", "REVOKE SELECT_PRIV ON internal.*.* FROM u")
	if _, err := tryRows(u, "SELECT count(*) FROM information_schema.tables"); err != nil {
		t.Fatal(err)
	}
	wantRows(t, root, "SHOW GRANTS FOR u", "'u'@'%'||Yes||NULL|NULL|NULL|NULL|NULL|NULL|NULL")

	// A password given as MySQL's PASSWORD() hash ('secret').
	mustExec(t, root, "CREATE USER h IDENTIFIED BY PASSWORD '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'")
	if err := f.userDB("h", "secret", "").Ping(); err != nil {
		t.Fatalf("login with the hashed password's cleartext: %v", err)
	}
}

// TestPrivilegesMariaDBCLI: the same refusal and grant through the mariadb
// CLI logging in as the user.
func TestPrivilegesMariaDBCLI(t *testing.T) {
	bin := fixtures.Tool(t, "mariadb", "mariadb-client")
	f := startFE(t, t.TempDir(), "rootpw", false)
	mustExec(t, f.db(""),
		"CREATE DATABASE db1",
		"CREATE TABLE db1.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO db1.t VALUES (41), (42)",
		"CREATE USER 'cli'@'%' IDENTIFIED BY 'cl1-pw'",
	)
	addr := f.fe.Addr().String()
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	run := func(user, pass string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20e9)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"-h127.0.0.1", "-P" + port, "-u" + user, "--batch", "--skip-ssl"}, args...)...)
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+pass)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("cli", "cl1-pw", "-e", "SELECT k FROM db1.t ORDER BY k")
	if err == nil || !strings.Contains(out, "ERROR 1142 (42000)") ||
		!strings.Contains(out, "SELECT command denied to user 'cli'@'127.0.0.1' for table 'internal: db1: t'") {
		t.Fatalf("without SELECT_PRIV: %v\n%s", err, out)
	}
	if out, err := run("root", "rootpw", "-e", "GRANT SELECT_PRIV ON db1.* TO 'cli'@'%'"); err != nil {
		t.Fatalf("grant: %v\n%s", err, out)
	}
	out, err = run("cli", "cl1-pw", "-e", "SELECT k FROM db1.t ORDER BY k")
	if err != nil || out != "k\n41\n42\n" {
		t.Fatalf("with SELECT_PRIV: %v\n%q", err, out)
	}
	if out, err := run("root", "rootpw", "-e", "REVOKE SELECT_PRIV ON db1.* FROM 'cli'@'%'"); err != nil {
		t.Fatalf("revoke: %v\n%s", err, out)
	}
	if out, err := run("cli", "cl1-pw", "-e", "SELECT k FROM db1.t"); err == nil || !strings.Contains(out, "ERROR 1142 (42000)") {
		t.Fatalf("after REVOKE: %v\n%s", err, out)
	}
	out, err = run("cli", "wrong", "-e", "SELECT 1")
	if err == nil || !strings.Contains(out, "ERROR 1045 (28000)") || strings.Contains(out, "wrong") && !strings.Contains(out, "using password: YES") {
		t.Fatalf("wrong password: %v\n%s", err, out)
	}
}

// TestPrivilegesVisibility: SHOW DATABASES / TABLES list only what the user
// holds a privilege on; DESCRIBE and SHOW CREATE TABLE need one too.
func TestPrivilegesVisibility(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE DATABASE a", "CREATE DATABASE b", "CREATE DATABASE c",
		"CREATE TABLE a.t1 (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"CREATE TABLE a.t2 (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"CREATE TABLE b.t3 (x INT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"CREATE USER v IDENTIFIED BY 'p'",
		"GRANT SELECT_PRIV ON a.t2 TO v",
		"GRANT ALTER_PRIV ON b.* TO v",
	)
	v := f.userDB("v", "p", "")
	wantRows(t, v, "SHOW DATABASES", "information_schema", "mysql", "a", "b")
	wantRows(t, v, "SHOW TABLES FROM a", "t2")
	wantRows(t, v, "SHOW TABLES FROM b", "t3")
	wantRows(t, root, "SHOW TABLES FROM a", "t1", "t2")
	wantQueryErr(t, v, "DESCRIBE a.t1", 1142, "DESCRIBE command denied to user 'v'@'127.0.0.1' for table 'internal: a: t1'")
	wantQueryErr(t, v, "SHOW CREATE TABLE a.t1", 1142, "SHOW command denied to user 'v'@'127.0.0.1' for table 'internal: a: t1'")
	if _, err := tryRows(v, "DESCRIBE a.t2"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, v, "USE c", 1044, "Access denied for user 'v'@'127.0.0.1' to database 'c'")
	mustExec(t, v, "USE b")
	wantErr(t, v, "REFRESH TABLE a.t1", 1142, "REFRESH command denied to user 'v'@'127.0.0.1' for table 'internal: a: t1'")
	wantErr(t, v, "REFRESH DATABASE c", 1044, "to database 'c'")
	for _, q := range []string{"REFRESH TABLE a.t2", "REFRESH DATABASE b", "REFRESH CATALOG internal"} {
		if _, err := v.Exec(q); err != nil && strings.Contains(err.Error(), "denied") {
			t.Errorf("%s: %v", q, err)
		}
	}

	// KILL: one's own connections only, unless ADMIN_PRIV.
	var rootID, vID int64
	if err := root.QueryRow("SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	if err := v.QueryRow("SELECT CONNECTION_ID()").Scan(&vID); err != nil {
		t.Fatal(err)
	}
	wantRows(t, v, "SELECT count(*) FROM (SELECT 1) x", "1")
	if got := rows(t, v, "SHOW PROCESSLIST"); len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf("%d|v|", vID)) {
		t.Errorf("SHOW PROCESSLIST as v = %q, want v's connection alone", got)
	}
	if got := rows(t, root, "SHOW PROCESSLIST"); len(got) != 2 {
		t.Errorf("SHOW PROCESSLIST as root = %q, want both connections", got)
	}
	wantErr(t, v, fmt.Sprintf("KILL QUERY %d", rootID), 1095, fmt.Sprintf("You are not owner of thread or query: %d", rootID))
	mustExec(t, v, fmt.Sprintf("KILL QUERY %d", vID))
	mustExec(t, root, fmt.Sprintf("KILL QUERY %d", vID))
}

// TestShownTextMasksPasswords: the text SHOW PROCESSLIST and profiles keep
// never holds a password.
func TestShownTextMasksPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE USER 'u'@'%' IDENTIFIED BY 'hunter2'":               "CREATE USER 'u'@'%' IDENTIFIED BY '*XXX'",
		"set password for u = password('hunter2')":                  "set password for u = password('*XXX')",
		"SELECT * FROM t WHERE name = 'hunter2'":                    "SELECT * FROM t WHERE name = 'hunter2'",
		"SET PASSWORD = '*6BB4837EB74329105EE4568DDA7D'":            "SET PASSWORD = '*XXX'",
		"/* c */ CREATE USER u IDENTIFIED BY 'hunter2'":             "/* c */ CREATE USER u IDENTIFIED BY '*XXX'",
		"  alter CATALOG c SET PROPERTIES ('x.password'='hunter2')": "  alter CATALOG c SET PROPERTIES ('x.password'='*XXX')",
		"INSERT INTO t VALUES ('password=hunter2')":                 "INSERT INTO t VALUES ('password=hunter2')",
	} {
		if got := shownText(in); got != want {
			t.Errorf("shownText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrivilegesDMLAndViews: DELETE and UPDATE need LOAD_PRIV on their
// table, CREATE VIEW CREATE_PRIV, DROP VIEW DROP_PRIV. (What DELETE and
// UPDATE do once allowed is tested with them; here only that the privilege
// check no longer refuses.)
func TestPrivilegesDMLAndViews(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE DATABASE d",
		"CREATE TABLE d.u (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"INSERT INTO d.u VALUES (1, 10), (2, 20), (3, 30)",
		"CREATE USER w IDENTIFIED BY 'p'",
		"GRANT SELECT_PRIV ON d.u TO w",
	)
	w := f.userDB("w", "p", "d")
	const denied = "command denied to user 'w'@'127.0.0.1' for table 'internal: d: u'"
	wantErr(t, w, "DELETE FROM u WHERE k = 1", 1142, "LOAD "+denied)
	wantErr(t, w, "UPDATE u SET v = 0 WHERE k = 2", 1142, "LOAD "+denied)
	wantErr(t, w, "CREATE VIEW v1 AS SELECT k FROM u", 1142, "CREATE command denied to user 'w'@'127.0.0.1' for table 'internal: d: v1'")
	mustExec(t, root, "GRANT LOAD_PRIV, CREATE_PRIV ON d.* TO w")
	for _, q := range []string{"DELETE FROM u WHERE k = 1", "UPDATE u SET v = 0 WHERE k = 2"} {
		_, err := w.Exec(q)
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1142 || strings.Contains(me.Message, "denied")) {
			t.Errorf("%s after GRANT LOAD_PRIV: %v", q, err)
		}
	}
	mustExec(t, w, "CREATE VIEW v1 AS SELECT k FROM u")
	wantErr(t, w, "DROP VIEW v1", 1142, "DROP command denied to user 'w'@'127.0.0.1' for table 'internal: d: v1'")
}

// TestPrivilegesViews: a view needs SELECT_PRIV on itself (and, stricter
// than Doris, on the tables it reads).
func TestPrivilegesViews(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	root := f.db("")
	mustExec(t, root,
		"CREATE DATABASE d",
		"CREATE TABLE d.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.t VALUES (5)",
		"CREATE VIEW d.v AS SELECT k FROM d.t",
		"CREATE USER r IDENTIFIED BY 'p'",
	)
	wantRows(t, root, "SELECT k FROM d.v", "5")
	r := f.userDB("r", "p", "")
	wantQueryErr(t, r, "SELECT k FROM d.v", 1142, "SELECT command denied to user 'r'@'127.0.0.1' for table 'internal: d: v'")
	wantQueryErr(t, r, "SHOW CREATE VIEW d.v", 1142, "SHOW command denied to user 'r'@'127.0.0.1' for table 'internal: d: v'")
	mustExec(t, root, "GRANT SELECT_PRIV ON d.v TO r")
	if _, err := tryRows(r, "SHOW CREATE VIEW d.v"); err != nil {
		t.Fatal(err)
	}
	wantQueryErr(t, r, "SELECT k FROM d.v", 1142, "for table 'internal: d: t'")
	mustExec(t, root, "GRANT SELECT_PRIV ON d.t TO r")
	wantRows(t, r, "SELECT k FROM d.v", "5")
}
