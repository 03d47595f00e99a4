package mysqlwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/loginguard"
)

func startLimited(t *testing.T, cfg Config) *Server {
	t.Helper()
	var mu sync.Mutex
	closed := 0
	cfg.Addr = "127.0.0.1:0"
	cfg.NewSession = func(ConnInfo) (Session, error) { return &scriptSession{mu: &mu, closed: &closed}, nil }
	srv, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestHandshakeTimeout: a client that connects and never logs in is
// disconnected after HandshakeTimeout; a logged-in idle client is not.
func TestHandshakeTimeout(t *testing.T) {
	srv := startLimited(t, Config{HandshakeTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	_, err = io.Copy(io.Discard, c) // the handshake, then EOF when the server gives up
	if err != nil {
		t.Fatalf("server did not close the silent connection: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("closed after %v", d)
	}
	if n := srv.open.Load(); n != 0 {
		t.Errorf("open connections = %d after the timeout", n)
	}

	db := openDB(t, srv)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	time.Sleep(600 * time.Millisecond) // idle past the handshake timeout
	if err := conn.PingContext(context.Background()); err != nil {
		t.Fatalf("logged-in connection dropped while idle: %v", err)
	}
}

// TestMaxConnections: past MaxConnections a client gets error 1040 Too many
// connections, logged in or not; closing one makes room again.
func TestMaxConnections(t *testing.T) {
	srv := startLimited(t, Config{MaxConnections: 2})
	// Two connections, not logged in, take both places.
	var raws []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var h [4]byte
		if _, err := io.ReadFull(c, h[:]); err != nil { // the handshake arrived
			t.Fatal(err)
		}
		raws = append(raws, c)
	}
	err := openDB(t, srv).Ping()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1040 {
		t.Fatalf("third connection: want error 1040, got %v", err)
	}
	raws[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.open.Load() > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := openDB(t, srv).Ping(); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	if srv.refused.Load() == 0 {
		t.Error("refused counter not incremented")
	}
}

// syncBuffer is a log sink safe for concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFailedLoginsThrottled: after a few failures the wrong answers to a
// (user, host) are spaced out (so guessing is slow whatever the number of connections),
// one warning is logged for the host rather than one per failure, and the
// right password still gets in and clears the host.
func TestFailedLoginsThrottled(t *testing.T) {
	var logs syncBuffer
	srv := startLimited(t, Config{RootPassword: "s3cret", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv.throttle.Delay = 100 * time.Millisecond
	const attempts = loginguard.FreeFailures + 10
	start := time.Now()
	var wg sync.WaitGroup
	for range attempts { // in parallel: the throttle is per host, not per connection
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := open(t, srv, "root", "wrong", "").Ping()
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1045 {
				t.Errorf("want 1045, got %v", err)
			}
		}()
	}
	wg.Wait()
	// At least attempts-loginFreeFailures-1 gaps of delay between throttled attempts.
	if d, min := time.Since(start), time.Duration(attempts-loginguard.FreeFailures-1)*srv.throttle.Delay; d < min {
		t.Errorf("%d failed logins took %v, want at least %v", attempts, d, min)
	}
	if n := strings.Count(logs.String(), "repeated failed logins"); n != 1 {
		t.Errorf("%d throttle warnings, want 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "s3cret") || strings.Contains(logs.String(), "wrong") {
		t.Errorf("a password in the log:\n%s", logs.String())
	}
	// The right password is never held back, and clears the count.
	rightAt := time.Now()
	if err := open(t, srv, "root", "s3cret", "").Ping(); err != nil {
		t.Fatalf("right password: %v", err)
	}
	if d := time.Since(rightAt); d >= srv.throttle.Delay*5 {
		t.Errorf("the right password took %s", d)
	}
	if n := srv.throttle.Slowed(); n != 0 {
		t.Errorf("%d still slowed after a success", n)
	}
}
