package mysqlwire

import (
	"testing"
	"time"
)

// Issue 13: a client that disconnects while its statement runs stops the
// statement within a second, even one that writes nothing until it ends;
// a client that sends its next command early does not.
func TestDisconnectCancelsStatement(t *testing.T) {
	srv, _, _ := startServer(t, "")
	running := func() int {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		n := 0
		for _, c := range srv.conns {
			if c.cancel != nil {
				n++
			}
		}
		return n
	}
	waitFor := func(what string, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: not after 5 s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}

	rc := dialRaw(t, srv.Addr().String(), rawClientBaseCap)
	rc.write(0, append([]byte{comQuery}, "block"...))
	waitFor("statement running", func() bool { return running() == 1 })
	rc.c.Close()
	if d := waitFor("statement stopped after the disconnect", func() bool { return running() == 0 }); d > time.Second {
		t.Fatalf("the statement ran %s after its client went away", d)
	}

	// A statement that returns on its own leaves the connection working,
	// and a command pipelined during a statement is answered after it.
	rc = dialRaw(t, srv.Addr().String(), rawClientBaseCap)
	rc.write(0, append([]byte{comQuery}, "ok"...))
	if _, p := rc.read(); len(p) == 0 || p[0] != 0 {
		t.Fatalf("ok: %q", p)
	}
	rc.write(0, append([]byte{comQuery}, "rows 2"...))
	rc.write(0, []byte{0x0e})
	for eofs := 0; eofs < 2; { // after the column definitions, after the rows
		if _, p := rc.read(); len(p) > 0 && p[0] == 0xfe && len(p) < 9 {
			eofs++
		}
	}
	if _, p := rc.read(); len(p) == 0 || p[0] != 0 {
		t.Fatalf("pipelined ping: %q", p)
	}
	rc.wantAlive()
}
