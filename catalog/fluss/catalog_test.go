package fluss_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// cluster is one emulated Fluss cluster with a tiered lake (warehouse wh),
// loaded with testdata/catalog.scenario.
type cluster struct {
	c  *minifluss.Cluster
	wh string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	dir, wh := t.TempDir(), t.TempDir()
	c, err := minifluss.Start(context.Background(), minifluss.Config{DataDir: dir, DatalakeFormat: "paimon", TabletServers: 1,
		DefaultBucketNumber: 3, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc, err := minifluss.LoadScenario(filepath.Join("testdata", "catalog.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return &cluster{c: c, wh: wh}
}

func open(t *testing.T, cl *cluster, kv ...string) catalog.Catalog {
	t.Helper()
	props := map[string]string{"type": "fluss", fluss.PropBootstrapServers: cl.c.BootstrapAddr()}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	if err := fluss.Validate(props); err != nil {
		t.Fatal(err)
	}
	c, err := fluss.Open(context.Background(), props, catalog.Env{Name: "fl"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func table(t *testing.T, c catalog.Catalog, db, name string) catalog.Table {
	t.Helper()
	tb, err := tryTable(c, db, name)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func tryTable(c catalog.Catalog, db, name string) (catalog.Table, error) {
	ctx := context.Background()
	d, err := c.Database(ctx, db)
	if err != nil {
		return nil, err
	}
	return d.Table(ctx, name)
}

// desc renders columns as DESC rows: Field Type Null Key Default Extra.
func desc(tb catalog.Table) []string {
	var out []string
	for _, c := range tb.Schema().Columns {
		null, key, def := "No", "false", `\N`
		if c.Nullable {
			null = "Yes"
		}
		if c.Key {
			key = "true"
		}
		if c.Default != nil {
			def = *c.Default
		}
		out = append(out, strings.Join([]string{c.Name, c.DisplayType(), null, key, def, c.Extra}, "\t"))
	}
	return out
}

func TestCatalogMetadata(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)
	c := open(t, cl)

	dbs, err := c.ListDatabases(ctx)
	if err != nil || !slices.Equal(dbs, []string{"fluss_test", "other_db"}) {
		t.Fatalf("databases %v %v", dbs, err)
	}
	d, err := c.Database(ctx, "fluss_test")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := d.ListTables(ctx)
	want := []string{"lake_empty", "lake_log", "lake_part", "lake_pk", "log_basic", "log_comma_part", "log_part", "log_time", "log_types", "part_ts", "part_types", "pk_basic"}
	if err != nil || !slices.Equal(tables, want) {
		t.Fatalf("tables %v %v, want %v", tables, err, want)
	}
	if _, err := c.Database(ctx, "nope"); !errors.Is(err, catalog.ErrNotFound) || err.Error() != "Unknown database 'nope'" {
		t.Errorf("missing database: %v", err)
	}
	if _, err := d.Table(ctx, "nope"); !errors.Is(err, catalog.ErrNotFound) || err.Error() != "Table 'fluss_test.nope' doesn't exist" {
		t.Errorf("missing table: %v", err)
	}

	// The test_fluss_catalog baseline (desc_log_basic, desc_log_types).
	baselines := map[string][]string{
		"log_basic": {"id\tint\tYes\ttrue\t\\N\t", "name\ttext\tYes\ttrue\t\\N\t", "price\tdecimal(10,2)\tYes\ttrue\t\\N\t"},
		"log_types": {"id\tint\tYes\ttrue\t\\N\t", "f_boolean\tboolean\tYes\ttrue\t\\N\t", "f_tinyint\ttinyint\tYes\ttrue\t\\N\t",
			"f_smallint\tsmallint\tYes\ttrue\t\\N\t", "f_int\tint\tYes\ttrue\t\\N\t", "f_bigint\tbigint\tYes\ttrue\t\\N\t",
			"f_float\tfloat\tYes\ttrue\t\\N\t", "f_double\tdouble\tYes\ttrue\t\\N\t", "f_decimal\tdecimal(20,4)\tYes\ttrue\t\\N\t",
			"f_char\tchar(5)\tYes\ttrue\t\\N\t", "f_string\ttext\tYes\ttrue\t\\N\t", "f_binary\ttext\tYes\ttrue\t\\N\t",
			"f_bytes\ttext\tYes\ttrue\t\\N\t", "f_date\tdate\tYes\ttrue\t\\N\t", "f_timestamp\tdatetime(6)\tYes\ttrue\t\\N\t",
			"f_timestamp_ltz\tdatetime(3)\tYes\ttrue\t\\N\tWITH_TIMEZONE", "f_array\tarray<int>\tYes\ttrue\t\\N\t",
			"f_map\tmap<text,int>\tYes\ttrue\t\\N\t", "f_row\tstruct<r_int:int,r_string:text>\tYes\ttrue\t\\N\t"},
		"pk_basic": {"id\tint\tYes\ttrue\t\\N\t", "name\ttext\tYes\ttrue\t\\N\t", "score\tdouble\tYes\ttrue\t\\N\t"},
		"log_time": {"id\tint\tYes\ttrue\t\\N\t", "name\ttext\tYes\ttrue\t\\N\t", "f_time\tunknown type: UNSUPPORTED_TYPE\tYes\ttrue\t\\N\t"},
		"part_ts":  {"id\tint\tYes\ttrue\t\\N\t", "name\ttext\tYes\ttrue\t\\N\t", "p_ts\tdatetime(3)\tYes\ttrue\t\\N\t"},
	}
	for name, want := range baselines {
		if got := desc(table(t, c, "fluss_test", name)); !slices.Equal(got, want) {
			t.Errorf("desc %s:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if col := table(t, c, "fluss_test", "log_time").Schema().Columns[2]; !col.Unsupported {
		t.Errorf("TIME column not unsupported: %+v", col)
	}

	// Comments for SHOW CREATE TABLE.
	lb := table(t, c, "fluss_test", "log_basic")
	spec := lb.(catalog.Described).Spec()
	if spec.Comment != "fluss log table for regression" || len(spec.Properties) != 0 {
		t.Errorf("spec %+v", spec)
	}
	if cols := lb.Schema().Columns; cols[0].Comment != "row id" || cols[1].Comment != "row name" || cols[2].Comment != "" {
		t.Errorf("column comments %+v", cols)
	}
	if _, err := lb.Scan(ctx, catalog.ScanRequest{}); err == nil || !strings.Contains(err.Error(), "planner") {
		t.Errorf("Scan: %v", err)
	}

	// Row counts from GET_TABLE_STATS: 3 rows; a primary-key table counts
	// live keys (4 inserted, 1 deleted).
	for name, want := range map[string]int64{"log_basic": 3, "pk_basic": 3, "log_part": 4} {
		n, err := table(t, c, "fluss_test", name).(catalog.RowCounter).RowCount(ctx)
		if err != nil || n != want {
			t.Errorf("%s row count %d %v, want %d", name, n, err, want)
		}
		t.Logf("%s: row count %d", name, n)
	}
}

func TestCatalogSysTables(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)
	c := open(t, cl)

	base := table(t, c, "fluss_test", "lake_log")
	for _, name := range []string{"lake_log$lake", "lake_log$log"} {
		tb := table(t, c, "fluss_test", name)
		// Same types; Doris prints the Extra of a $log or $lake column as
		// NONE (lake_only.out desc_lake_log_lake, read_modes.out
		// desc_log_half).
		var want []string
		for _, r := range desc(base) {
			want = append(want, r+"NONE")
		}
		if tb.Name() != name || !slices.Equal(desc(tb), want) {
			t.Errorf("%s: %v, want %v", name, desc(tb), want)
		}
	}
	if m := table(t, c, "fluss_test", "lake_log$log").(fluss.Targeted).ScanTarget().Mode; m != fluss.ReadLog {
		t.Errorf("$log mode %v", m)
	}
	st := table(t, c, "fluss_test", "lake_log$lake").(fluss.Targeted).ScanTarget()
	if st.Mode != fluss.ReadLake || st.Path.String() == "" || st.Catalog != "fl" || st.Client == nil || st.Info == nil {
		t.Errorf("$lake target %+v", st)
	}
	l, err := st.OpenLake(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.TablePath != filepath.Join(cl.wh, "fluss_test.db", "lake_log") {
		t.Errorf("lake table path %s", l.TablePath)
	}
	if id, err := l.Table.LatestSnapshotID(ctx); err != nil || id < 1 {
		t.Errorf("lake snapshot %d %v", id, err)
	}
	// A lake table that was never tiered still resolves (empty), as Fluss
	// creates the Paimon table with the Fluss table.
	table(t, c, "fluss_test", "lake_empty$lake")
	table(t, c, "fluss_test", "lake_pk$lake")

	for _, name := range []string{"log_basic$lake", "log_basic$log", "lake_log$LAKE", "lake_log$files", "log_basic$snapshots", "pk_basic$lake"} {
		_, err := tryTable(c, "fluss_test", name)
		if !errors.Is(err, catalog.ErrNotFound) || err.Error() != fmt.Sprintf("Unknown sys table '%s'", name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := tryTable(c, "fluss_test", "lake_pk$log"); err == nil || !strings.Contains(err.Error(), "has a primary key") {
		t.Errorf("lake_pk$log: %v", err)
	}
	if tables, _ := mustDB(t, c, "fluss_test").ListTables(ctx); slices.ContainsFunc(tables, func(s string) bool { return strings.Contains(s, "$") }) {
		t.Errorf("sys tables listed: %v", tables)
	}
}

func mustDB(t *testing.T, c catalog.Catalog, name string) catalog.Database {
	t.Helper()
	d, err := c.Database(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCatalogPartitions(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)
	c := open(t, cl)
	parts := func(c catalog.Catalog, name string) ([]string, error) {
		tb, err := tryTable(c, "fluss_test", name)
		if err != nil {
			return nil, err
		}
		return tb.(catalog.Partitioned).Partitions(ctx)
	}
	got, err := parts(c, "log_part")
	if err != nil || !slices.Equal(got, []string{"dt=20260101", "dt=20260102", "dt=20260103"}) {
		t.Errorf("log_part partitions %v %v", got, err)
	}
	// 'ab' and 'cd' as BINARY(2): Fluss names them by their hex text.
	got, err = parts(c, "part_types")
	want := []string{
		"p_str=cn/p_char=c1/p_bool=true/p_tiny=1/p_small=10/p_int=100/p_big=1000/p_date=2026-01-01/p_bin=6162",
		"p_str=us/p_char=c2/p_bool=false/p_tiny=2/p_small=20/p_int=200/p_big=2000/p_date=2026-01-02/p_bin=6364",
	}
	slices.Sort(got)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("part_types partitions\n%v %v\nwant\n%v", got, err, want)
	}
	if got, err := parts(c, "log_basic"); err != nil || len(got) != 0 {
		t.Errorf("unpartitioned: %v %v", got, err)
	}
	_, err = parts(c, "part_ts")
	if err == nil || !strings.Contains(err.Error(), "cannot be read: its partition column 'p_ts' has fluss type TIMESTAMP(3)") {
		t.Errorf("part_ts: %v", err)
	}
	_, err = parts(c, "log_comma_part")
	if err == nil || !strings.Contains(err.Error(), "partition column 'region,code' contains a comma") {
		t.Errorf("log_comma_part: %v", err)
	}
	// The planner's check gives the same answer from the ScanTarget, and
	// DESC still works.
	tb := table(t, c, "fluss_test", "part_ts")
	if err := fluss.CheckReadablePartitions(tb.(fluss.Targeted).ScanTarget()); err == nil || !strings.Contains(err.Error(), "'p_ts'") {
		t.Errorf("CheckReadablePartitions: %v", err)
	}
	if err := fluss.CheckReadablePartitions(table(t, c, "fluss_test", "part_types").(fluss.Targeted).ScanTarget()); err != nil {
		t.Errorf("part_types: %v", err)
	}
	// With varbinary on, a binary partition column cannot be read back.
	vb := open(t, cl, fluss.PropMapVarbinary, "true")
	if _, err := parts(vb, "part_types"); err == nil || !strings.Contains(err.Error(), "'p_bin' has fluss type BINARY(2)") {
		t.Errorf("varbinary part_types: %v", err)
	}
}

func TestCatalogLakeOverrides(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)

	// A warehouse that is not the cluster's: the lake table is not there.
	wrong := open(t, cl, fluss.LakePrefix+"warehouse", t.TempDir())
	_, err := tryTable(wrong, "fluss_test", "lake_log$lake")
	if !errors.Is(err, fluss.ErrNothingTiered) || !strings.Contains(err.Error(), "nothing has been tiered") {
		t.Errorf("wrong warehouse: %v", err)
	}
	// The union read path meets the same error when it opens the lake.
	st := table(t, wrong, "fluss_test", "lake_log").(fluss.Targeted).ScanTarget()
	if _, err := st.OpenLake(ctx); !errors.Is(err, fluss.ErrNothingTiered) {
		t.Errorf("OpenLake: %v", err)
	}
	// Restating the cluster's own warehouse changes nothing; a blank
	// override is no override.
	for _, kv := range [][]string{{fluss.LakePrefix + "warehouse", cl.wh}, {fluss.LakePrefix + "warehouse", ""}, {fluss.LakePrefix + "metastore", "filesystem"}} {
		c := open(t, cl, kv...)
		if _, err := tryTable(c, "fluss_test", "lake_log$lake"); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
	// Credentials supplied by the catalog reach the BE's storage options
	// under engine names.
	c := open(t, cl, fluss.LakePrefix+"s3.access-key", "AK", fluss.LakePrefix+"s3.secret-key", "SK")
	l, err := table(t, c, "fluss_test", "lake_log").(fluss.Targeted).ScanTarget().OpenLake(ctx)
	if err != nil || l.StorageOptions["s3.access_key"] != "AK" || l.StorageOptions["s3.secret_key"] != "SK" {
		t.Errorf("storage options %v %v", l, err)
	}
}

func TestCatalogLakeConfigChanged(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)
	c := open(t, cl)
	table(t, c, "fluss_test", "lake_log$lake")
	if err := cl.c.SetLakeOptions(map[string]string{"s3.endpoint": "http://elsewhere:9000"}); err != nil {
		t.Fatal(err)
	}
	// REFRESH reloads the table (and its new lake settings) but not the
	// lake configuration the catalog serves.
	if err := c.(catalog.Refresher).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := tryTable(c, "fluss_test", "lake_log$lake")
	if err == nil || !strings.Contains(err.Error(), "Fluss catalog 'fl' is already serving lake tables with a different paimon configuration") ||
		!errors.Is(err, fluss.ErrLakeConfigChanged) {
		t.Errorf("changed lake config: %v", err)
	}
	// Non-lake reads are unaffected; a new catalog serves the new settings.
	table(t, c, "fluss_test", "log_basic")
	table(t, open(t, cl), "fluss_test", "lake_log$lake")
}

func TestCatalogRefresh(t *testing.T) {
	ctx := context.Background()
	cl := startCluster(t)
	c := open(t, cl)
	d := mustDB(t, c, "other_db")
	if ts, err := d.ListTables(ctx); err != nil || len(ts) != 0 {
		t.Fatalf("other_db tables %v %v", ts, err)
	}
	if _, err := cl.c.CreateTable(ctx, minifluss.TableSpec{Database: "other_db", Name: "fresh",
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}}, Buckets: 1}); err != nil {
		t.Fatal(err)
	}
	// Listings are cached until REFRESH; a name is still resolvable.
	if ts, _ := d.ListTables(ctx); len(ts) != 0 {
		t.Errorf("listing not cached: %v", ts)
	}
	table(t, c, "other_db", "fresh")
	for _, r := range []catalog.Refresher{d.(catalog.Refresher), c.(catalog.Refresher)} {
		if err := cl.c.CreateDatabase(ctx, fmt.Sprintf("db_%p", r)); err != nil {
			t.Fatal(err)
		}
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ts, err := d.ListTables(ctx); err != nil || !slices.Equal(ts, []string{"fresh"}) {
		t.Errorf("after refresh: %v %v", ts, err)
	}
	if dbs, _ := c.ListDatabases(ctx); len(dbs) != 4 {
		t.Errorf("databases after refresh: %v", dbs)
	}
	tb := table(t, c, "other_db", "fresh")
	if err := tb.(catalog.Refresher).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCatalogClusterDown(t *testing.T) {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	props := map[string]string{"type": "fluss", fluss.PropBootstrapServers: addr, "fluss.client.connect-timeout": "500ms",
		"fluss.client.request-timeout": "2s", "fluss.client.security.protocol": "sasl",
		"fluss.client.security.sasl.username": "u", "fluss.client.security.sasl.password": "secret-pw"}
	if err := fluss.Validate(props); err != nil {
		t.Fatal(err)
	}
	c, err := fluss.Open(ctx, props, catalog.Env{Name: "down"})
	if err != nil {
		t.Fatalf("a catalog over a down cluster must load: %v", err)
	}
	defer c.Close()
	_, err = c.ListDatabases(ctx)
	if err == nil || !strings.Contains(err.Error(), "fluss catalog 'down'") || !strings.Contains(err.Error(), addr) {
		t.Errorf("down cluster: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "secret-pw") {
		t.Errorf("password in error: %v", err)
	}
	if _, err := c.Database(ctx, "fluss_test"); err == nil {
		t.Error("database of a down cluster resolved")
	}
}
