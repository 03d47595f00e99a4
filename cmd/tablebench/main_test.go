package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A small table: every query answers what the generator's definition
// gives (and DuckDB too, when it is installed), and each prints a line.
func TestRunSmall(t *testing.T) {
	var out bytes.Buffer
	bad, err := run(context.Background(), config{rows: 30_000, runs: 1, threads: 1, parallel: 2, explain: true}, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Fatalf("%d wrong answers:\n%s", bad, out.String())
	}
	for _, q := range queries() {
		if !strings.Contains(out.String(), q.name) {
			t.Errorf("no line for %q:\n%s", q.name, out.String())
		}
	}
	if !strings.Contains(out.String(), "VAGGREGATE") {
		t.Errorf("no plan printed:\n%s", out.String())
	}
	t.Log("\n" + out.String())
}
