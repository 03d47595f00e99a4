package fluss_test

import (
	"context"
	"testing"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/minifluss"
)

// TestColumnStatsFromLake: a tiered table reports its lake half's
// manifest statistics (values derived by hand from the two tiered rows);
// $log reports none; once the log tail outgrows a tenth of the lake, the
// bounds stop being used for ranges. The same on a Paimon lake and an
// Iceberg lake (the Iceberg manifests' bounds and counts).
func TestColumnStatsFromLake(t *testing.T) {
	for _, format := range []string{"paimon", "iceberg"} {
		t.Run(format, func(t *testing.T) { testColumnStatsFromLake(t, format) })
	}
}

func testColumnStatsFromLake(t *testing.T, format string) {
	ctx := context.Background()
	mc, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: format, TabletServers: 1,
		Lake: minifluss.LakeConfig{Warehouse: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	cl := &cluster{c: mc}
	run := func(src string) {
		t.Helper()
		sc, err := minifluss.ParseScenario(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Run(ctx, cl.c); err != nil {
			t.Fatal(err)
		}
	}
	run(`
CREATE DATABASE st;
CREATE TABLE st.t (id INT, d DATE) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO st.t VALUES (1, '2024-01-01'), (5, '2024-01-03');
TIER;`)
	c := open(t, cl)
	stats := func(name string) *catalog.TableStats {
		t.Helper()
		ts, err := table(t, c, "st", name).(catalog.ColumnStatser).ColumnStats(ctx)
		if err != nil || ts == nil {
			t.Fatalf("%s: ColumnStats %v, %v", name, ts, err)
		}
		return ts
	}
	day := float64(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	ts := stats("t")
	// 1..5 holds five values, two rows: NDV 2; three days, two rows: 2.
	if got, want := ts.Columns["id"], (catalog.ColumnStats{Count: 2, NDV: 2, Min: "1", Max: "5", Numeric: true, Lo: 1, Hi: 5}); got != want || ts.Rows != 2 {
		t.Errorf("id: %+v (rows %d), want %+v", got, ts.Rows, want)
	}
	if got, want := ts.Columns["d"], (catalog.ColumnStats{Count: 2, NDV: 2, Min: "2024-01-01", Max: "2024-01-03", Numeric: true, Lo: day, Hi: day + 2}); got != want {
		t.Errorf("d: %+v, want %+v", got, want)
	}
	if ts := stats("t$log"); len(ts.Columns) != 0 {
		t.Errorf("t$log: %+v, want no column statistics", ts)
	}
	run(`INSERT INTO st.t VALUES (9, '2024-02-01');`)
	if got := stats("t").Columns["id"]; got.Numeric || got.Min != "1" || got.Max != "5" || got.NDV != 2 {
		t.Errorf("id with a log tail of half the lake: %+v, want the bounds shown but not used for ranges", got)
	}
}

// TestColumnStatsIcebergNulls: on an Iceberg lake, null counts add up
// over the data files and a file whose column is all NULL (no bounds in
// its manifest entry) leaves the other files' bounds in place. Two rounds
// into one bucket give two files, derived by hand:
//
//	round 1: (1, 2024-01-01, 'b'), (5, NULL, NULL)
//	round 2: (3, NULL, 'a')
func TestColumnStatsIcebergNulls(t *testing.T) {
	ctx := context.Background()
	mc, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "iceberg", TabletServers: 1,
		Lake: minifluss.LakeConfig{Warehouse: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	cl := &cluster{c: mc}
	sc, err := minifluss.ParseScenario(`
CREATE DATABASE st;
CREATE TABLE st.t (id INT, d DATE, s STRING) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO st.t VALUES (1, '2024-01-01', 'b'), (5, NULL, NULL);
TIER;
INSERT INTO st.t VALUES (3, NULL, 'a');
TIER;`)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(ctx, cl.c); err != nil {
		t.Fatal(err)
	}
	ts, err := table(t, open(t, cl), "st", "t").(catalog.ColumnStatser).ColumnStats(ctx)
	if err != nil || ts == nil {
		t.Fatalf("ColumnStats %v, %v", ts, err)
	}
	day := float64(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	for _, want := range []struct {
		name string
		cs   catalog.ColumnStats
	}{
		// 1..5 holds five values, three rows: NDV 3.
		{"id", catalog.ColumnStats{Count: 3, NDV: 3, Min: "1", Max: "5", Numeric: true, Lo: 1, Hi: 5}},
		// Round 2's file has d all NULL: round 1's bounds stand, one value.
		{"d", catalog.ColumnStats{Count: 3, NDV: 1, Nulls: 2, Min: "2024-01-01", Max: "2024-01-01", Numeric: true, Lo: day, Hi: day}},
		{"s", catalog.ColumnStats{Count: 3, Nulls: 1, Min: "a", Max: "b"}},
	} {
		if got := ts.Columns[want.name]; got != want.cs || ts.Rows != 3 {
			t.Errorf("%s: %+v (rows %d)\nwant %+v (rows 3)", want.name, got, ts.Rows, want.cs)
		}
	}
}
