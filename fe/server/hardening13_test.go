package server_test

// End-to-end checks of issue 13's FE hardening defects through a real MySQL
// driver (go-sql-driver/mysql). External test package: only the exported
// API of fe/server is used, so these tests do not depend on its internals.

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/local"
	"github.com/inlet-db/inlet/fe/server"
)

// anyPropsType is an external catalog type that accepts every property (so
// secrets of any name can be stored) over the local storage engine.
func anyPropsType() catalog.Type {
	return catalog.Type{
		Name:     "anyprops",
		Validate: func(map[string]string) error { return nil },
		Open: func(ctx context.Context, p map[string]string, env catalog.Env) (catalog.Catalog, error) {
			return local.Open(env.DataDir, env.Mem, local.Options{})
		},
	}
}

func start13(t *testing.T, dir string) (*server.FE, *memory.CheckedAllocator, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := server.Start(context.Background(), server.Options{
		QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem, Types: []catalog.Type{anyPropsType()},
	})
	return fe, mem, err
}

func mustStart13(t *testing.T, dir string) *server.FE {
	t.Helper()
	fe, mem, err := start13(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fe.Close()
		mem.AssertSize(t, 0)
	})
	return fe
}

func db13(t *testing.T, fe *server.FE, multi bool) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", fe.Addr().String()
	cfg.InterpolateParams = true
	cfg.MultiStatements = multi
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}

func exec13(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func query1(db *sql.DB, q string) (string, error) {
	var v sql.NullString
	err := db.QueryRow(q).Scan(&v)
	if !v.Valid {
		return "NULL", err
	}
	return v.String, err
}

// Defect 1: a function asked to build a huge string fails that query with a
// clear error (errno 1690, out of range); the FE and the connection live on.
func TestHugeStringFunctionFailsAlone(t *testing.T) {
	fe := mustStart13(t, t.TempDir())
	db := db13(t, fe, false)
	for _, q := range []string{
		"SELECT lpad('a', 100000000000, 'b')",
		"SELECT rpad('a', 2000000000, 'b')",
		"SELECT repeat('ab', 100000000)",
		"SELECT length(concat(repeat('a', 10000000), repeat('b', 10000000)))",
		"SELECT space(20000000)",
	} {
		_, err := query1(db, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1690 || !strings.Contains(me.Message, "exceeds the limit of 16777216 bytes") {
			t.Errorf("%s: want error 1690 naming the limit, got %v", q, err)
		}
	}
	// Up to the limit works, and the session is still usable.
	if got, err := query1(db, "SELECT length(lpad('a', 16777216, 'xy'))"); err != nil || got != "16777216" {
		t.Errorf("lpad at the limit: %s, %v", got, err)
	}
	if got, err := query1(db, "SELECT concat(lpad('7', 3, '0'), space(2), repeat('z', 2))"); err != nil || got != "007  zz" {
		t.Errorf("small values: %q, %v", got, err)
	}
}

// Defect 3: with manifest.json gone and table data present, the FE refuses
// to start and deletes nothing; with the manifest restored every row is back.
func TestMissingManifestRefusesStart(t *testing.T) {
	dir := t.TempDir()
	fe, mem, err := start13(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	db := db13(t, fe, false)
	exec13(t, db, "CREATE DATABASE d", "CREATE TABLE d.t (k INT, v VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.t VALUES (1, 'a'), (2, NULL), (3, 'c')")
	db.Close()
	fe.Close()
	mem.AssertSize(t, 0)

	var manifest string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "manifest.json" && strings.Contains(p, "internal") {
			manifest = p
		}
		return nil
	})
	if manifest == "" {
		t.Fatal("no internal manifest.json under the meta dir")
	}
	saved, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	countFiles := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(filepath.Dir(manifest), "data"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	before := countFiles()
	if before == 0 {
		t.Fatal("no data files written")
	}
	os.Remove(manifest)

	fe2, mem2, err := start13(t, dir)
	if err == nil {
		fe2.Close()
		t.Fatal("FE started without its manifest")
	}
	mem2.AssertSize(t, 0)
	if !strings.Contains(err.Error(), "manifest.json is missing") {
		t.Errorf("start error does not name the missing manifest: %v", err)
	}
	if after := countFiles(); after != before {
		t.Fatalf("data files %d -> %d after a refused start", before, after)
	}

	if err := os.WriteFile(manifest, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	fe3 := mustStart13(t, dir)
	if got, err := query1(db13(t, fe3, false), "SELECT group_concat(concat(k, ':', ifnull(v, 'null'))) FROM (SELECT k, v FROM d.t ORDER BY k) x"); err != nil || got != "1:a,2:null,3:c" {
		// group_concat may be missing; fall back to a count.
		if n, err2 := query1(db13(t, fe3, false), "SELECT count(*) FROM d.t"); err2 != nil || n != "3" {
			t.Errorf("rows after restoring the manifest: %q %v / count %q %v", got, err, n, err2)
		}
	}
}

// Defect 4: secrets stay hidden in SHOW CREATE CATALOG whatever their
// property name (jaas config, *.credentials, *passwd*, a URI's password),
// and a syntax error does not echo a secret near the error.
func TestSecretsMaskedOverWire(t *testing.T) {
	fe := mustStart13(t, t.TempDir())
	db := db13(t, fe, false)
	exec13(t, db, `CREATE CATALOG c PROPERTIES ('type'='anyprops',
		'client.security.sasl.jaas.config'='org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required username="u" password="hunter1";',
		'fs.oss.credentials'='hunter2', 'jdbc.passwd'='hunter3', 'uri'='jdbc:mysql://u:hunter4@db.example:3306/x',
		'fluss.bootstrap.servers'='127.0.0.1:9123')`)
	got, err := query1Col(db, "SHOW CREATE CATALOG c", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hunter1", "hunter2", "hunter3", "hunter4"} {
		if strings.Contains(got, s) {
			t.Errorf("SHOW CREATE CATALOG shows %s:\n%s", s, got)
		}
	}
	if !strings.Contains(got, "127.0.0.1:9123") || !strings.Contains(got, "jdbc:mysql://u:*XXX@db.example:3306/x") {
		t.Errorf("non-secret parts should stay visible:\n%s", got)
	}

	_, err = db.Exec(`CREATE CATALOG c2 PROPERTIES('type'='fluss' 'fluss.security.sasl.password'='hunter5')`)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1064 {
		t.Fatalf("want a syntax error, got %v", err)
	}
	if strings.Contains(me.Message, "hunter5") || !strings.Contains(me.Message, "*XXX") {
		t.Errorf("syntax error: %s", me.Message)
	}
}

// query1Col returns column col of the first row.
func query1Col(db *sql.DB, q string, col int) (string, error) {
	r, err := db.Query(q)
	if err != nil {
		return "", err
	}
	defer r.Close()
	cols, _ := r.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !r.Next() {
		return "", errors.New("no rows")
	}
	if err := r.Scan(ptrs...); err != nil {
		return "", err
	}
	return vals[col].String, r.Err()
}

// Defect 7: an invalid UTF-8 database name is refused, not stored as U+FFFD.
func TestInvalidUTF8NameRefused(t *testing.T) {
	fe := mustStart13(t, t.TempDir())
	db := db13(t, fe, false)
	for _, q := range []string{"CREATE DATABASE `bad\xff`", "CREATE DATABASE bad\xfe", "CREATE TABLE `t\xc3` (k INT)"} {
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1064 || !strings.Contains(me.Message, "not valid UTF-8") {
			t.Errorf("%q: want a syntax error about UTF-8, got %v", q, err)
		}
	}
	r, err := db.Query("SHOW DATABASES")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var n string
		r.Scan(&n)
		if strings.ContainsRune(n, '\uFFFD') || strings.HasPrefix(n, "bad") {
			t.Errorf("database %q was created", n)
		}
	}
	exec13(t, db, "CREATE DATABASE `données`")
}
