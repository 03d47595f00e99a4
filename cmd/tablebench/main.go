package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/internal/duckrun"
)

type config struct {
	rows     int64
	runs     int
	threads  int
	parallel int
	dir      string
	only     string
	explain  bool
}

func main() {
	var c config
	flag.Int64Var(&c.rows, "rows", 10_000_000, "rows of bench.t")
	flag.IntVar(&c.runs, "runs", 3, "runs per query and engine, interleaved (the median is reported)")
	flag.IntVar(&c.threads, "threads", runtime.GOMAXPROCS(0), "DuckDB threads")
	flag.IntVar(&c.parallel, "parallel", 0, "the Inlet session's parallel_pipeline_task_num (0: its default)")
	flag.StringVar(&c.dir, "dir", "", "FE meta directory (default: a temporary one, removed after); a table of --rows rows there is reused")
	flag.StringVar(&c.only, "query", "", "run only the query of this name")
	flag.BoolVar(&c.explain, "explain", false, "print Inlet's EXPLAIN of each query before running it")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the Inlet runs to this file")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var prof io.Writer
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tablebench:", err)
			os.Exit(1)
		}
		defer f.Close()
		prof = f
	}
	bad, err := run(ctx, c, os.Stdout, prof)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tablebench:", err)
		os.Exit(1)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

type query struct {
	name string
	sql  string
	// want is the answer from the generator's definition (rows sorted,
	// cells joined by "|"); nil: compared with DuckDB only.
	want func(n int64) []string
}

func queries() []query {
	return []query{
		{name: "sum(v), count(*)", sql: "SELECT sum(v), count(*) FROM t", want: func(n int64) []string {
			var sum int64
			for id := int64(0); id < n; id++ {
				sum += id % 97
			}
			return []string{fmt.Sprintf("%d|%d", sum, n)}
		}},
		{name: "GROUP BY k (1 K groups)", sql: "SELECT k, sum(v), count(*) FROM t GROUP BY k", want: func(n int64) []string {
			var sums, counts [1000]int64
			for id := int64(0); id < n; id++ {
				sums[id%1000] += id % 97
				counts[id%1000]++
			}
			var out []string
			for k := range 1000 {
				if counts[k] > 0 {
					out = append(out, fmt.Sprintf("%d|%d|%d", k, sums[k], counts[k]))
				}
			}
			slices.Sort(out)
			return out
		}},
		{name: "count(*) WHERE k < 100", sql: "SELECT count(*), sum(id) FROM t WHERE k < 100", want: func(n int64) []string {
			var c, s int64
			for id := int64(0); id < n; id++ {
				if id%1000 < 100 {
					c++
					s += id
				}
			}
			return []string{fmt.Sprintf("%d|%d", c, s)}
		}},
		{name: "sum(k) WHERE v = 5", sql: "SELECT sum(k), count(*), max(id) FROM t WHERE v = 5", want: func(n int64) []string {
			var s, c, m int64
			for id := int64(0); id < n; id++ {
				if id%97 == 5 {
					s += id % 1000
					c++
					m = id
				}
			}
			return []string{fmt.Sprintf("%d|%d|%d", s, c, m)}
		}},
	}
}

func run(ctx context.Context, c config, w io.Writer, prof io.Writer) (int, error) {
	if c.rows <= 0 || c.runs <= 0 || c.threads <= 0 {
		return 0, errors.New("--rows, --runs and --threads must be positive")
	}
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "tablebench-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	mem := memory.NewGoAllocator()
	fe, err := server.Start(ctx, server.Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem})
	if err != nil {
		return 0, err
	}
	defer fe.Close()
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/?interpolateParams=true")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := ensureTable(ctx, fe, db, c.rows, mem, w); err != nil {
		return 0, err
	}
	if _, err := db.ExecContext(ctx, "USE bench"); err != nil {
		return 0, err
	}
	if c.parallel > 0 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("SET parallel_pipeline_task_num = %d", c.parallel)); err != nil {
			return 0, err
		}
	}
	d, err := duckrun.Start(ctx, c.threads)
	if err != nil {
		fmt.Fprintf(w, "DuckDB unavailable (%v): Inlet's figures only\n", err)
	} else {
		defer d.Close()
		t0 := time.Now()
		if _, _, err := d.Run(fmt.Sprintf("CREATE TABLE t AS SELECT range::BIGINT AS id, (range %% 1000)::INTEGER AS k, (range %% 97)::BIGINT AS v, 's' || (range %% 100)::VARCHAR AS s FROM range(%d)", c.rows)); err != nil {
			return 0, err
		}
		fmt.Fprintf(w, "DuckDB @duckdb/node-api %s, %d thread(s), table built in %v\n", d.Version, c.threads, time.Since(t0).Round(time.Millisecond))
	}
	fmt.Fprintf(w, "%d rows, %d run(s) interleaved, GOMAXPROCS %d, parallel_pipeline_task_num %d\n", c.rows, c.runs, runtime.GOMAXPROCS(0), c.parallel)
	fmt.Fprintf(w, "%-24s %10s %8s %12s %10s | %10s %12s | %6s\n", "query", "Inlet ms", "CPU ms", "rows/s", "peak heap", "DuckDB ms", "rows/s", "D/I")
	if prof != nil {
		if err := pprof.StartCPUProfile(prof); err != nil {
			return 0, err
		}
	}
	bad := 0
	for _, q := range queries() {
		if c.only != "" && q.name != c.only {
			continue
		}
		if c.explain {
			if err := explain(ctx, db, q.sql, w); err != nil {
				return bad, fmt.Errorf("inlet, EXPLAIN %s: %w", q.name, err)
			}
		}
		want := q.want(c.rows)
		var its, dts, cpus []time.Duration
		var peak uint64
		for range c.runs {
			h := startHeapWatch()
			c0 := cpuTime()
			t0 := time.Now()
			got, err := inletRows(ctx, db, q.sql)
			el := time.Since(t0)
			cpus = append(cpus, cpuTime()-c0)
			peak = max(peak, h.stop())
			if err != nil {
				return bad, fmt.Errorf("inlet, %s: %w", q.name, err)
			}
			its = append(its, el)
			if !slices.Equal(got, want) {
				bad++
				fmt.Fprintf(w, "ERROR: %s: Inlet answered %s, the generator's definition gives %s\n", q.name, short(got), short(want))
			}
			if d == nil {
				continue
			}
			dt, rows, err := d.Run(q.sql)
			if err != nil {
				return bad, err
			}
			dts = append(dts, dt)
			if dg := duckRows(rows); !slices.Equal(dg, want) {
				bad++
				fmt.Fprintf(w, "ERROR: %s: DuckDB answered %s, the generator's definition gives %s\n", q.name, short(dg), short(want))
			}
		}
		mi := median(its)
		line := fmt.Sprintf("%-24s %10.1f %8.1f %12s %8.1fMB", q.name, ms(mi), ms(median(cpus)), perSec(c.rows, mi), float64(peak)/1e6)
		if d != nil {
			md := median(dts)
			line += fmt.Sprintf(" | %10.1f %12s | %6.3f", ms(md), perSec(c.rows, md), md.Seconds()/mi.Seconds())
		}
		fmt.Fprintln(w, line)
	}
	if prof != nil {
		pprof.StopCPUProfile()
	}
	if bad > 0 {
		fmt.Fprintf(w, "ERROR: %d wrong answer(s)\n", bad)
	}
	return bad, nil
}

// ensureTable loads bench.t unless a table of n rows is already there.
func ensureTable(ctx context.Context, fe *server.FE, db *sql.DB, n int64, mem memory.Allocator, w io.Writer) error {
	var have int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM bench.t").Scan(&have); err == nil {
		if have != n {
			return fmt.Errorf("bench.t in --dir has %d rows, not %d", have, n)
		}
		return nil
	}
	t0 := time.Now()
	for _, s := range []string{"CREATE DATABASE bench", "CREATE TABLE bench.t (id BIGINT, k INT, v BIGINT, s VARCHAR(8)) DISTRIBUTED BY HASH(id) BUCKETS 1"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	cat, err := fe.Catalogs.Get(ctx, "internal")
	if err != nil {
		return err
	}
	d, err := cat.Database(ctx, "bench")
	if err != nil {
		return err
	}
	t, err := d.Table(ctx, "t")
	if err != nil {
		return err
	}
	wr, ok := t.(catalog.Writable)
	if !ok {
		return errors.New("bench.t does not take appends")
	}
	schema := t.Schema().Arrow()
	strs := make([]string, 100)
	for i := range strs {
		strs[i] = "s" + strconv.Itoa(i)
	}
	const batch = 1 << 16
	next := int64(0)
	gen := func(yield func(arrow.RecordBatch, error) bool) {
		for next < n {
			if ctx.Err() != nil {
				yield(nil, ctx.Err())
				return
			}
			m := min(batch, n-next)
			b := array.NewRecordBuilder(mem, schema)
			ids, ks, vs, ss := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.Int32Builder), b.Field(2).(*array.Int64Builder), b.Field(3).(*array.StringBuilder)
			for i := int64(0); i < m; i++ {
				id := next + i
				ids.Append(id)
				ks.Append(int32(id % 1000))
				vs.Append(id % 97)
				ss.Append(strs[id%100])
			}
			rec := b.NewRecordBatch()
			b.Release()
			next += m
			ok := yield(rec, nil)
			rec.Release()
			if !ok {
				return
			}
		}
	}
	rr := array.ReaderFromIter(schema, gen)
	defer rr.Release()
	if _, err := wr.Append(ctx, rr); err != nil {
		return err
	}
	fmt.Fprintf(w, "loaded %d rows into bench.t in %v\n", n, time.Since(t0).Round(time.Millisecond))
	return nil
}

// inletRows runs q and returns its rows sorted, cells joined by "|".
func inletRows(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	cells := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	var out []string
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		f := make([]string, len(cells))
		for i, c := range cells {
			if c == nil {
				f[i] = "NULL"
			} else {
				f[i] = string(c)
			}
		}
		out = append(out, strings.Join(f, "|"))
	}
	slices.Sort(out)
	return out, rs.Err()
}

// explain prints Inlet's plan of q.
func explain(ctx context.Context, db *sql.DB, q string, w io.Writer) error {
	rs, err := db.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		return err
	}
	defer rs.Close()
	fmt.Fprintf(w, "EXPLAIN %s\n", q)
	for rs.Next() {
		var line string
		if err := rs.Scan(&line); err != nil {
			return err
		}
		fmt.Fprintln(w, "  "+line)
	}
	return rs.Err()
}

func duckRows(rows [][]*string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		f := make([]string, len(r))
		for i, c := range r {
			if c == nil {
				f[i] = "NULL"
			} else {
				f[i] = *c
			}
		}
		out = append(out, strings.Join(f, "|"))
	}
	slices.Sort(out)
	return out
}

func short(rows []string) string {
	if len(rows) <= 3 {
		return fmt.Sprint(rows)
	}
	return fmt.Sprintf("%v … (%d rows)", rows[:3], len(rows))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func perSec(n int64, d time.Duration) string {
	return fmt.Sprintf("%.1fM", float64(n)/d.Seconds()/1e6)
}

// cpuTime is the process' user+system CPU time: the FE runs in this
// process, so it is the query's CPU on a machine shared with others.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const heapObjects = "/memory/classes/heap/objects:bytes"

// heapWatch samples the live heap every millisecond for its peak.
type heapWatch struct {
	peak     atomic.Uint64
	done     chan struct{}
	finished chan struct{}
}

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapWatch() *heapWatch {
	runtime.GC()
	h := &heapWatch{done: make(chan struct{}), finished: make(chan struct{})}
	h.peak.Store(readHeap())
	go func() {
		defer close(h.finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				if v := readHeap(); v > h.peak.Load() {
					h.peak.Store(v)
				}
			}
		}
	}()
	return h
}

func (h *heapWatch) stop() uint64 {
	close(h.done)
	<-h.finished
	return max(h.peak.Load(), readHeap())
}
