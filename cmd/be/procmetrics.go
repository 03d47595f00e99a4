package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/internal/gcfloor"
	"github.com/inlet-db/inlet/internal/metrics"
)

// processGauges registers the process gauges Doris's BE exposes, read at
// each scrape: doris_be_memory_allocated_bytes is the resident set (VmRSS,
// as Doris defines it), the thread and descriptor counts come from /proc.
// Where /proc cannot be read the value is -1, so a chart shows a gap
// rather than a plausible zero.
func processGauges(reg *metrics.Registry) {
	reg.GaugeFunc("doris_be_memory_allocated_bytes", "Resident set size of the BE process (VmRSS).",
		func() float64 {
			kb := procStatus("VmRSS:")
			if kb < 0 {
				return -1
			}
			return float64(kb * 1024)
		})
	reg.GaugeFunc("doris_be_process_thread_num", "Operating-system threads of the BE process.",
		func() float64 { return float64(procStatus("Threads:")) })
	reg.GaugeFunc("doris_be_process_fd_num_used", "File descriptors the BE process holds open.",
		func() float64 { return float64(procFDs()) })
	reg.GaugeFunc("inlet_go_gc_floor_bytes", "Heap below which the Go collector does not run (internal/gcfloor; 0: none).",
		func() float64 { return float64(gcfloor.Floor()) })
	reg.GaugeFunc("inlet_go_gc_percent", "The GC percent the floor set after the last collection.",
		func() float64 { return float64(gcfloor.Applied()) })
}

// procStatus is the number of a /proc/self/status field (VmRSS is in kB),
// or -1.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

func procFDs() int64 {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return int64(len(es))
}
