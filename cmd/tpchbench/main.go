package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

// The --source values.
const (
	sourceInternal = "internal"
	sourcePaimon   = "paimon"
	sourceFluss    = "fluss"
)

type config struct {
	sf      float64
	dir     string
	runs    int
	threads int
	queries []int
	timeout time.Duration
	feBin   string
	explain string
	source  string
	// noLakeAnalyze skips ANALYZE TABLE of the lake tables (--source
	// paimon or fluss), to measure the plans of manifest statistics alone.
	noLakeAnalyze bool
	// flussDir keeps the --source fluss emulator's state (reused when
	// complete); empty: a fresh emulator under the run's work directory.
	flussDir string
}

func parseFlags(args []string, errOut io.Writer) (config, error) {
	fs := flag.NewFlagSet("tpchbench", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var c config
	var qs string
	fs.Float64Var(&c.sf, "sf", 1, "TPC-H scale factor (1 = 8.66 M rows)")
	fs.StringVar(&c.dir, "dir", "", "directory for the generated data (reused) and the FE's files (default: a directory under the user cache)")
	fs.IntVar(&c.runs, "runs", 3, "runs per query and engine; the median is reported")
	fs.IntVar(&c.threads, "threads", 2, "DuckDB threads")
	fs.StringVar(&qs, "queries", "1-22", "queries to run: a list of numbers and ranges, e.g. 1,3,5-7")
	fs.DurationVar(&c.timeout, "timeout", 300*time.Second, "time one query may take (Inlet's query_timeout)")
	fs.StringVar(&c.feBin, "fe-bin", "", "path of the fe binary (default: built from ./cmd/fe)")
	fs.StringVar(&c.explain, "explain", "", "directory to write each query's EXPLAIN VERBOSE into (qNN.txt) before running it")
	fs.BoolVar(&c.noLakeAnalyze, "no-lake-analyze", false, "with --source paimon or fluss: do not run ANALYZE TABLE on the lake tables after creating the catalog (the plans then see the manifests' statistics only)")
	fs.StringVar(&c.source, "source", "internal", "where the tables live: internal (Stream Load into internal tables) paimon (a Paimon warehouse read through a type=paimon catalog; DuckDB reads the same Parquet files) or fluss (the Fluss emulator's tables tiered into its Paimon lake, orders and lineitem with a log tail, read through a type=fluss catalog by union read)")
	fs.StringVar(&c.flussDir, "fluss-dir", "", "with --source fluss: directory keeping the emulator's state (tables, log, lake, tail files); when it holds a complete load of the same --sf it is reused and nothing is appended (default: a fresh emulator per run)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.sf <= 0 || c.runs < 1 || c.threads < 1 {
		return c, errors.New("--sf must be positive, --runs and --threads at least 1")
	}
	if c.source != sourceInternal && c.source != sourcePaimon && c.source != sourceFluss {
		return c, fmt.Errorf("--source: %q is not internal, paimon or fluss", c.source)
	}
	var err error
	if c.queries, err = parseQueries(qs); err != nil {
		return c, err
	}
	if c.dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		c.dir = cache + "/inlet-tpch"
	}
	return c, nil
}

// parseQueries reads "1,3,5-7".
func parseQueries(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 1 || b > 22 || a > b {
			return nil, fmt.Errorf("--queries: %q is not a query number or range within 1-22", part)
		}
		for q := a; q <= b; q++ {
			out = append(out, q)
		}
	}
	return out, nil
}

func main() {
	c, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "tpchbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := run(ctx, c, os.Stderr)
	if rep != nil {
		rep.print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpchbench:", err)
		os.Exit(1)
	}
	if rep.failures() > 0 {
		os.Exit(1)
	}
}
