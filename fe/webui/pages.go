package webui

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/inlet-db/inlet/fe/server"
)

type userKey struct{}

type who struct {
	user  string
	admin bool
}

func withUser(r *http.Request, user string, admin bool) context.Context {
	return context.WithValue(r.Context(), userKey{}, who{user, admin})
}

func userOf(r *http.Request) (string, bool) {
	w, _ := r.Context().Value(userKey{}).(who)
	return w.user, w.admin
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") },
	"dur":  func(a, b time.Time) string { return fmtDur(b.Sub(a)) },
	"bytes": func(n int64) string {
		return fmtBytes(n)
	},
	"key": func(q server.QueryInfo) string {
		if q.HasProfile {
			return q.QueryID
		}
		return "s" + strconv.FormatInt(q.Seq, 10)
	},
	"short": func(s string) string {
		if r := []rune(s); len(r) > 200 {
			return string(r[:200]) + "…"
		}
		return s
	},
	"add": func(a, b float64) float64 { return a + b },
	"mid": func(a float64) float64 { return a + 11 },
}

// style is the pages' whole CSS, inline so nothing is fetched.
const style = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2em 2em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.35 ui-monospace, monospace; } pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
.ERR { color: #b00; font-weight: 600; } .error { color: #b00; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.kind-query { fill: #8c8c8c; } .kind-fragment { fill: #9c755f; } .kind-lake { fill: #4e79a7; } .kind-log { fill: #59a14f; }
.kind-pk { fill: #f28e2b; } .kind-pktail { fill: #edc948; } .kind-tail { fill: #e15759; } .kind-suppress { fill: #b07aa1; } .kind-final { fill: #76b7b2; } .kind-more { fill: none; }
.legend span { display: inline-block; margin-right: 1.2em; } .legend svg { vertical-align: middle; }
`

var pages = template.Must(template.New("").Funcs(funcs).Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{.}} · Inlet FE</title><style>` + style + `</style></head><body>{{end}}

{{define "list"}}{{template "head" "Recent queries"}}
<h1>Recent queries</h1>
<p>Logged in as <b>{{.User}}</b>{{if .Admin}} (ADMIN_PRIV: every user's statements){{else}} (your statements){{end}}. Newest first.</p>
<table id="queries">
<tr><th>#</th><th>Ended</th><th>User</th><th>State</th><th>Time</th><th>Rows</th><th>Scan rows</th><th>Scan bytes</th><th>Statement</th></tr>
{{range .Queries}}<tr class="query">
<td><a href="/query/{{key .}}">{{.Seq}}</a></td><td>{{when .End}}</td><td>{{.User}}</td>
<td class="{{.State}}">{{.State}}{{if .ErrorCode}} {{.ErrorCode}}{{end}}</td>
<td class="num">{{dur .Start .End}}</td><td class="num">{{.ReturnRows}}</td><td class="num">{{.ScanRows}}</td><td class="num">{{bytes .ScanBytes}}</td>
<td><code>{{short .Statement}}</code>{{if .HasProfile}} <a href="/query/{{.QueryID}}">profile</a>{{end}}</td></tr>
{{else}}<tr><td colspan="9">No statements yet.</td></tr>{{end}}
</table>
<p><a href="/metrics">/metrics</a></p>
</body></html>{{end}}

{{define "missing"}}{{template "head" "Not found"}}<h1>Not found</h1><p>No statement or profile <code>{{.Key}}</code> that you may see (only the recent ones are kept).</p><p><a href="/">Recent queries</a></p></body></html>{{end}}

{{define "query"}}{{template "head" "Query"}}
<p><a href="/">← Recent queries</a></p>
{{with .Info}}<h1>Statement {{.Seq}}{{if .QueryID}} · query {{.QueryID}}{{end}}</h1>
<table id="summary">
<tr><th>User</th><td>{{.User}} from {{.Client}}</td></tr>
<tr><th>Catalog / DB</th><td>{{.Catalog}} / {{.DB}}</td></tr>
<tr><th>State</th><td class="{{.State}}">{{.State}}{{if .ErrorCode}} — error {{.ErrorCode}}: {{.ErrorMessage}}{{end}}</td></tr>
<tr><th>Time</th><td>{{when .Start}} → {{when .End}} ({{dur .Start .End}})</td></tr>
<tr><th>Rows returned</th><td>{{.ReturnRows}}</td></tr>
<tr><th>Scan rows / bytes</th><td>{{.ScanRows}} / {{bytes .ScanBytes}}</td></tr>
<tr><th>Statement</th><td><pre>{{.Statement}}</pre></td></tr>
</table>{{end}}
{{with .Profile}}{{if not $.Info}}<h1>Query {{.ID}}</h1><p>{{.User}} · {{.State}} · <code>{{.Statement}}</code></p>{{end}}{{end}}
{{with .Timeline}}
<h2>Timeline</h2>
<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}">
{{range .Ticks}}<line x1="{{.X}}" y1="18" x2="{{.X}}" y2="{{$.Timeline.Height}}" stroke="#ddd"/><text x="{{.X}}" y="12" text-anchor="middle">{{.Text}}</text>
{{end}}{{range .Bars}}<g class="row"><text x="4" y="{{mid .Y}}" dominant-baseline="middle">{{.Label}}</text>
<rect class="bar kind-{{.Kind}}" data-kind="{{.Kind}}" x="{{.X}}" y="{{add .Y 3}}" width="{{.W}}" height="16" rx="2"><title>{{.Title}}</title></rect></g>
{{end}}</svg>
<p class="legend">{{range .Legend}}<span><svg width="14" height="12"><rect class="kind-{{.Kind}}" width="14" height="12" rx="2"/></svg> {{.Label}}</span>{{end}}</p>
<p>A fragment's bar runs from the FE's request to the end of its stream. The BEs report each kind's
time summed over its ranges, so those bars show totals, drawn from the fragment's start. Below them,
one bar per range on each BE (range type, id, BE), from the start of its reader to its last row, on
the BE's clock.</p>
{{end}}
{{with .Scans}}<h2>Fluss counters</h2>
{{range .}}<h3>#{{.Index}} {{.Node}} <code>{{.Table}}</code></h3>
<table class="counters">{{range .Counters}}<tr class="counter"><th>{{index . 0}}</th><td class="num">{{index . 1}}</td></tr>{{end}}</table>
{{end}}{{end}}
{{with .Profile}}{{with .Plan}}<h2>Operator tree</h2>
<p>As EXPLAIN prints it, with what each operator produced once the statement ended: RowsProduced, ExecTime (its own time, its inputs' taken out) and TotalTime (with its inputs){{if $.Info}}; {{$.Info.ReturnRows}} rows returned{{end}}.</p>
<pre id="plan">{{range .}}{{.}}
{{end}}</pre>{{end}}{{end}}
{{with .Profile}}<h2>Profile</h2><pre id="profile">{{range .Text}}{{.}}
{{end}}</pre>{{else}}<p>This statement ran no fragment on a BE, so it has no profile.</p>{{end}}
</body></html>{{end}}
`))
