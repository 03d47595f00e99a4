package main

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// TestLakebenchAnswers runs the benchmark on a small table and checks
// Inlet's answers against sums derived here from the row definition in
// gen.go's comment (restated, not through its helpers), and DuckDB's
// against Inlet's.
func TestLakebenchAnswers(t *testing.T) {
	checkLakebench(t, false, false, "")
}

// TestLakebenchIcebergAnswers: with --lake iceberg the same rows as an
// Iceberg table, read by lake/iceberg (the Paimon reader beside it: run
// counts its mismatches too), answer the same sums.
func TestLakebenchIcebergAnswers(t *testing.T) {
	checkLakebench(t, false, false, "iceberg")
}

// TestLakebenchSQLAnswers: with --sql the same queries go through a MySQL
// client, the FE's type=paimon catalog and a BE, and answer the same sums
// (the reader alone, run beside them, too: run counts its mismatches).
func TestLakebenchSQLAnswers(t *testing.T) {
	checkLakebench(t, true, false, "")
}

// TestLakebenchFlightAnswers: the same with the BE reached over Arrow
// Flight (--sql --flight).
func TestLakebenchFlightAnswers(t *testing.T) {
	checkLakebench(t, true, true, "")
}

func checkLakebench(t *testing.T, sql, flight bool, lake string) {
	const n = 20_000 // 5 files of 4000 rows; 20 whole cycles of k
	var sumV, sumVk float64
	for i := int64(0); i < n; i++ {
		if i%97 == 0 {
			continue
		}
		v := float64(i%4001) / 4 // quarters: every partial sum is exact
		sumV += v
		if i%1000 < 100 {
			sumVk += v
		}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	want := map[string][]string{
		"count(*), sum(v)":  {"20000", f(sumV)},
		"count(*), sum(id)": {"20000", "199990000"}, // n(n-1)/2
		// sum(k) = 20 · (0+…+999); every s has 16 characters; the last ts
		// is 1.7e15 µs + 19999 s.
		"all five columns":     {"20000", "199990000", "9990000", f(sumV), "320000", "1700019999000000"},
		"sum(v) WHERE k < 100": {f(sumVk)},
	}
	var out bytes.Buffer
	res, err := run(context.Background(), config{rows: n, files: 5, dir: t.TempDir(), runs: 1, threads: 2, sql: sql, flight: flight, lake: lake}, &out)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.inlet) != len(want) {
		t.Fatalf("Inlet answered %d queries, want %d", len(res.inlet), len(want))
	}
	for q, w := range want {
		if got := res.inlet[q]; !equal(got, w) {
			t.Errorf("Inlet, %s = %v, want %v", q, got, w)
		}
	}
	if res.mismatches != 0 {
		t.Errorf("run counted %d mismatches", res.mismatches)
	}
	if res.duck == nil {
		fixtures.Unavailable(t, "DuckDB unavailable (%v): only Inlet's answers were checked", res.duckErr)
		return
	}
	for q, w := range want {
		if got := res.duck[q]; !equal(got, w) {
			t.Errorf("DuckDB, %s = %v, want %v", q, got, w)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSumInts: the four-accumulator sum over every remainder length, and
// past int32's range, against n(n+1)/2.
func TestSumInts(t *testing.T) {
	for n := 0; n <= 9; n++ {
		v32 := make([]int32, n)
		v64 := make([]int64, n)
		for i := range n {
			v32[i] = int32(i + 1)
			v64[i] = int64(i+1) << 32
		}
		want := int64(n * (n + 1) / 2)
		if got := sumInts(v32); got != want {
			t.Errorf("int32 1..%d: %d, want %d", n, got, want)
		}
		if got := sumInts(v64); got != want<<32 {
			t.Errorf("int64 1..%d (<<32): %d, want %d", n, got, want<<32)
		}
	}
}
