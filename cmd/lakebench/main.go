package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/gcfloor"
)

type config struct {
	rows    int64
	files   int
	dir     string
	runs    int
	threads int
	only    string // run only the query of this name (empty: all)
	sql     bool   // through the FE, a BE and a MySQL client (sql.go)
	flight  bool   // with sql: the BE behind Arrow Flight on loopback
	lake    string // paimon, or iceberg (iceberg.go): the Iceberg reader, the Paimon one beside it
}

func main() {
	var c config
	flag.Int64Var(&c.rows, "rows", 5_000_000, "rows of the generated table")
	flag.IntVar(&c.files, "files", 5, "Parquet data files")
	flag.StringVar(&c.dir, "dir", "", "directory of the table (default: a temporary directory, removed after); an existing table there is reused")
	flag.IntVar(&c.runs, "runs", 3, "runs per query and engine (the median is reported)")
	flag.IntVar(&c.threads, "threads", 1, "Inlet reader goroutines and DuckDB threads")
	flag.StringVar(&c.only, "query", "", "run only the query of this name, e.g. \"sum(v) WHERE k < 100\"")
	flag.BoolVar(&c.sql, "sql", false, "read through the whole SQL path: a MySQL client, the FE with a type=paimon catalog and a BE in this process")
	flag.BoolVar(&c.flight, "flight", false, "with --sql: reach the BE over Arrow Flight on loopback, as a BE in its own process is reached")
	flag.StringVar(&c.lake, "lake", "paimon", "paimon, or iceberg: the same rows also as an Iceberg table, read by lake/iceberg, with the Paimon reader's time beside it")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile (every allocation sampled) to this file at the end")
	gcFloor := flag.Int64("gc-floor", gcfloor.Default>>20, "MiB of heap below which the Go collector does not run, as in the BE and FE (internal/gcfloor); 0: plain GOGC")
	flag.Parse()
	if *gcFloor > 0 {
		gcfloor.Start(*gcFloor << 20)
		fmt.Printf("Go collector held off below %d MiB of heap, as the BE runs (--gc-floor)\n", *gcFloor)
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memprofile)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "lakebench:", err)
			}
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lakebench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "lakebench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := run(ctx, c, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lakebench:", err)
		os.Exit(1)
	}
	if res.mismatches > 0 {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// result is what run found; the test checks the answers.
type result struct {
	inlet      map[string][]string // query name → Inlet's answer (last run)
	duck       map[string][]string // nil when DuckDB was unavailable
	duckErr    error
	mismatches int
}

func run(ctx context.Context, c config, w io.Writer) (*result, error) {
	if c.rows <= 0 || c.files <= 0 || c.runs <= 0 || c.threads <= 0 {
		return nil, fmt.Errorf("--rows, --files, --runs and --threads must be positive")
	}
	ice := false
	switch c.lake {
	case "", "paimon":
	case "iceberg":
		if c.sql {
			return nil, fmt.Errorf("--lake iceberg measures the readers; it does not combine with --sql")
		}
		ice = true
	default:
		return nil, fmt.Errorf("--lake %q: paimon or iceberg", c.lake)
	}
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "lakebench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	if c.sql {
		dir = sqlTableDir(dir, c.rows, c.files)
	} else {
		dir = filepath.Join(dir, fmt.Sprintf("t_%d_%d", c.rows, c.files))
	}
	mem := memory.NewGoAllocator()
	if _, err := os.Stat(filepath.Join(dir, "snapshot", "LATEST")); err != nil {
		t0 := time.Now()
		if err := generate(ctx, dir, c.rows, c.files, mem); err != nil {
			return nil, fmt.Errorf("generating %s: %w", dir, err)
		}
		fmt.Fprintf(w, "generated %d rows in %d files at %s in %v\n", c.rows, c.files, dir, time.Since(t0).Round(time.Millisecond))
	}
	list, size, err := parquetList(ctx, dir)
	if err != nil {
		return nil, err
	}
	var wh string
	if ice {
		wh = icebergWarehouse(filepath.Dir(dir), c.rows, c.files)
		if _, err := os.Stat(filepath.Join(icebergTableDir(wh), "metadata")); err != nil {
			t0 := time.Now()
			if err := generateIceberg(ctx, wh, c.rows, c.files, mem); err != nil {
				return nil, fmt.Errorf("generating the Iceberg table %s: %w", wh, err)
			}
			fmt.Fprintf(w, "generated the same rows as an Iceberg table at %s in %v\n", wh, time.Since(t0).Round(time.Millisecond))
		}
		if list, size, err = icebergParquetList(ctx, wh); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "Inlet is lake/iceberg over the Iceberg table; DuckDB reads its data files; after the last bar, lake/paimon over the Paimon table of the same rows and its time over Iceberg's (above 1: the Iceberg path is faster)\n")
	}
	res := &result{inlet: map[string][]string{}}
	var sess *sqlSession
	if c.sql {
		if sess, err = startSQL(ctx, dir, c.threads, c.flight); err != nil {
			return nil, err
		}
		defer sess.close()
		via := "called in process"
		if c.flight {
			via = "reached over Arrow Flight on loopback"
		}
		fmt.Fprintf(w, "Inlet through SQL: a MySQL client, the FE (catalog %s, type=paimon) and a BE in this process, %s\n", sqlCatalog, via)
	}
	d, err := duckrun.Start(ctx, c.threads)
	if err != nil {
		res.duckErr = err
		fmt.Fprintf(w, "DuckDB unavailable (%v): Inlet's figures only\n", err)
	} else {
		defer d.Close()
		res.duck = map[string][]string{}
		fmt.Fprintf(w, "DuckDB @duckdb/node-api %s, %d thread(s)\n", d.Version, c.threads)
	}
	fmt.Fprintf(w, "%d rows, %d files, %.1f MB of Parquet, %d run(s), Inlet %d goroutine(s), GOMAXPROCS %d\n",
		c.rows, c.files, float64(size)/1e6, c.runs, c.threads, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "%-22s %10s %8s %10s %9s %10s %10s | %10s %10s %9s | %7s\n",
		"query", "Inlet ms", "CPU ms", "rows/s", "MB/s", "peak heap", "allocated", "DuckDB ms", "rows/s", "MB/s", "D/I")
	if sess != nil {
		fmt.Fprintf(w, "  (--sql: Inlet ms is the SQL path; after the last bar, the reader alone on the same files and reader/SQL)\n")
	}
	for _, q := range queries() {
		if c.only != "" && q.name != c.only {
			continue
		}
		want := q.want(c.rows)
		var its, dts, cpus, rts []time.Duration
		var peak, alloc uint64
		for r := 0; r < c.runs; r++ {
			// Interleaved: Inlet then DuckDB, run after run.
			m := startHeapWatch()
			c0 := cpuTime()
			t0 := time.Now()
			var got []string
			switch {
			case sess != nil:
				got, err = sess.run(ctx, &q)
			case ice:
				got, err = runIceberg(ctx, wh, &q, c.threads, mem)
			default:
				got, err = runInlet(ctx, dir, &q, c.threads, mem)
			}
			el := time.Since(t0)
			cpus = append(cpus, cpuTime()-c0)
			p, a := m.stop()
			if err != nil {
				return nil, fmt.Errorf("inlet, %s: %w", q.name, err)
			}
			its = append(its, el)
			peak, alloc = max(peak, p), a
			res.inlet[q.name] = got
			if !slices.Equal(got, want) {
				res.mismatches++
				fmt.Fprintf(w, "ERROR: %s: Inlet answered %v, the generator's definition gives %v\n", q.name, got, want)
			}
			if sess != nil || ice {
				// The reader alone, on the same files in the same run: the
				// SQL path's cost is the difference (with --lake iceberg:
				// the Paimon reader on the same rows).
				t0 := time.Now()
				rg, err := runInlet(ctx, dir, &q, c.threads, mem)
				if err != nil {
					return nil, fmt.Errorf("inlet reader, %s: %w", q.name, err)
				}
				rts = append(rts, time.Since(t0))
				if !slices.Equal(rg, want) {
					res.mismatches++
					fmt.Fprintf(w, "ERROR: %s: Inlet's reader answered %v, the generator's definition gives %v\n", q.name, rg, want)
				}
			}
			if d == nil {
				continue
			}
			dt, rows, err := d.Run(fmt.Sprintf(q.sql, list))
			if err != nil {
				return nil, err
			}
			dts = append(dts, dt)
			dg := duckAnswer(rows)
			res.duck[q.name] = dg
			if !slices.Equal(dg, got) {
				res.mismatches++
				fmt.Fprintf(w, "ERROR: %s: DuckDB answered %v, Inlet %v\n", q.name, dg, got)
			}
		}
		mi := median(its)
		line := fmt.Sprintf("%-22s %10.1f %8.1f %10s %9.1f %8.1fMB %8.1fMB", q.name, ms(mi), ms(median(cpus)), perSec(float64(c.rows), mi), float64(size)/1e6/mi.Seconds(), float64(peak)/1e6, float64(alloc)/1e6)
		if d != nil {
			md := median(dts)
			line += fmt.Sprintf(" | %10.1f %10s %9.1f | %7.2f", ms(md), perSec(float64(c.rows), md), float64(size)/1e6/md.Seconds(), md.Seconds()/mi.Seconds())
		}
		if sess != nil || ice {
			mr := median(rts)
			line += fmt.Sprintf(" | %9.1f %7.2f", ms(mr), mr.Seconds()/mi.Seconds())
		}
		fmt.Fprintln(w, line)
	}
	if res.mismatches > 0 {
		fmt.Fprintf(w, "ERROR: %d wrong answer(s)\n", res.mismatches)
	}
	return res, nil
}

func duckAnswer(rows [][]*string) []string {
	if len(rows) != 1 {
		return []string{fmt.Sprintf("<%d rows>", len(rows))}
	}
	out := make([]string, len(rows[0]))
	for i, c := range rows[0] {
		if c == nil {
			out[i] = "NULL"
		} else {
			out[i] = *c
		}
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// moves less than wall time (it includes the GC and the heap sampler).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func perSec(n float64, d time.Duration) string {
	r := n / d.Seconds()
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.2fG", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.1fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fK", r/1e3)
	}
	return strings.TrimSpace(fmt.Sprintf("%.0f", r))
}

// heapWatch samples the live heap (runtime/metrics) every millisecond
// from a GC'd baseline and reports the peak and the bytes allocated.
type heapWatch struct {
	done       chan struct{}
	finished   chan struct{}
	peak       atomic.Uint64
	allocStart uint64
}

const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapAllocs  = "/gc/heap/allocs:bytes"
)

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func startHeapWatch() *heapWatch {
	runtime.GC()
	h := &heapWatch{done: make(chan struct{}), finished: make(chan struct{}), allocStart: readMetric(heapAllocs)}
	h.peak.Store(readMetric(heapObjects))
	go func() {
		defer close(h.finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				if v := readMetric(heapObjects); v > h.peak.Load() {
					h.peak.Store(v)
				}
			}
		}
	}()
	return h
}

func (h *heapWatch) stop() (peak, allocated uint64) {
	close(h.done)
	<-h.finished
	if v := readMetric(heapObjects); v > h.peak.Load() {
		h.peak.Store(v)
	}
	return h.peak.Load(), readMetric(heapAllocs) - h.allocStart
}
