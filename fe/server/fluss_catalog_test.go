package server

import (
	"context"
	"database/sql"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// startMetaFE starts an FE whose registry holds the fluss and paimon
// catalog types, as cmd/fe registers them.
func startMetaFE(t *testing.T, dir string) *testFE {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{fluss.Type(), paimon.Type()}})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	return tf
}

// startMetaCluster starts the emulator with a tiered lake and loads the
// catalog package's scenario (a slice of the Doris regression fixtures).
func startMetaCluster(t *testing.T) (*minifluss.Cluster, string) {
	t.Helper()
	wh := t.TempDir()
	c, err := minifluss.Start(context.Background(), minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "paimon", TabletServers: 1,
		DefaultBucketNumber: 3, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc, err := minifluss.LoadScenario(filepath.Join("..", "..", "catalog", "fluss", "testdata", "catalog.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c, wh
}

// wantMetaErr runs a statement that must fail with a message containing msg.
func wantMetaErr(t *testing.T, db *sql.DB, q, msg string) {
	t.Helper()
	_, err := tryRows(db, q)
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: got %v, want an error containing %q", q, err, msg)
	}
}

func TestFlussCatalogMetadata(t *testing.T) {
	cl, wh := startMetaCluster(t)
	f := startMetaFE(t, t.TempDir())
	db := f.db("")
	mustExec(t, db, "CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+cl.BootstrapAddr()+"', "+
		"'fluss.lake.paimon.s3.secret-key'='sk-do-not-show', 'fluss.client.request-timeout'='20s')")

	wantRows(t, db, "SHOW DATABASES FROM fl", "information_schema", "mysql", "fluss_test", "other_db")
	mustExec(t, db, "SWITCH fl", "USE fluss_test")
	wantRows(t, db, "SHOW TABLES", "lake_empty", "lake_log", "lake_part", "lake_pk", "log_basic", "log_comma_part", "log_part",
		"log_time", "log_types", "part_ts", "part_types", "pk_basic")

	// The test_fluss_catalog baselines (desc_log_basic, desc_log_types, desc_pk_basic).
	logBasic := []string{"id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "price|decimal(10,2)|Yes|true|NULL|"}
	wantRows(t, db, "DESC log_basic", logBasic...)
	wantRows(t, db, "DESC fl.fluss_test.log_types",
		"id|int|Yes|true|NULL|", "f_boolean|boolean|Yes|true|NULL|", "f_tinyint|tinyint|Yes|true|NULL|",
		"f_smallint|smallint|Yes|true|NULL|", "f_int|int|Yes|true|NULL|", "f_bigint|bigint|Yes|true|NULL|",
		"f_float|float|Yes|true|NULL|", "f_double|double|Yes|true|NULL|", "f_decimal|decimal(20,4)|Yes|true|NULL|",
		"f_char|char(5)|Yes|true|NULL|", "f_string|text|Yes|true|NULL|", "f_binary|text|Yes|true|NULL|",
		"f_bytes|text|Yes|true|NULL|", "f_date|date|Yes|true|NULL|", "f_timestamp|datetime(6)|Yes|true|NULL|",
		"f_timestamp_ltz|datetime(3)|Yes|true|NULL|WITH_TIMEZONE", "f_array|array<int>|Yes|true|NULL|",
		"f_map|map<text,int>|Yes|true|NULL|", "f_row|struct<r_int:int,r_string:text>|Yes|true|NULL|")
	wantRows(t, db, "DESC pk_basic", "id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "score|double|Yes|true|NULL|")
	wantRows(t, db, "DESC log_time", "id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "f_time|unknown type: UNSUPPORTED_TYPE|Yes|true|NULL|")
	wantRows(t, db, "DESC part_ts", "id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "p_ts|datetime(3)|Yes|true|NULL|")

	// $lake and $log: exactly the base table's columns; only on lake tables.
	lakeLog := []string{"id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "price|decimal(10,2)|Yes|true|NULL|"}
	wantRows(t, db, "DESC lake_log", lakeLog...)
	// The $lake and $log sys tables have the same types; Doris prints their
	// Extra as NONE, the LTZ column's included (lake_only.out).
	lakeLogSys := []string{"id|int|Yes|true|NULL|NONE", "name|text|Yes|true|NULL|NONE", "price|decimal(10,2)|Yes|true|NULL|NONE"}
	wantRows(t, db, "DESC `lake_log$lake`", lakeLogSys...)
	wantRows(t, db, "DESC `lake_log$log`", lakeLogSys...)
	wantRows(t, db, "DESC `lake_empty$lake`", "id|int|Yes|true|NULL|NONE", "name|text|Yes|true|NULL|NONE")
	wantMetaErr(t, db, "DESC `log_basic$lake`", "Unknown sys table 'log_basic$lake'")
	wantMetaErr(t, db, "DESC `log_basic$log`", "Unknown sys table 'log_basic$log'")
	wantMetaErr(t, db, "DESC `lake_log$LAKE`", "Unknown sys table")
	wantMetaErr(t, db, "DESC `lake_pk$log`", "has a primary key")
	wantMetaErr(t, db, "DESC nope", "doesn't exist")

	// SHOW CREATE TABLE: columns and comments, no properties.
	got := rows(t, db, "SHOW CREATE TABLE log_basic")
	if len(got) != 1 {
		t.Fatalf("SHOW CREATE TABLE: %v", got)
	}
	for _, want := range []string{"CREATE TABLE `log_basic` (", "`id` int NULL COMMENT \"row id\"", "`name` text NULL COMMENT \"row name\"",
		"`price` decimal(10,2) NULL", "COMMENT \"fluss log table for regression\""} {
		if !strings.Contains(got[0], want) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, got[0])
		}
	}
	if strings.Contains(got[0], "PROPERTIES") || strings.Contains(got[0], "bucket") {
		t.Errorf("SHOW CREATE TABLE shows properties:\n%s", got[0])
	}

	// SHOW PARTITIONS: k=v names, binary as 0x hex; unreadable partition
	// columns fail naming the column and its Fluss type.
	wantRows(t, db, "SHOW PARTITIONS FROM log_part", "dt=20260101", "dt=20260102", "dt=20260103")
	parts := rows(t, db, "SHOW PARTITIONS FROM fl.fluss_test.part_types")
	if strings.Join(parts, "\n") != "p_str=cn/p_char=c1/p_bool=true/p_tiny=1/p_small=10/p_int=100/p_big=1000/p_date=2026-01-01/p_bin=6162\n"+
		"p_str=us/p_char=c2/p_bool=false/p_tiny=2/p_small=20/p_int=200/p_big=2000/p_date=2026-01-02/p_bin=6364" {
		t.Errorf("part_types partitions %q", parts)
	}
	wantMetaErr(t, db, "SHOW PARTITIONS FROM part_ts", "cannot be read: its partition column 'p_ts' has fluss type TIMESTAMP(3)")
	wantMetaErr(t, db, "SHOW PARTITIONS FROM log_comma_part", "partition column 'region,code' contains a comma")
	wantMetaErr(t, db, "SHOW PARTITIONS FROM log_basic", "is not a partitioned table")

	// Secrets stay masked in SHOW CREATE CATALOG.
	cc := strings.Join(rows(t, db, "SHOW CREATE CATALOG fl"), "\n")
	if strings.Contains(cc, "sk-do-not-show") || !strings.Contains(cc, "fluss.bootstrap.servers") {
		t.Errorf("SHOW CREATE CATALOG:\n%s", cc)
	}

	// REFRESH: listings are cached until REFRESH CATALOG / DATABASE.
	ctx := context.Background()
	wantRows(t, db, "SHOW TABLES FROM fl.other_db")
	if _, err := cl.CreateTable(ctx, minifluss.TableSpec{Database: "other_db", Name: "fresh",
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}}, Buckets: 1}); err != nil {
		t.Fatal(err)
	}
	wantRows(t, db, "SHOW TABLES FROM fl.other_db")
	mustExec(t, db, "REFRESH DATABASE fl.other_db")
	wantRows(t, db, "SHOW TABLES FROM fl.other_db", "fresh")
	if err := cl.CreateDatabase(ctx, "later_db"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "REFRESH CATALOG fl", "REFRESH TABLE fl.fluss_test.log_basic")
	wantRows(t, db, "SHOW DATABASES FROM fl", "information_schema", "mysql", "fluss_test", "later_db", "other_db")
	wantRows(t, db, "DESC log_basic", logBasic...)

	// A Paimon catalog over the warehouse the emulator tiered into.
	mustExec(t, db, "CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='"+wh+"')")
	wantRows(t, db, "SHOW DATABASES FROM p", "information_schema", "mysql", "fluss_test")
	wantRows(t, db, "SHOW TABLES FROM p.fluss_test", "lake_empty", "lake_log", "lake_part", "lake_pk")
	wantRows(t, db, "DESC p.fluss_test.lake_log", lakeLog...)
	wantRows(t, db, "SHOW PARTITIONS FROM p.fluss_test.lake_part", "dt=20260101", "dt=20260102")
	wantMetaErr(t, db, "CREATE CATALOG p2 PROPERTIES ('type'='paimon')", "Required property 'warehouse' is missing")
}

func TestFlussCatalogProperties(t *testing.T) {
	cl, _ := startMetaCluster(t)
	dir := t.TempDir()
	f := startMetaFE(t, dir)
	db := f.db("")

	// The three bad CREATEs of test_fluss_catalog.
	wantMetaErr(t, db, "CREATE CATALOG bad PROPERTIES ('type'='fluss')", "Required property 'fluss.bootstrap.servers' is missing")
	wantMetaErr(t, db, "CREATE CATALOG bad PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='127.0.0.1:99999')",
		"expected a number between 1 and 65535")
	wantMetaErr(t, db, "CREATE CATALOG bad PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='127.0.0.1:9123', 'fluss.union_read.mode'='sometimes')",
		"expected one of auto, required, disabled")
	addr := cl.BootstrapAddr()
	// A metastore Paimon has but this engine cannot serve is refused where
	// the lake is read, not at CREATE (Doris's test_fluss_lake_override).
	mustExec(t, db, "CREATE CATALOG fl_jdbc PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+addr+"', 'fluss.lake.paimon.metastore'='jdbc')")
	wantMetaErr(t, db, "SELECT * FROM fl_jdbc.fluss_test.`lake_log$lake`", "'jdbc'")
	wantRows(t, db, "DESC fl_jdbc.fluss_test.log_basic", "id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "price|decimal(10,2)|Yes|true|NULL|")
	mustExec(t, db, "DROP CATALOG fl_jdbc")
	wantMetaErr(t, db, "CREATE CATALOG bad PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='127.0.0.1:9123', 'fluss.lake.paimon.metastore'='glue')",
		"expected one of filesystem, hive, rest, jdbc")
	wantRows(t, db, "SHOW CATALOGS LIKE 'bad'")

	// ALTER validates the merged map too.
	mustExec(t, db, "CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+addr+"')")
	wantMetaErr(t, db, "ALTER CATALOG fl SET PROPERTIES ('fluss.union_read.max_total_tail_rows'='5')", "is below 'fluss.union_read.max_tail_rows'")

	// A warehouse override that is not the cluster's: nothing has been
	// tiered there. Blanking the override hands the setting back to the cluster.
	mustExec(t, db, "CREATE CATALOG flw PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+addr+"', 'fluss.lake.paimon.warehouse'='"+t.TempDir()+"')")
	wantMetaErr(t, db, "DESC flw.fluss_test.`lake_log$lake`", "nothing has been tiered")
	wantRows(t, db, "DESC flw.fluss_test.log_basic", "id|int|Yes|true|NULL|", "name|text|Yes|true|NULL|", "price|decimal(10,2)|Yes|true|NULL|")
	mustExec(t, db, "ALTER CATALOG flw SET PROPERTIES ('fluss.lake.paimon.warehouse'='')")
	wantRows(t, db, "DESC flw.fluss_test.`lake_log$lake`", "id|int|Yes|true|NULL|NONE", "name|text|Yes|true|NULL|NONE", "price|decimal(10,2)|Yes|true|NULL|NONE")

	// A catalog over a cluster that is down is created, survives an FE
	// restart, and fails its statements with a clear error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	mustExec(t, db, "CREATE CATALOG fd PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+down+"', 'fluss.client.connect-timeout'='500ms')")
	db.Close()
	f.stop()
	f2 := startMetaFE(t, dir)
	db2 := f2.db("")
	if got := rows(t, db2, "SHOW CATALOGS LIKE 'f%'"); len(got) != 3 {
		t.Errorf("catalogs after restart: %v", got)
	}
	wantMetaErr(t, db2, "SHOW DATABASES FROM fd", "fluss catalog 'fd' (fluss.bootstrap.servers "+down+")")
	wantRows(t, db2, "SHOW DATABASES FROM fl", "information_schema", "mysql", "fluss_test", "other_db")
}
