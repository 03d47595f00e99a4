package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// Tests of issue 22 section 4, what a person notices first.

// dbMulti opens one session with go-sql-driver's multiStatements option,
// which sets CLIENT_MULTI_STATEMENTS in the handshake.
func (f *testFE) dbMulti(multi bool) *sql.DB {
	f.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", f.pass, "tcp", f.fe.Addr().String()
	cfg.InterpolateParams = true
	cfg.MultiStatements = multi
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	f.t.Cleanup(func() { d.Close() })
	return d
}

// Without CLIENT_MULTI_STATEMENTS, MySQL answers a second statement with a
// syntax error (1064); the text must say what to do, not name parser
// internals. With the capability the statements run, one result each.
func TestMultiStatements(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	single := f.dbMulti(false)
	for _, q := range []string{"SELECT 1; SELECT 2", "CREATE DATABASE x; CREATE DATABASE y"} {
		_, err := single.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1064 {
			t.Fatalf("%s: want 1064, got %v", q, err)
		}
		for _, bad := range []string{"ParseAll", "*sql.", "parse("} {
			if strings.Contains(me.Message, bad) {
				t.Errorf("%s: message names an internal (%q): %s", q, bad, me.Message)
			}
		}
		if !strings.Contains(me.Message, "one statement") || !strings.Contains(me.Message, "multi-statement") {
			t.Errorf("%s: message does not say what is wrong: %s", q, me.Message)
		}
	}
	// Nothing of the refused script ran.
	wantRows(t, single, "SHOW DATABASES LIKE 'x'")

	multi := f.dbMulti(true)
	mustExec(t, multi, "CREATE DATABASE m; CREATE TABLE m.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1; INSERT INTO m.t VALUES (1),(2)")
	r, err := multi.Query("SELECT count(*) FROM m.t; SELECT 'b' AS s; SELECT k FROM m.t ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		for r.Next() {
			var s string
			if err := r.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		if !r.NextResultSet() {
			break
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "2,b,1,2" {
		t.Errorf("three result sets: %q", got)
	}
}

// The mariadb CLI's `status` command reads COM_STATISTICS (mysql_stat) and
// prints the uptime in words and MySQL's status line; it was an error.
func TestStatusCommandMariadbCLI(t *testing.T) {
	bin := fixtures.Tool(t, "mariadb", "mariadb-client")
	f := startFE(t, t.TempDir(), "", false)
	_, port, _ := net.SplitHostPort(f.fe.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-h127.0.0.1", "-P"+port, "-uroot", "--skip-ssl", "-e", "status").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb status: %v\n%s", err, out)
	}
	for _, want := range []string{"Uptime:", "Threads: 1  Questions: ", "Queries per second avg: "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "ERROR") {
		t.Errorf("status output has an error:\n%s", out)
	}
}

// CREATE CATALOG type=paimon checks a local warehouse: a missing path or a
// file is refused naming the path, and nothing is created; ALTER to a
// missing path is refused too. An s3 warehouse stays lazy (not contacted
// at CREATE).
func TestPaimonCatalogWarehouseChecked(t *testing.T) {
	f := startMetaFE(t, t.TempDir())
	db := f.db("")
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "warehouse")
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantErr(t, db, fmt.Sprintf("CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='%s')", missing), 1105,
		fmt.Sprintf("Paimon warehouse '%s' does not exist", missing))
	wantErr(t, db, fmt.Sprintf("CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='file://%s')", missing), 1105,
		fmt.Sprintf("Paimon warehouse 'file://%s' does not exist", missing))
	wantErr(t, db, fmt.Sprintf("CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='%s')", file), 1105,
		fmt.Sprintf("Paimon warehouse '%s' is not a directory", file))
	wantRows(t, db, "SHOW CATALOGS LIKE 'p'")

	mustExec(t, db, fmt.Sprintf("CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='%s')", dir))
	wantRows(t, db, "SHOW DATABASES FROM p", "information_schema", "mysql") // every catalog lists Doris's virtual mysql
	wantErr(t, db, fmt.Sprintf("ALTER CATALOG p SET PROPERTIES ('warehouse'='%s')", missing), 1105, missing)
	mustExec(t, db, "CREATE CATALOG s PROPERTIES ('type'='paimon', 'warehouse'='s3://no-such-bucket/wh', 's3.endpoint'='http://127.0.0.1:1')")
}

// auditLines reads fe.audit.log under dir: each line's fields by name
// (Stmt is the last field and keeps any '|' it holds).
func auditLines(t *testing.T, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lineRE := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[query\] \|`)
	var out []map[string]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !lineRE.MatchString(l) {
			t.Fatalf("audit line layout: %q", l)
		}
		rest := l[strings.Index(l, "|")+1:]
		m := map[string]string{}
		for rest != "" {
			kv, tail, _ := strings.Cut(rest, "|")
			k, v, _ := strings.Cut(kv, "=")
			if k == "Stmt" {
				v = strings.TrimPrefix(rest, "Stmt=")
				tail = ""
			}
			m[k] = v
			rest = tail
		}
		out = append(out, m)
	}
	return out
}

// Doris's audit log: one line per statement in fe.audit.log under the meta
// dir, with the fields Doris writes; passwords and secret properties are
// masked, and the secret text appears nowhere in the file.
func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", true)
	db := f.db("")
	const pw, key = "Sup3r-Secret-Pw", "AKIA-very-secret-key"
	mustExec(t, db,
		"USE demo",
		"CREATE USER 'alice'@'%' IDENTIFIED BY '"+pw+"'")
	wantRows(t, db, "SELECT id FROM customers WHERE id <= 2 ORDER BY id", "1", "2")
	_, _ = db.Exec("CREATE CATALOG c1 PROPERTIES ('type'='nosuchtype', 's3.secret_key'='" + key + "')")
	_, _ = db.Exec("SELECT * FROM nosuch")
	_, _ = db.Exec("SELEC 1")
	prep, err := sqlOpenNoInterpolate(f)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	var got int
	if err := prep.QueryRow("SELECT ? + 1", 41).Scan(&got); err != nil || got != 42 {
		t.Fatalf("prepared: %d, %v", got, err)
	}
	prep.Close()
	f.stop()

	raw, err := os.ReadFile(filepath.Join(dir, "fe.audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{pw, key} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the audit log holds the secret %q:\n%s", secret, raw)
		}
	}
	lines := auditLines(t, filepath.Join(dir, "fe.audit.log"))
	byStmt := map[string]map[string]string{}
	for _, l := range lines {
		byStmt[l["Stmt"]] = l
		for _, k := range []string{"Client", "User", "Ctl", "Db", "CommandType", "State", "ErrorCode", "ErrorMessage", "Time(ms)",
			"ScanBytes", "ScanRows", "ReturnRows", "StmtId", "QueryId", "IsQuery", "Stmt"} {
			if _, ok := l[k]; !ok {
				t.Errorf("line lacks %s: %v", k, l)
			}
		}
	}
	want := []struct {
		stmt string
		kv   map[string]string
	}{
		{"USE demo", map[string]string{"State": "OK", "ErrorCode": "0", "User": "root", "Ctl": "internal", "Db": "demo", "CommandType": "COM_QUERY", "IsQuery": "false"}},
		{"CREATE USER 'alice'@'%' IDENTIFIED BY '*XXX'", map[string]string{"State": "OK", "ReturnRows": "0"}},
		{"SELECT id FROM customers WHERE id <= 2 ORDER BY id", map[string]string{"State": "EOF", "ReturnRows": "2", "IsQuery": "true", "Db": "demo"}},
		{"CREATE CATALOG c1 PROPERTIES ('type'='nosuchtype', 's3.secret_key'='*XXX')", map[string]string{"State": "ERR"}},
		{"SELECT * FROM nosuch", map[string]string{"State": "ERR", "ErrorCode": "1146", "IsQuery": "true"}},
		{"SELEC 1", map[string]string{"State": "ERR", "ErrorCode": "1064", "QueryId": ""}},
		{"SELECT ? + 1", map[string]string{"State": "EOF", "ReturnRows": "1", "CommandType": "COM_STMT_EXECUTE"}},
	}
	for _, w := range want {
		l := byStmt[w.stmt]
		if l == nil {
			t.Errorf("no audit line for %q; lines:\n%s", w.stmt, raw)
			continue
		}
		for k, v := range w.kv {
			if l[k] != v {
				t.Errorf("%q: %s=%q, want %q", w.stmt, k, l[k], v)
			}
		}
		if !strings.HasPrefix(l["Client"], "127.0.0.1:") {
			t.Errorf("%q: Client=%q", w.stmt, l["Client"])
		}
	}
	if l := byStmt["SELECT * FROM nosuch"]; l != nil && !strings.Contains(l["ErrorMessage"], "nosuch") {
		t.Errorf("error message: %q", l["ErrorMessage"])
	}
	if l := byStmt["SELECT id FROM customers WHERE id <= 2 ORDER BY id"]; l != nil && l["QueryId"] == "" {
		t.Errorf("query without a query id: %v", l)
	}
}

// The audit log rotates by size and keeps a bounded number of files, the
// newest statements in fe.audit.log.
func TestAuditLogRotates(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem, AuditMaxBytes: 2000, AuditMaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	db := tf.db("")
	for i := range 100 {
		wantRows(t, db, fmt.Sprintf("SELECT %d AS n", i), fmt.Sprint(i))
	}
	tf.stop()
	ents, _ := filepath.Glob(filepath.Join(dir, "fe.audit.log*"))
	if len(ents) != 3 {
		t.Fatalf("audit files: %v", ents)
	}
	last := -1
	for _, name := range []string{"fe.audit.log.2", "fe.audit.log.1", "fe.audit.log"} {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || st.Size() > 2000 {
			t.Fatalf("%s: %v, %v", name, st, err)
		}
		for _, l := range auditLines(t, p) {
			var n int
			if _, err := fmt.Sscanf(l["Stmt"], "SELECT %d AS n", &n); err != nil || n != last+1 && last != -1 {
				t.Fatalf("%s: statement %q after %d", name, l["Stmt"], last)
			}
			last = n
		}
	}
	if last != 99 {
		t.Errorf("the newest statement in fe.audit.log is %d, want 99", last)
	}
}
