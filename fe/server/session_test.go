package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

func TestSessionVariablesAndSetVar(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	wantRows(t, db, "SELECT @@fluss_union_read_mode, @@max_file_scanners_concurrency, @@enable_jni_heap_admission, @@force_jni_scanner, @@enable_prune_nested_column, @@time_zone",
		"|16|0|0|1|UTC")
	wantRows(t, db, "SHOW VARIABLES LIKE 'fluss%'", "fluss_changelog_startup_mode|earliest|earliest|0", "fluss_changelog_startup_timestamp|||0", "fluss_limit_pushdown|true|true|0", "fluss_log_filter_pushdown|true|true|0", "fluss_log_tail_pieces|4|4|0", "fluss_union_read_mode|||0")
	wantRows(t, db, "SHOW VARIABLES WHERE Variable_name = 'max_file_scanners_concurrency'", "max_file_scanners_concurrency|16|16|0")
	mustExec(t, db, "SET fluss_union_read_mode = 'REQUIRED'", "SET max_file_scanners_concurrency = 4", "SET enable_jni_heap_admission = true", "SET time_zone = '+08:00'")
	wantRows(t, db, "SELECT @@fluss_union_read_mode, @@max_file_scanners_concurrency, @@enable_jni_heap_admission, @@time_zone", "required|4|1|+08:00")
	wantRows(t, db, "SHOW VARIABLES LIKE 'enable_jni%'", "enable_jni_heap_admission|true|false|1")

	// SET_VAR changes one statement only.
	wantRows(t, db, "SELECT /*+ SET_VAR(fluss_union_read_mode='disabled', max_file_scanners_concurrency=2) */ @@fluss_union_read_mode, @@max_file_scanners_concurrency", "disabled|2")
	wantRows(t, db, "SELECT @@fluss_union_read_mode, @@max_file_scanners_concurrency", "required|4")
	wantErr(t, db, "SELECT /*+ SET_VAR(max_file_scanners_concurrency=0) */ 1", 1231, "Variable 'max_file_scanners_concurrency' can't be set to the value of '0'")
	wantErr(t, db, "SELECT /*+ SET_VAR(no_such=1) */ 1", 1193, "Unknown system variable 'no_such'")

	// Doris refuses a bad fluss_union_read_mode where a query reads it, not
	// at SET (its read_modes suite sets 'sometimes' and expects the SELECT
	// to fail naming the variable).
	mustExec(t, db, "SET fluss_union_read_mode = 'sometimes'")
	wantRows(t, db, "SELECT @@fluss_union_read_mode", "sometimes")
	mustExec(t, db, "SET fluss_union_read_mode = 'required'")
	// Every Doris Fluss suite starts with this; SHOW VARIABLES lists it.
	mustExec(t, db, "SET enable_file_scanner_v2 = true", "SET enable_nereids_planner = true", "SET enable_fallback_to_original_planner = false")
	wantRows(t, db, "SHOW VARIABLES LIKE 'enable_file_scanner_v2'", "enable_file_scanner_v2|true|true|0")
	wantErr(t, db, "SET max_file_scanners_concurrency = 'x'", 1231, "max_file_scanners_concurrency")
	wantErr(t, db, "SET no_such_var = 1", 1193, "Unknown system variable 'no_such_var'")
	wantErr(t, db, "SET version_comment = 'x'", 1238, "read only")
	wantErr(t, db, "SELECT @@no_such_var", 1193, "Unknown system variable 'no_such_var'")

	// SET GLOBAL reaches new sessions, not the value other sessions set.
	mustExec(t, db, "SET GLOBAL force_jni_scanner = true")
	other := f.db("")
	wantRows(t, other, "SELECT @@force_jni_scanner, @@max_file_scanners_concurrency, @@global.force_jni_scanner", "1|16|1")
	mustExec(t, db, "SET max_file_scanners_concurrency = DEFAULT")
	wantRows(t, db, "SELECT @@max_file_scanners_concurrency", "16")
}

func TestClientConnectStatementsAndErrors(t *testing.T) {
	f := startFE(t, t.TempDir(), "pw", true)
	db := f.db("internal.demo") // Doris lets clients pick ctl.db at connect
	for _, q := range []string{
		"SELECT @@version_comment LIMIT 1", "SET NAMES utf8mb4", "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci",
		"SET autocommit = 1", "SET sql_mode = 'STRICT_TRANS_TABLES'", "SHOW WARNINGS", "SELECT DATABASE()", "SELECT USER()",
		"SELECT @@session.autocommit, @@max_allowed_packet, @@character_set_client", "SHOW DATABASES", "SHOW COLLATION",
		"SELECT CONNECTION_ID()", "BEGIN", "COMMIT", "ROLLBACK", "SHOW ENGINES", "SHOW PROCESSLIST",
	} {
		if _, err := tryRows(db, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	wantRows(t, db, "SELECT DATABASE(), current_catalog()", "demo|internal")
	wantRows(t, db, "SELECT @@version_comment", VersionComment)
	wantRows(t, db, "SHOW WARNINGS")
	wantRows(t, db, "SELECT 1 + 1, 'x', NULL, 2.50 * 2, CAST('2026-01-02' AS DATE)", "2|x|NULL|5.00|2026-01-02")

	wantErr(t, db, "SELECT 9223372036854775807 + 1", 1690, "")
	wantErr(t, db, "SELEC 1", 1064, "Syntax error in line 1 near 'SELEC 1'")
	wantErr(t, db, "USE nodb", 1049, "Unknown database 'nodb'")
	wantErr(t, db, "USE nocat.nodb", 1105, "Unknown catalog 'nocat'")
	wantErr(t, db, "SELECT * FROM nocat.demo.orders", 1105, "Unknown catalog 'nocat'")
	wantErr(t, db, "SELECT order_id FROM orders, orders", 1052, "ambiguous")
	wantErr(t, db, "SHOW TABLES FROM nodb", 1049, "Unknown database 'nodb'")
	wantErr(t, db, "CREATE TABLE u (a INT) AGGREGATE KEY(a)", 1235, "AGGREGATE KEY tables are not supported")
	mustExec(t, db, "SWITCH internal")
	wantErr(t, db, "SELECT * FROM t", 1046, "No database selected")

	// Wrong password is MySQL's 1045, and the password is never echoed.
	bad := *f
	bad.pass = "wrong"
	_, err := tryRows(bad.db(""), "SELECT 1")
	if err == nil || !strings.Contains(err.Error(), "1045") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("bad password: %v", err)
	}
}

func TestMariaDBClient(t *testing.T) {
	// Skips without the CLI, but fails under CI=true: .ci/run installs it.
	bin := fixtures.Tool(t, "mariadb", "mariadb-client")
	f := startFE(t, t.TempDir(), "", true)
	addr := f.fe.Addr().String()
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20e9)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"-h127.0.0.1", "-P" + port, "-uroot", "--batch"}, args...)...)
		cmd.Env = append(os.Environ(), "MYSQL_PWD=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// -c keeps the /*+ SET_VAR */ hint, which the CLI strips otherwise.
	out, err := run("-c", "-Dinternal.demo", "-e",
		"SELECT /*+ SET_VAR(max_file_scanners_concurrency=3) */ @@max_file_scanners_concurrency AS c; "+
			"SELECT name FROM customers WHERE id = 2; SHOW CATALOGS; SELECT count(*) AS n FROM orders;")
	if err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
	for _, want := range []string{"c\n3\n", "name\nGrace\n", "CatalogId\tCatalogName\tType\tIsCurrent\tCreateTime\tLastUpdateTime\tComment\n0\tinternal\tinternal\tyes\t", "n\n7\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mariadb output lacks %q:\n%s", want, out)
		}
	}
	out, err = run("-e", "SELECT * FROM demo.nosuch")
	if err == nil || !strings.Contains(out, "ERROR 1146 (42S02)") {
		t.Errorf("mariadb error output: %v\n%s", err, out)
	}
}

func TestPreparedStatements(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	cfgDB := f.db("demo")
	// A pool without interpolateParams: go-sql-driver prepares on the server.
	db, err := sqlOpenNoInterpolate(f)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name string
	if err := db.QueryRow("SELECT name FROM customers WHERE id = ? AND country = ?", 2, "US").Scan(&name); err != nil || name != "Grace" {
		t.Fatalf("prepared select: %q, %v", name, err)
	}
	var n int64
	var price float64
	if err := db.QueryRow("SELECT count(*), max(price) FROM products WHERE price < ? OR title = ?", 20.5, nil).Scan(&n, &price); err != nil || n != 2 || price != 12.5 {
		t.Fatalf("prepared aggregate: %d %v %v", n, price, err)
	}
	if _, err := db.Exec("INSERT INTO products VALUES (?, ?, ?)", "D-4", "it's a '?' mark", 1.25); err != nil {
		t.Fatal(err)
	}
	wantRows(t, cfgDB, "SELECT title, price FROM products WHERE sku = 'D-4'", "it's a '?' mark|1.25")
	if _, err := db.Exec("SELECT * FROM products WHERE sku = ?", 1, 2); err == nil {
		t.Error("wrong argument count accepted")
	}
}

func TestKillQuery(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	victim, killer := f.db("demo"), f.db("demo")
	var id int64
	if err := victim.QueryRow("SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	sawRunning := false
	go func() {
		// 7^12 rows: never finishes on its own.
		_, err := victim.Exec("SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e, orders f, orders g, orders h, orders i, orders j, orders k, orders l")
		done <- err
	}()
	for {
		select {
		case err := <-done:
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1317 {
				t.Fatalf("killed query: %v", err)
			}
			if !sawRunning {
				t.Errorf("SHOW PROCESSLIST never showed the running query")
			}
			wantRows(t, victim, "SELECT count(*) FROM orders", "7") // the connection lives on
			return
		default:
		}
		// Find the victim in SHOW PROCESSLIST before killing it.
		for _, r := range rows(t, killer, "SHOW FULL PROCESSLIST") {
			if strings.HasPrefix(r, fmt.Sprintf("%d|root|", id)) && strings.Contains(r, "|Query|") && strings.Contains(r, "orders l") {
				sawRunning = true
			}
		}
		if !sawRunning {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if _, err := killer.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
