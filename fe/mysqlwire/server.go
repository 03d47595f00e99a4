package mysqlwire

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/inlet-db/inlet/internal/loginguard"
)

// Session runs the statements of one connection.
type Session interface {
	// Query runs one statement and writes its result to w. ctx is cancelled
	// when the statement must stop (connection closed, KILL).
	Query(ctx context.Context, sql string, w ResultWriter) error
	// Close is called once when the connection ends.
	Close()
}

// Preparer is a Session that supports server-side prepared statements
// (COM_STMT_PREPARE / COM_STMT_EXECUTE), as go-sql-driver uses for queries
// with arguments unless interpolateParams is set.
type Preparer interface {
	// Prepare checks a statement with '?' placeholders and returns how many
	// there are.
	Prepare(ctx context.Context, sql string) (params int, err error)
	// Execute runs a prepared statement with one argument per placeholder:
	// nil, int64, uint64, float64 or string.
	Execute(ctx context.Context, sql string, args []any, w ResultWriter) error
}

// ConnInfo describes a new connection.
type ConnInfo struct {
	ID     uint32
	User   string
	Remote string
}

// Config configures a Server.
type Config struct {
	// Addr is the TCP address to listen on ("127.0.0.1:9030", ":0"), unless
	// Listener is set.
	Addr     string
	Listener net.Listener
	// RootPassword is the password of the root user; empty allows root
	// without a password. It is never logged. Ignored when Users is set.
	RootPassword string
	// Users looks up the accounts allowed to log in (root included); nil
	// means root alone, with RootPassword.
	Users Users
	// ServerVersion is announced in the handshake; Doris says 5.7.99.
	ServerVersion string
	// NewSession makes the session of a connection after authentication.
	NewSession func(ConnInfo) (Session, error)
	// Logger receives connection-level events; nil discards them.
	Logger *slog.Logger
	// HandshakeTimeout bounds the time from accept to a successful login;
	// 0 means DefaultHandshakeTimeout. A client that has not logged in by
	// then is disconnected.
	HandshakeTimeout time.Duration
	// MaxConnections caps open connections, logged in or not; past it a
	// client gets error 1040 "Too many connections". 0 means
	// DefaultMaxConnections.
	MaxConnections int
	// MaxPreAuthPerHost caps the connections of one client host that have
	// not logged in yet; 0 means DefaultMaxPreAuthPerHost. Past it the
	// host's oldest such connection is closed to make room, so a client
	// holding sockets open without logging in can neither fill
	// MaxConnections nor keep that host's real logins out: a login needs
	// its socket only for the few milliseconds of the handshake.
	MaxPreAuthPerHost int
	// TLSConfig, when set, lets clients switch to TLS (CLIENT_SSL); users
	// whose account requires SSL can only log in over it (tls.go).
	TLSConfig *tls.Config
	// LoginGuard slows password guessing per (user, host); share one with
	// the server's other password checks (Stream Load). Nil makes one.
	LoginGuard *loginguard.Guard
}

// Server is a running MySQL protocol listener.
type Server struct {
	cfg      Config
	log      *slog.Logger
	listener *mysql.Listener
	env      *vtenv.Environment

	mu      sync.Mutex
	conns   map[uint32]*connState
	serving chan struct{}

	connCounters
	throttle         *loginguard.Guard
	maxConns         int
	handshakeTimeout time.Duration

	// preAuth holds, per client host, its connections not logged in yet,
	// oldest first (guard.go).
	preMu   sync.Mutex
	preAuth map[string][]*guardConn
	maxPre  int
}

type connState struct {
	sess   Session
	cancel context.CancelFunc // of the running statement, nil when idle
	raw    net.Conn           // the socket, which Kill closes
}

// Listen opens the listener. Call Serve to accept connections.
func Listen(cfg Config) (*Server, error) {
	if cfg.NewSession == nil {
		return nil, errors.New("mysqlwire: Config.NewSession is required")
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = "5.7.99"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return nil, fmt.Errorf("mysqlwire: %w", err)
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.MaxPreAuthPerHost <= 0 {
		cfg.MaxPreAuthPerHost = DefaultMaxPreAuthPerHost
	}
	quietVitessAuthWarnings()
	s := &Server{cfg: cfg, log: log, env: env, conns: make(map[uint32]*connState), serving: make(chan struct{}),
		maxConns: cfg.MaxConnections, handshakeTimeout: cfg.HandshakeTimeout,
		throttle: cfg.LoginGuard, preAuth: make(map[string][]*guardConn), maxPre: cfg.MaxPreAuthPerHost}
	if s.throttle == nil {
		s.throttle = loginguard.New(log)
	}
	s.started = time.Now()
	l := cfg.Listener
	if l == nil {
		l, err = net.Listen("tcp", cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("mysqlwire: listen on %s: %w", cfg.Addr, err)
		}
	}
	ml, err := mysql.NewListenerWithConfig(mysql.ListenerConfig{
		Listener:           &guardListener{Listener: l, s: s},
		AuthServer:         &authServer{password: cfg.RootPassword, users: cfg.Users, throttle: s.throttle},
		Handler:            &handler{s: s},
		ConnReadBufferSize: 16 << 10,
		FlushDelay:         50 * time.Millisecond,
	})
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("mysqlwire: %w", err)
	}
	ml.ServerVersion = cfg.ServerVersion
	s.listener = ml
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// Serve accepts connections until Close.
func (s *Server) Serve() {
	defer close(s.serving)
	s.listener.Accept()
}

// Close stops accepting, cancels running statements and closes connections
// as their statements end.
func (s *Server) Close() error {
	s.listener.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		if c.cancel != nil {
			c.cancel()
		}
	}
	s.mu.Unlock()
	return nil
}

// Cancel cancels the running statement of connection id (KILL QUERY); it
// reports whether the connection exists.
func (s *Server) Cancel(id uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.conns[id]
	if ok && c.cancel != nil {
		c.cancel()
	}
	return ok
}

// Kill ends connection id as MySQL's KILL [CONNECTION] does: its running
// statement is cancelled and its socket closed, so the client's next use
// of the connection fails. It reports whether the connection exists.
func (s *Server) Kill(id uint32) bool {
	s.mu.Lock()
	c, ok := s.conns[id]
	if ok && c.cancel != nil {
		c.cancel()
	}
	s.mu.Unlock()
	if ok && c.raw != nil {
		c.raw.Close()
	}
	return ok
}

type handler struct {
	mysql.UnimplementedHandler
	s *Server
}

func (h *handler) Env() *vtenv.Environment { return h.s.env }

func (h *handler) NewConnection(c *mysql.Conn) {
	if g, ok := c.GetRawConn().(*guardConn); ok {
		g.mc = c
	}
}

// ConnectionReady runs once the client has logged in: the handshake
// deadline no longer applies.
func (h *handler) ConnectionReady(c *mysql.Conn) {
	if g, ok := c.GetRawConn().(*guardConn); ok {
		g.ready = true
		g.Conn.SetReadDeadline(time.Time{})
		h.s.leavePreAuth(g)
	}
	// The session exists from login on, so KILL and SHOW PROCESSLIST see
	// a connection that has not run a statement yet, as in MySQL.
	if _, err := h.session(c); err != nil {
		h.s.log.Debug("session at login", "conn", c.ConnectionID, "err", err)
	}
}

func (h *handler) ConnectionClosed(c *mysql.Conn) {
	h.s.mu.Lock()
	st, ok := h.s.conns[c.ConnectionID]
	delete(h.s.conns, c.ConnectionID)
	h.s.mu.Unlock()
	if ok && st.sess != nil {
		st.sess.Close()
	}
}

// session returns the connection's session, creating it on first use: vitess
// runs the handshake's initial "use db" through ComQuery before
// ConnectionReady, so creation cannot wait for that callback.
func (h *handler) session(c *mysql.Conn) (*connState, error) {
	h.s.mu.Lock()
	st, ok := h.s.conns[c.ConnectionID]
	h.s.mu.Unlock()
	if ok {
		return st, nil
	}
	remote := ""
	if a := c.RemoteAddr(); a != nil {
		remote = a.String()
	}
	sess, err := h.s.cfg.NewSession(ConnInfo{ID: c.ConnectionID, User: c.User, Remote: remote})
	if err != nil {
		return nil, err
	}
	st = &connState{sess: sess, raw: c.GetRawConn()}
	h.s.mu.Lock()
	h.s.conns[c.ConnectionID] = st
	h.s.mu.Unlock()
	return st, nil
}

func (h *handler) ComQuery(c *mysql.Conn, query string, callback func(*sqltypes.Result) error) (err error) {
	return h.run(c, callback, func(ctx context.Context, sess Session, w ResultWriter) error {
		return sess.Query(ctx, query, w)
	})
}

// run gives a statement its context, recovers a panic (closing only this
// connection) and finishes the result.
func (h *handler) run(c *mysql.Conn, callback func(*sqltypes.Result) error, f func(ctx context.Context, sess Session, w ResultWriter) error) (err error) {
	st, err := h.session(c)
	if err != nil {
		return toSQLError(err)
	}
	h.s.questions.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	h.s.mu.Lock()
	st.cancel = cancel
	h.s.mu.Unlock()
	defer func() {
		h.s.mu.Lock()
		st.cancel = nil
		h.s.mu.Unlock()
		cancel()
	}()
	defer func() {
		if x := recover(); x != nil {
			h.s.log.Error("panic while running a statement; closing the connection",
				"conn", c.ConnectionID, "panic", fmt.Sprint(x), "stack", string(debug.Stack()))
			c.MarkForClose()
			err = toSQLError(Errorf(CodeInternal, "internal error: %v", x))
		}
	}()
	if g, ok := c.GetRawConn().(*guardConn); ok {
		defer g.watchHangup(cancel)()
	}
	w := &writer{send: callback}
	if err := f(ctx, st.sess, w); err != nil {
		return toSQLError(err)
	}
	if !w.started && !w.done {
		// A statement that wrote nothing succeeded without rows.
		return w.OK(OKResult{})
	}
	return w.flush()
}

func (h *handler) ComQueryMulti(c *mysql.Conn, sql string, callback func(qr sqltypes.QueryResponse, more bool, firstPacket bool) error) error {
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, sqlerror.SSClientError, "multi-statement queries are not supported")
}

func (h *handler) ComPrepare(c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	st, err := h.session(c)
	if err != nil {
		return nil, 0, toSQLError(err)
	}
	p, ok := st.sess.(Preparer)
	if !ok {
		return nil, 0, toSQLError(Errorf(CodeNotSupported, "prepared statements are not supported; use the text protocol (go-sql-driver: interpolateParams=true)"))
	}
	n, err := p.Prepare(context.Background(), query)
	if err != nil {
		return nil, 0, toSQLError(err)
	}
	if n > 65535 {
		return nil, 0, toSQLError(Errorf(CodeSyntax, "too many placeholders: %d", n))
	}
	return nil, uint16(n), nil
}

func (h *handler) ComStmtExecute(c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	args := make([]any, prepare.ParamsCount)
	for i := range args {
		bv := prepare.BindVars[fmt.Sprintf("v%d", i+1)]
		if bv == nil {
			return toSQLError(Errorf(CodeSyntax, "argument %d of the prepared statement is missing", i+1))
		}
		v, err := argValue(bv)
		if err != nil {
			return toSQLError(Errorf(CodeSyntax, "argument %d: %v", i+1, err))
		}
		args[i] = v
	}
	return h.run(c, callback, func(ctx context.Context, sess Session, w ResultWriter) error {
		p, ok := sess.(Preparer)
		if !ok {
			return Errorf(CodeNotSupported, "prepared statements are not supported")
		}
		return p.Execute(ctx, prepare.PrepareStmt, args, w)
	})
}

// Arguments of COM_STMT_EXECUTE whose MySQL type a string would lose: the
// value is canonical text (a date as YYYY-MM-DD, a datetime as
// YYYY-MM-DD HH:MM:SS[.ffffff], a time as [-]H:MM:SS[.ffffff]).
type (
	Decimal  string
	Date     string
	DateTime string
	Time     string
)

// argValue converts a decoded COM_STMT_EXECUTE argument.
func argValue(bv *querypb.BindVariable) (any, error) {
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return nil, err
	}
	switch {
	case v.IsNull():
		return nil, nil
	case v.IsSigned():
		return v.ToInt64()
	case v.IsUnsigned():
		return v.ToUint64()
	case v.IsFloat():
		return v.ToFloat64()
	}
	switch v.Type() {
	case sqltypes.Decimal:
		return Decimal(v.ToString()), nil
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		return canonicalDateTime(v.Raw(), v.Type() == sqltypes.Date)
	case sqltypes.Time:
		return canonicalTime(v.ToString())
	}
	return v.ToString(), nil
}

// canonicalDateTime pads vitess' rendering of a binary DATE or DATETIME
// argument ("2024-1-5 9:0:0.500000") to the fixed-width form SQL literals
// use, dropping a zero fraction.
func canonicalDateTime(raw []byte, dateOnly bool) (any, error) {
	s := string(raw)
	date, clock, hasClock := strings.Cut(s, " ")
	var y, mo, d int
	if _, err := fmt.Sscanf(date, "%d-%d-%d", &y, &mo, &d); err != nil {
		return nil, fmt.Errorf("bad date argument %q", s)
	}
	out := fmt.Sprintf("%04d-%02d-%02d", y, mo, d)
	if dateOnly {
		return Date(out), nil
	}
	if !hasClock {
		return DateTime(out + " 00:00:00"), nil
	}
	t, err := canonicalTime(clock)
	if err != nil {
		return nil, fmt.Errorf("bad datetime argument %q", s)
	}
	return DateTime(out + " " + string(t.(Time))), nil
}

// canonicalTime pads H:M:S[.f] to HH:MM:SS[.ffffff] (hours may exceed 24 and
// carry a sign, as TIME allows).
func canonicalTime(s string) (any, error) {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	hms, frac, _ := strings.Cut(s, ".")
	var h, m, sec int
	if _, err := fmt.Sscanf(hms, "%d:%d:%d", &h, &m, &sec); err != nil {
		return nil, fmt.Errorf("bad time argument %q", s)
	}
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, sec)
	if frac = strings.TrimRight(frac, "0"); frac != "" {
		out += "." + frac
	}
	return Time(out), nil
}

func (h *handler) ComRegisterReplica(c *mysql.Conn, replicaHost string, replicaPort uint16, replicaUser string, replicaPassword string) error {
	return toSQLError(Errorf(CodeNotSupported, "replication is not supported"))
}

func (h *handler) ComBinlogDump(c *mysql.Conn, logFile string, binlogPos uint32) error {
	return toSQLError(Errorf(CodeNotSupported, "replication is not supported"))
}

func (h *handler) ComBinlogDumpGTID(c *mysql.Conn, logFile string, logPos uint64, gtidSet replication.GTIDSet, flags uint16) error {
	return toSQLError(Errorf(CodeNotSupported, "replication is not supported"))
}

func (h *handler) WarningCount(c *mysql.Conn) uint16 { return 0 }

// authServer accepts the single root user with mysql_native_password.
type authServer struct {
	password string
	users    Users // nil: root alone
	throttle *loginguard.Guard
}

func (a *authServer) AuthMethods() []mysql.AuthMethod {
	return []mysql.AuthMethod{mysql.NewMysqlNativeAuthMethod(a, a)}
}

func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

// HandleUser accepts every name so that unknown users get MySQL's 1045
// "Access denied" from UserEntryWithHash rather than a handshake failure.
func (a *authServer) HandleUser(user string) bool { return true }

func hostOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// UserEntryWithHash checks a login; once the (user, host) has failed
// repeatedly a wrong password is answered only at its turn (loginguard), a
// right one at once.
func (a *authServer) UserEntryWithHash(c *mysql.Conn, salt []byte, user string, authResponse []byte, remote net.Addr) (mysql.Getter, error) {
	host := hostOf(remote)
	var g mysql.Getter
	err := a.throttle.Check(loginguard.MySQL, user, host, func() (err error) {
		g, err = a.check(salt, user, host, authResponse, connTLS(c.GetRawConn()))
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (a *authServer) check(salt []byte, user, host string, authResponse []byte, overTLS bool) (mysql.Getter, error) {
	if a.users != nil {
		return checkUser(a.users, salt, user, host, authResponse, overTLS)
	}
	deny := sqlerror.NewSQLError(sqlerror.ERAccessDeniedError, sqlerror.SSAccessDeniedError,
		fmt.Sprintf("Access denied for user '%s' (using password: %s)", user, yesNo(len(authResponse) > 0)))
	if user != "root" {
		return nil, deny
	}
	if a.password == "" {
		if len(authResponse) == 0 {
			return getter{}, nil
		}
		return nil, deny
	}
	if len(authResponse) == 0 {
		return nil, deny
	}
	h1 := sha1.Sum([]byte(a.password))
	h2 := sha1.Sum(h1[:])
	if !mysql.VerifyHashedMysqlNativePassword(authResponse, salt, h2[:]) {
		return nil, deny
	}
	return getter{}, nil
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

type getter struct{}

func (getter) Get() *querypb.VTGateCallerID { return &querypb.VTGateCallerID{Username: "root"} }

var errProtocolMisuse = errors.New("mysqlwire: result written out of order")

func errRowWidth(got, want int) error {
	return fmt.Errorf("mysqlwire: row has %d values for %d columns", got, want)
}
