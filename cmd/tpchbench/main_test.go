package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/internal/tpch"
)

func TestParseQueries(t *testing.T) {
	got, err := parseQueries("1,3,5-7,22")
	if err != nil || len(got) != 6 || got[0] != 1 || got[2] != 5 || got[4] != 7 || got[5] != 22 {
		t.Errorf("parseQueries = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "23", "5-3", "x", "1-"} {
		if _, err := parseQueries(bad); err == nil {
			t.Errorf("parseQueries(%q) accepted", bad)
		}
	}
}

// TestTPCHAnswers runs the 22 queries at scale factor 0.01 through a real
// FE process (tables loaded by Stream Load) and checks every answer against
// DuckDB on the same generated files. Answers only: times at this size say
// nothing.
func TestTPCHAnswers(t *testing.T) {
	fixtures.Tool(t, "node", "nodejs")
	fixtures.Tool(t, "npm", "npm")
	dir := t.TempDir()
	fe := filepath.Join(dir, "fe")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", fe, "./cmd/fe")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/fe: %v\n%s", err, out)
	}
	var log bytes.Buffer
	qs, _ := parseQueries("1-22")
	rep, err := run(ctx, config{sf: 0.01, dir: dir, runs: 1, threads: 2, queries: qs, timeout: 60 * time.Second, feBin: fe}, &log)
	if err != nil {
		if strings.Contains(err.Error(), "DuckDB") {
			fixtures.Unavailable(t, "%v", err)
		}
		t.Fatalf("%v\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.print(&out)
	if rep.failures() > 0 || len(rep.results) != 22 {
		t.Errorf("TPC-H answers:\n%s", out.String())
	}
	// Stream Load took every generated row.
	var lines int64
	for _, tb := range tpch.Tables {
		b, err := os.ReadFile(filepath.Join(dir, "sf0.01", tb.Name+".tbl"))
		if err != nil {
			t.Fatal(err)
		}
		lines += int64(bytes.Count(b, []byte("\n")))
	}
	if rep.rows != lines {
		t.Errorf("Stream Load loaded %d rows of %d", rep.rows, lines)
	}
}
