package server

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/internal/loginguard"
	"github.com/inlet-db/inlet/load/streamload"
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
//
// /metrics is open, as in Doris; the profile endpoints need HTTP basic auth
// with a SQL user and show other users' queries to ADMIN_PRIV holders only.
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
		// The family is announced even before the first Fluss scan, so a
		// dashboard's query of it finds the name.
		fmt.Fprintf(w, "# TYPE inlet_fe_scan_counter counter\n")
		for _, k := range names {
			fmt.Fprintf(w, "inlet_fe_scan_counter{name=%q} %d\n", k, m.scan[k])
		}
		s.loginGuard().WriteMetrics(w)
		s.writeDorisMetrics(w)
		s.writeMemMetrics(w)
	})
	// Profiles show SQL text: logged-in users only, each seeing their own
	// queries unless they hold ADMIN_PRIV (webdata.go).
	mux.Handle("/api/profile", s.RequireHTTPUser(func(w http.ResponseWriter, r *http.Request, user string, admin bool) {
		id := r.URL.Query().Get("query_id")
		p, ok := s.QueryProfile(id, user, admin)
		if !ok {
			http.Error(w, fmt.Sprintf("query profile %q not found", id), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, strings.Join(p.Text, "\n"))
	}))
	mux.Handle("/api/profiles", s.RequireHTTPUser(func(w http.ResponseWriter, r *http.Request, user string, admin bool) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for _, q := range s.visibleProfiles(user, admin) {
			fmt.Fprintf(w, "%s\t%s\t%s\n", q.id, q.state, q.sql)
		}
	}))
	return mux
}

// loginGuard is the guard MySQL logins and Stream Load share.
func (s *Server) loginGuard() *loginguard.Guard {
	s.guardOnce.Do(func() {
		if s.cfg.LoginGuard == nil {
			s.cfg.LoginGuard = loginguard.New(s.log)
		}
	})
	return s.cfg.LoginGuard
}

// StreamLoadTables opens the internal catalog's tables for Stream Load,
// checking users and LOAD_PRIV with the FE's user store.
func (s *Server) StreamLoadTables() streamload.Tables {
	t := &streamload.CatalogTables{
		Catalog: func(ctx context.Context) (catalog.Catalog, error) { return s.cfg.Catalogs.Get(ctx, "internal") },
	}
	if s.cfg.Auth != nil {
		t.Users = s.cfg.Auth
	}
	t.Guard = s.loginGuard()
	return t
}

// StreamLoadFE is the FE leg of Stream Load (PUT /api/{db}/{table}/_stream_load):
// the user, privilege and table checks, then 307 to the BE HTTP listener
// backend names. Mount it beside HTTPHandler on the FE's HTTP port.
func (s *Server) StreamLoadFE(backend func(*http.Request) (string, error)) (http.Handler, error) {
	return streamload.NewFE(streamload.FEConfig{Tables: s.StreamLoadTables(), Backend: backend, Logger: s.log})
}

// StreamLoadBE is the BE leg of the BE inside the FE process: it performs
// loads into the internal catalog and serves their error logs
// (/api/_load_error_log). Mount it on that BE's HTTP listener.
func (s *Server) StreamLoadBE() (http.Handler, error) {
	return streamload.NewBE(streamload.Config{Tables: s.StreamLoadTables(), Mem: s.cfg.Mem, Logger: s.log, Now: s.now})
}

// StreamLoadInternal serves the FE's internal Stream Load endpoints for
// BEs in their own processes (cmd/be): the table's schema, the load of
// the batches they decoded, and their registrations into backends (may
// be nil). Every call must carry the cluster secret.
func (s *Server) StreamLoadInternal(secret string, backends *streamload.Backends) http.Handler {
	return streamload.NewInternal(s.StreamLoadTables(), secret, s.cfg.Mem, backends, s.log)
}
