package mysqlwire

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	vtlog "vitess.io/vitess/go/vt/log"
)

// fuzzSession answers a few commands with bounded results and implements
// Preparer, so fuzzed bytes reach every handler path. It never panics by
// design: any panic recorded during fuzzing is a bug of the wire layer.
type fuzzSession struct{}

func (fuzzSession) Close() {}

func (fuzzSession) Query(ctx context.Context, q string, w ResultWriter) error {
	f := strings.Fields(q)
	if len(f) == 0 {
		return Errorf(CodeSyntax, "empty statement")
	}
	switch strings.ToLower(f[0]) {
	case "rows":
		n := 3
		if len(f) > 1 {
			n, _ = strconv.Atoi(f[1])
		}
		n = max(0, min(n, 100))
		if err := w.Columns([]Column{{Name: "n", Type: TypeBigInt, NotNull: true}, {Name: "s"}}); err != nil {
			return err
		}
		for i := range n {
			if err := w.Row([][]byte{[]byte(strconv.Itoa(i)), nil}); err != nil {
				return err
			}
		}
		return nil
	case "use", "set", "ok":
		return w.OK(OKResult{AffectedRows: 1})
	}
	return Errorf(CodeSyntax, "unknown command %q", f[0])
}

func (fuzzSession) Prepare(ctx context.Context, q string) (int, error) {
	return strings.Count(q, "?"), nil
}

func (fuzzSession) Execute(ctx context.Context, q string, args []any, w ResultWriter) error {
	if err := w.Columns([]Column{{Name: "arg"}}); err != nil {
		return err
	}
	for _, a := range args {
		v := fmt.Append(nil, a)
		if a == nil {
			v = nil
		}
		if err := w.Row([][]byte{v}); err != nil {
			return err
		}
	}
	return nil
}

// panicWatch records the panics the wire layer recovered: vitess logs
// "mysql_server caught panic" through its process-wide logger, the handler
// logs "panic while running a statement" through Config.Logger.
type panicWatch struct {
	mu     sync.Mutex
	panics []string
}

func (p *panicWatch) add(msg string) {
	p.mu.Lock()
	p.panics = append(p.panics, msg)
	p.mu.Unlock()
}

func (p *panicWatch) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.panics
	p.panics = nil
	return out
}

func (p *panicWatch) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicWatch) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panic") {
		p.add(r.Message)
	}
	return nil
}
func (p *panicWatch) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicWatch) WithGroup(string) slog.Handler      { return p }

var watchVitessPanics = sync.OnceValue(func() *panicWatch {
	w := &panicWatch{}
	prev := vtlog.Error
	vtlog.Error = func(msg string, attrs ...slog.Attr) {
		if strings.Contains(msg, "caught panic") {
			w.add(msg)
		}
		prev(msg, attrs...)
	}
	return w
})

// Wire packet builders for the seeds.
func wpkt(seq byte, payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	n := len(p)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, p...)
}

func wcmd(cmd byte, body string) []byte { return wpkt(0, []byte{cmd}, []byte(body)) }

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// handshakeResponse is a HandshakeResponse41 logging in as user with an
// empty password, plus extra bytes (database, attributes).
func handshakeResponse(caps uint32, user string, extra []byte) []byte {
	resp := le32(caps)
	resp = append(resp, le32(1<<24)...)
	resp = append(resp, 45)
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, user+"\x00"...)
	resp = append(resp, 0)
	if caps&capPluginAuth != 0 {
		resp = append(resp, "mysql_native_password\x00"...)
	}
	return append(resp, extra...)
}

// wireSeeds are (caps, login, data) triples: with login the bytes follow a
// successful login; without, they are the client's whole side of the
// handshake, starting with the response to the server's greeting.
func wireSeeds() []struct {
	caps  uint32
	login bool
	data  []byte
} {
	type seed = struct {
		caps  uint32
		login bool
		data  []byte
	}
	const base = rawClientBaseCap
	stmtExec := wpkt(0, []byte{0x17}, le32(1), []byte{0}, le32(1),
		[]byte{0},            // null bitmap of 2 params
		[]byte{1},            // new params bound
		[]byte{8, 0, 253, 0}, // LONGLONG, VAR_STRING
		binary.LittleEndian.AppendUint64(nil, 42), []byte{3}, []byte("abc"))
	var out []seed
	for _, d := range [][]byte{
		wcmd(0x03, "rows 3"),
		wcmd(0x03, "select '\\;x"),
		wcmd(0x03, "nonsense; rows 1"),
		wcmd(0x03, ""),
		append(wcmd(0x16, "select ?, ?"), stmtExec...),
		bytes.Join([][]byte{wcmd(0x16, "select ?, ?"), wpkt(0, []byte{0x18}, le32(1), []byte{0, 0}, []byte("long")), stmtExec}, nil),
		append(wcmd(0x16, "select ?"), wpkt(0, []byte{0x1a}, le32(1))...),
		append(wcmd(0x16, "select ?"), wpkt(0, []byte{0x19}, le32(1))...),
		wpkt(0, []byte{0x1a}, le32(99)),
		wpkt(0, []byte{0x19}, le32(7)),
		wpkt(0, []byte{0x17}, le32(7), []byte{0}, le32(1)),
		wpkt(0, []byte{0x17}, le32(1)),
		wpkt(0, []byte{0x18}, le32(3)),
		wcmd(0x04, "t\x00"),
		wcmd(0x04, ""),
		wcmd(0x02, "db1"),
		wcmd(0x02, "\xff\xfe"),
		wcmd(0x0e, ""),
		wcmd(0x01, ""),
		wcmd(0x09, ""),
		wcmd(0x1b, "\x00\x00"),
		wcmd(0x1f, ""),
		wcmd(0x11, "root\x00\x00"),
		wcmd(0xff, "x"),
		append([]byte{100, 0, 0, 0, 0x03}, "rows"...),       // length beyond the data
		append([]byte{1, 0, 0, 7, 0x0e}, wcmd(0x0e, "")...), // out-of-order sequence id
		{0, 0, 0, 0},                                        // empty packet
		{0xff, 0xff, 0xff, 0, 0x03, 'r'},                    // a max-length packet cut short
		bytes.Repeat(wcmd(0x0e, ""), 20),
	} {
		out = append(out, seed{base, true, d}, seed{base | capMultiStmts, true, d})
	}
	for _, d := range [][]byte{
		wpkt(1, handshakeResponse(base, "root", nil)),
		append(wpkt(1, handshakeResponse(base, "root", nil)), wcmd(0x03, "rows 2")...),
		wpkt(1, handshakeResponse(base|1<<3, "root", []byte("db1\x00"))),             // CLIENT_CONNECT_WITH_DB
		wpkt(1, handshakeResponse(base|1<<20, "root", []byte{0x20, 1, 'k', 1, 'v'})), // connect attributes, lengths wrong
		wpkt(1, handshakeResponse(base|1<<21, "root", nil)),                          // lenenc auth data
		wpkt(1, handshakeResponse(base|1<<11, "root", nil)),                          // asks for TLS
		wpkt(1, handshakeResponse(base, "nobody", nil)),
		wpkt(1, handshakeResponse(base, "root", nil)[:20]),
		wpkt(1, le32(0)),
		wpkt(0, handshakeResponse(base, "root", nil)),
		{5, 0, 0, 1, 0},
		nil,
	} {
		out = append(out, seed{0, false, d})
	}
	return out
}

// FuzzWire drives a real server over loopback TCP with arbitrary client
// bytes, either as the whole handshake (login false) or after a valid login
// with capabilities caps (login true), then half-closes. Whatever the bytes:
// nothing panics (not even a panic vitess or the handler would recover),
// the connection ends and its goroutines return, and another connection,
// open all along, keeps being served.
//
// INLET_WRITE_WIRE_SEEDS=1 rewrites testdata/fuzz/FuzzWire from wireSeeds.
func FuzzWire(f *testing.F) {
	seeds := wireSeeds()
	for _, s := range seeds {
		f.Add(s.caps, s.login, s.data)
	}
	if os.Getenv("INLET_WRITE_WIRE_SEEDS") != "" {
		writeWireSeeds(f, seeds)
	}
	watch := watchVitessPanics()
	srv, err := Listen(Config{
		Addr:             "127.0.0.1:0",
		NewSession:       func(ConnInfo) (Session, error) { return fuzzSession{}, nil },
		Logger:           slog.New(watch),
		HandshakeTimeout: 5 * time.Second,
	})
	if err != nil {
		f.Fatal(err)
	}
	go srv.Serve()
	f.Cleanup(func() { srv.Close() })
	other := openDB(f, srv)
	other.SetMaxOpenConns(1)
	if err := other.Ping(); err != nil {
		f.Fatal(err)
	}
	addr := srv.Addr().String()

	f.Fuzz(func(t *testing.T, caps uint32, login bool, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if login {
			// TLS and compression change the framing; everything else is
			// the fuzzer's choice.
			caps = (caps | capProtocol41) &^ (1<<11 | 1<<5)
			if !fuzzLogin(c, caps) {
				return
			}
		} else if _, _, err := readWirePacket(c); err != nil {
			t.Fatalf("greeting: %v", err)
		}
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
		// The server must end the connection: it has read EOF.
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("the server did not close the connection after EOF: %v", err)
		}
		c.Close()

		// Only the other connection's goroutine may remain.
		deadline := time.Now().Add(5 * time.Second)
		for srv.open.Load() != 1 || connGoroutines() != 1 {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("connection goroutines did not return: %d open, %d serving\n%s",
					srv.open.Load(), connGoroutines(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(time.Millisecond)
		}
		if p := watch.take(); len(p) > 0 {
			t.Fatalf("the wire layer panicked: %s", p[0])
		}
		var n int
		var s sql.NullString
		if err := other.QueryRow("rows 5").Scan(&n, &s); err != nil || n != 0 || s.Valid {
			t.Fatalf("the other connection is no longer served: %d, %v, %v", n, s, err)
		}
	})
}

// connGoroutines counts the goroutines serving a connection.
func connGoroutines() int {
	buf := make([]byte, 1<<20)
	return bytes.Count(buf[:runtime.Stack(buf, true)], []byte("mysql.(*Listener).handle("))
}

// fuzzLogin logs in as root with an empty password; false if the server
// refused (the fuzzed capabilities may make it).
func fuzzLogin(c net.Conn, caps uint32) bool {
	if _, _, err := readWirePacket(c); err != nil {
		return false
	}
	if _, err := c.Write(wpkt(1, handshakeResponse(caps, "root", nil))); err != nil {
		return false
	}
	seq, p, err := readWirePacket(c)
	if err == nil && len(p) > 0 && p[0] == 0xfe {
		if _, err := c.Write(wpkt(seq+1, nil)); err != nil {
			return false
		}
		_, p, err = readWirePacket(c)
	}
	return err == nil && len(p) > 0 && p[0] == 0
}

// readWirePacket reads one packet: its sequence id and payload.
func readWirePacket(r io.Reader) (byte, []byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(r, p)
	return h[3], p, err
}

func writeWireSeeds(f *testing.F, seeds []struct {
	caps  uint32
	login bool
	data  []byte
}) {
	dir := filepath.Join("testdata", "fuzz", "FuzzWire")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	for i, s := range seeds {
		body := fmt.Sprintf("go test fuzz v1\nuint32(%d)\nbool(%t)\n[]byte(%q)\n", s.caps, s.login, s.data)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
}
