package server

import (
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/internal/gcfloor"
)

// After a statement that held a lot, the Go runtime keeps the freed heap
// mapped until later collections and its background scavenger return it,
// which on an idle FE can take minutes: RSS stays at the query's peak. So
// once a statement whose account peaked at memReturnAfter or more ends,
// and no statement has run for memReturnIdle, freed memory goes back to
// the OS (a full collection, cheap once the statement's heap is garbage).
// Waiting for a quiet moment keeps back-to-back large queries from
// faulting their pages in again each time; at most one return is pending.
const (
	memReturnAfter = 256 << 20
	memReturnIdle  = 2 * time.Second
)

var memReturn struct {
	// running counts the statements running in the process; lastEnd is
	// when the last one ended (unix nanoseconds).
	running atomic.Int64
	lastEnd atomic.Int64
	pending atomic.Bool
	// count is how many times memory was returned (for /metrics).
	count atomic.Int64
}

// statementStarted and statementEnded bracket every statement run under
// an account; ended gets the account's peak.
func statementStarted() { memReturn.running.Add(1) }

func statementEnded(peak int64) {
	memReturn.lastEnd.Store(time.Now().UnixNano())
	memReturn.running.Add(-1)
	if peak >= memReturnAfter && memReturn.pending.CompareAndSwap(false, true) {
		time.AfterFunc(memReturnIdle, returnWhenIdle)
	}
}

// returnWhenIdle returns freed memory if no statement ran for
// memReturnIdle, and otherwise looks again later.
func returnWhenIdle() {
	quiet := time.Duration(time.Now().UnixNano() - memReturn.lastEnd.Load())
	if memReturn.running.Load() > 0 || quiet < memReturnIdle {
		time.AfterFunc(max(memReturnIdle-quiet, memReturnIdle/4), returnWhenIdle)
		return
	}
	debug.FreeOSMemory()
	memReturn.count.Add(1)
	memReturn.pending.Store(false)
}

// writeMemMetrics prints the process' memory as /metrics shows it: the
// resident set next to what the accounts hold, the Go heap between them,
// and what queries spilled to disk.
func (s *Server) writeMemMetrics(w io.Writer) {
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	gauge("inlet_process_rss_bytes", "Resident set size of the FE process.", memlimit.RSS())
	anon, file := memlimit.RSSParts()
	gauge("inlet_process_rss_anon_bytes", "Anonymous part of the resident set (heap and stacks: what the accounts should explain).", anon)
	gauge("inlet_process_rss_file_bytes", "File-backed part of the resident set (mapped table files, reclaimable).", file)
	if p, ok := s.cfg.Mem.(*memlimit.Process); ok {
		gauge("inlet_fe_mem_accounted_bytes", "Bytes the memory accounts of all statements and caches hold now (what --mem-limit counts).", p.Used())
		gauge("inlet_fe_mem_accounted_peak_bytes", "Most bytes the accounts held at once since the FE started.", p.Peak())
		if l := p.Limit(); l > 0 && l < 1<<62 {
			gauge("inlet_fe_mem_limit_bytes", "The process memory limit (--mem-limit).", l)
		}
	}
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(samples)
	val := func(i int) int64 {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			return int64(samples[i].Value.Uint64())
		}
		return -1
	}
	gauge("inlet_go_heap_objects_bytes", "Go heap memory held by objects, live or not yet collected.", val(0))
	gauge("inlet_go_mapped_bytes", "Memory the Go runtime has mapped, less what it returned to the OS.", val(1)-val(2))
	gauge("inlet_go_gc_floor_bytes", "Heap below which the Go collector does not run (internal/gcfloor; 0: none).", gcfloor.Floor())
	if gcfloor.Floor() > 0 {
		gauge("inlet_go_gc_percent", "The GC percent the floor set after the last collection.", int64(gcfloor.Applied()))
	}
	counter("inlet_fe_gc_tightened_total", "Times the Go collector was tightened while statements held much memory (gcpace.go).", gcTightenedCount())
	counter("inlet_fe_mem_returned_total", "Times freed memory was returned to the OS after a large statement.", memReturn.count.Load())
	counter("inlet_fe_spill_write_bytes_total", "Bytes queries wrote to spill files (enable_spill).", s.spill.bytes.Load())
	counter("inlet_fe_spill_files_total", "Spill files queries made.", s.spill.files.Load())
	gauge("inlet_fe_spilling_queries", "Queries running with a spill directory now.", s.spill.spilling.Load())
}
