package server

import (
	"fmt"
	"github.com/inlet-db/inlet/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/physical"
)

// statement is what a statement's profile needs besides its scans: the
// text and session it ran in, and since when. plan holds the query id and
// the scans the physical planner filled in.
type statement struct {
	plan    *physical.Statement
	sql     string
	user    string
	catalog string
	db      string
	start   time.Time
	// spill counts what the statement wrote to disk (enable_spill); nil
	// when it could not spill.
	spill *exec.SpillStats
}

// profiles keeps the most recent query profiles for SHOW QUERY PROFILE.
type profiles struct {
	mu   sync.Mutex
	list []*queryProfile // oldest first
	max  int
}

type queryProfile struct {
	id, sql, user, catalog, db, state string
	start, end                        time.Time
	scans                             []physical.ScanProfile
	filters                           []physical.RFProfile
	// spillBytes and spillFiles: what the query wrote to spill files.
	spillBytes, spillFiles int64
}

func (p *profiles) add(q *queryProfile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.max == 0 {
		p.max = 100
	}
	p.list = append(p.list, q)
	if len(p.list) > p.max {
		p.list = slices.Delete(p.list, 0, len(p.list)-p.max)
	}
}

func (p *profiles) get(id string) *queryProfile {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.list {
		if q.id == id {
			return q
		}
	}
	return nil
}

func (p *profiles) all() []*queryProfile {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

// beginStatement starts the per-statement state of a statement's text.
func (s *Session) beginStatement(text string) *statement {
	st := &statement{plan: physical.NewStatement(), sql: shownText(text), user: s.info.User, catalog: s.catalog, db: s.db,
		start: s.srv.now()}
	s.stmt = st
	return st
}

// endStatement files the profile of a statement that ran fragments.
func (s *Session) endStatement(st *statement, err error) {
	s.stmt = nil
	if st == nil {
		return
	}
	s.prevQueryID = st.plan.ID()
	scans := st.plan.Scans()
	ran := false
	for _, sc := range scans {
		// A fragment that started counts even if its stream failed: the
		// profile of a failed query shows how far it got.
		ran = ran || sc.Counters != nil || !sc.Start.IsZero()
	}
	filters := st.plan.RuntimeFilters()
	for _, rf := range filters {
		// A runtime filter that saw rows is worth a profile too.
		ran = ran || rf.Input > 0
	}
	var spillBytes, spillFiles int64
	if st.spill != nil {
		spillBytes, spillFiles = st.spill.Bytes.Load(), st.spill.Files.Load()
	}
	if !ran && spillFiles == 0 {
		// Nothing reached a BE or a runtime filter (EXPLAIN, or a failure
		// while planning) and nothing went to disk.
		s.srv.metrics.statement(err != nil, nil)
		return
	}
	q := &queryProfile{id: st.plan.ID(), sql: st.sql, user: st.user, catalog: st.catalog, db: st.db,
		start: st.start, end: s.srv.now(), state: "EOF", scans: scans, filters: filters, spillBytes: spillBytes, spillFiles: spillFiles}
	if err != nil {
		q.state = "ERR"
	}
	s.srv.profiles.add(q)
	s.srv.metrics.statement(err != nil, q.scans)
	s.lastQueryID = q.id
}

// showQueryProfile answers SHOW QUERY PROFILE "/" (the list) and
// SHOW QUERY PROFILE "/<query id>" (one profile as text lines).
func (s *Session) showQueryProfile(path string, w mysqlwire.ResultWriter) error {
	id := strings.Trim(strings.TrimSpace(path), "/")
	// As in Doris, a user sees the profiles of its own statements unless it
	// holds ADMIN_PRIV; another user's profile is "not found".
	mine := func(q *queryProfile) bool {
		st := s.authStore()
		return st == nil || q.user == s.info.User || st.Has(s.info.User, auth.AdminPriv, "", "", "")
	}
	if id == "" {
		t := &table{names: []string{"Profile ID", "Task Type", "Start Time", "End Time", "Total", "Task State", "User", "Default Catalog", "Default Db", "Sql Statement"}}
		list := s.srv.profiles.all()
		for i := len(list) - 1; i >= 0; i-- {
			q := list[i]
			if !mine(q) {
				continue
			}
			t.addStrings(q.id, "QUERY", q.start.Format(time.DateTime), q.end.Format(time.DateTime),
				formatDuration(q.end.Sub(q.start).Nanoseconds()), q.state, q.user, q.catalog, q.db, q.sql)
		}
		return t.write(w)
	}
	q := s.srv.profiles.get(strings.SplitN(id, "/", 2)[0])
	if q == nil || !mine(q) {
		return errorf(bind.ErrAnalysis, "query profile '%s' not found", id)
	}
	t := &table{names: []string{"Profile"}}
	for _, l := range profileText(q) {
		t.addStrings(l)
	}
	return t.write(w)
}

// counterTree is where the spec places each counter under TableReader.
var counterTree = []struct {
	name     string
	children []string
}{
	{"FlussLogReadTime", []string{"FlussLogRangeNum", "FlussLogRangeReadTime", "FlussPkFullRangeNum", "FlussPkFullRangeReadTime", "FlussPkTailRangeNum", "FlussPkTailRangeReadTime", "FlussLogRowsReturned"}},
	{"FlussLakeReadTime", []string{"FlussLakeRangeNum", "FlussLakeSuppressRangeNum", "FlussLakeRangeReadTime", "FlussLakeRowsReturned"}},
	{"FlussUnionTailReadTime", nil},
	{"FlussUnionSuppressTime", nil},
	{"FlussUnionSuppressedRows", nil},
	{"FlussUnionTailKeysRead", nil},
	{"FlussUnionTailKeysRetained", nil},
	{"FlussUnionTailCacheHitCount", nil},
}

// profileText renders a profile the way Doris lays out its text profile.
func profileText(q *queryProfile) []string {
	out := []string{
		"Summary:",
		"  - Profile ID: " + q.id,
		"  - Task Type: QUERY",
		"  - Start Time: " + q.start.Format(time.DateTime),
		"  - End Time: " + q.end.Format(time.DateTime),
		"  - Total: " + formatDuration(q.end.Sub(q.start).Nanoseconds()),
		"  - Task State: " + q.state,
		"  - User: " + q.user,
		"  - Default Catalog: " + q.catalog,
		"  - Default Db: " + q.db,
		"  - Sql Statement: " + q.sql,
	}
	if q.spillFiles > 0 {
		// Doris names its spill counters SpillWriteBytes and
		// SpillWriteFileTotalCount (per operator; here per query).
		out = append(out, "  - SpillWriteBytes: "+formatCounter("SpillWriteBytes", q.spillBytes),
			"  - SpillWriteFileTotalCount: "+strconv.FormatInt(q.spillFiles, 10))
	}
	out = append(out, "Execution Profile "+q.id+":")
	for i, sc := range q.scans {
		out = append(out, fmt.Sprintf("  %s (id=%d) TABLE: %s:", sc.Node, i, sc.Table))
		out = append(out, "    TableReader:")
		seen := map[string]bool{}
		line := func(indent, name string) {
			v, ok := sc.Counters[name]
			if !ok {
				return
			}
			seen[name] = true
			out = append(out, indent+"- "+name+": "+formatCounter(name, v))
		}
		for _, n := range counterTree {
			_, has := sc.Counters[n.name]
			if has {
				line("      ", n.name)
			}
			for _, c := range n.children {
				if has {
					line("        ", c)
				} else {
					line("      ", c)
				}
			}
		}
		var rest []string
		for k := range sc.Counters {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		if len(rest) > 0 {
			out = append(out, "    DetailProfile:")
			for _, k := range rest {
				line("      ", k)
			}
		}
	}
	return append(out, physical.ProfileLines(q.filters)...)
}

func formatCounter(name string, v int64) string {
	if strings.HasSuffix(name, "Time") {
		return formatDuration(v)
	}
	if strings.HasSuffix(name, "Bytes") {
		return strconv.FormatInt(v, 10) + " B"
	}
	return strconv.FormatInt(v, 10)
}

// formatDuration prints nanoseconds as Doris does: "8s25ms", "16.1us".
func formatDuration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		s := int64(d / time.Second)
		ms := int64(d%time.Second) / int64(time.Millisecond)
		if s >= 60 {
			return fmt.Sprintf("%dm%ds%dms", s/60, s%60, ms)
		}
		return fmt.Sprintf("%ds%dms", s, ms)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
	case d >= time.Microsecond:
		return fmt.Sprintf("%.1fus", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%dns", ns)
}
