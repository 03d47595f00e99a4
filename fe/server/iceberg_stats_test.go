package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// TestIcebergColumnStats: SHOW COLUMN STATS over a type=iceberg catalog
// shows the manifests' statistics of icebergtest.Orders (derived by hand
// in catalog/iceberg's TestColumnStatsFromManifests: 250 rows in the live
// data files, the deletes not subtracted), and EXPLAIN estimates from
// them and from the snapshot's row count (250 records less 19 position
// and 2 equality delete rows: 229).
func TestIcebergColumnStats(t *testing.T) {
	f := startIcebergFE(t)
	db := f.db("")
	wh := t.TempDir()
	if _, err := icebergtest.Orders(context.Background(), wh, "shop"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG ice PROPERTIES ('type'='iceberg', 'iceberg.catalog.type'='hadoop', 'warehouse'='%s')`, wh))
	// column_name, count, ndv, num_null, min, max
	want := []string{
		"id|250|250|0|1|250",
		"customer|250|0|0|c000|c016",
		"amount|250|250|0|1.25|312.50",
		"day|250|30|0|2024-01-01|2024-01-30",
		"ts|250|0|0|2024-01-01 00:01:00|2024-01-01 04:10:00",
		"region|250|0|0|east|west",
	}
	var got []string
	for _, r := range rows(t, db, "SHOW COLUMN STATS ice.shop.orders") {
		c := strings.Split(r, "|")
		got = append(got, strings.Join([]string{c[0], c[2], c[3], c[4], c[7], c[8]}, "|"))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SHOW COLUMN STATS:\n got %q\nwant %q", got, want)
	}
	for _, c := range []struct{ q, want string }{
		{"EXPLAIN SELECT * FROM ice.shop.orders", "cardinality=229"},
		// Two of thirty days: 229 * 2/30 = 15.3.
		{"EXPLAIN SELECT * FROM ice.shop.orders WHERE day IN ('2024-01-05', '2024-01-06')", "cardinality=15"},
		// 49 of the 249 between the id bounds: 229 * 49/249 = 45.1.
		{"EXPLAIN SELECT * FROM ice.shop.orders WHERE id >= 51 AND id <= 100", "cardinality=45"},
	} {
		if ex := strings.Join(rows(t, db, c.q), "\n"); !strings.Contains(ex, c.want) {
			t.Errorf("%s: lacks %s:\n%s", c.q, c.want, ex)
		}
	}
}
