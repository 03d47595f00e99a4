package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// startEvoFE is an FE (fluss catalogs in the three union-read modes, a BE in
// this process) over an empty emulated Fluss cluster with a Paimon lake.
func startEvoFE(t *testing.T) *unionFE {
	t.Helper()
	ctx := context.Background()
	wh := t.TempDir()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "paimon", TabletServers: 2,
		DefaultBucketNumber: 2, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	t.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	dir := t.TempDir()
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{fluss.Type(), paimon.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	f := &unionFE{testFE: tf, cluster: c, warehouse: wh}
	boot := c.BootstrapAddr()
	mustExec(t, f.db(""),
		fmt.Sprintf(`CREATE CATALOG fl_auto PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, boot),
		fmt.Sprintf(`CREATE CATALOG fl_req PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.union_read.mode'='required')`, boot),
		fmt.Sprintf(`CREATE CATALOG fl_dis PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.union_read.mode'='disabled')`, boot),
	)
	return f
}

func (f *unionFE) run(t *testing.T, src string) {
	t.Helper()
	sc, err := minifluss.ParseScenario(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(context.Background(), f.cluster); err != nil {
		t.Fatal(err)
	}
}

func (f *unionFE) tier(t *testing.T, tbl string) int64 {
	t.Helper()
	r, err := f.cluster.TierLake(context.Background(), "se", tbl)
	if err != nil {
		t.Fatal(err)
	}
	return r.SnapshotID
}

// TestSchemaEvolutionAcrossTheSeam: rows written before and after ALTER
// TABLE … ADD COLUMN, tiered and not, in log and primary-key tables
// (partitioned, two buckets) and in a log table of each row format, read
// through the FE in every union-read mode: the new column reads NULL where
// it did not exist, and every mode returns the same, hand-derived rows.
func TestSchemaEvolutionAcrossTheSeam(t *testing.T) {
	f := startEvoFE(t)
	db := f.db("")
	f.run(t, `CREATE DATABASE se;
CREATE TABLE se.ev (id INT, name STRING, dt STRING) PARTITIONED BY (dt)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
CREATE TABLE se.pk (k1 INT NOT NULL, k2 STRING NOT NULL, v BIGINT, dt STRING NOT NULL, PRIMARY KEY (k1, k2, dt) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
CREATE TABLE se.plain (id INT, s STRING) WITH ('bucket.num' = '2');
CREATE TABLE se.crow (id INT, s STRING) WITH ('bucket.num' = '2', 'table.log.format' = 'COMPACTED');
INSERT INTO se.ev VALUES (1, 'a', 'd1'), (2, 'b', 'd2');
INSERT INTO se.pk VALUES (1, 'a', 10, 'd1'), (1, 'b', 20, 'd1'), (2, 'a', 30, 'd2');
INSERT INTO se.plain VALUES (1, 'a'), (2, NULL);
INSERT INTO se.crow VALUES (1, 'a'), (2, NULL);`)
	ev1, pk1 := f.tier(t, "ev"), f.tier(t, "pk")
	// The FE caches the tables' schemas now.
	wantRows(t, db, "SELECT count(*) FROM fl_auto.se.ev", "2")
	wantRows(t, db, "SELECT count(*) FROM fl_auto.se.pk", "3")
	wantRows(t, db, "SELECT count(*) FROM fl_auto.se.plain", "2")
	f.run(t, `INSERT INTO se.ev VALUES (3, 'c', 'd1');
INSERT INTO se.pk VALUES (1, 'a', 11, 'd1');
ALTER TABLE se.ev ADD COLUMN score DOUBLE;
ALTER TABLE se.pk ADD COLUMN note STRING COMMENT 'added';
ALTER TABLE se.plain ADD COLUMN n BIGINT;
ALTER TABLE se.crow ADD (n BIGINT, m STRING);
INSERT INTO se.ev VALUES (4, 'd', 'd2', 4.5), (5, 'e', 'd1', NULL);
INSERT INTO se.pk VALUES (2, 'b', 40, 'd2', 'new'), (1, 'b', 21, 'd1', 'upd');
DELETE FROM se.pk WHERE k1 = 2 AND k2 = 'a' AND dt = 'd2';
INSERT INTO se.plain VALUES (3, 'c', 30);
INSERT INTO se.crow VALUES (3, 'c', 30, NULL), (4, NULL, NULL, 'm4');`)

	// Cached: the old schema until REFRESH, read exactly (batches of the
	// newer schema drop the added column); a catalog that never read the
	// table sees the new column at once.
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"SELECT * FROM fl_auto.se.ev", []string{"1|a|d1", "2|b|d2", "3|c|d1", "4|d|d2", "5|e|d1"}},
		{"SELECT * FROM fl_auto.se.pk", []string{"1|a|11|d1", "1|b|21|d1", "2|b|40|d2"}},
		{"SELECT * FROM fl_auto.se.plain", []string{"1|a", "2|NULL", "3|c"}},
	} {
		if got := sortedRows(t, db, c.q); !slices.Equal(got, c.want) {
			t.Errorf("before REFRESH: %s\n got %q\nwant %q", c.q, got, c.want)
		}
	}
	desc := func(cat, tbl string) string {
		var names []string
		for _, r := range rows(t, db, fmt.Sprintf("DESC %s.se.%s", cat, tbl)) {
			names = append(names, strings.Split(r, "|")[0])
		}
		return strings.Join(names, ",")
	}
	if got := desc("fl_req", "ev"); got != "id,name,dt,score" {
		t.Errorf("DESC fl_req.se.ev (cache miss): %s", got)
	}
	mustExec(t, db, "REFRESH CATALOG fl_auto")
	if got := desc("fl_auto", "ev"); got != "id,name,dt,score" {
		t.Errorf("DESC fl_auto.se.ev after REFRESH: %s", got)
	}
	if got := desc("fl_auto", "pk"); got != "k1,k2,v,dt,note" {
		t.Errorf("DESC fl_auto.se.pk after REFRESH: %s", got)
	}

	type q struct {
		sql  string
		want []string
	}
	evAll := []string{"1|a|d1|NULL", "2|b|d2|NULL", "3|c|d1|NULL", "4|d|d2|4.5", "5|e|d1|NULL"}
	pkAll := []string{"1|a|11|d1|NULL", "1|b|21|d1|upd", "2|b|40|d2|new"}
	stage := func(name string, qs []q) {
		t.Helper()
		for _, cat := range []string{"fl_auto", "fl_req", "fl_dis"} {
			for _, c := range qs {
				s := strings.ReplaceAll(c.sql, "CAT", cat)
				got, err := tryRows(db, s)
				if err != nil {
					t.Errorf("%s: %s: %v", name, s, err)
					continue
				}
				slices.Sort(got)
				want := slices.Clone(c.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s\n got %q\nwant %q", name, s, got, want)
				}
			}
		}
	}
	common := []q{
		{"SELECT * FROM CAT.se.plain", []string{"1|a|NULL", "2|NULL|NULL", "3|c|30"}},
		{"SELECT n, id FROM CAT.se.plain WHERE n IS NULL", []string{"NULL|1", "NULL|2"}},
		{"SELECT * FROM CAT.se.crow", []string{"1|a|NULL|NULL", "2|NULL|NULL|NULL", "3|c|30|NULL", "4|NULL|NULL|m4"}},
		{"SELECT m FROM CAT.se.crow WHERE id > 1", []string{"NULL", "NULL", "m4"}},
	}
	// Stage 1: the lake holds schema-0 files only; the log tail has
	// batches of both schema ids. The union reads really read the lake.
	for _, tbl := range []string{"ev", "pk"} {
		for _, cat := range []string{"fl_auto", "fl_req"} {
			if got := explainFlussScan(t, db, "SELECT * FROM "+cat+".se."+tbl); !strings.Contains(got, "unionRead=yes") || strings.Contains(got, "lakeSplits=0") {
				t.Errorf("%s.se.%s: %s", cat, tbl, got)
			}
		}
	}
	stage("untiered", append([]q{
		{"SELECT * FROM CAT.se.ev", evAll},
		{"SELECT score, id FROM CAT.se.ev", []string{"NULL|1", "NULL|2", "NULL|3", "4.5|4", "NULL|5"}},
		{"SELECT id FROM CAT.se.ev WHERE score IS NULL", []string{"1", "2", "3", "5"}},
		{"SELECT id FROM CAT.se.ev WHERE score > 1", []string{"4"}},
		{"SELECT count(score), count(*) FROM CAT.se.ev", []string{"1|5"}},
		{"SELECT * FROM CAT.se.pk", pkAll},
		{"SELECT note FROM CAT.se.pk WHERE k1 = 1", []string{"NULL", "upd"}},
		{"SELECT k1, k2 FROM CAT.se.pk WHERE note IS NULL", []string{"1|a"}},
	}, common...))

	// Stage 2: tiered after the change (files of lake schema-1 beside the
	// schema-0 ones), then a tail of the new schema only.
	ev2, pk2 := f.tier(t, "ev"), f.tier(t, "pk")
	f.run(t, `INSERT INTO se.ev VALUES (6, 'f', 'd2', 6.25);
INSERT INTO se.pk VALUES (3, 'c', 50, 'd1', 'n3'), (1, 'a', 12, 'd1', NULL);`)
	evAll2 := append(slices.Clone(evAll), "6|f|d2|6.25")
	pkAll2 := []string{"1|a|12|d1|NULL", "1|b|21|d1|upd", "2|b|40|d2|new", "3|c|50|d1|n3"}
	stage("tiered", append([]q{
		{"SELECT * FROM CAT.se.ev", evAll2},
		{"SELECT id FROM CAT.se.ev WHERE score IS NULL", []string{"1", "2", "3", "5"}},
		{"SELECT id, score FROM CAT.se.ev WHERE score >= 4.5", []string{"4|4.5", "6|6.25"}},
		{"SELECT id FROM CAT.se.ev WHERE dt = 'd1' AND score IS NULL", []string{"1", "3", "5"}},
		{"SELECT * FROM CAT.se.pk", pkAll2},
		{"SELECT k1, k2, note FROM CAT.se.pk WHERE note IS NOT NULL", []string{"1|b|upd", "2|b|new", "3|c|n3"}},
	}, common...))
	// The lake half alone: new column NULL in schema-0 files.
	wantSorted := func(s string, want ...string) {
		t.Helper()
		got := sortedRows(t, db, s)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q", s, got, want)
		}
	}
	wantSorted("SELECT * FROM fl_auto.se.`ev$lake`", evAll...)
	wantSorted("SELECT id FROM fl_auto.se.`ev$lake` WHERE score IS NULL", "1", "2", "3", "5")
	wantSorted("SELECT k1, k2, v, note FROM fl_auto.se.`pk$lake`", "1|a|11|NULL", "1|b|21|upd", "2|b|40|new")

	// Time travel reads a snapshot with the schema it was written with:
	// before the change, no such column; after it, NULL in the older files.
	wantSorted(fmt.Sprintf("SELECT * FROM fl_auto.se.`ev$lake` FOR VERSION AS OF %d", ev1), "1|a|d1", "2|b|d2")
	wantSorted(fmt.Sprintf("SELECT * FROM fl_auto.se.`ev$lake` FOR VERSION AS OF %d", ev2), evAll...)
	wantSorted(fmt.Sprintf("SELECT * FROM fl_auto.se.`pk$lake` FOR VERSION AS OF %d", pk1), "1|a|10|d1", "1|b|20|d1", "2|a|30|d2")
	wantSorted(fmt.Sprintf("SELECT * FROM fl_auto.se.`pk$lake` FOR VERSION AS OF %d", pk2), "1|a|11|d1|NULL", "1|b|21|d1|upd", "2|b|40|d2|new")
	wantSorted(fmt.Sprintf("SELECT id FROM fl_auto.se.`ev$lake` FOR VERSION AS OF %d WHERE dt = 'd1'", ev1), "1")
	if _, err := tryRows(db, fmt.Sprintf("SELECT score FROM fl_auto.se.`ev$lake` FOR VERSION AS OF %d", ev1)); err == nil || !strings.Contains(err.Error(), "score") {
		t.Errorf("score at snapshot %d (before the column): %v", ev1, err)
	}

	// The same lake through a type=paimon catalog: the same snapshots
	// with the same columns (Fluss's system columns aside).
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG pl PROPERTIES ('type'='paimon', 'warehouse'='%s')`, f.warehouse))
	wantSorted(fmt.Sprintf("SELECT k1, k2, v, dt FROM pl.se.pk FOR VERSION AS OF %d", pk1), "1|a|10|d1", "1|b|20|d1", "2|a|30|d2")
	wantSorted(fmt.Sprintf("SELECT k1, k2, v, dt, note FROM pl.se.pk FOR VERSION AS OF %d", pk2), "1|a|11|d1|NULL", "1|b|21|d1|upd", "2|b|40|d2|new")
	if _, err := tryRows(db, fmt.Sprintf("SELECT note FROM pl.se.pk FOR VERSION AS OF %d", pk1)); err == nil || !strings.Contains(err.Error(), "note") {
		t.Errorf("paimon: note at snapshot %d (before the column): %v", pk1, err)
	}
}
