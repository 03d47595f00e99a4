package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// rssOf reads a process' resident set from /proc: its anonymous part
// (heap, stacks) and its file-backed part (mapped table files), in bytes.
func rssOf(pid int) (anon, file int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		key, rest, _ := strings.Cut(line, ":")
		kb, perr := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch key {
		case "RssAnon":
			anon, n = kb<<10, n+1
		case "RssFile":
			file, n = kb<<10, n+1
		default:
			continue
		}
		if perr != nil {
			return 0, 0, perr
		}
	}
	if n != 2 {
		return 0, 0, errors.New("no RssAnon and RssFile")
	}
	return anon, file, nil
}

// Issue 25 (5): three statements running at once in the FE binary under
// --mem-limit 256M, each under the default 2 GB exec_mem_limit and each
// needing more than 100 MB (hash tables over 10^6 distinct 90-byte keys):
// every one answers or fails with Doris's memory error, and the anonymous
// part of the FE's resident set (its heap; the file-backed part is the
// mapped table files, counted in the accounts too, and reclaimable) grows
// by no more than the limit plus a quarter, the Go runtime's soft limit
// the FE sets from it. Before, statements grew their hash tables before
// counting them and the heap passed the soft limit (354 MiB here).
func TestMemLimitFlagHoldsRSS(t *testing.T) {
	if _, _, err := rssOf(os.Getpid()); err != nil {
		fixtures.Unavailable(t, "no /proc: %v", err)
	}
	const memLimit = 256 << 20
	feBin := buildBin(t, ".")
	dir := t.TempDir()
	fe := startBin(t, []string{"INLET_CLUSTER_SECRET=", "GOMEMLIMIT=", "GOGC="}, feBin,
		"--meta-dir", filepath.Join(dir, "meta"), "--data-dir", filepath.Join(dir, "data"),
		"--query-port", "0", "--http-port", "-1", "--be-http-port", "0", "--flight-sql-port", "-1",
		"--mem-limit", strconv.Itoa(memLimit), "--log-level", "error")
	addr := fe.await(t, `listening on (\S+) `)
	open := func() *sql.DB {
		db, err := sql.Open("mysql", "root@tcp("+addr+")/")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// 10^6 rows: ids 0..999999 and an 80+10-byte pad unique per row.
	exec("CREATE DATABASE m")
	exec("CREATE TABLE m.d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1")
	exec("INSERT INTO m.d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	exec("CREATE TABLE m.g (id BIGINT, pad VARCHAR(100)) DISTRIBUTED BY HASH(id) BUCKETS 4")
	const rows = 1000000
	for off := 0; off < rows; off += 100000 {
		id := fmt.Sprintf("(%d + a.x*10000 + b.x*1000 + c.x*100 + e.x*10 + g.x)", off)
		exec(fmt.Sprintf("INSERT INTO m.g SELECT %s, concat(repeat('p', 80), lpad(cast(%s AS VARCHAR), 10, '0')) FROM m.d a, m.d b, m.d c, m.d e, m.d g", id, id))
	}
	qs := []string{
		"SELECT count(*) FROM (SELECT pad, count(*) FROM m.g GROUP BY pad) x",
		"SELECT count(*) FROM (SELECT DISTINCT pad FROM m.g) x",
		"SELECT count(*) FROM m.g a JOIN m.g b ON a.pad = b.pad",
	}
	dbs := make([]*sql.DB, len(qs))
	for i := range dbs {
		dbs[i] = open()
		if err := dbs[i].Ping(); err != nil {
			t.Fatal(err)
		}
	}
	pid := fe.cmd.Process.Pid
	time.Sleep(3 * time.Second) // the loads' memory goes back to the OS when the FE is idle
	base, _, err := rssOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	var peak, peakFile atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if a, f, err := rssOf(pid); err == nil {
				if a > peak.Load() {
					peak.Store(a)
				}
				if f > peakFile.Load() {
					peakFile.Store(f)
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, len(qs))
	got := make([]string, len(qs))
	for i, q := range qs {
		wg.Go(func() { errs[i] = dbs[i].QueryRow(q).Scan(&got[i]) })
	}
	wg.Wait()
	close(stop)
	<-sampled
	grew := peak.Load() - base
	// The soft memory limit the FE gives the Go runtime: all its memory,
	// live heap and garbage, stays under it unless the live heap itself
	// passes it, which the accounts are there to prevent.
	const bound = memLimit + memLimit/4
	t.Logf("anonymous RSS %d MiB before, peak %d MiB: grew %d MiB (bound %d MiB); file-backed RSS peak %d MiB", base>>20, peak.Load()>>20, grew>>20, bound>>20, peakFile.Load()>>20)
	for i, q := range qs {
		var me *mysql.MySQLError
		switch {
		case errs[i] == nil:
			if got[i] != strconv.Itoa(rows) {
				t.Errorf("%s = %s, want %d", q, got[i], rows)
			}
		case errors.As(errs[i], &me) && strings.HasPrefix(me.Message, "errCode = 2, detailMessage = Memory limit exceeded"):
			t.Logf("%s: %s", q, me.Message)
		default:
			t.Errorf("%s: want its answer or the memory limit error, got %v", q, errs[i])
		}
	}
	if grew > bound {
		t.Errorf("under --mem-limit %d MiB the FE's anonymous resident set grew by %d MiB, past %d MiB", memLimit>>20, grew>>20, bound>>20)
	}
}
