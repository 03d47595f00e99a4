package server

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/manager"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/vars"
	"github.com/inlet-db/inlet/internal/loginguard"
)

// Config configures a Server.
type Config struct {
	Catalogs *manager.Manager
	Vars     *vars.Registry
	// Mem allocates every batch of every statement. Required.
	Mem    memory.Allocator
	Logger *slog.Logger
	// Version is returned by version() and @@version.
	Version string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Backends are the BE addresses given on the command line; recorded for
	// SHOW BACKENDS only (queries run in the FE until the BE exists).
	Backends []string
	// Cancel cancels the running statement of a connection (KILL); nil
	// makes KILL an error.
	Cancel func(connID uint32) bool
	// Runner executes the fragments of Fluss and Paimon scans on the BEs;
	// nil makes such scans an error.
	Runner physical.Runner
	// Auth holds users and privileges; nil means root alone and no
	// privilege checks (accounts.go).
	Auth *auth.Store
	// Audit receives one line per statement (audit.go); nil keeps none.
	Audit *AuditLog
	// LoginGuard slows password guessing per (user, host) over MySQL and
	// Stream Load together; nil makes one for Stream Load alone.
	LoginGuard *loginguard.Guard
	// ViewDir holds the view definitions (views.go); "" keeps views in
	// memory for the server's life.
	ViewDir string
	// SpillDir holds the spill files of queries run with enable_spill, a
	// directory per query removed when it ends (spill.go); "" means a
	// directory under the system temp dir.
	SpillDir string
}

// Server makes sessions for connections.
type Server struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	cancel atomic.Pointer[func(uint32) bool]
	// killConn closes a connection (KILL [CONNECTION]); nil falls back to
	// cancel.
	killConn atomic.Pointer[func(uint32) bool]

	mu       sync.Mutex
	sessions map[uint32]*Session // by connection id, for SHOW PROCESSLIST

	guardOnce sync.Once
	profiles  profiles      // recent query profiles, for SHOW QUERY PROFILE
	recentQ   recentQueries // recent statements, for the web pages (webdata.go)
	queryM    queryMetrics  // Doris's query metrics (dorismetrics.go)
	plans     plans         // operator trees of recent queries (webdata.go)
	metrics   feMetrics
	views     *viewStore
	spill     spillState
}

// New builds a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Catalogs == nil || cfg.Vars == nil || cfg.Mem == nil {
		return nil, errors.New("server: Catalogs, Vars and Mem are required")
	}
	s := &Server{cfg: cfg, log: cfg.Logger, now: cfg.Now, sessions: map[uint32]*Session{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.cfg.Version == "" {
		s.cfg.Version = "5.7.99"
	}
	if cfg.Cancel != nil {
		s.SetCancel(cfg.Cancel)
	}
	views, err := openViews(cfg.ViewDir)
	if err != nil {
		return nil, err
	}
	s.views = views
	s.spill.init(cfg.SpillDir, s.log)
	return s, nil
}

// SetCancel installs the function KILL uses (the wire server exists only
// after the Server, so cmd/fe wires it afterwards).
func (s *Server) SetCancel(f func(connID uint32) bool) { s.cancel.Store(&f) }

// SetKill installs the function KILL [CONNECTION] uses to close a
// connection.
func (s *Server) SetKill(f func(connID uint32) bool) { s.killConn.Store(&f) }

// NewSession implements the factory fe/mysqlwire calls per connection.
func (s *Server) NewSession(info mysqlwire.ConnInfo) (mysqlwire.Session, error) {
	sess := &Session{srv: s, info: info, vars: s.cfg.Vars.NewSession(), catalog: manager.InternalName, since: s.now(), shownCatalog: manager.InternalName}
	if info.ID != 0 {
		s.mu.Lock()
		s.sessions[info.ID] = sess
		s.mu.Unlock()
	}
	return sess, nil
}

// process is one row of SHOW PROCESSLIST.
type process struct {
	id                      uint32
	user, host, catalog, db string
	command, info           string
	since                   time.Time
}

func (s *Server) processes() []process {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]process, 0, len(s.sessions))
	for id, sess := range s.sessions {
		p := process{id: id, user: sess.info.User, host: sess.info.Remote, catalog: sess.shownCatalog, db: sess.shownDB, command: "Sleep", since: sess.since}
		if sess.running != "" {
			p.command, p.info = "Query", sess.running
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b process) int { return int(a.id) - int(b.id) })
	return out
}
