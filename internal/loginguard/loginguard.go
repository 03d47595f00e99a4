package loginguard

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults.
const (
	FreeFailures = 5
	Delay        = time.Second
	MaxWait      = 5 * time.Second
	MaxKeys      = 4096
	// forgetAfter clears the count of a (user, host) quiet this long.
	forgetAfter = 15 * time.Minute
)

// Protocols a Guard counts separately in its metrics.
const (
	MySQL = "mysql"
	HTTP  = "http"
)

type key struct{ user, host string }

type entry struct {
	fails int
	next  time.Time // earliest answer of the next failure once slowed
	last  time.Time
}

// Guard is safe for concurrent use.
type Guard struct {
	log *slog.Logger
	// Now, Sleep, Delay and MaxWait may be changed before first use
	// (tests).
	Now     func() time.Time
	Sleep   func(time.Duration)
	Delay   time.Duration
	MaxWait time.Duration

	mu   sync.Mutex
	keys map[key]*entry

	failures, successes, delayed [2]atomic.Int64 // by protocol: mysql, http
}

// New returns a Guard logging to log (nil discards).
func New(log *slog.Logger) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Guard{log: log, Now: time.Now, Sleep: time.Sleep, Delay: Delay, MaxWait: MaxWait, keys: map[key]*entry{}}
}

func protoIndex(proto string) int {
	if proto == HTTP {
		return 1
	}
	return 0
}

// Check runs check, the password comparison of user connecting from host
// over proto, and returns its result; a failure is answered only at its
// turn once the (user, host) has failed FreeFailures times.
func (g *Guard) Check(proto, user, host string, check func() error) error {
	p := protoIndex(proto)
	err := check()
	if err == nil {
		g.successes[p].Add(1)
		g.mu.Lock()
		delete(g.keys, key{user, host})
		g.mu.Unlock()
		return nil
	}
	g.failures[p].Add(1)
	if wait := g.failed(user, host); wait > 0 {
		g.delayed[p].Add(1)
		g.Sleep(wait)
	}
	return err
}

// failed counts a failure and returns how long its answer must wait.
func (g *Guard) failed(user, host string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.Now()
	k := key{user, host}
	e := g.keys[k]
	if e != nil && now.Sub(e.last) > forgetAfter {
		e = nil
	}
	if e == nil {
		if len(g.keys) >= MaxKeys {
			g.forgetOldest()
		}
		e = &entry{}
		g.keys[k] = e
	}
	e.fails++
	e.last = now
	if e.fails <= FreeFailures {
		return 0
	}
	if e.fails == FreeFailures+1 {
		g.log.Warn("repeated failed logins; further failures of this user from this host are answered slowly",
			"user", user, "host", host, "failures", e.fails)
	}
	at := e.next
	if at.Before(now) {
		at = now
	}
	if at.Sub(now) > g.MaxWait {
		at = now.Add(g.MaxWait)
	}
	e.next = at.Add(g.Delay)
	return at.Sub(now)
}

func (g *Guard) forgetOldest() {
	var oldest key
	var at time.Time
	first := true
	for k, e := range g.keys {
		if first || e.last.Before(at) {
			oldest, at, first = k, e.last, false
		}
	}
	delete(g.keys, oldest)
}

// Slowed is how many (user, host) pairs are being slowed down now.
func (g *Guard) Slowed() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	now := g.Now()
	for _, e := range g.keys {
		if e.fails > FreeFailures && now.Sub(e.last) <= forgetAfter {
			n++
		}
	}
	return n
}

// WriteMetrics writes the Guard's counts in the Prometheus text format.
func (g *Guard) WriteMetrics(w io.Writer) {
	protos := [2]string{MySQL, HTTP}
	fmt.Fprintf(w, "# TYPE inlet_fe_login_failures_total counter\n")
	for i, p := range protos {
		fmt.Fprintf(w, "inlet_fe_login_failures_total{protocol=%q} %d\n", p, g.failures[i].Load())
	}
	fmt.Fprintf(w, "# TYPE inlet_fe_login_successes_total counter\n")
	for i, p := range protos {
		fmt.Fprintf(w, "inlet_fe_login_successes_total{protocol=%q} %d\n", p, g.successes[i].Load())
	}
	fmt.Fprintf(w, "# TYPE inlet_fe_login_failures_delayed_total counter\n")
	for i, p := range protos {
		fmt.Fprintf(w, "inlet_fe_login_failures_delayed_total{protocol=%q} %d\n", p, g.delayed[i].Load())
	}
	fmt.Fprintf(w, "# TYPE inlet_fe_login_slowed gauge\ninlet_fe_login_slowed %d\n", g.Slowed())
}
