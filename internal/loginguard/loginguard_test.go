package loginguard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestGuard(t *testing.T) {
	now := time.Unix(1000, 0)
	var slept []time.Duration
	g := New(nil)
	g.Now = func() time.Time { return now }
	g.Sleep = func(d time.Duration) { slept = append(slept, d) }
	wrong := func() error { return errors.New("denied") }
	right := func() error { return nil }
	for range FreeFailures {
		_ = g.Check(MySQL, "root", "h", wrong)
	}
	if len(slept) != 0 {
		t.Fatalf("slept before throttling: %v", slept)
	}
	// Further failures (across protocols) are answered Delay apart, capped
	// at MaxWait.
	for range 8 {
		_ = g.Check(HTTP, "root", "h", wrong)
	}
	// The first slowed failure waits its turn at once (0, no sleep).
	want := []time.Duration{1, 2, 3, 4, 5, 5, 5}
	if len(slept) != len(want) {
		t.Fatalf("waits %v, want %v s", slept, want)
	}
	for i, w := range want {
		if slept[i] != w*time.Second {
			t.Fatalf("waits %v, want %v s", slept, want)
		}
	}
	// Another user from the host, and the same user elsewhere, are not
	// slowed; another user's success does not clear root's count.
	slept = nil
	_ = g.Check(MySQL, "bob", "h", wrong)
	_ = g.Check(MySQL, "root", "other", wrong)
	_ = g.Check(MySQL, "bob", "h", right)
	if len(slept) != 0 {
		t.Errorf("others slowed: %v", slept)
	}
	if g.Slowed() != 1 {
		t.Errorf("slowed %d", g.Slowed())
	}
	// The right password is answered at once, and clears the count.
	if err := g.Check(MySQL, "root", "h", right); err != nil || len(slept) != 0 {
		t.Errorf("right password: %v, slept %v", err, slept)
	}
	if g.Slowed() != 0 {
		t.Errorf("still slowed after the right password")
	}
	var b strings.Builder
	g.WriteMetrics(&b)
	for _, l := range []string{`inlet_fe_login_failures_total{protocol="mysql"} 7`, `inlet_fe_login_failures_total{protocol="http"} 8`,
		`inlet_fe_login_failures_delayed_total{protocol="http"} 7`, `inlet_fe_login_successes_total{protocol="mysql"} 2`} {
		if !strings.Contains(b.String(), l) {
			t.Errorf("metrics lack %s:\n%s", l, b.String())
		}
	}
}
