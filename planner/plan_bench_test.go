package planner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/typemap"
)

// BenchmarkPlan plans a log table of 100 partitions × 64 buckets on the
// emulator (3 tablet servers): one partition listing and one ListOffsets
// per partition per plan. Target: under 200 ms.
func BenchmarkPlan(b *testing.B) {
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateDatabase(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: "bench", Name: "wide",
		Columns:       []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "dt", Type: typemap.String()}},
		PartitionKeys: []string{"dt"}, Buckets: 64}); err != nil {
		b.Fatal(err)
	}
	var rows [][]any
	for p := range 100 {
		for i := range 8 {
			rows = append(rows, []any{int64(p*8 + i), fmt.Sprintf("p%03d", p)})
		}
	}
	if err := c.Append(ctx, "bench", "wide", rows); err != nil {
		b.Fatal(err)
	}
	cl, err := client.New(client.Config{BootstrapServers: []string{c.BootstrapAddr()}})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	e := &env{cluster: c, client: cl}
	st := e.targetIn(b, "bench", "wide", fluss.ReadDefault, fluss.Options{}, "")
	tbl := &testTable{st: st}
	var ranges int
	for b.Loop() {
		res, _, err := planner.Plan(ctx, tbl, planner.Request{Limit: -1})
		if err != nil {
			b.Fatal(err)
		}
		ranges = len(res.Fragment.Ranges)
		if res.Counts.TotalPartitions != 100 {
			b.Fatalf("%d partitions", res.Counts.TotalPartitions)
		}
	}
	b.ReportMetric(float64(ranges), "ranges")
}
