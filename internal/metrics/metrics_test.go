package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestExposition(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("inlet_be_rows_total", "Rows sent, by range kind.", "kind")
	g := r.Gauge("inlet_be_streams", "Open streams.")
	e := r.Counter("inlet_be_errors_total", "Errors with \\ and\nnewline.", "code", "detail")
	c.Add(5, "LOG")
	c.Add(2, "LAKE")
	c.Inc("LOG")
	c.Add(-3, "LOG") // counters never go down
	g.Set(3)
	g.Add(-1)
	e.Inc("INTERNAL", "a \"quoted\" \\ value\nx")

	var sb strings.Builder
	if _, err := r.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	want := `# HELP inlet_be_rows_total Rows sent, by range kind.
# TYPE inlet_be_rows_total counter
inlet_be_rows_total{kind="LAKE"} 2
inlet_be_rows_total{kind="LOG"} 6
# HELP inlet_be_streams Open streams.
# TYPE inlet_be_streams gauge
inlet_be_streams 2
# HELP inlet_be_errors_total Errors with \\ and\nnewline.
# TYPE inlet_be_errors_total counter
inlet_be_errors_total{code="INTERNAL",detail="a \"quoted\" \\ value\nx"} 1
`
	if sb.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", sb.String(), want)
	}
	if v := c.Value("LOG"); v != 6 {
		t.Errorf("Value(LOG) = %v, want 6", v)
	}

	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	if rec.Body.String() != want {
		t.Errorf("handler body differs from WriteTo")
	}
}

func TestWrongLabelCountPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a missing label value")
		}
	}()
	NewRegistry().Counter("x_total", "x", "a").Inc()
}

// Writers and a scraper at once (run with -race).
func TestConcurrentAddAndWrite(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "c", "k")
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			for range 1000 {
				c.Inc(string(rune('a' + g)))
			}
			done <- struct{}{}
		}()
	}
	for range 50 {
		var sb strings.Builder
		_, _ = r.WriteTo(&sb)
	}
	for range 4 {
		<-done
	}
	for g := range 4 {
		if v := c.Value(string(rune('a' + g))); v != 1000 {
			t.Errorf("series %c = %v, want 1000", 'a'+g, v)
		}
	}
}

// A GaugeFunc is read at every scrape, not when it was registered.
func TestGaugeFuncReadAtScrape(t *testing.T) {
	r := NewRegistry()
	x := 1.0
	r.GaugeFunc("doris_be_process_thread_num", "Threads.", func() float64 { return x })
	scrape := func() string {
		var sb strings.Builder
		if _, err := r.WriteTo(&sb); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	if got := scrape(); !strings.HasSuffix(got, "\ndoris_be_process_thread_num 1\n") {
		t.Errorf("first scrape:\n%s", got)
	}
	x = 7.5
	if got := scrape(); !strings.HasSuffix(got, "\ndoris_be_process_thread_num 7.5\n") {
		t.Errorf("second scrape:\n%s", got)
	}
}
