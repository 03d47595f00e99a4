package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/internal/metrics"
)

// processGauges registers the process gauges Doris's BE exposes, read at
// each scrape: doris_be_memory_allocated_bytes is the resident set (VmRSS,
// as Doris defines it), the thread and descriptor counts come from /proc.
// Where /proc cannot be read the value is -1, so a chart shows a gap
// rather than a plausible zero.
func processGauges(reg *metrics.Registry) {
	reg.GaugeFunc("doris_be_memory_allocated_bytes", "Resident set size of the BE process (VmRSS).",
		func() float64 { return float64(memlimit.RSS()) })
	reg.GaugeFunc("doris_be_process_thread_num", "Operating-system threads of the BE process.",
		func() float64 { return float64(procThreads()) })
	reg.GaugeFunc("doris_be_process_fd_num_used", "File descriptors the BE process holds open.",
		func() float64 { return float64(procFDs()) })
}

func procThreads() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
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
