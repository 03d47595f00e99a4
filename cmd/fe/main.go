// Command fe runs the Inlet front end: the MySQL protocol on --query-port,
// Arrow Flight SQL on --flight-sql-port,
// catalogs persisted in --meta-dir, internal tables in --data-dir, HTTP
// pages (profiles, /metrics, BE heartbeats) on --http-port. Fluss and Paimon
// scans run on the BEs given by --be or registering themselves; with none,
// on a BE inside this process (the same fragment code).
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/iceberg"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/fe/flightsql"
	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/fe/webui"
	"github.com/inlet-db/inlet/internal/clustersecret"
	"github.com/inlet-db/inlet/internal/gcfloor"
	"github.com/inlet-db/inlet/internal/redact"
	"github.com/inlet-db/inlet/load/streamload"
	"github.com/inlet-db/inlet/scan"
)

type config struct {
	queryPort int
	httpPort  int
	host      string
	metaDir   string
	dataDir   string
	backends  []string
	demo      bool
	// lake is the demo cluster's datalake.format: paimon or iceberg.
	lake     string
	logLevel string
	// beHTTPPort is the HTTP port of the BE inside this process (Stream Load).
	beHTTPPort int
	// memLimit caps what all queries hold together (bytes); maxConns and
	// handshakeTimeout bound connections.
	memLimit         int64
	maxConns         int
	handshakeTimeout time.Duration
	// autoAnalyze: delay of the background ANALYZE after loads (0: off).
	autoAnalyze time.Duration
	// metaSet and dataSet tell whether the flags were given (the demo
	// picks its own directories otherwise).
	metaSet, dataSet bool
	// tlsCert and tlsKey are PEM files enabling TLS on the MySQL port.
	tlsCert, tlsKey string
	// flightSQLPort is the Arrow Flight SQL port (-1: off, 0: a free one).
	flightSQLPort int
}

func parseFlags(args []string) (config, error) {
	// An own FlagSet: vitess brings glog, which registers -v and friends on
	// the global set.
	fs := flag.NewFlagSet("fe", flag.ContinueOnError)
	var c config
	var be string
	fs.IntVar(&c.queryPort, "query-port", 9030, "MySQL protocol port")
	fs.IntVar(&c.httpPort, "http-port", 8030, "HTTP port (query profiles, /metrics, BE heartbeats); -1 disables it")
	fs.StringVar(&c.host, "host", "127.0.0.1", "address to listen on, MySQL and HTTP (loopback by default; 0.0.0.0 or :: for every interface)")
	fs.StringVar(&c.metaDir, "meta-dir", "", "directory for FE metadata (catalogs, users, views, fe.audit.log) and, without --data-dir, table data (default: a per-user directory, $XDG_DATA_HOME/inlet or ~/.local/share/inlet)")
	fs.StringVar(&c.dataDir, "data-dir", "", "directory for internal-catalog table data (default <meta-dir>/data); with --demo, the directory for everything the demo keeps")
	fs.StringVar(&be, "be", "", "comma-separated BE Flight addresses host:port; none runs a BE inside the FE (BEs started with --fe register themselves too)")
	fs.BoolVar(&c.demo, "demo", false, "start an emulated Fluss cluster with a tiered sample, a BE and the FE, with a fluss catalog over it")
	fs.StringVar(&c.lake, "lake", "paimon", "with --demo, the lake format the emulated cluster tiers into: paimon or iceberg")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.IntVar(&c.beHTTPPort, "be-http-port", 8040, "HTTP port of the BE inside this process, where Stream Loads are redirected (without --be; 0 picks a free one, -1 disables)")
	memLimit := fs.String("mem-limit", "80%", "memory all queries may hold together (Doris mem_limit): a percentage of the machine's (or cgroup's) memory, or bytes with K/M/G/T; the query that would pass it fails")
	fs.IntVar(&c.maxConns, "max-connections", 1024, "most open MySQL connections, logged in or not (Doris qe_max_connection); past it clients get error 1040")
	fs.DurationVar(&c.handshakeTimeout, "handshake-timeout", 10*time.Second, "time a new connection has to log in before it is closed")
	fs.DurationVar(&c.autoAnalyze, "auto-analyze-delay", 30*time.Second, "after a load, internal tables whose statistics are missing or stale (over 10% of rows changed) are analysed in the background this long after; 0 turns auto analyze off")
	fs.IntVar(&c.flightSQLPort, "flight-sql-port", 8070, "Arrow Flight SQL port (Doris arrow_flight_sql_port): the same users, statements and privileges as the MySQL port, results as Arrow batches; TLS only with --tls-cert; -1 disables it")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "PEM certificate (chain) for TLS on the MySQL port; with --tls-key, clients may connect with SSL and users created REQUIRE SSL must")
	fs.StringVar(&c.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fe [--query-port 9030] [--http-port 8030] [--flight-sql-port 8070] [--meta-dir DIR] [--data-dir DIR] [--be host:port,...] [--demo [--lake paimon|iceberg]]")
		fmt.Fprintln(fs.Output(), "The root user's password is read from $INLET_ROOT_PASSWORD (empty by default);")
		fmt.Fprintln(fs.Output(), "the FE↔BE cluster secret from $INLET_CLUSTER_SECRET, else <meta-dir>/cluster_secret (made on first start).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if c.queryPort < 0 || c.queryPort > 65535 {
		return c, fmt.Errorf("--query-port %d is not a port", c.queryPort)
	}
	switch c.lake = strings.ToLower(c.lake); c.lake {
	case "", "paimon", "iceberg":
	default:
		return c, fmt.Errorf("--lake %q: the demo tiers into paimon or iceberg", c.lake)
	}
	if c.httpPort < -1 || c.httpPort > 65535 {
		return c, fmt.Errorf("--http-port %d is not a port", c.httpPort)
	}
	if c.flightSQLPort < -1 || c.flightSQLPort > 65535 {
		return c, fmt.Errorf("--flight-sql-port %d is not a port", c.flightSQLPort)
	}
	if c.beHTTPPort < -1 || c.beHTTPPort > 65535 {
		return c, fmt.Errorf("--be-http-port %d is not a port", c.beHTTPPort)
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return c, errors.New("--tls-cert and --tls-key go together")
	}
	if c.maxConns < 1 {
		return c, fmt.Errorf("--max-connections %d: want at least 1", c.maxConns)
	}
	if c.handshakeTimeout <= 0 {
		return c, fmt.Errorf("--handshake-timeout %s: want a positive duration", c.handshakeTimeout)
	}
	lim, err := server.ParseMemLimit(*memLimit)
	if err != nil {
		return c, fmt.Errorf("--mem-limit: %w", err)
	}
	c.memLimit = lim
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "meta-dir":
			c.metaSet = true
		case "data-dir":
			c.dataSet = true
		}
	})
	for _, b := range strings.Split(be, ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.backends = append(c.backends, b)
		}
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err == flag.ErrHelp {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fe:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fe:", err)
		os.Exit(1)
	}
}

// defaultMetaDir is where an FE started without --meta-dir keeps its
// metadata: a per-user data directory (as --demo keeps its own), never the
// current working directory.
func defaultMetaDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "inlet"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no per-user directory for FE metadata (%v); pass --meta-dir DIR", err)
	}
	return filepath.Join(home, ".local", "share", "inlet"), nil
}

// run serves until ctx ends, printing what a user needs to out.
func run(ctx context.Context, c config, out io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(redact.Handler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))

	metaDir, dataDir := c.metaDir, c.dataDir
	var demo *demoCluster
	if c.demo {
		root, err := demoRoot(c)
		if err != nil {
			return err
		}
		if demo, err = startDemoCluster(ctx, root, c.lake, log); err != nil {
			return err
		}
		defer demo.Close()
		if !c.metaSet {
			metaDir = filepath.Join(root, "meta")
		}
		if !c.dataSet || dataDir == root {
			dataDir = filepath.Join(root, "data")
		}
	}
	if metaDir == "" {
		d, err := defaultMetaDir()
		if err != nil {
			return err
		}
		metaDir = d
	}
	meta, err := filepath.Abs(metaDir)
	if err != nil {
		return err
	}

	var tlsConfig *tls.Config
	if c.tlsCert != "" {
		pair, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}

	// BEs prove themselves with the cluster secret: $INLET_CLUSTER_SECRET,
	// or one this FE made on first start under its meta dir. Without one
	// any local process could register as a BE and receive loads, with
	// their users' credentials.
	secret, err := clustersecret.LoadOrCreate(meta)
	if err != nil {
		return err
	}
	mem := memory.DefaultAllocator
	dcfg := dispatch.Config{Logger: log, Classify: scan.ErrorCode}
	var local *scan.Executor
	for _, addr := range c.backends {
		dcfg.Backends = append(dcfg.Backends, dispatch.NewFlightBackend(addr, secret))
	}
	reg := dispatch.NewRegistry(dispatch.RegistryConfig{Secret: secret, Logger: log,
		Verify: func(ctx context.Context, addr string) error { return dispatch.ChallengeFlight(ctx, addr, secret) }})
	defer reg.Close()
	dcfg.Registry = reg
	if len(c.backends) == 0 {
		// No BE named: one inside this process runs the same fragments.
		local = scan.NewExecutor(scan.Config{Name: "fe-local", Logger: log})
		defer local.Close()
		dcfg.Backends = append(dcfg.Backends, dispatch.BackendFunc("local", local.Execute))
	}
	disp := dispatch.New(dcfg)

	queryHost := c.host
	fe, err := server.Start(ctx, server.Options{
		QueryAddr:    net.JoinHostPort(queryHost, strconv.Itoa(c.queryPort)),
		MetaDir:      meta,
		DataDir:      dataDir,
		RootPassword: os.Getenv("INLET_ROOT_PASSWORD"),
		Backends:     c.backends,
		Demo:         c.demo,
		Mem:          mem,
		Logger:       log,
		Types:        []catalog.Type{fluss.Type(), paimon.Type(), iceberg.Type()},
		Runner:       disp,

		MemLimit:         c.memLimit,
		MaxConnections:   c.maxConns,
		HandshakeTimeout: c.handshakeTimeout,
		TLSConfig:        tlsConfig,
		AutoAnalyze:      c.autoAnalyze,
	})
	if err != nil {
		return err
	}
	defer fe.Close()
	fmt.Fprintf(out, "inlet fe: MySQL protocol listening on %s (meta dir %s)\n", fe.Addr(), meta)
	if tlsConfig != nil {
		fmt.Fprintf(out, "inlet fe: TLS on the MySQL port with %s\n", c.tlsCert)
	}
	fmt.Fprintf(out, "inlet fe: queries may hold %d MiB together (--mem-limit); at most %d connections\n", c.memLimit>>20, c.maxConns)
	softMemoryLimit(c.memLimit)
	// No collection while the heap is small (internal/gcfloor): at most a
	// quarter of --mem-limit, so the soft limit still governs near the cap.
	defer gcfloor.Start(gcfloor.FloorFor(c.memLimit))()
	if os.Getenv(clustersecret.EnvVar) == "" {
		fmt.Fprintf(out, "inlet fe: cluster secret in %s (BEs started with --fe read it with --secret-file)\n", clustersecret.Path(meta))
	}
	if local != nil {
		fmt.Fprintln(out, "inlet fe: no --be given: scans run on a BE inside this process")
	} else {
		fmt.Fprintf(out, "inlet fe: BEs %s\n", strings.Join(c.backends, ","))
	}

	if c.flightSQLPort >= 0 {
		fsq, err := flightsql.Listen(flightsql.Config{Addr: net.JoinHostPort(queryHost, strconv.Itoa(c.flightSQLPort)), FE: fe.Server,
			RootPassword: os.Getenv("INLET_ROOT_PASSWORD"), Mem: mem, Logger: log, TLSConfig: tlsConfig})
		if err != nil {
			return fmt.Errorf("--flight-sql-port: %w", err)
		}
		go func() {
			if err := fsq.Serve(); err != nil {
				log.Error("Flight SQL server stopped", "err", err)
			}
		}()
		defer fsq.Close()
		tlsNote := ""
		if tlsConfig != nil {
			tlsNote = " (TLS only)"
		}
		fmt.Fprintf(out, "inlet fe: Arrow Flight SQL on %s%s\n", fsq.Addr(), tlsNote)
	}

	// Stream Load: the FE redirects a load to a BE's HTTP listener, one that
	// registered (cmd/be --fe) or else the BE inside this process.
	loadBEs := streamload.NewBackends(10 * time.Second)
	var localLoad string
	if local != nil && c.beHTTPPort >= 0 {
		host := c.host
		if host == "" {
			host = "127.0.0.1"
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(c.beHTTPPort)))
		if err != nil {
			return fmt.Errorf("--be-http-port: %w", err)
		}
		beh, err := fe.Server.StreamLoadBE()
		if err != nil {
			ln.Close()
			return err
		}
		bs := &http.Server{Handler: beh, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := bs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("BE HTTP server stopped", "err", err)
			}
		}()
		defer bs.Close()
		localLoad = ln.Addr().String()
		fmt.Fprintf(out, "inlet fe: in-process BE takes Stream Loads on %s\n", localLoad)
	}

	if c.httpPort >= 0 {
		host := c.host
		if host == "" {
			host = "127.0.0.1"
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(c.httpPort)))
		if err != nil {
			return fmt.Errorf("--http-port: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle(dispatch.HeartbeatPath, reg.Handler())
		// The web page answers every path nobody else takes (after a
		// login); /metrics is open, as in Doris.
		api := fe.Server.HTTPHandler()
		for _, p := range []string{"/metrics", "/api/profile", "/api/profiles"} {
			mux.Handle(p, api)
		}
		mux.Handle("/", webui.Handler(fe.Server))
		feLoad, err := fe.Server.StreamLoadFE(func(*http.Request) (string, error) {
			if a, ok := loadBEs.Pick(); ok {
				return a, nil
			}
			if localLoad != "" {
				return localLoad, nil
			}
			return "", errors.New("no BE takes Stream Loads: start cmd/be with --fe, or run without --be and --be-http-port -1")
		})
		if err != nil {
			return err
		}
		mux.Handle("/api/{db}/{table}/_stream_load", feLoad)
		internal := fe.Server.StreamLoadInternal(secret, loadBEs)
		mux.Handle("/api/_internal/stream_load/{db}/{table}", internal)
		mux.Handle(streamload.RegisterPath, internal)
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("FE HTTP server stopped", "err", err)
			}
		}()
		defer hs.Close()
		fmt.Fprintf(out, "inlet fe: HTTP on %s (recent queries and profiles at /, log in with a SQL user; /metrics)\n", ln.Addr())
	}

	if demo != nil {
		if err := demo.ensureCatalog(fe); err != nil {
			return err
		}
		demo.printWelcome(out, fe.Addr())
	}
	<-ctx.Done()
	return nil
}

// softMemoryLimit makes the Go collector work harder as the heap nears
// --mem-limit plus a quarter (buffers freed but not yet collected, and Go
// memory no account sees), so the process' RSS follows what the accounts
// allow instead of twice the live heap. GOMEMLIMIT, when set, wins.
func softMemoryLimit(memLimit int64) {
	if os.Getenv("GOMEMLIMIT") != "" || memLimit <= 0 || memLimit > math.MaxInt64/2 {
		return
	}
	debug.SetMemoryLimit(memLimit + memLimit/4)
}
