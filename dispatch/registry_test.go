package dispatch_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/dispatch"
)

func TestRegistryHandlerAndExpiry(t *testing.T) {
	now := time.Unix(1000, 0)
	reg := dispatch.NewRegistry(dispatch.RegistryConfig{Secret: "k", TTL: 10 * time.Second, Now: func() time.Time { return now }})
	defer reg.Close()
	h := reg.Handler()
	post := func(method, secret, addr string) int {
		req := httptest.NewRequest(method, dispatch.HeartbeatPath, strings.NewReader(url.Values{"addr": {addr}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(dispatch.SecretHeader, secret)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	tests := []struct {
		method, secret, addr string
		want                 int
	}{
		{http.MethodPost, "k", "127.0.0.1:9070", http.StatusNoContent},
		{http.MethodPost, "wrong", "127.0.0.1:9071", http.StatusUnauthorized},
		{http.MethodPost, "", "127.0.0.1:9071", http.StatusUnauthorized},
		{http.MethodPost, "k", "no-port", http.StatusBadRequest},
		{http.MethodPost, "k", "127.0.0.1:0", http.StatusBadRequest},
		{http.MethodPost, "k", ":9070", http.StatusBadRequest},
		{http.MethodGet, "k", "127.0.0.1:9072", http.StatusMethodNotAllowed},
		{http.MethodPost, "k", "127.0.0.1:9073", http.StatusNoContent},
	}
	for _, tc := range tests {
		if got := post(tc.method, tc.secret, tc.addr); got != tc.want {
			t.Errorf("%s secret=%q addr=%q: %d, want %d", tc.method, tc.secret, tc.addr, got, tc.want)
		}
	}
	if got := names(reg.Live()); got != "127.0.0.1:9070,127.0.0.1:9073" {
		t.Fatalf("live %q", got)
	}
	now = now.Add(6 * time.Second)
	post(http.MethodPost, "k", "127.0.0.1:9073") // keeps beating
	now = now.Add(6 * time.Second)
	if got := names(reg.Live()); got != "127.0.0.1:9073" {
		t.Errorf("after 12 s live %q, want only the BE that kept beating", got)
	}
	now = now.Add(11 * time.Second)
	if got := names(reg.Live()); got != "" {
		t.Errorf("after the TTL live %q, want none", got)
	}
	// A forgotten BE comes back with its next beat.
	post(http.MethodPost, "k", "127.0.0.1:9070")
	if got := names(reg.Live()); got != "127.0.0.1:9070" {
		t.Errorf("re-registered live %q", got)
	}
}

func names(bs []dispatch.Backend) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.Name())
	}
	return strings.Join(s, ",")
}
