package exec

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/duckrun"
)

// TestGroupByVsDuckDB runs aggBenchQueries through Inlet and through DuckDB
// (internal/duckrun, 1 and 2 threads) on
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
		// Asked for by INLET_AGG_DUCKDB: a missing DuckDB is a failure.
		t.Fatalf("DuckDB: %v", err)
	}
	defer d.Close()
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

// aggDuck is the shared DuckDB runner with the helpers this comparison
// needs.
type aggDuck struct{ *duckrun.DB }

func startAggDuck(t *testing.T) (*aggDuck, error) {
	db, err := duckrun.Start(context.Background(), 1)
	if err != nil {
		return nil, err
	}
	return &aggDuck{db}, nil
}

func (d *aggDuck) query(sql string) (float64, [][]*string, error) {
	took, rows, err := d.Run(sql)
	return float64(took) / float64(time.Millisecond), rows, err
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
