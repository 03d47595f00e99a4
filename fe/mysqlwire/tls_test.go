package mysqlwire

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/testcert"
)

// tlsServer starts a server with a fresh self-signed certificate and
// returns it with a client TLS config that trusts it.
func tlsServer(t *testing.T) (*Server, *tls.Config) {
	t.Helper()
	c, err := testcert.New()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	closed := 0
	srv, err := Listen(Config{Addr: "127.0.0.1:0",
		TLSConfig:  &tls.Config{Certificates: []tls.Certificate{c.Pair}},
		NewSession: func(ConnInfo) (Session, error) { return &scriptSession{mu: &mu, closed: &closed}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close() })
	return srv, c.ClientConfig()
}

func tlsOpen(t *testing.T, srv *Server, tc *tls.Config, multi bool) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.TLS, cfg.MultiStatements = "root", "tcp", srv.Addr().String(), tc, multi
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Over TLS the guard still sees every command: a statement vitess' splitter
// would panic on is a clean 1064, and a client
// that goes away mid-statement stops it within a second.
func TestGuardOverTLS(t *testing.T) {
	srv, tc := tlsServer(t)
	db := tlsOpen(t, srv, tc, true)
	var n, s string
	var z sql.NullString
	if err := db.QueryRow("rows 1").Scan(&n, &s, &z); err != nil || s != "row-0" {
		t.Fatalf("rows 1 over TLS: %q, %v", s, err)
	}
	_, err := db.Exec(`select '\;x`)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1064 || !strings.Contains(me.Message, "split") {
		t.Fatalf("unsplittable statement over TLS: %v", err)
	}
	if err := db.QueryRow("rows 1").Scan(&n, &s, &z); err != nil {
		t.Fatalf("after the refused statement: %v", err)
	}

	running := func() int {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		k := 0
		for _, c := range srv.conns {
			if c.cancel != nil {
				k++
			}
		}
		return k
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := tlsOpen(t, srv, tc, false).ExecContext(ctx, "block"); done <- err }()
	for start := time.Now(); running() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("block did not start")
		}
	}
	cancel() // go-sql-driver closes the connection
	<-done
	for start := time.Now(); running() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > time.Second {
			t.Fatal("the statement ran on after its TLS client went away")
		}
	}
}
