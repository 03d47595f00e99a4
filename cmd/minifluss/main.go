package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/inlet-db/inlet/minifluss"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "minifluss:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("minifluss", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "directory holding the cluster state (required)")
	scenario := fs.String("scenario", "", "scenario file to apply (once per distinct content) before serving")
	tablets := fs.Int("tablet-servers", 3, "number of tablet servers")
	host := fs.String("host", "127.0.0.1", "address to bind and advertise")
	port := fs.Int("port", 0, "coordinator port of the CLIENT listener (0 = any free port)")
	saslUsers := fs.String("sasl-users", "", "comma-separated user:password list; adds a SASL PLAIN listener named SASL")
	lake := fs.String("datalake-format", "", "cluster datalake.format injected into new tables: paimon or iceberg (tiered into the --lake-warehouse, an Iceberg Hadoop catalog for iceberg)")
	buckets := fs.Int("default-bucket-number", 1, "default.bucket.number")
	remote := fs.String("remote-data-dir", "", "remote tier root (default DATA_DIR/remote)")
	exit := fs.Bool("exit-after-load", false, "apply the scenario, print the address, then stop")
	verbose := fs.Bool("v", false, "log connection problems to stderr")
	warehouse := fs.String("lake-warehouse", "", "lake warehouse for lake-enabled tables: a directory or s3://bucket/path for Paimon, a directory for Iceberg (empty: no lake)")
	var lakeOpts kvFlag
	fs.Var(&lakeOpts, "lake-option", "datalake.<format>.* option as key=value without the prefix (repeatable), e.g. s3.endpoint=http://127.0.0.1:9000")
	periodic := fs.Bool("lake-periodic", false, "tier each lake table whenever its table.datalake.freshness elapses")
	legacy := fs.Bool("lake-legacy-columns", false, "give new lake tables the legacy __bucket/__offset/__timestamp columns")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	cfg := minifluss.Config{DataDir: *dataDir, TabletServers: *tablets, Host: *host, DatalakeFormat: *lake,
		DefaultBucketNumber: *buckets, RemoteDataDir: *remote,
		Listeners: []minifluss.Listener{{Name: "CLIENT", Ports: []int{*port}}}}
	if *warehouse != "" {
		cfg.Lake = minifluss.LakeConfig{Warehouse: *warehouse, Options: lakeOpts.m,
			Periodic: *periodic, LegacySystemColumns: *legacy}
		if cfg.DatalakeFormat == "" {
			cfg.DatalakeFormat = "paimon"
		}
	} else if len(lakeOpts.m) > 0 || *periodic || *legacy {
		return fmt.Errorf("--lake-option, --lake-periodic and --lake-legacy-columns need --lake-warehouse")
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if *saslUsers != "" {
		cfg.Users = map[string]string{}
		for _, up := range strings.Split(*saslUsers, ",") {
			u, p, ok := strings.Cut(up, ":")
			if !ok || u == "" {
				return fmt.Errorf("--sasl-users: entry without user:password form")
			}
			cfg.Users[u] = p
		}
		cfg.Listeners = append(cfg.Listeners, minifluss.Listener{Name: "SASL", SASL: true})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := minifluss.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if *scenario != "" {
		if err := applyOnce(ctx, c, *dataDir, *scenario); err != nil {
			return err
		}
	}
	fmt.Printf("bootstrap.servers=%s\n", c.BootstrapAddr())
	if *saslUsers != "" {
		fmt.Printf("sasl.bootstrap.servers=%s\n", c.ListenerAddr("SASL"))
	}
	if *exit {
		return nil
	}
	<-ctx.Done()
	return nil
}

// applyOnce runs a scenario unless the same content was already applied to
// this data directory, so restarting with the same flags keeps the data as is.
func applyOnce(ctx context.Context, c *minifluss.Cluster, dataDir, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	mark := filepath.Join(dataDir, "scenario-"+hex.EncodeToString(sum[:8])+".applied")
	if _, err := os.Stat(mark); err == nil {
		fmt.Fprintf(os.Stderr, "minifluss: scenario %s already applied to %s\n", path, dataDir)
		return nil
	}
	s, err := minifluss.LoadScenario(path)
	if err != nil {
		return err
	}
	if err := s.Run(ctx, c); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "minifluss: applied %d statements from %s\n", s.Len(), path)
	return os.WriteFile(mark, []byte(path+"\n"), 0o644)
}

// kvFlag collects repeated key=value flags.
type kvFlag struct{ m map[string]string }

func (f *kvFlag) String() string { return fmt.Sprintf("%d options", len(f.m)) }

func (f *kvFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[k] = val
	return nil
}
