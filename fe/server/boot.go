package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/local"
	"github.com/inlet-db/inlet/catalog/manager"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/vars"
	"github.com/inlet-db/inlet/internal/loginguard"
	"github.com/inlet-db/inlet/internal/redact"
)

// keepMapped is how many bytes of internal-table data files stay mapped
// between scans (local.Options.KeepMapped): address space, whose pages
// are clean file pages the kernel may reclaim; they show in RSS as file
// pages once touched.
const keepMapped = 4 << 30

// Options assemble a whole FE process.
type Options struct {
	// QueryAddr is the MySQL listen address, e.g. ":9030" or "127.0.0.1:0".
	QueryAddr string
	// MetaDir holds catalog definitions; DataDir the internal catalog's
	// tables ("" means <MetaDir>/data).
	MetaDir, DataDir string
	RootPassword     string
	Backends         []string
	// Types are the external catalog types CREATE CATALOG accepts.
	Types []catalog.Type
	// Demo creates the demo database on first start.
	Demo    bool
	Mem     memory.Allocator
	Logger  *slog.Logger
	Version string
	// TimeZone is the default of the time_zone variable ("" means UTC).
	TimeZone string
	// Runner executes fragments on the BEs (in-process or over Flight).
	Runner physical.Runner
	// HandshakeTimeout and MaxConnections bound connections (see
	// mysqlwire.Config; 0 means the defaults, 10 s and Doris'
	// qe_max_connection 1024).
	HandshakeTimeout time.Duration
	MaxConnections   int
	// AutoAnalyze: this long after a load, internal tables whose
	// statistics are missing or stale are analysed in the background
	// (Doris's enable_auto_analyze; local.Options.AutoAnalyze). 0 turns
	// it off (tests: plans must not change under them); cmd/fe sets it.
	AutoAnalyze time.Duration
	// MemLimit caps what all statements hold together (Doris mem_limit,
	// --mem-limit): the statement whose allocation would pass it fails.
	// 0 means no cap. See ParseMemLimit.
	MemLimit int64
	// AuditMaxBytes and AuditMaxFiles rotate <MetaDir>/fe.audit.log
	// (0: DefaultAuditMaxBytes, DefaultAuditMaxFiles).
	AuditMaxBytes int64
	AuditMaxFiles int
	// TLSConfig enables TLS on the MySQL port (cmd/fe --tls-cert/--tls-key);
	// nil serves plain connections only and REQUIRE SSL users cannot log in.
	TLSConfig *tls.Config
}

// FE is a running front end.
type FE struct {
	Wire     *mysqlwire.Server
	Server   *Server
	Catalogs *manager.Manager
	// Mem is the process account every statement draws from.
	Mem *memlimit.Process
	// Auth holds the users and privileges (under <MetaDir>/auth), for the
	// HTTP handlers as for SQL.
	Auth  *auth.Store
	audit *AuditLog
	done  chan struct{}
}

// VersionComment is what @@version_comment says.
const VersionComment = "Inlet (Doris-compatible FE, Fluss catalog)"

// Start opens the catalogs and starts serving the MySQL protocol.
func Start(ctx context.Context, o Options) (*FE, error) {
	if o.MetaDir == "" {
		return nil, errors.New("fe: a meta directory is required")
	}
	if o.Mem == nil {
		return nil, errors.New("fe: an allocator is required")
	}
	if o.DataDir == "" {
		o.DataDir = filepath.Join(o.MetaDir, "data")
	}
	proc := processAccount(&o)
	if o.TimeZone == "" {
		o.TimeZone = "UTC"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Log records quote paths and errors: URI passwords are masked.
	log = slog.New(redact.Handler(log.Handler()))
	internal, err := local.Open(filepath.Join(o.DataDir, "internal"), o.Mem, local.Options{Logger: log, KeepMapped: keepMapped, AutoAnalyze: o.AutoAnalyze})
	if err != nil {
		return nil, err
	}
	reg, err := catalog.NewRegistry(o.Types...)
	if err != nil {
		return nil, err
	}
	cats, err := manager.Open(o.MetaDir, internal, reg, manager.Options{Logger: log, Env: catalog.Env{Logger: log, Mem: o.Mem}})
	if err != nil {
		return nil, err
	}
	vr, err := vars.NewRegistry(vars.Defs(VersionComment, o.TimeZone))
	if err != nil {
		cats.Close()
		return nil, err
	}
	users, err := auth.Open(filepath.Join(o.MetaDir, "auth"), auth.WithRootPassword(o.RootPassword))
	if err != nil {
		cats.Close()
		return nil, err
	}
	audit, err := OpenAuditLog(filepath.Join(o.MetaDir, AuditFileName), o.AuditMaxBytes, o.AuditMaxFiles)
	if err != nil {
		cats.Close()
		return nil, err
	}
	// One guard for every password check: guesses over MySQL and Stream
	// Load count together.
	guard := loginguard.New(log)
	srv, err := New(Config{Catalogs: cats, Vars: vr, Mem: o.Mem, Logger: log, Version: o.Version, Backends: o.Backends, Runner: o.Runner, Auth: users, ViewDir: o.MetaDir,
		Audit: audit, LoginGuard: guard, SpillDir: filepath.Join(o.DataDir, "spill")})
	if err != nil {
		audit.Close()
		return nil, err
	}
	if o.Demo {
		if err := srv.EnsureDemo(ctx); err != nil {
			cats.Close()
			audit.Close()
			return nil, fmt.Errorf("fe: demo database: %w", err)
		}
	}
	wire, err := mysqlwire.Listen(mysqlwire.Config{Addr: o.QueryAddr, Users: users, NewSession: srv.NewSession, Logger: log,
		HandshakeTimeout: o.HandshakeTimeout, MaxConnections: o.MaxConnections, TLSConfig: o.TLSConfig, LoginGuard: guard})
	if err != nil {
		cats.Close()
		audit.Close()
		return nil, err
	}
	srv.SetCancel(wire.Cancel)
	srv.SetKill(wire.Kill)
	fe := &FE{Wire: wire, Server: srv, Catalogs: cats, Mem: proc, Auth: users, audit: audit, done: make(chan struct{})}
	go func() {
		defer close(fe.done)
		wire.Serve()
	}()
	log.Info("FE listening", "addr", wire.Addr().String())
	return fe, nil
}

// Addr is the MySQL listen address.
func (f *FE) Addr() net.Addr { return f.Wire.Addr() }

// Close stops serving and closes the catalogs.
func (f *FE) Close() error {
	err := f.Wire.Close()
	<-f.done
	return errors.Join(err, f.Catalogs.Close(), f.audit.Close())
}
