package iceberg_test

// An independent cross-check of the data and delete files: DuckDB (npm
// @duckdb/node-api, sharing no code with arrow-go or iceberg-go) reads
// the Parquet files of a table iceberg-go wrote, applies each split's
// position and equality deletes itself in SQL, and must return exactly
// the rows lake/iceberg returns for the split.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

type duckResult struct {
	Rows [][]*string `json:"rows"`
}

// duckDB returns a function running statements through DuckDB, installing
// the pinned @duckdb/node-api into the user cache directory when missing
// (as lake/paimon/writer's cross-check does, same directory and version).
// It skips, or fails under CI=true, when node or npm is missing or npm
// cannot reach its registry.
func duckDB(t *testing.T) func(stmts ...string) []duckResult {
	t.Helper()
	if os.Getenv("INLET_SKIP_DUCKDB") != "" {
		fixtures.Unavailable(t, "INLET_SKIP_DUCKDB is set: DuckDB cross-check skipped")
	}
	node := fixtures.Tool(t, "node", "nodejs")
	npm := fixtures.Tool(t, "npm", "npm")
	src := filepath.Join("testdata", "duckdb")
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(src, "read.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(pkg, &pj); err != nil || pj.Dependencies["@duckdb/node-api"] == "" {
		t.Fatalf("%s/package.json: %v", src, err)
	}
	version := pj.Dependencies["@duckdb/node-api"]
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "inlet-duckdb", version)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		install(t, npm, dir, pkg)
	}
	tmp, err := os.CreateTemp(dir, "read-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmp.Write(script)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(dir, "read.mjs")
	if err := os.Rename(tmp.Name(), runner); err != nil {
		t.Fatal(err)
	}
	return func(stmts ...string) []duckResult {
		t.Helper()
		in, _ := json.Marshal(stmts)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, runner)
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("DuckDB %s: %v\n%s", version, err, stderr.String())
		}
		var out []duckResult
		dec := json.NewDecoder(&stdout)
		for dec.More() {
			var r duckResult
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		if len(out) != len(stmts) {
			t.Fatalf("DuckDB answered %d of %d statements\n%s", len(out), len(stmts), stderr.String())
		}
		return out
	}
}

func install(t *testing.T, npm, dir string, pkg []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		for _, m := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "network"} {
			if strings.Contains(string(out), m) {
				fixtures.Unavailable(t, "npm cannot reach its registry (%s): DuckDB cross-check skipped", m)
			}
		}
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr != nil {
			t.Fatalf("installing DuckDB into %s: %v", dir, err)
		}
	}
}

func sqlList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestDuckDBAppliesTheSameDeletes: for every split of every snapshot,
// DuckDB's read_parquet of the data file minus the positions the split's
// position delete files name for it, minus the customers of its equality
// delete files, equals the split as lake/iceberg reads it.
func TestDuckDBAppliesTheSameDeletes(t *testing.T) {
	duck := duckDB(t)
	ctx := context.Background()
	wh := t.TempDir()
	snaps, err := icebergtest.Orders(ctx, wh, "db")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	var ours [][]string
	for _, id := range snaps {
		plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: id})
		if err != nil {
			t.Fatal(err)
		}
		for i := range plan.Splits {
			sp := &plan.Splits[i]
			rd, err := plan.Open(ctx, sp, memory.NewGoAllocator(), iceberg.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var recs []arrow.RecordBatch
			for rd.Next() {
				r := rd.RecordBatch()
				r.Retain()
				recs = append(recs, r)
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
			ours = append(ours, rows(t, recs))
			for _, r := range recs {
				r.Release()
			}
			where := []string{"true"}
			if len(sp.PosDeletes) > 0 {
				var ps []string
				for _, d := range sp.PosDeletes {
					ps = append(ps, d.Path)
				}
				where = append(where, fmt.Sprintf("file_row_number NOT IN (SELECT pos FROM read_parquet(%s) WHERE file_path = '%s')", sqlList(ps), sp.Path))
			}
			if len(sp.EqDeletes) > 0 {
				var es []string
				for _, d := range sp.EqDeletes {
					if !slices.Equal(d.EqualityIDs, []int{2}) {
						t.Fatalf("equality delete file %s compares %v, not customer", d.Path, d.EqualityIDs)
					}
					es = append(es, d.Path)
				}
				where = append(where, fmt.Sprintf("customer NOT IN (SELECT customer FROM read_parquet(%s))", sqlList(es)))
			}
			stmts = append(stmts, fmt.Sprintf(`SELECT id::VARCHAR || '|' || customer || '|' || printf('%%.2f', amount) || '|' || strftime(day, '%%Y-%%m-%%d') || '|' || epoch_us(ts)::VARCHAR || '|' || region
				FROM read_parquet('%s', file_row_number = true) WHERE %s`, sp.Path, strings.Join(where, " AND ")))
		}
	}
	res := duck(stmts...)
	for i := range res {
		var theirs []string
		for _, r := range res[i].Rows {
			theirs = append(theirs, *r[0])
		}
		slices.Sort(theirs)
		if !slices.Equal(theirs, ours[i]) {
			t.Errorf("split %d: DuckDB %d rows, ours %d\n%s", i, len(theirs), len(ours[i]), stmts[i])
		}
	}
	if len(res) < 8 {
		t.Errorf("only %d splits compared", len(res))
	}
}
