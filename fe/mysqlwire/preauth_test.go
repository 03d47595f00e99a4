package mysqlwire

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestPreAuthShare: one client holding many sockets open without logging in
// must not keep real logins out. Each host may hold MaxPreAuthPerHost
// connections that have not logged in; a newer one closes the host's
// oldest, so 300 silent sockets from this host take at most 64 places of
// the 200 and every one of 20 driver logins from the same host succeeds.
func TestPreAuthShare(t *testing.T) {
	srv := startLimited(t, Config{MaxConnections: 200})
	var raws []net.Conn
	defer func() {
		for _, c := range raws {
			c.Close()
		}
	}()
	buf := make([]byte, 4)
	for range 300 {
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, c)
		// Wait for the greeting (or the close), so the server has taken it.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, _ = c.Read(buf)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.open.Load() > DefaultMaxPreAuthPerHost && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.open.Load(); n > DefaultMaxPreAuthPerHost {
		t.Errorf("%d connections open, want at most %d", n, DefaultMaxPreAuthPerHost)
	}
	db := openDB(t, srv)
	db.SetMaxIdleConns(0)
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err != nil {
			t.Fatalf("login %d: %v", i+1, err)
		}
	}
	if srv.preEvicted.Load() < 300-DefaultMaxPreAuthPerHost {
		t.Errorf("evicted %d", srv.preEvicted.Load())
	}
}
