package webui

import (
	"cmp"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/server"
)

// Handler serves the pages for srv. Mount it at "/" on the FE's HTTP port;
// paths it does not know answer 404, after the login like every page.
func Handler(srv *server.Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { list(w, srv, r) })
	mux.HandleFunc("GET /query/{key}", func(w http.ResponseWriter, r *http.Request) { query(w, srv, r) })
	mux.HandleFunc("/", http.NotFound)
	return srv.RequireHTTPUser(func(w http.ResponseWriter, r *http.Request, user string, admin bool) {
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r.WithContext(withUser(r, user, admin)))
	})
}

// maxListed is how many statements the list shows.
const maxListed = 100

func list(w http.ResponseWriter, srv *server.Server, r *http.Request) {
	user, admin := userOf(r)
	qs := srv.RecentQueries(user, admin)
	if len(qs) > maxListed {
		qs = qs[:maxListed]
	}
	render(w, "list", map[string]any{"User": user, "Admin": admin, "Queries": qs})
}

func query(w http.ResponseWriter, srv *server.Server, r *http.Request) {
	user, admin := userOf(r)
	key := r.PathValue("key")
	var info *server.QueryInfo
	for _, q := range srv.RecentQueries(user, admin) {
		if q.QueryID == key || "s"+strconv.FormatInt(q.Seq, 10) == key {
			info = &q
			break
		}
	}
	id := key
	if info != nil && info.QueryID != "" {
		id = info.QueryID
	}
	prof, ok := srv.QueryProfile(id, user, admin)
	if !ok && info == nil {
		w.WriteHeader(http.StatusNotFound)
		render(w, "missing", map[string]any{"Key": key})
		return
	}
	data := map[string]any{"User": user, "Info": info, "Profile": prof}
	if prof != nil {
		data["Timeline"] = timeline(prof)
		data["Scans"] = scanTables(prof)
	}
	render(w, "query", data)
}

func render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		// Headers are out; the page ends short.
		fmt.Fprintf(w, "<p class=error>page failed: %s</p>", template.HTMLEscapeString(err.Error()))
	}
}

// kinds are the bar kinds of the timeline, with the counter holding each
// kind's summed time and the counter holding its number of ranges.
var kinds = []struct {
	kind, label, timeCounter, numCounter string
}{
	{"lake", "lake splits", "FlussLakeRangeReadTime", "FlussLakeRangeNum"},
	{"log", "log ranges", "FlussLogRangeReadTime", "FlussLogRangeNum"},
	{"pk", "PK ranges (full)", "FlussPkFullRangeReadTime", "FlussPkFullRangeNum"},
	{"pktail", "PK tail ranges", "FlussPkTailRangeReadTime", "FlussPkTailRangeNum"},
	{"tail", "union tail read", "FlussUnionTailReadTime", "FlussUnionTailKeysRead"},
	{"suppress", "suppression of lake rows", "FlussUnionSuppressTime", "FlussUnionSuppressedRows"},
}

// Bar is one bar of the timeline; X and W are in pixels.
type Bar struct {
	Kind, Label, Title string
	X, W, Y            float64
}

// Tick is a time-axis label.
type Tick struct {
	X    float64
	Text string
}

// Timeline is the SVG's content.
type Timeline struct {
	Width, Height, Left, Span float64
	Bars                      []Bar
	Ticks                     []Tick
	Legend                    []Bar
}

const (
	svgWidth = 1000.0
	svgLeft  = 290.0
	rowH     = 22.0
)

// timeline lays out a profile: the whole statement, each scan's fragment
// and its per-kind sums, then the FE's part after the last fragment.
func timeline(p *server.Profile) Timeline {
	t0, t1 := p.Start, p.End
	for _, sc := range p.Scans {
		if !sc.End.IsZero() && sc.End.After(t1) {
			t1 = sc.End
		}
	}
	total := t1.Sub(t0)
	if total <= 0 {
		total = time.Microsecond
	}
	span := svgWidth - svgLeft - 40
	x := func(t time.Time) float64 {
		if t.Before(t0) {
			t = t0
		}
		return svgLeft + span*float64(t.Sub(t0))/float64(total)
	}
	width := func(d time.Duration) float64 { return max(1.5, span*float64(d)/float64(total)) }
	tl := Timeline{Width: svgWidth, Left: svgLeft, Span: span}
	y := 30.0
	add := func(b Bar) {
		b.Y = y
		tl.Bars = append(tl.Bars, b)
		y += rowH
	}
	add(Bar{Kind: "query", Label: "statement (FE)", Title: fmt.Sprintf("statement: %s, %s", fmtDur(p.End.Sub(p.Start)), p.State),
		X: x(p.Start), W: width(p.End.Sub(p.Start))})
	lastEnd := p.Start
	for i, sc := range p.Scans {
		start, end := sc.Start, sc.End
		if start.IsZero() {
			start = p.Start
		}
		open := end.IsZero()
		if open {
			end = p.End
		}
		if end.After(lastEnd) {
			lastEnd = end
		}
		title := fmt.Sprintf("fragment %d on the BEs (%s): %s from the FE's request to the end of its stream", i, sc.Table, fmtDur(end.Sub(start)))
		if open {
			title += " (the stream did not end: failed or cancelled)"
		}
		add(Bar{Kind: "fragment", Label: fmt.Sprintf("#%d %s %s", i, sc.Node, shorten(sc.Table, 24)), Title: title, X: x(start), W: width(end.Sub(start))})
		for _, k := range kinds {
			ns, ok := sc.Counters[k.timeCounter]
			if !ok {
				continue
			}
			n := sc.Counters[k.numCounter]
			d := time.Duration(ns)
			title := fmt.Sprintf("%s: %s summed over the BEs' work (%s = %d)", k.label, fmtDur(d), k.numCounter, n)
			w := width(d)
			if limit := svgLeft + span - x(start); w > limit {
				// Ranges read in parallel sum to more than the wall time.
				w = max(1.5, limit)
				title += "; more than the time shown, as ranges ran in parallel"
			}
			add(Bar{Kind: k.kind, Label: "   " + k.label, X: x(start), W: w, Title: title})
		}
		rangeBars(sc, add, x, width)
	}
	if len(p.Scans) > 0 && p.End.After(lastEnd) {
		add(Bar{Kind: "final", Label: "final operators + result (FE)", Title: fmt.Sprintf("after the last fragment: %s", fmtDur(p.End.Sub(lastEnd))),
			X: x(lastEnd), W: width(p.End.Sub(lastEnd))})
	}
	tl.Height = y + 10
	for i := 0; i <= 4; i++ {
		d := time.Duration(int64(total) * int64(i) / 4)
		tl.Ticks = append(tl.Ticks, Tick{X: svgLeft + span*float64(i)/4, Text: fmtDur(d)})
	}
	tl.Legend = []Bar{{Kind: "query", Label: "statement"}, {Kind: "fragment", Label: "fragment on BEs"}}
	for _, k := range kinds {
		tl.Legend = append(tl.Legend, Bar{Kind: k.kind, Label: k.label + " (sum)"})
	}
	tl.Legend = append(tl.Legend, Bar{Kind: "final", Label: "FE after fragments"})
	return tl
}

// maxRangeBars bounds the per-range bars of one fragment; the rest are
// named in one line (the counters above cover every range).
const maxRangeBars = 40

// rangeBars adds one bar per range the BEs reported, grouped by BE and in
// start order, from the start of its reader to its last row (the BEs'
// clocks).
func rangeBars(sc physical.ScanProfile, add func(Bar), x func(time.Time) float64, width func(time.Duration) float64) {
	rs := slices.Clone(sc.Ranges)
	slices.SortStableFunc(rs, func(a, b physical.RangeTiming) int {
		if c := cmp.Compare(a.Backend, b.Backend); c != 0 {
			return c
		}
		return a.Start.Compare(b.Start)
	})
	for i, r := range rs {
		if i == maxRangeBars {
			add(Bar{Kind: "more", Label: fmt.Sprintf("      … %d more ranges", len(rs)-i),
				Title: fmt.Sprintf("%d ranges in all; the first %d are drawn", len(rs), maxRangeBars)})
			return
		}
		kind := rangeKind(r.Kind)
		add(Bar{Kind: kind, Label: fmt.Sprintf("      %s #%d @%s", r.Kind, r.ID, shorten(r.Backend, 18)),
			Title: fmt.Sprintf("range %d (%s) on %s: %s, %d rows", r.ID, r.Kind, r.Backend, fmtDur(r.End.Sub(r.Start)), r.Rows),
			X:     x(r.Start), W: width(r.End.Sub(r.Start))})
	}
}

// rangeKind is the colour class of a range type (proto RangeType names).
func rangeKind(t string) string {
	switch {
	case t == "LOG":
		return "log"
	case t == "PK_TAIL":
		return "pktail"
	case strings.HasPrefix(t, "PK"):
		return "pk"
	case strings.HasPrefix(t, "LAKE"):
		return "lake"
	}
	return "fragment"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// ScanTable is one scan's counters for the page.
type ScanTable struct {
	Index    int
	Node     string
	Table    string
	Counters [][2]string
}

func scanTables(p *server.Profile) []ScanTable {
	out := make([]ScanTable, len(p.Scans))
	for i, sc := range p.Scans {
		out[i] = ScanTable{Index: i, Node: sc.Node, Table: sc.Table, Counters: counters(sc)}
	}
	return out
}

func counters(sc physical.ScanProfile) [][2]string {
	names := make([]string, 0, len(sc.Counters))
	for k := range sc.Counters {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([][2]string, len(names))
	for i, k := range names {
		v := sc.Counters[k]
		s := strconv.FormatInt(v, 10)
		switch {
		case strings.HasSuffix(k, "Time"):
			s = fmtDur(time.Duration(v))
		case strings.HasSuffix(k, "Bytes"):
			s = fmtBytes(v)
		}
		out[i] = [2]string{k, s}
	}
	return out
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d >= time.Microsecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%dns", d.Nanoseconds())
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
