package server

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"
)

// Doris's FE metric names on /metrics, so dashboards made for Doris chart
// Inlet too: doris_fe_query_total and doris_fe_query_err count queries
// (SELECT and set operations, Doris's IsQuery) over both ports,
// doris_fe_query_latency_ms is a summary with Doris's quantiles over the
// latest latencyWindow queries, doris_fe_connection_total the open
// connections (MySQL and Flight SQL sessions).

// latencyWindow is how many recent query latencies the quantiles cover
// (Doris's histogram decays old samples; a window of the latest is the
// plain equivalent).
const latencyWindow = 1024

// dorisQuantiles are the quantiles Doris reports for query latency.
var dorisQuantiles = []float64{0.75, 0.95, 0.98, 0.99, 0.999}

type queryMetrics struct {
	mu     sync.Mutex
	total  int64
	errs   int64
	sumMs  float64
	window [latencyWindow]float64
	n      int // samples in window (≤ latencyWindow)
	next   int
}

func (m *queryMetrics) add(q QueryInfo) {
	if !q.IsQuery {
		return
	}
	ms := float64(q.End.Sub(q.Start)) / float64(time.Millisecond)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total++
	if q.State == "ERR" {
		m.errs++
	}
	m.sumMs += ms
	m.window[m.next] = ms
	m.next = (m.next + 1) % latencyWindow
	m.n = min(m.n+1, latencyWindow)
}

// quantile is the nearest-rank quantile of sorted samples.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// writeDorisMetrics appends the Doris-named series to /metrics.
func (s *Server) writeDorisMetrics(w io.Writer) {
	m := &s.queryM
	m.mu.Lock()
	samples := slices.Clone(m.window[:m.n])
	total, errs, sum := m.total, m.errs, m.sumMs
	m.mu.Unlock()
	slices.Sort(samples)
	fmt.Fprintf(w, "# HELP doris_fe_query_total total queries\n# TYPE doris_fe_query_total counter\ndoris_fe_query_total %d\n", total)
	fmt.Fprintf(w, "# HELP doris_fe_query_err total error queries\n# TYPE doris_fe_query_err counter\ndoris_fe_query_err %d\n", errs)
	fmt.Fprintf(w, "# HELP doris_fe_query_latency_ms query latency in milliseconds, over the latest %d queries\n# TYPE doris_fe_query_latency_ms summary\n", latencyWindow)
	for _, q := range dorisQuantiles {
		fmt.Fprintf(w, "doris_fe_query_latency_ms{quantile=\"%g\"} %g\n", q, quantile(samples, q))
	}
	fmt.Fprintf(w, "doris_fe_query_latency_ms_sum %g\ndoris_fe_query_latency_ms_count %d\n", sum, total)
	s.mu.Lock()
	conns := len(s.sessions)
	s.mu.Unlock()
	fmt.Fprintf(w, "# HELP doris_fe_connection_total total connections\n# TYPE doris_fe_connection_total gauge\ndoris_fe_connection_total %d\n", conns)
}
