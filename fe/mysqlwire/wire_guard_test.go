package mysqlwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// rawClient speaks just enough of the protocol to send commands a driver
// never sends: it logs in as root with an empty password.
type rawClient struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

const (
	capProtocol41    = 1 << 9
	capSecureConn    = 1 << 15
	capMultiStmts    = 1 << 16
	capMultiResults  = 1 << 17
	capPluginAuth    = 1 << 19
	capLongPassword  = 1
	capTransactions  = 1 << 13
	rawClientBaseCap = capLongPassword | capProtocol41 | capSecureConn | capPluginAuth | capTransactions | capMultiResults
)

func dialRaw(t *testing.T, addr string, caps uint32) *rawClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &rawClient{t: t, c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, p := rc.read(); len(p) == 0 || p[0] != 10 {
		t.Fatalf("handshake: %x", p)
	}
	resp := binary.LittleEndian.AppendUint32(nil, caps)
	resp = binary.LittleEndian.AppendUint32(resp, 1<<24)
	resp = append(resp, 45)
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, "root\x00"...)
	resp = append(resp, 0) // empty auth response
	resp = append(resp, "mysql_native_password\x00"...)
	rc.write(1, resp)
	seq, p := rc.read()
	if len(p) > 0 && p[0] == 0xfe { // auth switch: answer with the empty password again
		rc.write(seq+1, nil)
		_, p = rc.read()
	}
	if len(p) == 0 || p[0] != 0 {
		t.Fatalf("login: %x", p)
	}
	return rc
}

func (rc *rawClient) write(seq byte, payload []byte) {
	n := len(payload)
	if _, err := rc.c.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)); err != nil {
		rc.t.Fatal(err)
	}
}

func (rc *rawClient) read() (byte, []byte) {
	rc.t.Helper()
	var h [4]byte
	if _, err := io.ReadFull(rc.r, h[:]); err != nil {
		rc.t.Fatalf("read: %v", err)
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(rc.r, p); err != nil {
		rc.t.Fatalf("read: %v", err)
	}
	return h[3], p
}

// wantErr reads one packet that must be ERR num.
func (rc *rawClient) wantErr(num uint16) string {
	rc.t.Helper()
	_, p := rc.read()
	if len(p) < 9 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:3]) != num {
		rc.t.Fatalf("want ERR %d, got %q", num, p)
	}
	return string(p[9:])
}

// wantAlive checks the connection still answers: COM_PING gets OK.
func (rc *rawClient) wantAlive() {
	rc.t.Helper()
	rc.write(0, []byte{0x0e})
	if _, p := rc.read(); len(p) == 0 || p[0] != 0 {
		rc.t.Fatalf("ping after the error: %q", p)
	}
}

// TestUnsplittableQueryKeepsConnection: a COM_QUERY (or COM_STMT_PREPARE)
// that vitess' statement splitter panics on, sent with
// CLIENT_MULTI_STATEMENTS, gets a syntax error and the connection lives on.
func TestUnsplittableQueryKeepsConnection(t *testing.T) {
	srv, _, _ := startServer(t, "")
	rc := dialRaw(t, srv.Addr().String(), rawClientBaseCap|capMultiStmts)
	for _, cmd := range []byte{0x03, 0x16} {
		rc.write(0, append([]byte{cmd}, `select '\;x`...))
		if msg := rc.wantErr(1064); !strings.Contains(msg, "split") {
			t.Errorf("message %q", msg)
		}
		rc.wantAlive()
	}
	// A statement the splitter handles still runs.
	rc.write(0, append([]byte{0x03}, "rows 1"...))
	if _, p := rc.read(); len(p) != 1 || p[0] != 3 {
		t.Fatalf("rows 1: column count packet %q", p)
	}
}

// TestUnsplittableQueryMariadbCLI: the same through the mariadb CLI, which
// sets CLIENT_MULTI_STATEMENTS: a clean 1064, not a lost connection.
func TestUnsplittableQueryMariadbCLI(t *testing.T) {
	// Under CI=true a missing CLI fails instead of skipping (.ci/run installs it).
	bin := fixtures.Tool(t, "mariadb", "mariadb-client")
	srv, _, _ := startServer(t, "")
	_, port, _ := net.SplitHostPort(srv.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-h127.0.0.1", "-P"+port, "-uroot", "--skip-ssl", "-e", `select '\;x`).CombinedOutput()
	if err == nil {
		t.Fatalf("no error: %s", out)
	}
	if !strings.Contains(string(out), "ERROR 1064") || strings.Contains(string(out), "Lost connection") {
		t.Fatalf("output: %s", out)
	}
}

// TestStmtResetUnknownID: COM_STMT_RESET of a statement that was never
// prepared (or is malformed) is ER_UNKNOWN_STMT_HANDLER; the connection
// lives on, and a real prepared statement still resets.
func TestStmtResetUnknownID(t *testing.T) {
	srv, _, _ := startServer(t, "")
	rc := dialRaw(t, srv.Addr().String(), rawClientBaseCap)
	rc.write(0, []byte{0x1a, 99, 0, 0, 0})
	if msg := rc.wantErr(1243); !strings.Contains(msg, "(99)") {
		t.Errorf("message %q", msg)
	}
	rc.wantAlive()
	rc.write(0, []byte{0x1a, 1}) // too short for a statement id
	rc.wantErr(1243)
	rc.wantAlive()

	// The driver's prepared statements are unaffected.
	db := openDB(t, srv)
	var me *mysql.MySQLError
	if _, err := db.Prepare("rows 1"); err != nil && !errors.As(err, &me) {
		t.Fatalf("prepare: %v", err)
	}
}
