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
	"strings"
	"testing"
	"time"

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
	wantRows(t, db, "SHOW DATABASES FROM p", "information_schema")
	wantErr(t, db, fmt.Sprintf("ALTER CATALOG p SET PROPERTIES ('warehouse'='%s')", missing), 1105, missing)
	mustExec(t, db, "CREATE CATALOG s PROPERTIES ('type'='paimon', 'warehouse'='s3://no-such-bucket/wh', 's3.endpoint'='http://127.0.0.1:1')")
}
