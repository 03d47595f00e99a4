package minifluss

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/typemap"
)

func TestAutoPartition(t *testing.T) {
	now := time.Date(2024, 5, 31, 22, 0, 0, 0, time.UTC)
	c := startCluster(t, Config{TabletServers: 1, Now: func() time.Time { return now }})
	ctx := context.Background()
	c.CreateDatabase(ctx, "ap")
	if _, err := c.CreateTable(ctx, TableSpec{Database: "ap", Name: "t", Buckets: 1, PartitionKeys: []string{"dt"},
		Properties: map[string]string{"table.auto-partition.enabled": "true", "table.auto-partition.time-unit": "DAY", "table.auto-partition.num-retention": "1"},
		Columns:    []Column{{Name: "dt", Type: typemap.String()}, {Name: "v", Type: typemap.Int()}}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"20240531", "20240601"} {
		if _, err := c.PartitionID("ap", "t", p); err != nil {
			t.Errorf("pre-created partition %s: %v", p, err)
		}
	}
	now = now.Add(72 * time.Hour) // 2024-06-03
	created, dropped, err := c.AutoPartition(ctx)
	if err != nil || created != 2 || dropped != 2 {
		t.Fatalf("round: created %d dropped %d %v", created, dropped, err)
	}
	for p, want := range map[string]bool{"20240531": false, "20240601": false, "20240603": true, "20240604": true} {
		if _, err := c.PartitionID("ap", "t", p); (err == nil) != want {
			t.Errorf("partition %s exists=%v, want %v", p, err == nil, want)
		}
	}
	// multi-key: num-precreate is forced to 0, the key must be named
	info, err := c.CreateTable(ctx, TableSpec{Database: "ap", Name: "m", Buckets: 1, PartitionKeys: []string{"region", "dt"},
		Properties: map[string]string{"table.auto-partition.enabled": "true", "table.auto-partition.key": "dt"},
		Columns:    []Column{{Name: "region", Type: typemap.String()}, {Name: "dt", Type: typemap.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(info.JSON), `"table.auto-partition.num-precreate":"0"`) {
		t.Fatalf("multi-key table lacks the injected num-precreate=0: %s", info.JSON)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "ap", Name: "bad", Buckets: 1, PartitionKeys: []string{"region", "dt"},
		Properties: map[string]string{"table.auto-partition.enabled": "true"},
		Columns:    []Column{{Name: "region", Type: typemap.String()}, {Name: "dt", Type: typemap.String()}}}); err == nil {
		t.Fatal("multi-key auto partitioning without a key accepted")
	}
	s, err := ParseScenario("RUN AUTO PARTITION;")
	if err != nil || s.Run(ctx, c) != nil {
		t.Fatalf("scenario: %v", err)
	}
}
