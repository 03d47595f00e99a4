package iceberg_test

import (
	"context"
	"testing"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// TestColumnStatsFromManifests: the statistics an Iceberg table reports
// from its manifests alone, for icebergtest.Orders (written by iceberg-go),
// derived by hand from its rows. The live data files hold ids 1..250
// (1..200 and 201..250, each split by region); the deletes (ids < 20 by
// position, customer c005 by equality) leave the files in place, so they
// count in Rows and the bounds. Row id: customer c<id%17>, amount
// id*1.25, day 2024-01-01 + id%30 days, ts 2024-01-01 + id minutes,
// region east/west.
func TestColumnStatsFromManifests(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	c, err := iceberg.Open(ctx, map[string]string{iceberg.PropCatalogType: "hadoop", iceberg.PropWarehouse: wh}, catalog.Env{Name: "ice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := icebergtest.Orders(ctx, wh, "db"); err != nil {
		t.Fatal(err)
	}
	db, err := c.Database(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := db.Table(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tb.(catalog.ColumnStatser).ColumnStats(ctx)
	if err != nil || ts == nil {
		t.Fatalf("ColumnStats: %v, %v", ts, err)
	}
	if ts.Rows != 250 {
		t.Errorf("rows %d, want 250", ts.Rows)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	day0 := float64(base.Unix() / 86400)
	for _, want := range []struct {
		name string
		cs   catalog.ColumnStats
	}{
		// 250 values between the bounds, 250 rows: NDV 250.
		{"id", catalog.ColumnStats{Count: 250, NDV: 250, Min: "1", Max: "250", Numeric: true, Lo: 1, Hi: 250}},
		// Strings: no estimate from bounds.
		{"customer", catalog.ColumnStats{Count: 250, Min: "c000", Max: "c016"}},
		// 31125 cents between 1.25 and 312.50, 250 rows: NDV 250.
		{"amount", catalog.ColumnStats{Count: 250, NDV: 250, Min: "1.25", Max: "312.50", Numeric: true, Lo: 1.25, Hi: 312.5}},
		// id%30 takes 0..29: thirty days.
		{"day", catalog.ColumnStats{Count: 250, NDV: 30, Min: "2024-01-01", Max: "2024-01-30", Numeric: true, Lo: day0, Hi: day0 + 29}},
		// 1 to 250 minutes past midnight; timestamps get no estimate.
		{"ts", catalog.ColumnStats{Count: 250, Min: "2024-01-01 00:01:00", Max: "2024-01-01 04:10:00", Numeric: true,
			Lo: float64(base.Add(time.Minute).UnixMicro()), Hi: float64(base.Add(250 * time.Minute).UnixMicro())}},
		{"region", catalog.ColumnStats{Count: 250, Min: "east", Max: "west"}},
	} {
		if got := ts.Columns[want.name]; got != want.cs {
			t.Errorf("%s: %+v\nwant %+v", want.name, got, want.cs)
		}
	}
	// The row count subtracts the delete rows the summary totals: 19
	// position deletes (ids 1..19) and 2 equality delete rows (c005 in
	// each region).
	if n, err := tb.(catalog.RowCounter).RowCount(ctx); err != nil || n != 250-19-2 {
		t.Errorf("RowCount %d, %v; want 229", n, err)
	}
}
