package server

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// scrape reads /metrics into name → value (series without labels only).
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.Contains(line, "{") {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out[name] = v
	}
	return out
}

// Issue 25 (5): /metrics shows the process' RSS next to the bytes the
// memory accounts hold (now and at their peak), the Go heap between them,
// and what queries spilled.
func TestMemoryMetrics(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	bigTable(t, db)
	hs := httptest.NewServer(f.fe.Server.HTTPHandler())
	defer hs.Close()

	mustExec(t, db, fmt.Sprintf("SET exec_mem_limit = %d", spillLimit), "SET enable_spill = true")
	wantRows(t, db, "SELECT count(*) FROM big a JOIN big b ON a.pad = b.pad", fmt.Sprint(memLimitRows))
	m := scrape(t, hs.URL)
	for _, name := range []string{"inlet_process_rss_bytes", "inlet_process_rss_anon_bytes", "inlet_fe_mem_accounted_peak_bytes", "inlet_go_heap_objects_bytes",
		"inlet_go_mapped_bytes", "inlet_fe_spill_write_bytes_total", "inlet_fe_spill_files_total"} {
		if m[name] <= 0 {
			t.Errorf("%s = %v, want > 0", name, m[name])
		}
	}
	if _, ok := m["inlet_fe_mem_accounted_bytes"]; !ok {
		t.Error("no inlet_fe_mem_accounted_bytes")
	}
	if m["inlet_fe_spilling_queries"] != 0 {
		t.Errorf("inlet_fe_spilling_queries = %v after the query", m["inlet_fe_spilling_queries"])
	}
	// RSS includes the live Go heap (the test's tables among it).
	if m["inlet_process_rss_bytes"] < m["inlet_go_heap_objects_bytes"]/2 {
		t.Errorf("RSS %v below half the Go heap %v", m["inlet_process_rss_bytes"], m["inlet_go_heap_objects_bytes"])
	}
}

// A statement that held more than memReturnAfter returns freed memory to
// the OS once no statement has run for memReturnIdle; smaller ones do
// not, and a running statement holds the return back.
func TestReturnMemoryAfterLargeStatements(t *testing.T) {
	settle := func() int64 {
		deadline := time.Now().Add(4 * memReturnIdle)
		for memReturn.pending.Load() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		return memReturn.count.Load()
	}
	before := settle()
	statementStarted()
	statementEnded(memReturnAfter - 1)
	if memReturn.pending.Load() {
		t.Fatal("a small statement scheduled a return")
	}
	statementStarted()
	statementEnded(memReturnAfter)
	statementStarted() // another statement runs on
	time.Sleep(memReturnIdle + memReturnIdle/2)
	if got := memReturn.count.Load(); got != before {
		t.Fatalf("memory returned while a statement ran (%d → %d)", before, got)
	}
	statementEnded(0)
	if got := settle(); got != before+1 {
		t.Fatalf("after the large statement: count %d → %d, want one more", before, got)
	}
}

func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// waitGOGC waits until the collector runs at want percent.
func waitGOGC(t *testing.T, want int64, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for gogc() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC %d, want %d", what, gogc(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Issue 25 (5): while statements hold more than gcTightAbove together the
// collector runs at gcTightPercent, so garbage adds a quarter, not the
// whole live heap, to the resident set; it relaxes when they hold less
// than half of that and when the last one ends, and a GOGC already lower
// is left alone.
func TestGCTightenedWhileStatementsHoldMuch(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	a := memlimit.New(memory.NewGoAllocator(), 1<<40, "exec_mem_limit")
	b := memlimit.New(memory.NewGoAllocator(), 1<<40, "exec_mem_limit")
	defer a.Close()
	defer b.Close()
	paceStart(a)
	paceStart(b)
	memlimit.Charge(a, gcTightAbove/2+1) // counting only: no memory behind it
	time.Sleep(5 * gcPaceEvery)
	if got := gogc(); got != 100 {
		t.Fatalf("statements holding half the threshold: GOGC %d", got)
	}
	memlimit.Charge(b, gcTightAbove/2) // together past it
	waitGOGC(t, gcTightPercent, "past the threshold together")
	memlimit.Refund(a, gcTightAbove/2+1)
	time.Sleep(5 * gcPaceEvery)
	if got := gogc(); got != gcTightPercent {
		t.Fatalf("between half and the whole threshold: GOGC %d, want it kept at %d", got, gcTightPercent)
	}
	paceEnd(b) // b's bytes no longer count: a holds nothing
	waitGOGC(t, 100, "below half after b ended")
	memlimit.Charge(a, gcTightAbove)
	waitGOGC(t, gcTightPercent, "a past the threshold alone")
	paceEnd(a)
	waitGOGC(t, 100, "no statement")

	debug.SetGCPercent(10)
	c := memlimit.New(memory.NewGoAllocator(), 1<<40, "exec_mem_limit")
	defer c.Close()
	paceStart(c)
	memlimit.Charge(c, 2*gcTightAbove)
	time.Sleep(5 * gcPaceEvery)
	if got := gogc(); got != 10 {
		t.Fatalf("a lower GOGC was changed to %d", got)
	}
	paceEnd(c)
}
