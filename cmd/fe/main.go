// Command fe runs the Inlet front end: the MySQL protocol on --query-port,
// catalogs persisted in --meta-dir, internal tables in --data-dir.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fe/server"
)

type config struct {
	queryPort int
	metaDir   string
	dataDir   string
	backends  []string
	demo      bool
	logLevel  string
}

func parseFlags(args []string) (config, error) {
	// An own FlagSet: vitess brings glog, which registers -v and friends on
	// the global set.
	fs := flag.NewFlagSet("fe", flag.ContinueOnError)
	var c config
	var be string
	fs.IntVar(&c.queryPort, "query-port", 9030, "MySQL protocol port")
	fs.StringVar(&c.metaDir, "meta-dir", "inlet-meta", "directory for FE metadata (catalog definitions)")
	fs.StringVar(&c.dataDir, "data-dir", "", "directory for internal-catalog table data (default <meta-dir>/data)")
	fs.StringVar(&be, "be", "", "comma-separated BE addresses host:port; recorded only: the BE does not exist yet and queries run in the FE")
	fs.BoolVar(&c.demo, "demo", false, "create a small internal demo database on first start")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fe [--query-port 9030] [--meta-dir DIR] [--data-dir DIR] [--be host:port,...] [--demo]")
		fmt.Fprintln(fs.Output(), "The root user's password is read from $INLET_ROOT_PASSWORD (empty by default).")
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
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "fe: --log-level:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	meta, _ := filepath.Abs(c.metaDir)
	fe, err := server.Start(ctx, server.Options{
		QueryAddr:    ":" + strconv.Itoa(c.queryPort),
		MetaDir:      meta,
		DataDir:      c.dataDir,
		RootPassword: os.Getenv("INLET_ROOT_PASSWORD"),
		Backends:     c.backends,
		Demo:         c.demo,
		Mem:          memory.DefaultAllocator,
		Logger:       log,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fe:", err)
		os.Exit(1)
	}
	fmt.Printf("inlet fe: MySQL protocol listening on %s (meta dir %s)\n", fe.Addr(), meta)
	if len(c.backends) > 0 {
		fmt.Printf("inlet fe: --be %s recorded; the BE is not part of this build, queries run in the FE\n", strings.Join(c.backends, ","))
	}
	<-ctx.Done()
	if err := fe.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "fe: shutdown:", err)
		os.Exit(1)
	}
}
