package server

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// queryRunning reports whether connection id is running a statement.
func queryRunning(fe *FE, id uint32) bool {
	for _, p := range fe.Server.processes() {
		if p.id == id && p.command == "Query" {
			return true
		}
	}
	return false
}

// procFigures are the resources a soak must not leak.
type procFigures struct {
	goroutines int
	fds        int
	heap       uint64 // live heap after a GC
	rss        int64
	arrow      int64 // bytes the FE's allocator holds
}

func takeFigures(mem *memory.CheckedAllocator) procFigures {
	runtime.GC()
	debug.FreeOSMemory() // RSS then shows what is held, not what the runtime kept
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, _ := os.ReadDir("/proc/self/fd")
	var rss int64
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return procFigures{goroutines: runtime.NumGoroutine(), fds: len(fds), heap: ms.HeapAlloc, rss: rss, arrow: int64(mem.CurrentAlloc())}
}

func (p procFigures) String() string {
	return fmt.Sprintf("%d goroutines, %d fds, heap %.1f MiB, RSS %.1f MiB, arrow %d B",
		p.goroutines, p.fds, float64(p.heap)/(1<<20), float64(p.rss)/(1<<20), p.arrow)
}

// BenchmarkSoak (issue 13) is not part of the default run: `go test -bench
// Soak -run '^$' ./fe/server` (INLET_SOAK=2m sets the length, 2 minutes by
// default). 32 connections mix scans, joins, sorts, GROUP BY, Fluss union
// reads on the emulator, INSERTs, KILL QUERY of running queries and clients
// that vanish mid-query, against one FE; goroutines, open fds, heap and RSS
// are taken after a warm-up and after the clients are gone, and must not
// have grown past a small bound.
func BenchmarkSoak(b *testing.B) {
	length := 2 * time.Minute
	if v := os.Getenv("INLET_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("INLET_SOAK: %v", err)
		}
		length = d
	}
	ctx := context.Background()
	wh := b.TempDir()
	cluster, err := minifluss.Start(ctx, minifluss.Config{DataDir: b.TempDir(), DatalakeFormat: "paimon", TabletServers: 2,
		DefaultBucketNumber: 3, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		b.Fatal(err)
	}
	defer cluster.Close()
	sc, err := minifluss.LoadScenario(filepath.Join("..", "..", "minifluss", "testdata", "doris_regression.scenario"))
	if err != nil {
		b.Fatal(err)
	}
	if err := sc.Run(ctx, cluster); err != nil {
		b.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "soak-be"})
	defer be.Close()
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: b.TempDir(), Mem: mem,
		Types: []catalog.Type{fluss.Type(), paimon.Type()}, Runner: disp})
	if err != nil {
		b.Fatal(err)
	}
	defer fe.Close()
	addr := fe.Addr().String()
	admin, err := sql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	for _, s := range []string{
		fmt.Sprintf(`CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, cluster.BootstrapAddr()),
		"CREATE DATABASE soak", "USE soak",
		"CREATE TABLE d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		"CREATE TABLE t (id BIGINT, pad VARCHAR(100)) DISTRIBUTED BY HASH(id) BUCKETS 3",
		"INSERT INTO t SELECT a.x*1000 + b.x*100 + c.x*10 + e.x, concat(repeat('s', 80), cast(a.x AS VARCHAR)) FROM d a, d b, d c, d e",
		"CREATE TABLE ins (w BIGINT, n BIGINT, s VARCHAR(20)) DISTRIBUTED BY HASH(w) BUCKETS 2",
	} {
		if _, err := admin.Exec(s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	// Runs for minutes unless stopped; its limit keeps 32 of them from
	// taking the machine's memory (it may fail with that limit instead of
	// being killed: counted apart).
	const cross = "SELECT /*+ SET_VAR(exec_mem_limit=268435456) */ count(*) FROM soak.d a, soak.d b, soak.d c, soak.d e, soak.d g, soak.d h, soak.d i, soak.d j, soak.d k"
	reads := []struct{ q, want string }{
		{"SELECT count(*), sum(id) FROM soak.t WHERE id % 7 = 3", "1429|7146429"},
		{"SELECT count(*) FROM soak.t x JOIN soak.t y ON x.id = y.id", "10000"},
		{"SELECT id FROM soak.t ORDER BY pad DESC, id LIMIT 1", "9000"},
		{"SELECT count(*) FROM (SELECT id FROM soak.t ORDER BY pad, id DESC) s", "10000"},
		{"SELECT count(*), min(c) FROM (SELECT id % 100 AS k, count(*) AS c FROM soak.t GROUP BY id % 100) g", "100|100"},
		{"SELECT count(*), sum(id) FROM fl.fluss_test.lake_log", ""},
		{"SELECT count(*) FROM fl.fluss_test.lake_pk", ""},
	}
	// The Fluss answers come from a quiet read before the load.
	for i := range reads {
		if reads[i].want == "" {
			var n, s sql.NullInt64
			r := admin.QueryRow(reads[i].q)
			if strings.Contains(reads[i].q, "sum") {
				err = r.Scan(&n, &s)
				reads[i].want = fmt.Sprintf("%d|%d", n.Int64, s.Int64)
			} else {
				err = r.Scan(&n)
				reads[i].want = fmt.Sprint(n.Int64)
			}
			if err != nil {
				b.Fatalf("%s: %v", reads[i].q, err)
			}
		}
	}
	const conns = 32
	var counts struct{ reads, inserts, kills, overLimit, hangups, failures atomic.Int64 }
	var failMu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		counts.failures.Add(1)
		failMu.Lock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		failMu.Unlock()
	}
	readOne := func(db *sql.DB, q string) (string, error) {
		rs, err := db.Query(q)
		if err != nil {
			return "", err
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		var out []string
		for rs.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				return "", err
			}
			for _, v := range vals {
				out = append(out, v.String)
			}
		}
		return strings.Join(out, "|"), rs.Err()
	}
	worker := func(w int, until time.Time) {
		dialer := &hangupDialer{}
		network := fmt.Sprintf("soak-hangup-%d", w)
		mysql.RegisterDialContext(network, dialer.dial)
		db, err := sql.Open("mysql", "root@tcp("+addr+")/soak")
		if err != nil {
			fail("open: %v", err)
			return
		}
		defer db.Close()
		db.SetMaxOpenConns(2)
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		for i := 0; time.Now().Before(until); i++ {
			switch op := rng.IntN(12); {
			case op < 7:
				r := reads[rng.IntN(len(reads))]
				got, err := readOne(db, r.q)
				if err != nil || got != r.want {
					fail("%s: got %q, %v; want %q", r.q, got, err, r.want)
				}
				counts.reads.Add(1)
			case op < 9:
				if _, err := db.Exec(fmt.Sprintf("INSERT INTO ins VALUES (%d, %d, 'w%d-%d')", w, i, w, i)); err != nil {
					fail("insert: %v", err)
				}
				counts.inserts.Add(1)
			case op < 11:
				// A query killed while it runs.
				conn, err := db.Conn(ctx)
				if err != nil {
					fail("conn: %v", err)
					continue
				}
				var id uint32
				if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					fail("connection_id: %v", err)
					conn.Close()
					continue
				}
				done := make(chan error, 1)
				go func() {
					var n int64
					done <- conn.QueryRowContext(ctx, cross).Scan(&n)
				}()
				time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
				// KILL QUERY of an idle connection does nothing (as in
				// MySQL): wait until the statement has reached the server.
				for t0 := time.Now(); !queryRunning(fe, id) && time.Since(t0) < 5*time.Second; {
					time.Sleep(5 * time.Millisecond)
				}
				if _, err := admin.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
					fail("kill: %v", err)
				}
				select {
				case err := <-done:
					switch {
					case err != nil && strings.Contains(err.Error(), "Memory limit exceeded"):
						counts.overLimit.Add(1)
					case err == nil || !strings.Contains(err.Error(), "cancel"):
						fail("killed query: %v", err)
					}
				case <-time.After(5 * time.Second):
					buf := make([]byte, 8<<20)
					dump := filepath.Join(os.TempDir(), fmt.Sprintf("inlet-soak-kill-%d.txt", id))
					os.WriteFile(dump, buf[:runtime.Stack(buf, true)], 0o644)
					fail("KILL QUERY did not stop the query of connection %d in 5 s (goroutines in %s)", id, dump)
					<-done
				}
				conn.Close()
				counts.kills.Add(1)
			default:
				// A client that vanishes mid-query.
				hdb, err := sql.Open("mysql", "root@"+network+"("+addr+")/soak")
				if err != nil {
					fail("open: %v", err)
					continue
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					var n int64
					hdb.QueryRow(cross).Scan(&n)
				}()
				time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
				// database/sql retries on a fresh connection after a
				// broken one: cut those too.
				for cut := true; cut; {
					dialer.cut()
					select {
					case <-done:
						cut = false
					case <-time.After(20 * time.Millisecond):
					}
				}
				hdb.Close()
				counts.hangups.Add(1)
			}
		}
	}

	// Warm-up: one short round, so that pools, caches and lazily started
	// goroutines exist before the first figures.
	var wg sync.WaitGroup
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(1000+w, time.Now().Add(3*time.Second)) }()
	}
	wg.Wait()
	settle := func() procFigures {
		// Statements of vanished clients and killed queries end within a
		// second; give them a little more.
		deadline := time.Now().Add(10 * time.Second)
		for len(fe.Server.processes()) > 1 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Second)
		return takeFigures(mem)
	}
	start := settle()
	b.ResetTimer()
	began := time.Now()
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(w, began.Add(length)) }()
	}
	wg.Wait()
	b.StopTimer()
	end := settle()
	var inserted int64
	if err := admin.QueryRow("SELECT count(*) FROM soak.ins").Scan(&inserted); err != nil {
		b.Fatal(err)
	}
	b.Logf("soak %s × %d connections: %d reads, %d inserts (%d rows in the table), %d killed queries (%d of them over their limit first), %d vanished clients, %d failures",
		time.Since(began).Round(time.Second), conns, counts.reads.Load(), counts.inserts.Load(), inserted, counts.kills.Load(), counts.overLimit.Load(), counts.hangups.Load(), counts.failures.Load())
	b.Logf("start: %s", start)
	b.Logf("end:   %s", end)
	b.ReportMetric(float64(counts.reads.Load()+counts.inserts.Load())/time.Since(began).Seconds(), "stmts/s")
	b.ReportMetric(float64(end.goroutines-start.goroutines), "Δgoroutines")
	b.ReportMetric(float64(end.fds-start.fds), "Δfds")
	b.ReportMetric(float64(int64(end.heap)-int64(start.heap))/(1<<20), "Δheap-MiB")
	b.ReportMetric(float64(end.rss-start.rss)/(1<<20), "ΔRSS-MiB")
	for _, f := range failures {
		b.Error(f)
	}
	if inserted != counts.inserts.Load() {
		b.Errorf("%d inserts acknowledged, %d rows in the table", counts.inserts.Load(), inserted)
	}
	// Bounds: a few goroutines and fds of connections still closing, heap
	// and RSS growth well under what one query may hold.
	if end.goroutines > start.goroutines+8 {
		b.Errorf("goroutines grew from %d to %d", start.goroutines, end.goroutines)
	}
	if end.fds > start.fds+8 {
		b.Errorf("open fds grew from %d to %d", start.fds, end.fds)
	}
	if end.heap > start.heap+64<<20 {
		b.Errorf("live heap grew from %d to %d", start.heap, end.heap)
	}
	if end.rss > start.rss+256<<20 {
		b.Errorf("RSS grew from %d to %d", start.rss, end.rss)
	}
	if end.arrow != 0 {
		b.Errorf("the FE allocator holds %d bytes with no query running", end.arrow)
	}
}
