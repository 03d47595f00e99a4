package server

import (
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 27: /metrics carries Doris's FE metric names (Doris's metrics
// page): doris_fe_query_total and doris_fe_query_err count queries only
// (SELECT and set operations; SET and DDL are not queries), the latency
// summary has Doris's quantiles, and doris_fe_connection_total counts the
// open connections.
func TestDorisMetricNames(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "SET query_timeout = 100", "CREATE DATABASE m",
		"CREATE TABLE m.d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO m.d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	var slowest time.Duration
	for _, q := range []string{"SELECT 1", "SELECT 2 UNION ALL SELECT 3", "SELECT count(*) FROM m.d a, m.d b, m.d c, m.d e, m.d g"} {
		start := time.Now()
		rs, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
		}
		rs.Close()
		slowest = max(slowest, time.Since(start))
	}
	if _, err := db.Query("SELECT * FROM m.no_such_table"); err == nil {
		t.Fatal("query of a missing table succeeded")
	}
	rec := httptest.NewRecorder()
	f.fe.Server.HTTPHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	value := func(series string) float64 {
		t.Helper()
		m := regexp.MustCompile("(?m)^" + regexp.QuoteMeta(series) + " (\\S+)$").FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("/metrics lacks %s:\n%s", series, text)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := value("doris_fe_query_total"); v != 4 {
		t.Errorf("doris_fe_query_total = %v, want 4 (three queries and the failed one)", v)
	}
	if v := value("doris_fe_query_err"); v != 1 {
		t.Errorf("doris_fe_query_err = %v, want 1", v)
	}
	if v := value("doris_fe_query_latency_ms_count"); v != 4 {
		t.Errorf("doris_fe_query_latency_ms_count = %v, want 4", v)
	}
	// Of four samples, the 0.75 quantile is the third smallest and those
	// from 0.95 up the largest, no longer than the client waited for the
	// slowest query.
	p75 := value(`doris_fe_query_latency_ms{quantile="0.75"}`)
	top := value(`doris_fe_query_latency_ms{quantile="0.95"}`)
	for _, q := range []string{"0.98", "0.99", "0.999"} {
		if v := value(`doris_fe_query_latency_ms{quantile="` + q + `"}`); v != top {
			t.Errorf("quantile %s = %v ms, want the largest sample %v", q, v, top)
		}
	}
	if top <= 0 || p75 > top || top > float64(slowest)/float64(time.Millisecond) {
		t.Errorf("quantiles 0.75 = %v, 0.95 = %v ms; the slowest query took %s at the client", p75, top, slowest)
	}
	if v := value("doris_fe_connection_total"); v != 1 {
		t.Errorf("doris_fe_connection_total = %v, want 1", v)
	}
	if !strings.Contains(text, "# TYPE doris_fe_query_latency_ms summary") {
		t.Error("the latency is not typed as a summary")
	}
}

// dashboardMetricRe finds metric names in the Grafana dashboard's queries.
var dashboardMetricRe = regexp.MustCompile(`\b(?:doris|inlet)_[a-z0-9_]+`)

// The Grafana dashboard that docker/ provisions charts only FE series that
// exist: every FE metric name in its queries is on a live FE's /metrics.
// (BE names: cmd/be TestDashboardMetricsBE.)
func TestDashboardMetricsFE(t *testing.T) {
	raw, err := os.ReadFile("../../docker/grafana/dashboards/inlet.json")
	if err != nil {
		t.Fatal(err)
	}
	f := startFE(t, t.TempDir(), "", false)
	rec := httptest.NewRecorder()
	f.fe.Server.HTTPHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	checked := 0
	for _, name := range dashboardMetricRe.FindAllString(string(raw), -1) {
		// inlet_fe_mem_limit_bytes exists only under --mem-limit (this FE
		// has none); a chart of it stays empty rather than showing "∞".
		if strings.HasPrefix(name, "doris_be_") || strings.HasPrefix(name, "inlet_be_") || name == "inlet_fe_mem_limit_bytes" {
			continue
		}
		checked++
		if !regexp.MustCompile(`(?m)^# TYPE ` + name + ` `).MatchString(text) {
			t.Errorf("dashboard charts %s, which the FE's /metrics does not have", name)
		}
	}
	if checked < 8 {
		t.Errorf("only %d FE metric names found in the dashboard", checked)
	}
}
