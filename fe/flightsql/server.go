package flightsql

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/internal/loginguard"
)

// Config configures a Server.
type Config struct {
	// Addr is the TCP address to listen on ("127.0.0.1:8070", ":0").
	Addr string
	// FE runs the statements; its user store and login guard check logins.
	FE *server.Server
	// RootPassword is root's password when FE has no user store.
	RootPassword string
	// Mem allocates the small results built here (SHOW, catalogs).
	Mem    memory.Allocator
	Logger *slog.Logger
	// IdleTimeout drops a session unused this long (0: 8 hours, MySQL's
	// wait_timeout).
	IdleTimeout time.Duration
	// TLSConfig, when set, makes the port TLS-only (cmd/fe --tls-cert), and
	// lets accounts created REQUIRE SSL log in; without it they cannot.
	TLSConfig *tls.Config
}

// Server is a running Flight SQL port.
type Server struct {
	cfg Config
	log *slog.Logger
	fs  flight.Server
	sql *sqlServer

	mu    sync.Mutex
	conns map[string]*conn // by bearer token
	byID  map[uint32]*conn
}

// firstConnID numbers Flight SQL sessions far above the MySQL port's
// connection ids, which count up from 1, so KILL finds the right one.
const firstConnID = 1 << 30

var connIDs atomic.Uint32

// conn is one logged-in client: its token, its FE session and the
// statement it runs.
type conn struct {
	id    uint32
	token string
	user  string
	sess  *server.Session
	log   *slog.Logger
	// mu serializes the session's statements.
	mu sync.Mutex
	// used is when a call last began (unix nanoseconds), for IdleTimeout.
	used atomic.Int64
	// cancel stops the running statement; guarded by runMu.
	runMu   sync.Mutex
	cancel  context.CancelFunc
	running []byte // handle of the running ticket
}

// Listen starts listening; Serve serves.
func Listen(cfg Config) (*Server, error) {
	if cfg.FE == nil {
		return nil, errors.New("flightsql: an FE server is required")
	}
	if cfg.Mem == nil {
		return nil, errors.New("flightsql: an allocator is required")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 8 * time.Hour
	}
	s := &Server{cfg: cfg, log: cfg.Logger, conns: map[string]*conn{}, byID: map[uint32]*conn{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.sql = newSQLServer(s)
	var opts []grpc.ServerOption
	if cfg.TLSConfig != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.TLSConfig)))
	}
	s.fs = flight.NewServerWithMiddleware([]flight.ServerMiddleware{{Unary: s.unaryAuth, Stream: s.streamAuth}}, opts...)
	s.fs.RegisterFlightService(&service{FlightServer: flightsql.NewFlightServerWithAllocator(s.sql, cfg.Mem), s: s})
	if err := s.fs.Init(cfg.Addr); err != nil {
		return nil, err
	}
	cfg.FE.AddCancel(s.Cancel)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.fs.Addr() }

// Serve serves until Close.
func (s *Server) Serve() error { return s.fs.Serve() }

// Close stops serving and closes every session; running statements are
// cancelled first, so their streams end.
func (s *Server) Close() {
	s.mu.Lock()
	for _, c := range s.conns {
		c.stop(nil)
	}
	s.mu.Unlock()
	s.fs.Shutdown()
	s.sql.releaseAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, c := range s.conns {
		c.sess.Close()
		delete(s.conns, t)
		delete(s.byID, c.id)
	}
}

// Cancel cancels the running statement of session id (KILL); it reports
// whether the session exists.
func (s *Server) Cancel(id uint32) bool {
	s.mu.Lock()
	c := s.byID[id]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.stop(nil)
	return true
}

// stop cancels the running statement, only if it is handle's when handle
// is not nil; it reports whether one was cancelled.
func (c *conn) stop(handle []byte) bool {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	if c.cancel == nil || (handle != nil && string(handle) != string(c.running)) {
		return false
	}
	c.cancel()
	return true
}

// begin locks the session for a statement and returns its context, which
// KILL and CancelFlightInfo cancel; end must follow.
func (c *conn) begin(ctx context.Context, handle []byte) (context.Context, func()) {
	c.mu.Lock()
	c.used.Store(time.Now().UnixNano())
	ctx, cancel := context.WithCancel(ctx)
	c.runMu.Lock()
	c.cancel, c.running = cancel, handle
	c.runMu.Unlock()
	return ctx, func() {
		c.runMu.Lock()
		c.cancel, c.running = nil, nil
		c.runMu.Unlock()
		cancel()
		c.mu.Unlock()
	}
}

type connKey struct{}

// connOf is the session of a call that passed the auth middleware.
func connOf(ctx context.Context) (*conn, error) {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil {
		return nil, status.Error(codes.Unauthenticated, "not logged in")
	}
	return c, nil
}

// login checks Basic credentials and opens a session; it returns its token.
func (s *Server) login(ctx context.Context, credential string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(credential)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(credential); err != nil {
			return "", status.Error(codes.Unauthenticated, "malformed basic credentials")
		}
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", status.Error(codes.Unauthenticated, "malformed basic credentials")
	}
	remote := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		remote = p.Addr.String()
	}
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	if err := s.authenticate(user, host, password); err != nil {
		return "", status.Error(codes.Unauthenticated, err.Error())
	}
	id := firstConnID + connIDs.Add(1)
	ms, err := s.cfg.FE.NewSession(mysqlwire.ConnInfo{ID: id, User: user, Remote: remote})
	if err != nil {
		return "", status.Error(codes.Internal, err.Error())
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		ms.Close()
		return "", status.Error(codes.Internal, "no randomness for a token")
	}
	c := &conn{id: id, token: hex.EncodeToString(b[:]), user: user, sess: ms.(*server.Session), log: s.log}
	c.used.Store(time.Now().UnixNano())
	s.mu.Lock()
	s.sweepLocked()
	s.conns[c.token], s.byID[id] = c, c
	s.mu.Unlock()
	s.log.Debug("flight sql login", "user", user, "remote", remote, "conn", id)
	return c.token, nil
}

// authenticate checks a password as the MySQL port does: the user store
// with the shared login guard, and accounts that require SSL refused
// unless this port runs TLS.
func (s *Server) authenticate(user, host, password string) error {
	users := s.cfg.FE.Users()
	if users == nil {
		if user != "root" || password != s.cfg.RootPassword {
			//lint:ignore ST1005 MySQL's wording, as the MySQL port says it
			return fmt.Errorf("Access denied for user '%s'@'%s'", user, host)
		}
		return nil
	}
	return s.cfg.FE.LoginGuard().Check(loginguard.HTTP, user, host, func() error {
		if err := users.Authenticate(user, host, password); err != nil {
			return err
		}
		if s.cfg.TLSConfig == nil && users.RequiresSSL(user, host) {
			//lint:ignore ST1005 MySQL's wording, as the MySQL port says it
			return fmt.Errorf("Access denied for user '%s'@'%s' (using password: YES)", user, host)
		}
		return nil
	})
}

// sweepLocked drops sessions idle past IdleTimeout.
func (s *Server) sweepLocked() {
	cut := time.Now().Add(-s.cfg.IdleTimeout).UnixNano()
	for t, c := range s.conns {
		if c.used.Load() < cut && c.mu.TryLock() {
			c.sess.Close()
			delete(s.conns, t)
			delete(s.byID, c.id)
			c.mu.Unlock()
		}
	}
}

// session finds the session of a bearer token.
func (s *Server) session(token string) (*conn, error) {
	s.mu.Lock()
	c := s.conns[token]
	s.mu.Unlock()
	if c == nil {
		return nil, status.Error(codes.Unauthenticated, "invalid or expired token: log in again")
	}
	return c, nil
}

// authorization returns the scheme and credential of a call's
// Authorization header.
func authorization(ctx context.Context) (string, string) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", ""
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	return scheme, strings.TrimSpace(cred)
}

func (s *Server) bearer(ctx context.Context) (context.Context, error) {
	scheme, cred := authorization(ctx)
	if !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return nil, status.Error(codes.Unauthenticated, "log in first: Handshake with basic auth, then send the bearer token")
	}
	c, err := s.session(cred)
	if err != nil {
		return nil, err
	}
	return context.WithValue(ctx, connKey{}, c), nil
}

func (s *Server) unaryAuth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := s.bearer(ctx)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

type authedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (a *authedStream) Context() context.Context { return a.ctx }

func (s *Server) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasSuffix(info.FullMethod, "/Handshake") {
		scheme, cred := authorization(ss.Context())
		if !strings.EqualFold(scheme, "Basic") {
			return status.Error(codes.Unauthenticated, "Handshake takes basic auth (user and password of a SQL user)")
		}
		token, err := s.login(ss.Context(), cred)
		if err != nil {
			return err
		}
		md := metadata.Pairs("authorization", "Bearer "+token)
		if err := ss.SetHeader(md); err != nil {
			return err
		}
		return handler(srv, ss)
	}
	ctx, err := s.bearer(ss.Context())
	if err != nil {
		return err
	}
	return handler(srv, &authedStream{ServerStream: ss, ctx: ctx})
}

// grpcError turns a statement's error into a status carrying the errno and
// SQLSTATE the MySQL port would send.
func grpcError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok && !isWire(err) {
		return err
	}
	num := mysqlwire.ErrnoOf(err)
	_, state := mysqlwire.Errno(mysqlwire.CodeOf(err))
	code := codes.Internal
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case num == 1142 || num == 1044 || num == 1227 || num == 1045 || num == 1143:
		code = codes.PermissionDenied
	case num == 1064 || num == 1149:
		code = codes.InvalidArgument
	case num == 1046 || num == 1049 || num == 1146 || num == 1054:
		code = codes.NotFound
	case num == 1235:
		code = codes.Unimplemented
	case state[:2] == "22" || state[:2] == "42" || state[:2] == "HY" && num != 1105:
		code = codes.InvalidArgument
	}
	return status.Errorf(code, "ERROR %d (%s): %s", num, state, err.Error())
}

// isWire reports whether err came from a statement (it has a wire code)
// rather than being a status made here.
func isWire(err error) bool {
	var we *mysqlwire.Error
	return errors.As(err, &we)
}
