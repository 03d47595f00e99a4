package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/minifluss"
)

type config struct {
	rows    int64
	tailPct float64
	buckets int
	dir     string
	runs    int
	// dirSet tells whether --dir was given (else a new temp dir is made).
	dirSet bool
}

// maxRows keeps generation within what the emulator handles in one
// process; the PK table's KV state is held in memory.
const maxRows = 100_000_000

func parseFlags(args []string, usageOut io.Writer) (config, error) {
	// An own FlagSet: vitess brings glog, which registers -v and friends on
	// the global set.
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(usageOut)
	var c config
	fs.Int64Var(&c.rows, "rows", 1_000_000, "rows of the log table and of the primary-key table before the tail")
	fs.Float64Var(&c.tailPct, "tail-pct", 1, "percent of the keys updated in the PK table after tiering (and as many new rows appended to the log table); a few keys are deleted too")
	fs.IntVar(&c.buckets, "buckets", 4, "buckets of each table")
	fs.StringVar(&c.dir, "dir", "", "directory for the dataset (emulator data, the Paimon warehouse DIR/lake, FE metadata); must be empty or new; default a new temp dir, kept")
	fs.IntVar(&c.runs, "runs", 3, "timed runs of every query (interleaved); the median is reported")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: bench [--rows N] [--tail-pct P] [--buckets B] [--dir DIR] [--runs R]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "dir" {
			c.dirSet = true
		}
	})
	switch {
	case c.rows < 1 || c.rows > maxRows:
		return c, fmt.Errorf("--rows %d: must be between 1 and %d", c.rows, maxRows)
	case !(c.tailPct >= 0 && c.tailPct <= 100): // also rejects NaN
		return c, fmt.Errorf("--tail-pct %v: must be between 0 and 100", c.tailPct)
	case c.buckets < 1 || c.buckets > 1024:
		return c, fmt.Errorf("--buckets %d: must be between 1 and 1024", c.buckets)
	case c.runs < 1 || c.runs > 100:
		return c, fmt.Errorf("--runs %d: must be between 1 and 100", c.runs)
	case c.dirSet && c.dir == "":
		return c, errors.New("--dir: empty path")
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:], os.Stderr)
	if err == flag.ErrHelp {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// prepareDir returns the absolute dataset directory: --dir (created when
// missing, refused when it holds anything) or a new temp dir.
func prepareDir(c config) (string, error) {
	if !c.dirSet {
		return os.MkdirTemp("", "inlet-bench-")
	}
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return "", fmt.Errorf("--dir %s: %w", c.dir, err)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return dir, os.MkdirAll(dir, 0o755)
	case err != nil:
		return "", fmt.Errorf("--dir %s: %w", dir, err)
	case len(entries) > 0:
		return "", fmt.Errorf("--dir %s is not empty: pass an empty or new directory (a dataset is generated each run)", dir)
	}
	return dir, nil
}

func run(ctx context.Context, c config, out, errOut io.Writer) error {
	dir, err := prepareDir(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "inlet bench: rows=%d tail-pct=%g buckets=%d runs=%d\n", c.rows, c.tailPct, c.buckets, c.runs)
	fmt.Fprintf(out, "dataset directory (kept): %s\n", dir)
	log := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn}))

	lake := filepath.Join(dir, "lake")
	cluster, err := startCluster(ctx, dir, c.buckets, log)
	if err != nil {
		return err
	}
	defer cluster.Close()

	p := newPlan(c.rows, c.tailPct, c.buckets)
	start := time.Now()
	if err := generate(ctx, cluster, p, errOut); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	genTime := time.Since(start)
	genPeak := peakRSS()
	reset := resetPeakRSS()

	// DuckDB reads the same lake files for comparison. It is optional on a
	// developer's machine (only Inlet's figures are printed then) but
	// required under CI=true, where its absence must fail the run.
	var duckNote string
	d, err := duckrun.Start(ctx, runtime.GOMAXPROCS(0))
	if err != nil {
		if os.Getenv("CI") == "true" {
			return fmt.Errorf("DuckDB is required under CI=true: %w", err)
		}
		duckNote = fmt.Sprintf("DuckDB not run (%v): only Inlet's figures", err)
	} else {
		defer d.Close()
	}
	res, err := measure(ctx, measureConfig{cluster: cluster, metaDir: filepath.Join(dir, "meta"), lake: lake, runs: c.runs, plan: p, log: log, progress: errOut, duck: d})
	if err != nil {
		return err
	}
	if duckNote != "" {
		res.duckNotes = append(res.duckNotes, duckNote)
	}
	res.genTime, res.genPeak = genTime, genPeak
	res.queryPeak, res.peakReset = peakRSS(), reset
	res.dir, res.lake = dir, lake
	report(out, c, p, res)
	if len(res.mismatches) > 0 {
		return fmt.Errorf("%d wrong answer(s): see the ERROR lines above", len(res.mismatches))
	}
	return nil
}

// startCluster starts the emulated Fluss cluster with its data under
// dir/fluss and its Paimon warehouse at dir/lake.
func startCluster(ctx context.Context, dir string, buckets int, log *slog.Logger) (*minifluss.Cluster, error) {
	lake := filepath.Join(dir, "lake")
	for _, d := range []string{filepath.Join(dir, "fluss"), lake, filepath.Join(dir, "meta")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	cluster, err := minifluss.Start(ctx, minifluss.Config{
		DataDir:        filepath.Join(dir, "fluss"),
		DatalakeFormat: "paimon",
		TabletServers:  min(3, buckets),
		Logger:         log,
		Lake:           minifluss.LakeConfig{Warehouse: lake, Options: map[string]string{"metastore": "filesystem"}},
	})
	if err != nil {
		return nil, fmt.Errorf("start the emulated Fluss cluster: %w", err)
	}
	return cluster, nil
}
