package server

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/inlet-db/inlet/fe/physical"
)

// feMetrics are the FE's own counters for /metrics; profiles add the BE
// counters of every finished query, summed.
type feMetrics struct {
	mu      sync.Mutex
	queries int64
	errors  int64
	// scan sums the profile counters of all finished queries by name.
	scan map[string]int64
}

func (m *feMetrics) statement(failed bool, scans []physical.ScanProfile) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries++
	if failed {
		m.errors++
	}
	if m.scan == nil {
		m.scan = map[string]int64{}
	}
	for _, sc := range scans {
		for k, v := range sc.Counters {
			m.scan[k] += v
		}
	}
}

// HTTPHandler serves the FE's HTTP pages (Doris serves them on port 8030):
//
//	/metrics                      Prometheus text: queries, errors, and the
//	                              BE scan counters summed over finished queries
//	/api/profile?query_id=<id>    one query profile as text (what SHOW QUERY
//	                              PROFILE "/<id>" prints)
//	/api/profiles                 the recent query ids, one per line
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		m := &s.metrics
		m.mu.Lock()
		defer m.mu.Unlock()
		fmt.Fprintf(w, "# TYPE inlet_fe_queries_total counter\ninlet_fe_queries_total %d\n", m.queries)
		fmt.Fprintf(w, "# TYPE inlet_fe_query_errors_total counter\ninlet_fe_query_errors_total %d\n", m.errors)
		names := make([]string, 0, len(m.scan))
		for k := range m.scan {
			names = append(names, k)
		}
		sort.Strings(names)
		if len(names) > 0 {
			fmt.Fprintf(w, "# TYPE inlet_fe_scan_counter counter\n")
		}
		for _, k := range names {
			fmt.Fprintf(w, "inlet_fe_scan_counter{name=%q} %d\n", k, m.scan[k])
		}
	})
	mux.HandleFunc("/api/profile", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("query_id")
		q := s.profiles.get(id)
		if q == nil {
			http.Error(w, fmt.Sprintf("query profile %q not found", id), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, strings.Join(profileText(q), "\n"))
	})
	mux.HandleFunc("/api/profiles", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		list := s.profiles.all()
		for i := len(list) - 1; i >= 0; i-- {
			fmt.Fprintf(w, "%s\t%s\t%s\n", list[i].id, list[i].state, list[i].sql)
		}
	})
	return mux
}
