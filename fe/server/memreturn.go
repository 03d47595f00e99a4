package server

import (
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// After a statement that held a lot, the Go runtime keeps the freed heap
// mapped until later collections and its background scavenger return it,
// which on an idle FE can take minutes: RSS stays at the query's peak. A
// statement whose account peaked at memReturnAfter or more therefore
// returns freed memory to the OS when it ends, at most once per
// memReturnEvery for the whole process (it costs a full collection), on a
// goroutine of its own so the client does not wait for it.
const (
	memReturnAfter = 256 << 20
	memReturnEvery = 5 * time.Second
)

var memReturn struct {
	mu      sync.Mutex
	last    time.Time
	running bool
	// count is how many times memory was returned (for /metrics).
	count atomic.Int64
}

// returnMemory is called when a statement ends with its account's peak.
func returnMemory(peak int64) {
	if peak < memReturnAfter {
		return
	}
	memReturn.mu.Lock()
	if memReturn.running || time.Since(memReturn.last) < memReturnEvery {
		memReturn.mu.Unlock()
		return
	}
	memReturn.running = true
	memReturn.mu.Unlock()
	go func() {
		debug.FreeOSMemory()
		memReturn.count.Add(1)
		memReturn.mu.Lock()
		memReturn.running, memReturn.last = false, time.Now()
		memReturn.mu.Unlock()
	}()
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
	counter("inlet_fe_mem_returned_total", "Times freed memory was returned to the OS after a large statement.", memReturn.count.Load())
	counter("inlet_fe_spill_write_bytes_total", "Bytes queries wrote to spill files (enable_spill).", s.spill.bytes.Load())
	counter("inlet_fe_spill_files_total", "Spill files queries made.", s.spill.files.Load())
	gauge("inlet_fe_spilling_queries", "Queries running with a spill directory now.", s.spill.spilling.Load())
}
