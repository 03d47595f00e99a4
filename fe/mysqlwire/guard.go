package mysqlwire

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vitess.io/vitess/go/mysql"
	vtlog "vitess.io/vitess/go/vt/log"
	"vitess.io/vitess/go/vt/vtenv"
)

// Defaults of the connection limits in Config.
const (
	// DefaultHandshakeTimeout bounds the time from accept to a successful
	// login (MySQL's connect_timeout is 10 s).
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultMaxConnections is Doris' qe_max_connection.
	DefaultMaxConnections = 1024
	// DefaultMaxPreAuthPerHost is the share of one host in connections
	// that have not logged in yet.
	DefaultMaxPreAuthPerHost = 64
)

// MySQL error numbers answered below vitess.
const (
	erConCount         = 1040 // ER_CON_COUNT_ERROR
	erUnknownStmt      = 1243 // ER_UNKNOWN_STMT_HANDLER
	erParse            = 1064 // ER_PARSE_ERROR
	erHandshake        = 1043 // ER_HANDSHAKE_ERROR
	comQuery           = 0x03
	comStmtPrepare     = 0x16
	comStmtExecute     = 0x17
	comStmtReset       = 0x1a
	maxPacketPayload   = 1<<24 - 1
	guardReadBufferLen = 16 << 10
)

// guardListener counts connections, refuses those past the cap with MySQL's
// "Too many connections" and gives the rest a handshake deadline.
type guardListener struct {
	net.Listener
	s *Server
}

func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if n := l.s.open.Add(1); int(n) > l.s.maxConns {
			l.s.open.Add(-1)
			// As MySQL does: an ERR packet instead of the handshake.
			go func() {
				c.SetWriteDeadline(time.Now().Add(time.Second))
				writeErrPacket(c, 0, erConCount, "08004", "Too many connections")
				c.Close()
			}()
			l.s.refused.Add(1)
			continue
		}
		c.SetReadDeadline(time.Now().Add(l.s.handshakeTimeout))
		g := &guardConn{Conn: c, s: l.s, r: bufio.NewReaderSize(c, guardReadBufferLen), host: hostOf(c.RemoteAddr())}
		l.s.enterPreAuth(g)
		return g, nil
	}
}

// enterPreAuth counts g among its host's connections not logged in yet;
// past the host's share the oldest of them is closed (its handshake then
// fails and vitess ends it as any dropped client).
func (s *Server) enterPreAuth(g *guardConn) {
	s.preMu.Lock()
	l := s.preAuth[g.host]
	var evict *guardConn
	if len(l) >= s.maxPre {
		evict, l = l[0], l[1:]
		s.preEvicted.Add(1)
	}
	s.preAuth[g.host] = append(l, g)
	s.preMu.Unlock()
	if evict != nil {
		evict.Conn.Close()
	}
}

// leavePreAuth uncounts g once it logged in or closed.
func (s *Server) leavePreAuth(g *guardConn) {
	s.preMu.Lock()
	defer s.preMu.Unlock()
	l := s.preAuth[g.host]
	for i, c := range l {
		if c == g {
			l = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(s.preAuth, g.host)
	} else {
		s.preAuth[g.host] = l
	}
}

// guardConn sits between the socket and vitess. It hands vitess whole
// client packets and answers, by itself, the few commands that would make
// vitess panic (a COM_QUERY or COM_STMT_PREPARE its statement splitter
// cannot handle; a COM_STMT_RESET for an unknown statement), so they cost
// an error reply instead of the connection.
//
// Read and the handler callbacks that set mc and ready all run on the
// connection's goroutine, and vitess writes only on that goroutine, which is
// blocked in Read when guardConn writes a reply: no locking is needed.
type guardConn struct {
	net.Conn
	s       *Server
	r       *bufio.Reader
	mc      *mysql.Conn // set by handler.NewConnection
	ready   bool        // logged in (handler.ConnectionReady)
	hello   bool        // the handshake response has been checked
	pending []byte      // the rest of a packet vitess has not read yet
	once    sync.Once
	host    string // the client's host, for its pre-login share

	// TLS (tls.go): the encrypted connection once the client asked for it,
	// whether vitess' greeting went out, and the state of shifting the
	// sequence numbers of the packets vitess writes before login.
	tls     *tls.Conn
	greeted bool
	wbuf    []byte
	outHdr  []byte
	outLeft int
}

func (g *guardConn) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		pkt, err := g.readPacket()
		if err != nil {
			return 0, err
		}
		if g.tls != nil && !g.ready && pkt[3] > 0 {
			pkt[3]-- // vitess never saw the SSLRequest (tls.go)
		}
		if g.answer(pkt) {
			continue
		}
		g.pending = pkt
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// readPacket reads one packet, header included.
func (g *guardConn) readPacket() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(g.r, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	pkt := make([]byte, 4+n)
	copy(pkt, h[:])
	if _, err := io.ReadFull(g.r, pkt[4:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return pkt, nil
}

// answer replies to a command vitess must not see and reports whether it
// did. Only the first packet of a command (sequence 0) of a logged-in
// connection is looked at.
func (g *guardConn) answer(pkt []byte) bool {
	if !g.ready && !g.hello && pkt[3] == 1 && g.tls == nil && g.s.cfg.TLSConfig != nil && isSSLRequest(pkt[4:]) {
		if err := g.startTLS(); err != nil {
			g.s.log.Debug("TLS handshake failed", "remote", g.RemoteAddr().String(), "err", err)
			g.Conn.Close()
		}
		return true
	}
	if !g.ready && !g.hello && pkt[3] == 1 {
		// vitess' parser of the handshake response indexes past the end of
		// a truncated packet and trusts length prefixes; it must only see
		// one that is whole.
		g.hello = true
		if err := checkHandshakeResponse(pkt[4:]); err != nil {
			g.s.log.Debug("bad handshake response", "remote", g.RemoteAddr().String(), "err", err)
			writeErrPacket(g, 2, erHandshake, "08S01", "Bad handshake")
			g.Conn.Close()
			return true
		}
		return false
	}
	if !g.ready || g.mc == nil || pkt[3] != 0 || len(pkt) < 5 {
		return false
	}
	payload := pkt[4:]
	switch payload[0] {
	case comStatistics:
		g.writePacket(1, []byte(g.s.statistics()))
		return true
	case comStmtReset:
		var id uint32
		ok := len(payload) >= 5
		if ok {
			id = binary.LittleEndian.Uint32(payload[1:5])
			_, ok = g.mc.PrepareData[id]
		}
		if !ok {
			g.reply(erUnknownStmt, "HY000", fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_reset", id))
			return true
		}
	case comStmtExecute:
		if st, ok := g.stmtParams(payload); ok {
			unsignedParamFlags(payload, st)
		}
	case comQuery, comStmtPrepare:
		if g.mc.Capabilities&mysql.CapabilityClientMultiStatements == 0 || len(payload) == maxPacketPayload {
			return false // not split (or too long to be whole in one packet)
		}
		if !splits(g.s.env, string(payload[1:])) {
			g.reply(erParse, "42000", "Syntax error: the text cannot be split into statements (check quotes and backslash escapes)")
			return true
		}
	}
	return false
}

// Capability bits checkHandshakeResponse reads.
const (
	capClientConnectWithDB = 1 << 3
	capClientProtocol41    = 1 << 9
	capClientSecureConn    = 1 << 15
	capClientPluginAuth    = 1 << 19
	capClientConnAttr      = 1 << 20
	capClientLenencAuth    = 1 << 21
)

// checkHandshakeResponse checks that every field of a HandshakeResponse41
// the client's capabilities announce lies within the packet, so that the
// parser after it cannot read out of bounds.
func checkHandshakeResponse(p []byte) error {
	if len(p) == maxPacketPayload {
		return errors.New("handshake response too long")
	}
	if len(p) < 4 {
		return errors.New("no capabilities")
	}
	caps := binary.LittleEndian.Uint32(p)
	if caps&capClientProtocol41 == 0 {
		return nil // refused as pre-4.1 right after, before any other field is read
	}
	const fixed = 4 + 4 + 1 + 23 // capabilities, max packet, charset, reserved
	if len(p) < fixed {
		return errors.New("truncated before the user name")
	}
	r := p[fixed:]
	nullString := func(what string) error {
		i := bytes.IndexByte(r, 0)
		if i < 0 {
			return fmt.Errorf("%s is not terminated", what)
		}
		r = r[i+1:]
		return nil
	}
	lenenc := func(what string) error {
		n, w, ok := readLenEnc(r)
		if !ok || n > uint64(len(r)-w) {
			return fmt.Errorf("%s length runs past the packet", what)
		}
		r = r[w+int(n):]
		return nil
	}
	if err := nullString("user name"); err != nil {
		return err
	}
	switch {
	case caps&capClientLenencAuth != 0:
		if err := lenenc("auth response"); err != nil {
			return err
		}
	case caps&capClientSecureConn != 0:
		if len(r) < 1 || int(r[0]) > len(r)-1 {
			return errors.New("auth response length runs past the packet")
		}
		r = r[1+int(r[0]):]
	default:
		if err := nullString("auth response"); err != nil {
			return err
		}
	}
	if caps&capClientConnectWithDB != 0 {
		if err := nullString("database name"); err != nil {
			return err
		}
	}
	if caps&capClientPluginAuth != 0 {
		if err := nullString("auth plugin name"); err != nil {
			return err
		}
	}
	if caps&capClientConnAttr != 0 {
		n, w, ok := readLenEnc(r)
		if !ok || n > uint64(len(r)-w) {
			return errors.New("connection attributes run past the packet")
		}
		r = r[w : w+int(n)]
		for len(r) > 0 {
			if err := lenenc("connection attribute"); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLenEnc reads a length-encoded integer: its value and width.
func readLenEnc(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	w := 1
	switch b[0] {
	case 0xfc:
		w = 3
	case 0xfd:
		w = 4
	case 0xfe:
		w = 9
	case 0xfb, 0xff:
		return 0, 0, false
	default:
		return uint64(b[0]), 1, true
	}
	if len(b) < w {
		return 0, 0, false
	}
	var v uint64
	for i := w - 1; i >= 1; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, w, true
}

func (g *guardConn) reply(num uint16, state, msg string) {
	if err := writeErrPacket(g, 1, num, state, msg); err != nil {
		g.Conn.Close()
	}
}

// writePacket sends one packet the guard answers by itself.
func (g *guardConn) writePacket(seq byte, payload []byte) {
	n := len(payload)
	if _, err := g.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)); err != nil {
		g.Conn.Close()
	}
}

// splits reports whether vitess' statement splitter survives q; it panics
// on some unterminated literals (e.g. select '\;x).
func splits(env *vtenv.Environment, q string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	env.Parser().SplitStatementToPieces(q)
	return true
}

// watchHangup cancels a running statement when its client goes away:
// nothing reads the socket while a statement runs, so without it a
// statement that writes nothing until its end (an aggregate, a sort) would
// run on after a disconnect. It peeks (never consumes) on the socket; stop,
// called before vitess reads again, ends the peek with a deadline and waits
// for it. A client that sends its next command early just ends the watch.
func (g *guardConn) watchHangup(cancel func()) (stop func()) {
	if !g.ready || len(g.pending) > 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := g.r.Peek(1)
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			cancel() // EOF or reset: the client is gone
		}
	}()
	return func() {
		g.Conn.SetReadDeadline(time.Now())
		<-done
		g.Conn.SetReadDeadline(time.Time{})
	}
}

func (g *guardConn) Close() error {
	g.once.Do(func() {
		g.s.open.Add(-1)
		g.s.leavePreAuth(g)
	})
	return g.Conn.Close()
}

// writeErrPacket writes a MySQL ERR packet with sequence number seq.
func writeErrPacket(w io.Writer, seq byte, num uint16, state, msg string) error {
	payload := make([]byte, 0, 9+len(msg))
	payload = append(payload, 0xff, byte(num), byte(num>>8), '#')
	payload = append(payload, state[:5]...)
	payload = append(payload, msg...)
	n := len(payload)
	pkt := append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
	_, err := w.Write(pkt)
	return err
}

// quietVitessAuthWarnings drops vitess' per-failure "Error authenticating
// user" warning: vitess logs through a process-wide logger, and one line per
// failed login lets a client flood the log. loginguard logs instead.
var quietVitessAuthWarnings = sync.OnceFunc(func() {
	warn := vtlog.Warn
	vtlog.Warn = func(msg string, attrs ...slog.Attr) {
		if strings.HasPrefix(msg, "Error authenticating user") {
			return
		}
		warn(msg, attrs...)
	}
})

// connCounters are the guard's figures, for tests and metrics.
type connCounters struct {
	open    atomic.Int64
	refused atomic.Int64
	// preEvicted counts connections closed before login to make room for a
	// newer one of the same host.
	preEvicted atomic.Int64
	// questions counts the statements run (COM_STATISTICS reports it).
	questions atomic.Int64
	started   time.Time
}

// stmtParams returns the placeholder count of the statement a
// COM_STMT_EXECUTE names, if it is known.
func (g *guardConn) stmtParams(payload []byte) (int, bool) {
	if len(payload) < 5 {
		return 0, false
	}
	prep, ok := g.mc.PrepareData[binary.LittleEndian.Uint32(payload[1:5])]
	if !ok || prep.ParamsCount == 0 {
		return 0, false
	}
	return int(prep.ParamsCount), true
}

// unsignedParamFlags rewrites, in place, the flag byte of each parameter
// type of a COM_STMT_EXECUTE for vitess. The protocol marks an unsigned
// parameter with 0x80 in that byte, but vitess reads it as a column-flag
// word (UNSIGNED is 0x20 there, 0x80 means BINARY), so a BIGINT UNSIGNED
// argument such as 18446744073709551615 would arrive as -1.
//
// Layout: 0x17, stmt id (4), cursor flags (1), iteration count (4), NULL
// bitmap ((n+7)/8), new-params-bound flag (1), then n (type, flags) pairs.
func unsignedParamFlags(payload []byte, n int) {
	pos := 1 + 4 + 1 + 4 + (n+7)/8
	if pos >= len(payload) || payload[pos] != 1 {
		return // types not sent: the previous execution's stand
	}
	pos++
	if pos+2*n > len(payload) {
		return // short packet: vitess' parser reports it
	}
	for i := 0; i < n; i++ {
		f := &payload[pos+2*i+1]
		if *f&0x80 != 0 {
			*f = 0x20
		} else {
			*f = 0
		}
	}
}
