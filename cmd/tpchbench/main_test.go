package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	fe := feBinary(ctx, t)
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

// TestTPCHLakeAnswers runs the 22 queries at scale factor 0.01 over the
// Paimon warehouse the command writes with lake/paimon/writer, through a
// type=paimon catalog of a real FE process, and checks every answer against
// DuckDB's read_parquet of the same data files: the lake's decimals, dates
// and strings, its pushed predicates and its manifest statistics give the
// answers the generated text does.
func TestTPCHLakeAnswers(t *testing.T) {
	fixtures.Tool(t, "node", "nodejs")
	fixtures.Tool(t, "npm", "npm")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	fe := feBinary(ctx, t)
	var log bytes.Buffer
	qs, _ := parseQueries("1-22")
	rep, err := run(ctx, config{sf: 0.01, dir: dir, runs: 1, threads: 2, queries: qs, timeout: 60 * time.Second, feBin: fe, source: sourcePaimon}, &log)
	if err != nil {
		if strings.Contains(err.Error(), "DuckDB") {
			fixtures.Unavailable(t, "%v", err)
		}
		t.Fatalf("%v\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.print(&out)
	if rep.failures() > 0 || len(rep.results) != 22 || !rep.wrote {
		t.Errorf("TPC-H answers over the lake:\n%s", out.String())
	}
	if rep.analyzeFailed > 0 {
		t.Errorf("ANALYZE of the lake tables failed:\n%s", log.String())
	}
	// Every table is a Paimon table with its data in Parquet files.
	for _, tb := range tpch.Tables {
		files, err := lakeFiles(ctx, filepath.Join(dir, "sf0.01", "paimon", lakeDB+".db", tb.Name))
		if err != nil || len(files) == 0 || filepath.Ext(files[0]) != ".parquet" {
			t.Errorf("%s: data files %v, %v", tb.Name, files, err)
		}
	}
}

// TestTPCHFlussAnswers runs the 22 queries at scale factor 0.01 over the
// Fluss emulator's tables, tiered into its Paimon lake with orders and
// lineitem keeping their last rows in the log, through a type=fluss catalog
// (union read), and checks every answer against DuckDB on the lake's files
// UNION ALL the tail rows: a row lost or doubled between lake and log, or
// a wrong type on either side, changes an answer.
func TestTPCHFlussAnswers(t *testing.T) {
	fixtures.Tool(t, "node", "nodejs")
	fixtures.Tool(t, "npm", "npm")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	fe := feBinary(ctx, t)
	var log bytes.Buffer
	qs, _ := parseQueries("1-22")
	keep := filepath.Join(dir, "fluss-state")
	c := config{sf: 0.01, dir: dir, runs: 1, threads: 2, queries: qs, timeout: 60 * time.Second, feBin: fe, source: sourceFluss, flussDir: keep}
	rep, err := run(ctx, c, &log)
	if err != nil {
		if strings.Contains(err.Error(), "DuckDB") {
			fixtures.Unavailable(t, "%v", err)
		}
		t.Fatalf("%v\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.print(&out)
	if rep.failures() > 0 || len(rep.results) != 22 {
		t.Errorf("TPC-H answers over Fluss:\n%s", out.String())
	}
	if rep.analyzeFailed > 0 {
		t.Errorf("ANALYZE of the Fluss tables failed:\n%s", log.String())
	}
	// --fluss-dir: a second run reopens the emulator's kept state (nothing
	// appended or tiered again) and its union reads give the same answers.
	log.Reset()
	c.queries = []int{1, 3, 18}
	rep, err = run(ctx, c, &log)
	if err != nil {
		t.Fatalf("second run over %s: %v\n%s", keep, err, log.String())
	}
	out.Reset()
	rep.print(&out)
	if rep.failures() > 0 || len(rep.results) != 3 || !strings.Contains(log.String(), "reusing the Fluss emulator's state") ||
		strings.Contains(log.String(), "appending to the Fluss log") {
		t.Errorf("second run over %s:\n%s\n%s", keep, log.String(), out.String())
	}
}

var (
	feOnce sync.Once
	feBin  string
	feErr  error
	feDir  string
)

// feBinary builds ./cmd/fe once for the package's tests.
func feBinary(ctx context.Context, t *testing.T) string {
	t.Helper()
	feOnce.Do(func() {
		if feDir, feErr = os.MkdirTemp("", "tpchbench-fe-"); feErr != nil {
			return
		}
		feBin = filepath.Join(feDir, "fe")
		build := exec.CommandContext(ctx, "go", "build", "-o", feBin, "./cmd/fe")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			feErr = fmt.Errorf("go build ./cmd/fe: %v\n%s", err, out)
		}
	})
	if feErr != nil {
		t.Fatal(feErr)
	}
	return feBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if feDir != "" {
		os.RemoveAll(feDir)
	}
	os.Exit(code)
}

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int
		want  int64
		bad   bool
	}{
		{"901.00", 2, 90100, false}, {"-12.3", 2, -1230, false}, {"7", 2, 700, false}, {"0.05", 2, 5, false},
		{"1.234", 2, 0, true}, {"x.10", 2, 0, true},
	} {
		got, err := parseDecimal(c.in, c.scale)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseDecimal(%q, %d) = %d, %v", c.in, c.scale, got, err)
		}
	}
}
