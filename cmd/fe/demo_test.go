package main

import (
	"context"
	"database/sql"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// syncBuffer collects what run prints while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ io.Writer = (*syncBuffer)(nil)

// TestDemoPrintedQueriesRun starts `fe --demo` as a user would (emulated
// Fluss with a tiered sample, BE in process, FE), runs every query the
// welcome text suggests through a MySQL driver, checks the union reads
// against Fluss-only reads, and starts it again on the same directory.
func TestDemoPrintedQueriesRun(t *testing.T) {
	for _, lake := range []string{"paimon", "iceberg"} {
		t.Run(lake, func(t *testing.T) { testDemoOn(t, lake) })
	}
}

// testDemoOn is TestDemoPrintedQueriesRun with `--lake lake`.
func testDemoOn(t *testing.T, lake string) {
	dir := t.TempDir()
	for start := 0; start < 2; start++ {
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuffer{}
		done := make(chan error, 1)
		c := config{queryPort: 0, httpPort: 0, host: "127.0.0.1", demo: true, lake: lake, dataDir: dir, dataSet: true, logLevel: "error"}
		go func() { done <- run(ctx, c, out) }()
		var addr string
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "Then try:") {
				addr = m[1]
				break
			}
			select {
			case err := <-done:
				t.Fatalf("demo stopped: %v\n%s", err, out.String())
			default:
			}
		}
		if addr == "" {
			t.Fatalf("demo did not come up:\n%s", out.String())
		}
		text := out.String()
		if !strings.Contains(text, "mariadb -h127.0.0.1 -P") {
			t.Errorf("welcome text lacks the connect line:\n%s", text)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		db.SetMaxOpenConns(1)

		try := text[strings.Index(text, "Then try:"):]
		var ran int
		var explain string
		for _, line := range strings.Split(try, "\n")[1:] {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			for _, stmt := range strings.Split(line, ";") {
				stmt = strings.TrimSpace(stmt)
				if stmt == "" {
					continue
				}
				rs, err := db.Query(stmt)
				if err != nil {
					t.Errorf("start %d: printed query %q: %v", start, stmt, err)
					continue
				}
				for rs.Next() {
					if strings.HasPrefix(stmt, "EXPLAIN") {
						var l string
						if err := rs.Scan(&l); err == nil {
							explain += l + "\n"
						}
					}
				}
				rs.Close()
				ran++
			}
		}
		if ran < 10 {
			t.Errorf("ran only %d printed statements", ran)
		}
		if !strings.Contains(explain, "unionRead=yes") {
			t.Errorf("the printed EXPLAIN shows no union read:\n%s", explain)
		}
		if strings.Contains(explain, "lakeFormat=iceberg") != (lake == "iceberg") || !strings.Contains(text, map[string]string{"paimon": "a Paimon lake", "iceberg": "an Iceberg lake"}[lake]) {
			t.Errorf("--lake %s: the welcome text or EXPLAIN names another lake:\n%s\n%s", lake, text, explain)
		}
		// Every demo table reads the same under required and auto as under
		// disabled.
		for _, tbl := range []string{"events", "orders", "visits"} {
			var got [3]string
			for i, mode := range []string{"required", "auto", "disabled"} {
				q := "SELECT /*+ SET_VAR(fluss_union_read_mode='" + mode + "') */ * FROM fluss.shop." + tbl + " ORDER BY 1"
				got[i] = allRows(t, db, q)
			}
			if got[0] != got[2] || got[1] != got[2] || got[2] == "" {
				t.Errorf("%s: rows under required / auto / disabled:\n%s\n%s\n%s", tbl, got[0], got[1], got[2])
			}
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM fluss.shop.orders WHERE status = 'shipped'").Scan(&n); err != nil || n != 1 {
			t.Errorf("the tail's update is not visible: %d, %v", n, err)
		}
		db.Close()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("demo shutdown: %v", err)
		}
	}
}

// allRows renders a query's rows, one per line, NULL as \N.
func allRows(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var b strings.Builder
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			if v.Valid {
				b.WriteString(v.String)
			} else {
				b.WriteString(`\N`)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
