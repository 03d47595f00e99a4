package server

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/local"
)

// localDirType is an external catalog type backed by the local storage
// engine, so catalog DDL is tested against a real, writable catalog.
func localDirType() catalog.Type {
	return catalog.Type{
		Name: "localdir",
		Validate: func(p map[string]string) error {
			_, err := catalog.NewProps(p).Int("batch.rows", 1024, 1, 1<<20)
			return err
		},
		Open: func(ctx context.Context, p map[string]string, env catalog.Env) (catalog.Catalog, error) {
			return local.Open(env.DataDir, env.Mem, local.Options{})
		},
	}
}

type testFE struct {
	t    *testing.T
	dir  string
	fe   *FE
	mem  *memory.CheckedAllocator
	pass string
}

func startFE(t *testing.T, dir, password string, demo bool) *testFE {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{
		QueryAddr: "127.0.0.1:0", MetaDir: dir, RootPassword: password,
		Types: []catalog.Type{localDirType()}, Demo: demo, Mem: mem,
	})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem, pass: password}
	t.Cleanup(tf.stop)
	return tf
}

func (f *testFE) stop() {
	if f.fe != nil {
		f.fe.Close()
		f.fe = nil
		f.mem.AssertSize(f.t, 0)
	}
}

func (f *testFE) db(dbName string) *sql.DB {
	f.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", f.pass, "tcp", f.fe.Addr().String(), dbName
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1) // one session, so USE and SET carry over
	f.t.Cleanup(func() { d.Close() })
	return d
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// rows runs a query and returns its rows as text ("NULL" for NULL), each row
// joined with "|".
func rows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	out, err := tryRows(db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func tryRows(db *sql.DB, q string) ([]string, error) {
	r, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cols, _ := r.Columns()
	var out []string
	for r.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			if v.Valid {
				parts[i] = v.String
			} else {
				parts[i] = "NULL"
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, r.Err()
}

func wantRows(t *testing.T, db *sql.DB, q string, want ...string) {
	t.Helper()
	got := rows(t, db, q)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got: %q\nwant: %q", q, got, want)
	}
}

// wantErr runs a statement that must fail with errno num and a message
// containing msg.
func wantErr(t *testing.T, db *sql.DB, q string, num uint16, msg string) {
	t.Helper()
	_, err := db.Exec(q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Errorf("%s: want error %d, got %v", q, num, err)
		return
	}
	if me.Number != num || !strings.Contains(me.Message, msg) {
		t.Errorf("%s: got %d %q, want %d containing %q", q, me.Number, me.Message, num, msg)
	}
}

func sqlOpenNoInterpolate(f *testFE) (*sql.DB, error) {
	return sql.Open("mysql", "root:"+f.pass+"@tcp("+f.fe.Addr().String()+")/demo")
}
