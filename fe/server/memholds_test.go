package server

import (
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Issue 25 (5): memory limits hold at the limit. The table g has 10^6 rows
// of about 110 bytes (two BIGINTs, a 90-byte string and its offset): 110
// MB, scanned in batches of 10^5 rows (one per INSERT), 11 MB each.
const (
	holdRows = 1000000
	// holdBatch bounds the bytes of one scan batch of g.
	holdBatch = 100000 * 112
	// holdSlack is what a statement may hold past its limit: the batch
	// the in-process BE read (and counted, never refusing) when the count
	// passed the limit, and the one the operator above was working on.
	holdSlack = 2 * holdBatch
	holdLimit = 64 << 20
)

// genTable creates mem.<name>(id BIGINT, k BIGINT, pad VARCHAR(100)) with
// n rows (a multiple of 10^5): ids 0..n-1, k = id*7919 mod n (a
// permutation of the ids, as 7919 is prime to n), and pad 80 'p' then the
// id in 10 digits.
func genTable(t *testing.T, db *sql.DB, name string, n int) {
	t.Helper()
	mustExec(t, db, "CREATE DATABASE IF NOT EXISTS mem", "USE mem",
		"CREATE TABLE IF NOT EXISTS d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1")
	if rows(t, db, "SELECT count(*) FROM d")[0] == "0" {
		mustExec(t, db, "INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	}
	mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (id BIGINT, k BIGINT, pad VARCHAR(100)) DISTRIBUTED BY HASH(id) BUCKETS 4", name))
	const chunk = 100000
	for off := 0; off < n; off += chunk {
		id := fmt.Sprintf("(%d + a.x*10000 + b.x*1000 + c.x*100 + e.x*10 + g.x)", off)
		mustExec(t, db, fmt.Sprintf(
			"INSERT INTO %s SELECT %s, %s * 7919 %% %d, concat(repeat('p', 80), lpad(cast(%s AS VARCHAR), 10, '0')) FROM d a, d b, d c, d e, d g",
			name, id, id, n, id))
	}
}

// heapObjects is the Go heap in use (live objects and garbage not yet
// swept).
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// heapProbe records the most Go heap in use above what it was at the
// start, sampled every half millisecond.
type heapProbe struct {
	base, peak atomic.Int64
	stop, done chan struct{}
}

func startHeapProbe() *heapProbe {
	runtime.GC()
	p := &heapProbe{stop: make(chan struct{}), done: make(chan struct{})}
	p.base.Store(heapObjects())
	go func() {
		defer close(p.done)
		tk := time.NewTicker(500 * time.Microsecond)
		defer tk.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tk.C:
			}
			if h := heapObjects() - p.base.Load(); h > p.peak.Load() {
				p.peak.Store(h)
			}
		}
	}()
	return p
}

func (p *heapProbe) end() int64 {
	close(p.stop)
	<-p.done
	return p.peak.Load()
}

var heldRE = regexp.MustCompile(`; (\d+) held, (\d+) more requested`)

// memRefusal checks that err is Doris's memory limit error and returns the
// bytes it says the statement (or process) held when refused.
func memRefusal(t *testing.T, q string, err error) int64 {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1105 || !strings.Contains(me.Message, "Memory limit exceeded") {
		t.Fatalf("%s: want the memory limit error, got %v", q, err)
	}
	// Doris's text, not the name of the Go package that was refused.
	if !strings.HasPrefix(me.Message, "errCode = 2, detailMessage = Memory limit exceeded") {
		t.Errorf("%s: %q", q, me.Message)
	}
	m := heldRE.FindStringSubmatch(me.Message)
	if m == nil {
		m = regexp.MustCompile(`\((\d+) held by all queries, (\d+) more`).FindStringSubmatch(me.Message)
	}
	if m == nil {
		t.Fatalf("%s: no held bytes in %q", q, me.Message)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// With exec_mem_limit = 64 MB, each statement either answers or fails with
// Doris's "Memory limit exceeded", and neither what its account counted
// nor the Go heap in use while it ran passes the limit by more than
// holdSlack. The heap is measured with the collector at GOGC=10, so it
// follows the live heap (garbage is the collector's business: the FE sets
// its soft memory limit from --mem-limit).
func TestMemLimitHolds(t *testing.T) {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	f := startFEWith(t, Options{})
	db := f.db("")
	genTable(t, db, "g", holdRows)
	proc := f.fe.Mem

	// run runs q at exec_mem_limit limit and returns its rows or error,
	// the process account's peak and the heap's, above where they began.
	run := func(t *testing.T, db *sql.DB, q string) ([]string, int64, int64, error) {
		t.Helper()
		proc.ResetPeak()
		base := proc.Used()
		p := startHeapProbe()
		got, err := tryRows(db, q)
		heap := p.end()
		acc := proc.Peak() - base
		t.Logf("%s: accounted peak %.1f MB, heap in use +%.1f MB (%.2f of the accounted)", q, mb(acc), mb(heap), float64(heap)/float64(max(acc, 1)))
		return got, acc, heap, err
	}
	refused := func(t *testing.T, q string) {
		t.Helper()
		_, acc, heap, err := run(t, db, q)
		if held := memRefusal(t, q, err); held > holdLimit {
			t.Errorf("%s: refused only when it held %d bytes, past the limit %d", q, held, holdLimit)
		}
		if acc > holdLimit+holdSlack {
			t.Errorf("%s: the account peaked at %.1f MB, past the limit %.1f MB + %.1f MB", q, mb(acc), mb(holdLimit), mb(holdSlack))
		}
		if heap > holdLimit+holdSlack {
			t.Errorf("%s: the Go heap in use grew by %.1f MB, past the limit %.1f MB + %.1f MB", q, mb(heap), mb(holdLimit), mb(holdSlack))
		}
		if proc.Used() != 0 {
			t.Errorf("%s: the process account holds %d after the refusal", q, proc.Used())
		}
	}
	set := func(spill bool) {
		mustExec(t, db, fmt.Sprintf("SET exec_mem_limit = %d", holdLimit), fmt.Sprintf("SET enable_spill = %v", spill))
	}
	const sumIDs = holdRows * (holdRows - 1) / 2

	// (a) The IN set of 10^6 ids (the build of a semi join) is refused at
	// the limit; before, the scan's batches piled up uncounted-as-refused
	// until the set's first strict allocation, at 110 MB.
	t.Run("in subquery", func(t *testing.T) {
		set(false)
		refused(t, "SELECT count(*) FROM g WHERE k IN (SELECT id FROM g)")
	})

	// (b) A hash join whose build (the whole table) passes the limit:
	// refused without spill, answered with it.
	t.Run("hash join", func(t *testing.T) {
		const q = "SELECT count(*), sum(a.id), sum(b.k) FROM g a JOIN g b ON a.k = b.id"
		set(false)
		refused(t, q)
		set(true)
		got, acc, _, err := run(t, db, q)
		want := fmt.Sprintf("%d|%d|%d", holdRows, sumIDs, sumIDs)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("with spill: %v, %v; want %s", got, err, want)
		}
		if acc > holdLimit+holdSlack {
			t.Errorf("with spill the account peaked at %.1f MB", mb(acc))
		}
	})

	// (c) Hash tables over string keys, a full sort: the heap in use stays
	// within the bound at refusal. Before, tables grew their Go arrays
	// first and counted them after: the heap reached 1.7-1.9 times what
	// was counted (94 and 114 MB at this limit).
	t.Run("heap at refusal", func(t *testing.T) {
		set(false)
		for _, q := range []string{
			"SELECT count(*) FROM g a JOIN g b ON a.pad = b.pad",
			"SELECT count(*) FROM (SELECT pad, count(*) FROM g GROUP BY pad) x",
			"SELECT count(*) FROM (SELECT DISTINCT pad FROM g) x",
			"SELECT count(*) FROM (SELECT DISTINCT k * 1000003 FROM g) x",
			"SELECT id, pad FROM g ORDER BY pad DESC LIMIT 2000000",
		} {
			refused(t, q)
		}
	})

	// (d) Three statements at once, each under the default 2 GB
	// exec_mem_limit, under a process limit (--mem-limit) of 160 MB that
	// does not fit them together: each answers or fails with the memory
	// error, and neither the process account nor the heap passes the
	// process limit by more than each statement's slack and a batch per
	// parallel worker.
	t.Run("process limit", func(t *testing.T) {
		const procLimit = 160 << 20
		proc.SetLimit(procLimit)
		defer proc.SetLimit(0)
		qs := []string{
			"SELECT count(*) FROM (SELECT pad, count(*) FROM g GROUP BY pad) x",
			"SELECT count(*) FROM (SELECT DISTINCT pad FROM g) x",
			"SELECT count(*) FROM g a JOIN g b ON a.pad = b.pad",
		}
		dbs := make([]*sql.DB, len(qs))
		for i := range dbs {
			dbs[i] = f.db("mem")
			rows(t, dbs[i], "SELECT 1") // log in before the probe starts
		}
		proc.ResetPeak()
		p := startHeapProbe()
		var wg sync.WaitGroup
		errs := make([]error, len(qs))
		got := make([][]string, len(qs))
		for i, q := range qs {
			wg.Go(func() { got[i], errs[i] = tryRows(dbs[i], q) })
		}
		wg.Wait()
		heap := p.end()
		acc := proc.Peak()
		t.Logf("three statements under %.0f MB: accounted peak %.1f MB, heap in use +%.1f MB", mb(procLimit), mb(acc), mb(heap))
		for i, q := range qs {
			if errs[i] != nil {
				memRefusal(t, q, errs[i])
				t.Logf("%s: %v", q, errs[i])
			} else if len(got[i]) != 1 || got[i][0] != fmt.Sprint(holdRows) {
				t.Errorf("%s: %v", q, got[i])
			}
		}
		// Past the process cap a statement holds, besides its own slack,
		// one batch for each of its parallel workers (at most GOMAXPROCS):
		// they detach batches leniently (memlimit.Lenient, never
		// refusing), so each may have counted one when another
		// statement's allocation passed the cap. Under CI load the peak
		// was once seen 234.9 MB: one batch past 160 MB + 3 × slack.
		perStmt := holdSlack + runtime.GOMAXPROCS(0)*holdBatch
		bound := int64(procLimit + len(qs)*perStmt)
		if acc > bound {
			t.Errorf("the process account peaked at %.1f MB, past %.1f MB", mb(acc), mb(bound))
		}
		if heap > bound {
			t.Errorf("the Go heap in use grew by %.1f MB, past %.1f MB", mb(heap), mb(bound))
		}
		if proc.Used() != 0 {
			t.Errorf("the process account holds %d at the end", proc.Used())
		}
	})
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
