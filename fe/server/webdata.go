package server

import (
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/internal/loginguard"
	"github.com/inlet-db/inlet/internal/redact"
)

// What the FE's web pages (fe/webui) and /api/profile(s) read: the recent
// statements, the query profiles, and who is asking. A user sees only
// their own statements and profiles unless they hold ADMIN_PRIV.

// QueryInfo is one finished statement, as the audit log records it.
type QueryInfo struct {
	// Seq numbers statements in the order they ended (the web page's key
	// for a statement without a profile).
	Seq int64
	// QueryID names the statement's profile ("" when it ran no fragment
	// on a BE, or did not parse).
	QueryID      string
	User, Client string
	Catalog, DB  string
	State        string // EOF, OK or ERR
	ErrorCode    int
	ErrorMessage string
	Start, End   time.Time
	ReturnRows   int64
	ScanRows     int64
	ScanBytes    int64
	Statement    string // secrets masked
	HasProfile   bool
	IsQuery      bool
}

// Profile is a query profile: its scans' counters and fragment times.
type Profile struct {
	ID, User, Catalog, DB, State, Statement string
	Start, End                              time.Time
	Scans                                   []physical.ScanProfile
	// Text is the profile as SHOW QUERY PROFILE prints it.
	Text []string
	// Plan is the operator tree as EXPLAIN prints it (nil if not kept).
	Plan []string
}

// plans keeps the operator trees of the latest queries by query id, for
// the profile page (the profile itself records scans only).
type plans struct {
	mu    sync.Mutex
	byID  map[string][]string
	order []string
}

const maxPlans = 200

// notePlan keeps the operator tree of query id.
// With prof, each node also shows what it produced.
func (s *Server) notePlan(id string, op exec.Operator, card map[exec.Operator]float64, prof *exec.OpProfile) {
	lines := explainLinesMeasured(op, card, prof)
	p := &s.plans
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string][]string{}
	}
	if _, ok := p.byID[id]; !ok {
		p.order = append(p.order, id)
	}
	p.byID[id] = lines
	for len(p.order) > maxPlans {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
}

func (s *Server) planOf(id string) []string {
	s.plans.mu.Lock()
	defer s.plans.mu.Unlock()
	return s.plans.byID[id]
}

// recentQueries keeps the last maxRecent statements, oldest first.
type recentQueries struct {
	mu   sync.Mutex
	list []QueryInfo
	seq  int64
}

const maxRecent = 200

func (r *recentQueries) add(q QueryInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	q.Seq = r.seq
	r.list = append(r.list, q)
	if len(r.list) > maxRecent {
		r.list = slices.Delete(r.list, 0, len(r.list)-maxRecent)
	}
}

func (s *Server) recent() *recentQueries { return &s.recentQ }

// noteRecent files a finished statement for the web pages (auditEnd calls
// it with the audit line's fields).
func (s *Server) noteRecent(q QueryInfo) {
	q.Statement = redact.URIPasswords(q.Statement)
	q.ErrorMessage = redact.URIPasswords(q.ErrorMessage)
	q.HasProfile = q.QueryID != "" && s.profiles.get(q.QueryID) != nil
	s.recent().add(q)
	s.queryM.add(q)
}

// RecentQueries returns the recent statements user may see, newest
// first: all of them for an admin, else the user's own.
func (s *Server) RecentQueries(user string, admin bool) []QueryInfo {
	r := s.recent()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]QueryInfo, 0, len(r.list))
	for i := len(r.list) - 1; i >= 0; i-- {
		if q := r.list[i]; admin || q.User == user {
			out = append(out, q)
		}
	}
	return out
}

// QueryProfile returns the profile of query id if user may see it.
func (s *Server) QueryProfile(id, user string, admin bool) (*Profile, bool) {
	q := s.profiles.get(id)
	if q == nil || !admin && q.user != user {
		return nil, false
	}
	return &Profile{ID: q.id, User: q.user, Catalog: q.catalog, DB: q.db, State: q.state, Statement: q.sql,
		Start: q.start, End: q.end, Scans: q.scans, Text: profileText(q), Plan: s.planOf(id)}, true
}

// visibleProfiles are the recent profiles user may see, newest first.
func (s *Server) visibleProfiles(user string, admin bool) []*queryProfile {
	list := s.profiles.all()
	out := make([]*queryProfile, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		if admin || list[i].user == user {
			out = append(out, list[i])
		}
	}
	return out
}

// HTTPUser checks a request's HTTP basic credentials against the SQL
// users (Doris's web UI logs in the same way), slowed by the login guard
// like every password check; it returns the user and whether they hold
// ADMIN_PRIV. Without a user store only root with no password logs in.
func (s *Server) HTTPUser(r *http.Request) (user string, admin bool, ok bool) {
	user, password, has := r.BasicAuth()
	if !has || user == "" {
		return "", false, false
	}
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	st := s.cfg.Auth
	if st == nil {
		return user, true, user == "root" && password == ""
	}
	err := s.loginGuard().Check(loginguard.HTTP, user, host, func() error { return st.Authenticate(user, host, password) })
	if err != nil {
		return "", false, false
	}
	return user, st.Has(user, auth.AdminPriv, "", "", ""), true
}

// RequireHTTPUser wraps h: a request without valid credentials gets 401
// and a Basic challenge, so browsers ask for a login.
func (s *Server) RequireHTTPUser(h func(w http.ResponseWriter, r *http.Request, user string, admin bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, admin, ok := s.HTTPUser(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="inlet", charset="UTF-8"`)
			http.Error(w, "401 Unauthorized: log in with a SQL user and password", http.StatusUnauthorized)
			return
		}
		h(w, r, user, admin)
	})
}
