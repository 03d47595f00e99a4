package mysqlwire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// scriptSession answers a tiny command language so the protocol layer can be
// tested without the rest of the FE:
//
//	rows N       N rows of (BIGINT n, VARCHAR "row-n", NULL)
//	err CODE     an error with that Code
//	panic        panics
//	use `x`      records x as the current database (COM_INIT_DB path)
//	db           one row with the recorded database
//	block        waits for cancellation
type scriptSession struct {
	mu     *sync.Mutex
	closed *int
	db     string
}

func (s *scriptSession) Close() {
	s.mu.Lock()
	*s.closed++
	s.mu.Unlock()
}

func (s *scriptSession) Query(ctx context.Context, q string, w ResultWriter) error {
	f := strings.Fields(q)
	if len(f) == 0 {
		return Errorf(CodeSyntax, "empty statement")
	}
	switch strings.ToLower(f[0]) {
	case "rows":
		n, _ := strconv.Atoi(f[1])
		if err := w.Columns([]Column{{Name: "n", Type: TypeBigInt, NotNull: true}, {Name: "s", Type: TypeVarchar}, {Name: "z", Type: TypeInt}}); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := w.Row([][]byte{[]byte(strconv.Itoa(i)), []byte("row-" + strconv.Itoa(i)), nil}); err != nil {
				return err
			}
		}
		return nil
	case "err":
		c, _ := strconv.Atoi(f[1])
		return Errorf(Code(c), "scripted failure %d", c)
	case "panic":
		panic("scripted panic")
	case "use":
		s.db = strings.Trim(f[1], "`")
		return nil
	case "db":
		if err := w.Columns([]Column{{Name: "db"}}); err != nil {
			return err
		}
		return w.Row([][]byte{[]byte(s.db)})
	case "block":
		<-ctx.Done()
		return ctx.Err()
	case "set", "ok":
		return w.OK(OKResult{AffectedRows: 3})
	}
	return Errorf(CodeSyntax, "unknown command %q", f[0])
}

func startServer(t *testing.T, password string) (*Server, *int, *sync.Mutex) {
	t.Helper()
	var mu sync.Mutex
	closed := 0
	srv, err := Listen(Config{
		Addr:         "127.0.0.1:0",
		RootPassword: password,
		NewSession: func(ConnInfo) (Session, error) {
			return &scriptSession{mu: &mu, closed: &closed}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close() })
	return srv, &closed, &mu
}

func openDB(tb testing.TB, srv *Server) *sql.DB {
	tb.Helper()
	d := open(tb, srv, "root", "", "")
	return d
}

func open(t testing.TB, srv *Server, user, password, db string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, password, "tcp", srv.Addr().String(), db
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(c)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestAuth(t *testing.T) {
	srv, _, _ := startServer(t, "s3cret")
	cases := []struct {
		user, pass string
		ok         bool
	}{
		{"root", "s3cret", true},
		{"root", "wrong", false},
		{"root", "", false},
		{"bob", "s3cret", false},
	}
	for _, c := range cases {
		err := open(t, srv, c.user, c.pass, "").Ping()
		if c.ok != (err == nil) {
			t.Errorf("%s/%s: ping err = %v", c.user, c.pass, err)
		}
		var me *mysql.MySQLError
		if err != nil && (!errors.As(err, &me) || me.Number != 1045) {
			t.Errorf("%s/%s: want 1045, got %v", c.user, c.pass, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("password leaked in error: %v", err)
		}
	}
	srv2, _, _ := startServer(t, "")
	if err := open(t, srv2, "root", "", "").Ping(); err != nil {
		t.Errorf("empty password: %v", err)
	}
}

func TestStreamingRowsAndNulls(t *testing.T) {
	srv, _, _ := startServer(t, "")
	db := open(t, srv, "root", "", "")
	rows, err := db.Query("rows 5000")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var i int64
		var s string
		var z sql.NullInt64
		if err := rows.Scan(&i, &s, &z); err != nil {
			t.Fatal(err)
		}
		if i != int64(n) || s != fmt.Sprintf("row-%d", n) || z.Valid {
			t.Fatalf("row %d = %d %q %v", n, i, s, z)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 5000 {
		t.Fatalf("rows = %d, err %v", n, err)
	}
	res, err := db.Exec("ok")
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := res.RowsAffected(); a != 3 {
		t.Errorf("affected = %d", a)
	}
}

func TestErrorTable(t *testing.T) {
	srv, _, _ := startServer(t, "")
	db := open(t, srv, "root", "", "")
	cases := []struct {
		code  Code
		num   uint16
		state string
	}{
		{CodeSyntax, 1064, "42000"},
		{CodeUnknownDB, 1049, "42000"},
		{CodeUnknownTable, 1146, "42S02"},
		{CodeUnknownColumn, 1054, "42S22"},
		{CodeUnknownVariable, 1193, "HY000"},
		{CodeWrongValueForVar, 1231, "42000"},
		{CodeAnalysis, 1105, "HY000"},
		{CodeNotSupported, 1235, "42000"},
	}
	for _, c := range cases {
		_, err := db.Exec(fmt.Sprintf("err %d", c.code))
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Fatalf("code %d: %v", c.code, err)
		}
		if me.Number != c.num || string(me.SQLState[:]) != c.state {
			t.Errorf("code %d: got %d/%s, want %d/%s", c.code, me.Number, me.SQLState, c.num, c.state)
		}
		want := fmt.Sprintf("errCode = 2, detailMessage = scripted failure %d", c.code)
		if me.Message != want {
			t.Errorf("message %q, want %q", me.Message, want)
		}
	}
}

func TestPanicCostsOnlyThatConnection(t *testing.T) {
	srv, closed, mu := startServer(t, "")
	db := open(t, srv, "root", "", "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := open(t, srv, "root", "", "")
	if err := other.Ping(); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.ExecContext(ctx, "panic"); err == nil {
		t.Fatal("panic statement succeeded")
	}
	c1.Close()
	// The other connection still works, and so does a fresh one.
	var s string
	if err := other.QueryRow("db").Scan(&s); err != nil {
		t.Fatalf("other connection after panic: %v", err)
	}
	// A new connection works too (a fresh pool: the old one may still hold
	// the closed connection until the driver notices).
	if err := open(t, srv, "root", "", "").QueryRow("db").Scan(&s); err != nil {
		t.Fatalf("new connection after panic: %v", err)
	}
	// The panicked connection's goroutine closes its session as it
	// unwinds, which may finish after the client saw the error.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := *closed
		mu.Unlock()
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("session of the panicked connection was not closed")
			break
		}
	}
}

func TestInitDBAndPing(t *testing.T) {
	srv, _, _ := startServer(t, "")
	db := open(t, srv, "root", "", "ctl.db1")
	var s string
	if err := db.QueryRow("db").Scan(&s); err != nil || s != "ctl.db1" {
		t.Fatalf("db = %q, %v", s, err)
	}
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestCancel(t *testing.T) {
	srv, _, _ := startServer(t, "")
	db := open(t, srv, "root", "", "")
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec("block")
		done <- err
	}()
	// Cancel whichever connection is blocked until the statement returns.
	for {
		select {
		case err := <-done:
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1317 {
				t.Fatalf("cancelled statement: %v", err)
			}
			return
		default:
		}
		srv.mu.Lock()
		for id, c := range srv.conns {
			if c.cancel != nil {
				srv.mu.Unlock()
				srv.Cancel(id)
				srv.mu.Lock()
			}
		}
		srv.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}
