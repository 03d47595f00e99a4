package dispatch

import (
	"cmp"
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// HeartbeatPath is where Registry.Handler expects BEs to POST
// (form field "addr": the BE's Flight host:port; header SecretHeader).
// cmd/be's --fe flag names the FE HTTP address this is mounted on.
const HeartbeatPath = "/api/be/heartbeat"

// RegistryConfig configures a Registry.
type RegistryConfig struct {
	// Secret is the cluster secret BEs must present.
	Secret string
	// TTL is how long a BE stays live after its last heartbeat (default
	// 10 s; BEs beat every 3 s).
	TTL time.Duration
	// NewBackend makes the Backend of a registered address (default:
	// NewFlightBackend(addr, Secret)).
	NewBackend func(addr string) Backend
	// Verify makes a BE that registers over HTTP prove, on its own
	// address, that it holds the secret (ChallengeFlight) before the FE
	// sends it fragments, which carry the secret and storage credentials.
	// Nil skips the check (tests that register in process).
	Verify func(ctx context.Context, addr string) error
	Now    func() time.Time
	Logger *slog.Logger
}

// Registry is the set of BEs that registered with this FE and keep
// heartbeating. It is safe for concurrent use.
type Registry struct {
	cfg RegistryConfig

	mu      sync.Mutex
	members map[string]*member
}

type member struct {
	be          Backend
	first, seen time.Time
}

// memberState is a registered BE as SHOW BACKENDS sees it.
type memberState struct {
	addr        string
	first, seen time.Time
	live        bool
}

// memberStates lists the registered BEs, those past the TTL included (Live
// forgets them on its next call), sorted by address.
func (r *Registry) memberStates() []memberState {
	now := r.cfg.Now()
	r.mu.Lock()
	out := make([]memberState, 0, len(r.members))
	for addr, m := range r.members {
		out = append(out, memberState{addr: addr, first: m.first, seen: m.seen, live: now.Sub(m.seen) <= r.cfg.TTL})
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b memberState) int { return cmp.Compare(a.addr, b.addr) })
	return out
}

// NewRegistry builds an empty registry.
func NewRegistry(cfg RegistryConfig) *Registry {
	if cfg.TTL <= 0 {
		cfg.TTL = 10 * time.Second
	}
	if cfg.NewBackend == nil {
		secret := cfg.Secret
		cfg.NewBackend = func(addr string) Backend { return NewFlightBackend(addr, secret) }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Registry{cfg: cfg, members: map[string]*member{}}
}

// Register adds the BE at addr (host:port) or refreshes it.
func (r *Registry) Register(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("BE address %q: want host:port", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return fmt.Errorf("BE address %q: bad port", addr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.members[addr]
	if !ok {
		m = &member{be: r.cfg.NewBackend(addr), first: r.cfg.Now()}
		r.members[addr] = m
		r.cfg.Logger.Info("BE registered", "addr", addr)
	}
	m.seen = r.cfg.Now()
	return nil
}

// Heartbeat is Register: a BE the FE forgot (FE restart, expiry) comes back
// with its next beat.
func (r *Registry) Heartbeat(addr string) error { return r.Register(addr) }

func (r *Registry) live(addr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.members[addr]
	return ok && r.cfg.Now().Sub(m.seen) <= r.cfg.TTL
}

// Live returns the BEs heard from within the TTL, sorted by name, and
// forgets (closing their connections) those that expired.
func (r *Registry) Live() []Backend {
	now := r.cfg.Now()
	var out []Backend
	var gone []Backend
	r.mu.Lock()
	for addr, m := range r.members {
		if now.Sub(m.seen) > r.cfg.TTL {
			delete(r.members, addr)
			gone = append(gone, m.be)
			r.cfg.Logger.Warn("BE expired", "addr", addr)
			continue
		}
		out = append(out, m.be)
	}
	r.mu.Unlock()
	for _, b := range gone {
		if c, ok := b.(io.Closer); ok {
			_ = c.Close()
		}
	}
	slices.SortFunc(out, func(a, b Backend) int { return cmp.Compare(a.Name(), b.Name()) })
	return out
}

// Close forgets every BE and closes their connections.
func (r *Registry) Close() {
	r.mu.Lock()
	ms := r.members
	r.members = map[string]*member{}
	r.mu.Unlock()
	for _, m := range ms {
		if c, ok := m.be.(io.Closer); ok {
			_ = c.Close()
		}
	}
}

// Handler serves heartbeats: POST with form field addr and the secret in
// header SecretHeader. 204 on success, 401 on a wrong secret (or none
// configured), 403 when the BE fails the challenge, 400 on a bad address,
// 405 on another method. Mount it at HeartbeatPath.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if r.cfg.Secret == "" || !SecretsMatch(req.Header.Get(SecretHeader), r.cfg.Secret) {
			http.Error(w, "wrong cluster secret", http.StatusUnauthorized)
			return
		}
		addr := req.FormValue("addr")
		if r.cfg.Verify != nil && !r.live(addr) {
			if err := r.cfg.Verify(req.Context(), addr); err != nil {
				r.cfg.Logger.Warn("BE refused", "addr", addr, "err", err)
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
		}
		if err := r.Heartbeat(addr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// SecretsMatch compares secrets in constant time. An empty configured
// secret matches only an empty one.
func SecretsMatch(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
