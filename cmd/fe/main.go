// Command fe runs the Inlet front end: the MySQL protocol on --query-port,
// catalogs persisted in --meta-dir, internal tables in --data-dir, HTTP
// pages (profiles, /metrics, BE heartbeats) on --http-port. Fluss and Paimon
// scans run on the BEs given by --be or registering themselves; with none,
// on a BE inside this process (the same fragment code).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/fe/server"
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
	logLevel  string
	// metaSet and dataSet tell whether the flags were given (the demo
	// picks its own directories otherwise).
	metaSet, dataSet bool
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
	fs.StringVar(&c.metaDir, "meta-dir", "inlet-meta", "directory for FE metadata (catalog definitions)")
	fs.StringVar(&c.dataDir, "data-dir", "", "directory for internal-catalog table data (default <meta-dir>/data); with --demo, the directory for everything the demo keeps")
	fs.StringVar(&be, "be", "", "comma-separated BE Flight addresses host:port; none runs a BE inside the FE (BEs started with --fe register themselves too)")
	fs.BoolVar(&c.demo, "demo", false, "start an emulated Fluss cluster with a tiered sample, a BE and the FE, with a fluss catalog over it")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fe [--query-port 9030] [--http-port 8030] [--meta-dir DIR] [--data-dir DIR] [--be host:port,...] [--demo]")
		fmt.Fprintln(fs.Output(), "The root user's password is read from $INLET_ROOT_PASSWORD (empty by default);")
		fmt.Fprintln(fs.Output(), "the FE↔BE cluster secret from $INLET_CLUSTER_SECRET.")
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
	if c.httpPort < -1 || c.httpPort > 65535 {
		return c, fmt.Errorf("--http-port %d is not a port", c.httpPort)
	}
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

// run serves until ctx ends, printing what a user needs to out.
func run(ctx context.Context, c config, out io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	metaDir, dataDir := c.metaDir, c.dataDir
	var demo *demoCluster
	if c.demo {
		root, err := demoRoot(c)
		if err != nil {
			return err
		}
		if demo, err = startDemoCluster(ctx, root, log); err != nil {
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
	meta, err := filepath.Abs(metaDir)
	if err != nil {
		return err
	}

	secret := os.Getenv("INLET_CLUSTER_SECRET")
	mem := memory.DefaultAllocator
	dcfg := dispatch.Config{Logger: log, Classify: scan.ErrorCode}
	var local *scan.Executor
	for _, addr := range c.backends {
		dcfg.Backends = append(dcfg.Backends, dispatch.NewFlightBackend(addr, secret))
	}
	reg := dispatch.NewRegistry(dispatch.RegistryConfig{Secret: secret, Logger: log})
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
		Types:        []catalog.Type{fluss.Type(), paimon.Type()},
		Runner:       disp,
	})
	if err != nil {
		return err
	}
	defer fe.Close()
	fmt.Fprintf(out, "inlet fe: MySQL protocol listening on %s (meta dir %s)\n", fe.Addr(), meta)
	if local != nil {
		fmt.Fprintln(out, "inlet fe: no --be given: scans run on a BE inside this process")
	} else {
		fmt.Fprintf(out, "inlet fe: BEs %s\n", strings.Join(c.backends, ","))
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
		mux.Handle("/", fe.Server.HTTPHandler())
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("FE HTTP server stopped", "err", err)
			}
		}()
		defer hs.Close()
		fmt.Fprintf(out, "inlet fe: HTTP on %s (/metrics, /api/profile?query_id=…)\n", ln.Addr())
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
