package main

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/load/streamload"
)

// webFE is `fe --demo` (emulated Fluss, tiered sample, BE in process)
// with its MySQL and HTTP addresses.
type webFE struct {
	query, http, flight string
}

func startDemoWeb(t *testing.T) webFE {
	t.Helper()
	return startDemo(t, -1)
}

// startDemo starts `fe --demo`, with Flight SQL on a free port unless
// flightPort is -1.
func startDemo(t *testing.T, flightPort int) webFE {
	t.Helper()
	return startDemoBEs(t, flightPort, nil)
}

// startDemoBEs is startDemo with the BEs at backends (--be) instead of the
// in-process one.
func startDemoBEs(t *testing.T, flightPort int, backends []string) webFE {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	c := config{queryPort: 0, httpPort: 0, beHTTPPort: 0, flightSQLPort: flightPort, host: "127.0.0.1", demo: true, dataDir: t.TempDir(), dataSet: true,
		logLevel: "error", memLimit: 1 << 30, maxConns: 16, handshakeTimeout: 10 * time.Second, backends: backends}
	go func() { done <- run(ctx, c, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("FE shutdown: %v", err)
		}
	})
	qre, hre, fre := regexp.MustCompile(`listening on (\S+)`), regexp.MustCompile(`HTTP on (\S+)`), regexp.MustCompile(`Arrow Flight SQL on (\S+)`)
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		text := out.String()
		if q, h := qre.FindStringSubmatch(text), hre.FindStringSubmatch(text); q != nil && h != nil && strings.Contains(text, "Then try:") {
			fe := webFE{query: q[1], http: h[1]}
			if f := fre.FindStringSubmatch(text); f != nil {
				fe.flight = f[1]
			}
			return fe
		}
		select {
		case err := <-done:
			t.Fatalf("demo stopped: %v\n%s", err, text)
		default:
		}
	}
	t.Fatalf("demo did not come up:\n%s", out.String())
	return webFE{}
}

func openDB(t *testing.T, addr, user, pass string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pass, "tcp", addr
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// fetch GETs (or sends method to) url as user (no credentials when user
// is ""), without following redirects.
func fetch(t *testing.T, method, url, user, pass string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	cl := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 27: the FE's web page. Every HTTP endpoint but /metrics (open, as
// in Doris) refuses a request without valid credentials; Stream Load's
// 307 comes only after its own login. A user sees only their own
// statements and profiles (in the page and in /api/profile(s)) unless
// they hold ADMIN_PRIV. The profile page of a union read draws its
// fragments and per-kind bars and lists the Fluss counters; a failed
// statement shows its error.
func TestWebPages(t *testing.T) {
	fe := startDemoWeb(t)
	base := "http://" + fe.http
	root := openDB(t, fe.query, "root", "")
	for _, q := range []string{"CREATE USER alice IDENTIFIED BY 'alice-pw'", "GRANT SELECT_PRIV ON internal.demo.* TO alice",
		"CREATE DATABASE IF NOT EXISTS demo"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// root: a union read (the demo's PK table, tiered with a tail), and a
	// statement that fails after its fragment ran.
	var n int
	if err := root.QueryRow("SELECT count(*) FROM fluss.shop.orders").Scan(&n); err != nil || n == 0 {
		t.Fatalf("union read: %d rows, %v", n, err)
	}
	// A scalar subquery that returns more than one row fails at run time
	// (1242), after its fragment read the table.
	_, failErr := root.Exec("SELECT order_id FROM fluss.shop.orders WHERE order_id = (SELECT order_id FROM fluss.shop.orders)")
	if failErr == nil {
		t.Fatal("the failing statement succeeded")
	}
	alice := openDB(t, fe.query, "alice", "alice-pw")
	if _, err := alice.Exec("SELECT 'alice was here'"); err != nil {
		t.Fatal(err)
	}

	// Every endpoint without credentials, and with a wrong password.
	guarded := []struct{ method, path string }{
		{"GET", "/"},
		{"GET", "/query/s1"},
		{"GET", "/no/such/page"},
		{"GET", "/api/profiles"},
		{"GET", "/api/profile?query_id=x"},
		{"PUT", "/api/demo/products/_stream_load"},
		{"POST", dispatch.HeartbeatPath},
		{"POST", streamload.RegisterPath},
		{"PUT", "/api/_internal/stream_load/demo/products"},
	}
	for i, g := range guarded {
		code, _ := fetch(t, g.method, base+g.path, "", "")
		if code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s %s without credentials: %d, want 401 or 403", g.method, g.path, code)
		}
		// A wrong password for a real user, another user each time: the
		// login guard slows a (user, host) after five failures.
		user := []string{"root", "alice"}[i%2]
		if code, _ := fetch(t, g.method, base+g.path, user, "wrong"); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s %s with a wrong password: %d, want 401 or 403", g.method, g.path, code)
		}
		if i%2 == 1 {
			fetch(t, "GET", base+"/", "root", "")
			fetch(t, "GET", base+"/", "alice", "alice-pw")
		}
	}
	if code, body := fetch(t, "GET", base+"/metrics", "", ""); code != 200 || !strings.Contains(body, "inlet_fe_queries_total") {
		t.Errorf("/metrics: %d", code)
	} else if !strings.Contains(body, "\ninlet_go_gc_floor_bytes 268435456\n") || !strings.Contains(body, "\ninlet_go_gc_percent ") {
		// The FE runs with the collector held off below a quarter of
		// its 1 GiB --mem-limit (internal/gcfloor).
		t.Errorf("/metrics: no 256 MiB GC floor:\n%s", body)
	}
	if code, _ := fetch(t, "PUT", base+"/api/demo/products/_stream_load", "root", ""); code != http.StatusTemporaryRedirect {
		t.Errorf("Stream Load with credentials: %d, want 307", code)
	}

	// root (an admin) sees everything; the union read has a profile.
	code, list := fetch(t, "GET", base+"/", "root", "")
	if code != 200 {
		t.Fatalf("/ as root: %d\n%s", code, list)
	}
	for _, want := range []string{"SELECT count(*) FROM fluss.shop.orders", "alice was here", "ERR"} {
		if !strings.Contains(list, want) {
			t.Errorf("root's list lacks %q", want)
		}
	}
	// Secrets are masked as in the audit log: alice's password is not shown.
	if strings.Contains(list, "alice-pw") || !strings.Contains(list, "CREATE USER") {
		t.Errorf("root's list shows alice's password or lacks her CREATE USER")
	}
	m := regexp.MustCompile(`<a href="/query/([0-9a-f]+-[0-9a-f]+)">profile</a>`).FindAllStringSubmatch(list, -1)
	if len(m) < 2 {
		t.Fatalf("root's list links %d profiles, want the union read's and the failed statement's:\n%s", len(m), list)
	}
	failedID, unionID := m[0][1], m[len(m)-1][1] // newest first

	code, page := fetch(t, "GET", base+"/query/"+unionID, "root", "")
	if code != 200 {
		t.Fatalf("profile page: %d\n%s", code, page)
	}
	checkProfilePage(t, "union read", page)
	code, page = fetch(t, "GET", base+"/query/"+failedID, "root", "")
	if code != 200 {
		t.Fatalf("failed statement's page: %d", code)
	}
	if !strings.Contains(page, "ERR") || !strings.Contains(page, "error 1") {
		t.Errorf("failed statement's page lacks its error:\n%s", page)
	}

	// alice sees her own statement only, and none of root's profiles.
	_, list = fetch(t, "GET", base+"/", "alice", "alice-pw")
	if !strings.Contains(list, "alice was here") || strings.Contains(list, "fluss.shop.orders") {
		t.Errorf("alice's list shows others' statements or lacks hers:\n%s", list)
	}
	if code, _ := fetch(t, "GET", base+"/query/"+unionID, "alice", "alice-pw"); code != http.StatusNotFound {
		t.Errorf("alice reading root's profile page: %d, want 404", code)
	}
	if code, _ := fetch(t, "GET", base+"/api/profile?query_id="+unionID, "alice", "alice-pw"); code != http.StatusNotFound {
		t.Errorf("alice reading root's /api/profile: %d, want 404", code)
	}
	if _, body := fetch(t, "GET", base+"/api/profiles", "alice", "alice-pw"); strings.Contains(body, unionID) {
		t.Errorf("alice's /api/profiles lists root's query")
	}
	if code, body := fetch(t, "GET", base+"/api/profile?query_id="+unionID, "root", ""); code != 200 || !strings.Contains(body, "FlussLakeRowsReturned") {
		t.Errorf("root's /api/profile: %d\n%s", code, body)
	}

	// A real browser renders the pages offline: chromium's DOM has the
	// bars and the counters.
	chromium := fixtures.Tool(t, "chromium", "chromium")
	dom := browserDOM(t, chromium, "http://root:@"+fe.http+"/query/"+unionID)
	checkProfilePage(t, "union read in chromium", dom)
	dom = browserDOM(t, chromium, "http://root:@"+fe.http+"/query/"+failedID)
	if !strings.Contains(dom, "error 1") {
		t.Errorf("chromium's DOM of the failed statement lacks its error")
	}
}

// checkProfilePage checks a union read's profile page: a fragment bar, a
// lake-split bar, an FE bar, and the spec's counters.
func checkProfilePage(t *testing.T, what, page string) {
	t.Helper()
	for _, want := range []string{`<svg id="timeline"`, `class="bar kind-query"`, `class="bar kind-fragment"`, `class="bar kind-lake"`,
		"FlussLakeRowsReturned", "FlussLakeRangeNum", "FlussUnionTailKeysRead", `<pre id="profile">`, `<pre id="plan">`, "unionRead=yes", "RowsProduced=", `data-kind="lake"`, "LAKE_SUPPRESS #", "PK_TAIL #", "@fe-local"} {
		if !strings.Contains(page, want) {
			t.Errorf("%s: page lacks %s", what, want)
		}
	}
}

// browserDOM loads url in headless chromium and returns the DOM it built;
// it also keeps a screenshot in the test's temp directory.
func browserDOM(t *testing.T, chromium, url string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + dir, "--no-first-run"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	shot := filepath.Join(dir, "page.png")
	if err := exec.CommandContext(ctx, chromium, append(args, "--screenshot="+shot, "--window-size=1100,1300", url)...).Run(); err != nil {
		t.Errorf("chromium --screenshot: %v", err)
	} else if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	} else if keep := os.Getenv("INLET_SCREENSHOT_DIR"); keep != "" {
		// How the README's screenshot is made.
		b, _ := os.ReadFile(shot)
		name := regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(url[strings.LastIndex(url, "/")+1:]), "-")
		if err := os.WriteFile(filepath.Join(keep, "webui-"+name+".png"), b, 0o644); err != nil {
			t.Error(err)
		}
	}
	return string(out)
}
