package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGroupByVsDuckDB runs aggBenchQueries through Inlet and through DuckDB
// (npm @duckdb/node-api as installed by cmd/lakebench, 1 and 2 threads) on
// the same 10 M rows, interleaved, and prints ms, rows/s, allocations and
// DuckDB/Inlet ratios. It checks both engines' answers agree. It runs only
// when INLET_AGG_DUCKDB is set (to the number of runs, default 3):
//
//	INLET_AGG_DUCKDB=3 go test ./exec -run TestGroupByVsDuckDB -v -timeout 30m
func TestGroupByVsDuckDB(t *testing.T) {
	runsEnv := os.Getenv("INLET_AGG_DUCKDB")
	if runsEnv == "" {
		t.Skip("set INLET_AGG_DUCKDB=<runs> to compare GROUP BY with DuckDB")
	}
	runs, err := strconv.Atoi(runsEnv)
	if err != nil || runs < 1 {
		runs = 3
	}
	d, err := startAggDuck(t)
	if err != nil {
		t.Skipf("DuckDB: %v", err)
	}
	defer d.close()
	const rows = 10_000_000
	t.Logf("%d rows, runs=%d, median ms; Inlet: one goroutine, a second past aggParallelAfter rows while groups are few", rows, runs)
	t.Logf("%-16s %6s | %9s %12s %10s | %9s %9s | %7s %7s", "query", "groups", "inlet ms", "rows/s", "allocs", "duck1 ms", "duck2 ms", "d1/in", "d2/in")
	for _, groups := range []int64{1000, 1_000_000} {
		if _, err := d.run(fmt.Sprintf(`CREATE OR REPLACE TABLE t AS SELECT i %% %[1]d AS k, CAST(i %% %[1]d AS VARCHAR) AS s,
			CAST((i %% %[1]d) %% 1000 AS INTEGER) AS a, CAST((i %% %[1]d) // 1000 AS VARCHAR) AS b,
			CAST(i %% 997 AS DOUBLE) * 0.5 AS v FROM range(%[2]d) r(i)`, groups, rows)); err != nil {
			t.Fatal(err)
		}
		batches := aggBenchRows(memory.NewGoAllocator(), rows, groups)
		scan := memScan(aggBenchSchema, batches)
		for _, q := range aggBenchQueries() {
			op := q.plan(scan)
			var inlet, d1, d2 []float64
			var allocs uint64
			var got string
			for r := 0; r < runs; r++ {
				var ms0, ms1 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				t0 := time.Now()
				got = aggDigest(t, op)
				inlet = append(inlet, float64(time.Since(t0).Microseconds())/1000)
				runtime.ReadMemStats(&ms1)
				allocs = ms1.Mallocs - ms0.Mallocs
				for threads, dst := range map[int]*[]float64{1: &d1, 2: &d2} {
					if _, err := d.run(fmt.Sprintf("SET threads = %d", threads)); err != nil {
						t.Fatal(err)
					}
					ms, err := d.run(q.sql)
					if err != nil {
						t.Fatal(err)
					}
					*dst = append(*dst, ms)
				}
			}
			want, err := d.digest(q.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s, %d groups: Inlet %s, DuckDB %s", q.name, groups, got, want)
			}
			in, m1, m2 := median(inlet), median(d1), median(d2)
			t.Logf("%-16s %6d | %9.1f %12.0f %10d | %9.1f %9.1f | %7.2f %7.2f", q.name, groups, in, rows/(in/1000), allocs, m1, m2, m1/in, m2/in)
		}
		for _, b := range batches {
			b.Release()
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// aggDigest runs op and sums its output: rows, then each column after the
// keys (the aggregates), summed as numbers.
func aggDigest(t *testing.T, op Operator) string {
	t.Helper()
	rr, err := op.Open(context.Background(), &Env{Mem: memory.NewGoAllocator()})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	nkeys := len(op.(*HashAggregate).GroupBy)
	var n int64
	sums := make([]float64, int(op.Schema().NumFields())-nkeys)
	for rr.Next() {
		b := rr.RecordBatch()
		n += b.NumRows()
		for c := nkeys; c < int(b.NumCols()); c++ {
			switch x := b.Column(c).(type) {
			case *array.Int64:
				for _, v := range x.Int64Values() {
					sums[c-nkeys] += float64(v)
				}
			case *array.Float64:
				for _, v := range x.Float64Values() {
					sums[c-nkeys] += v
				}
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return digestString(float64(n), sums)
}

func digestString(n float64, sums []float64) string {
	s := fmt.Sprintf("rows=%.0f", n)
	for _, v := range sums {
		s += fmt.Sprintf(" %.6g", math.Round(v*1000)/1000)
	}
	return s
}

type aggDuck struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// aggDuckScript reads one JSON SQL string per line and answers one JSON
// line: {"ms": wall time, "rows": [[cell...]...]} or {"error": "..."}.
const aggDuckScript = `import { DuckDBInstance } from '@duckdb/node-api';
import readline from 'node:readline';
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  try {
    const t0 = performance.now();
    const r = await conn.runAndReadAll(JSON.parse(line));
    const ms = performance.now() - t0;
    const rows = r.getRowsJS().map((row) => row.map((v) => (v === null ? null : String(v))));
    process.stdout.write(JSON.stringify({ ms, rows }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e.message) }) + '\n');
  }
}
`

// startAggDuck starts DuckDB from the copy cmd/lakebench installs in the
// user cache directory; it installs nothing itself.
func startAggDuck(t *testing.T) (*aggDuck, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, err
	}
	mods, _ := filepath.Glob(filepath.Join(cache, "inlet-duckdb", "*", "node_modules", "@duckdb", "node-api"))
	if len(mods) == 0 {
		return nil, fmt.Errorf("@duckdb/node-api is not installed under %s (run cmd/lakebench once)", filepath.Join(cache, "inlet-duckdb"))
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(mods[len(mods)-1])))
	f, err := os.CreateTemp(dir, "aggbench-*.mjs")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(aggDuckScript)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(node, f.Name())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &aggDuck{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	d.out.Buffer(nil, 64<<20)
	// The script is read at start; give node time before it is removed.
	if _, err := d.run("SELECT 1"); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *aggDuck) query(sql string) (float64, [][]*string, error) {
	line, _ := json.Marshal(sql)
	if _, err := d.in.Write(append(line, '\n')); err != nil {
		return 0, nil, err
	}
	if !d.out.Scan() {
		return 0, nil, fmt.Errorf("DuckDB runner ended: %v", d.out.Err())
	}
	var r struct {
		MS    float64     `json:"ms"`
		Rows  [][]*string `json:"rows"`
		Error string      `json:"error"`
	}
	if err := json.Unmarshal(d.out.Bytes(), &r); err != nil {
		return 0, nil, err
	}
	if r.Error != "" {
		return 0, nil, fmt.Errorf("DuckDB: %s (%s)", r.Error, sql)
	}
	return r.MS, r.Rows, nil
}

func (d *aggDuck) run(sql string) (float64, error) {
	ms, _, err := d.query(sql)
	return ms, err
}

// digest sums sql's output as aggDigest does, in DuckDB, over the columns
// after the keys (the last ones, as many as sql's aggregates).
func (d *aggDuck) digest(sql string) (string, error) {
	_, rows, err := d.query(sql)
	if err != nil {
		return "", err
	}
	var sums []float64
	for _, r := range rows {
		nagg := 2
		if len(r) == 1 {
			nagg = 1
		}
		if sums == nil {
			sums = make([]float64, nagg)
		}
		for i, c := range r[len(r)-nagg:] {
			if c != nil {
				f, err := strconv.ParseFloat(*c, 64)
				if err != nil {
					return "", err
				}
				sums[i] += f
			}
		}
	}
	return digestString(float64(len(rows)), sums), nil
}

func (d *aggDuck) close() {
	d.in.Close()
	d.cmd.Wait()
}
