package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The README's quick tour runs against `fe --demo` as printed: every
// statement of its first sql block succeeds (issue 22: its first statement
// used to fail with "Catalog 'fluss' already exists").
func TestReadmeTourRunsAgainstDemo(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "## A quick tour")
	if i < 0 {
		t.Fatal("README has no quick tour")
	}
	text = text[i:]
	start := strings.Index(text, "```sql\n")
	end := strings.Index(text[start+7:], "```")
	if start < 0 || end < 0 {
		t.Fatal("the quick tour has no sql block")
	}
	var stmts []string
	for _, line := range strings.Split(text[start+7:start+7+end], "\n") {
		if k := strings.Index(line, "--"); k >= 0 {
			line = line[:k]
		}
		for _, s := range strings.Split(line, ";") {
			if s = strings.TrimSpace(s); s != "" {
				stmts = append(stmts, s)
			}
		}
	}
	if len(stmts) < 10 {
		t.Fatalf("only %d statements in the tour: %q", len(stmts), stmts)
	}
	addr, _ := startRun(t, config{queryPort: 0, httpPort: 0, beHTTPPort: -1, host: "127.0.0.1", demo: true, dataDir: t.TempDir(), dataSet: true,
		logLevel: "error", memLimit: 1 << 30, maxConns: 16, handshakeTimeout: 10e9})
	db := rootDB(t, addr)
	ctx := context.Background()
	for _, s := range stmts {
		rs, err := db.QueryContext(ctx, s)
		if err != nil {
			t.Errorf("tour statement %q: %v", s, err)
			continue
		}
		for rs.Next() {
		}
		if err := rs.Err(); err != nil {
			t.Errorf("tour statement %q: %v", s, err)
		}
		rs.Close()
	}
	var extra string
	if err := db.QueryRow("SELECT extra FROM information_schema.columns WHERE table_catalog = 'fluss' AND table_schema = 'shop' AND table_name = 'orders' AND column_name = 'updated_at'").Scan(&extra); err != nil {
		var f, ty, n, k, d string
		if err2 := db.QueryRow("SHOW COLUMNS FROM fluss.shop.orders LIKE 'updated_at'").Scan(&f, &ty, &n, &k, &d, &extra); err2 != nil {
			t.Fatalf("updated_at: %v / %v", err, err2)
		}
	}
	if extra != "WITH_TIMEZONE" {
		t.Errorf("the demo's TIMESTAMP_LTZ column shows Extra %q", extra)
	}
}
