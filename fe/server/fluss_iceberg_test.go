package server

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
)

// icebergScenario is a fixture set for a cluster tiering into Iceberg:
// log tables (bucket key, no bucket key, STRING partitions) and PK tables
// (single bucket key, partitioned), each tiered in rounds and then given a
// log tail of inserts, updates and deletes. model holds, per table, the
// id|name rows a read must return, derived from the statements as they
// are written here (last write per key wins; deletes remove).
func icebergScenario() (string, map[string][]string) {
	var b strings.Builder
	model := map[string]map[string]string{}
	put := func(tbl, key, row string) {
		if model[tbl] == nil {
			model[tbl] = map[string]string{}
		}
		model[tbl][key] = row
	}
	logRows := func(tbl string, from, to int, part bool) {
		fmt.Fprintf(&b, "INSERT INTO ice.%s VALUES ", tbl)
		for i := from; i <= to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			name := fmt.Sprintf("n%d", i)
			switch {
			case part:
				dt := []string{"a", "b", "c"}[i%3]
				fmt.Fprintf(&b, "(%d, '%s', '%s')", i, name, dt)
			case tbl == "logb":
				fmt.Fprintf(&b, "(%d, '%s', '%d.%02d', %d, '2026-01-%02d', '2026-01-01 00:00:%02d.%03d', '2026-02-01 10:00:00.%03d', %v)",
					i, name, i, i%100, i%120, 1+i%28, i%60, i, i, i%2 == 0)
			default:
				fmt.Fprintf(&b, "(%d, '%s')", i, name)
			}
			put(tbl, fmt.Sprint(i), fmt.Sprintf("%d|%s", i, name))
		}
		b.WriteString(";\n")
	}
	pk := func(tbl string, from, to int, tag string, part bool) {
		fmt.Fprintf(&b, "INSERT INTO ice.%s VALUES ", tbl)
		for i := from; i <= to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			name := fmt.Sprintf("%s%d", tag, i)
			if part {
				dt := []string{"x", "y"}[i%2]
				fmt.Fprintf(&b, "(%d, '%s', '%s')", i, name, dt)
				put(tbl, fmt.Sprint(i, dt), fmt.Sprintf("%d|%s", i, name))
			} else {
				fmt.Fprintf(&b, "(%d, '%s', %d.5)", i, name, i)
				put(tbl, fmt.Sprint(i), fmt.Sprintf("%d|%s", i, name))
			}
		}
		b.WriteString(";\n")
	}
	del := func(tbl string, id int, part bool) {
		if part {
			dt := []string{"x", "y"}[id%2]
			fmt.Fprintf(&b, "DELETE FROM ice.%s WHERE id = %d AND dt = '%s';\n", tbl, id, dt)
			delete(model[tbl], fmt.Sprint(id, dt))
			return
		}
		fmt.Fprintf(&b, "DELETE FROM ice.%s WHERE id = %d;\n", tbl, id)
		delete(model[tbl], fmt.Sprint(id))
	}
	lake := "'table.datalake.enabled' = 'true'"
	b.WriteString("CREATE DATABASE ice;\n")
	fmt.Fprintf(&b, "CREATE TABLE ice.logb (id BIGINT, name STRING, amt DECIMAL(10, 2), tiny TINYINT, d DATE, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), ok BOOLEAN) WITH ('bucket.num' = '3', 'bucket.key' = 'id', %s);\n", lake)
	fmt.Fprintf(&b, "CREATE TABLE ice.logu (id BIGINT, name STRING) WITH ('bucket.num' = '2', %s);\n", lake)
	fmt.Fprintf(&b, "CREATE TABLE ice.logp (id BIGINT, name STRING, dt STRING) PARTITIONED BY (dt) WITH ('bucket.num' = '2', 'bucket.key' = 'id', %s);\n", lake)
	fmt.Fprintf(&b, "CREATE TABLE ice.pk (id INT NOT NULL, name STRING, amt DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '3', %s);\n", lake)
	fmt.Fprintf(&b, "CREATE TABLE ice.pkp (id INT NOT NULL, name STRING, dt STRING NOT NULL, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket.num' = '2', 'bucket.key' = 'id', %s);\n", lake)
	for _, tbl := range []string{"logb", "logu", "logp"} {
		logRows(tbl, 1, 30, tbl == "logp")
	}
	pk("pk", 1, 20, "a", false)
	pk("pk", 5, 8, "b", false)
	del("pk", 3, false)
	pk("pkp", 1, 20, "a", true)
	pk("pkp", 5, 8, "b", true)
	del("pkp", 3, true)
	b.WriteString("TIER;\n")
	for _, tbl := range []string{"logb", "logu", "logp"} {
		logRows(tbl, 31, 40, tbl == "logp")
	}
	pk("pk", 7, 12, "c", false)
	del("pk", 4, false)
	pk("pkp", 7, 12, "c", true)
	del("pkp", 4, true)
	b.WriteString("TIER;\n")
	// The log tails.
	for _, tbl := range []string{"logb", "logu", "logp"} {
		logRows(tbl, 41, 50, tbl == "logp")
	}
	for _, tbl := range []string{"pk", "pkp"} {
		part := tbl == "pkp"
		pk(tbl, 10, 14, "d", part)
		del(tbl, 15, part)
		del(tbl, 8, part)
		pk(tbl, 21, 25, "e", part)
		pk(tbl, 3, 3, "f", part)
	}
	out := map[string][]string{}
	for tbl, m := range model {
		for _, r := range m {
			out[tbl] = append(out[tbl], r)
		}
		slices.Sort(out[tbl])
	}
	return b.String(), out
}

// TestFlussIcebergUnionRead: Fluss tables tiered into Iceberg by the
// emulator, read over the MySQL protocol. Under every union-read mode the
// read equals the model of the written history and the Fluss-only read
// (union disabled); the union reads really read the lake (lake splits on
// the flussScan line, lakeFormat=iceberg), and tbl$lake reads the tiered
// rows only.
func TestFlussIcebergUnionRead(t *testing.T) {
	text, model := icebergScenario()
	sc, err := minifluss.ParseScenario(text)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFEOn(t, sc, "iceberg")
	db := f.db("")
	// Then again with every lake file cut into slices of a few hundred
	// bytes (the tiered files are small), a row group shared by rows
	// where it crosses a slice: the same rows, each once.
	defer paimon.SetSliceLimitsForTest(1, 1, 1)()
	for _, split := range []string{"", "300"} {
		if split != "" {
			mustExec(t, db, "SET file_split_size = "+split)
		}
		flussIcebergUnionChecks(t, db, model, split)
	}
}

func flussIcebergUnionChecks(t *testing.T, db *sql.DB, model map[string][]string, split string) {
	for _, tbl := range []string{"logb", "logu", "logp", "pk", "pkp"} {
		t.Run(tbl+"/split"+split, func(t *testing.T) {
			all := "SELECT * FROM %s.ice." + tbl
			only := sortedRows(t, db, fmt.Sprintf(all, "fl_dis"))
			for _, cat := range []string{"fl_auto", "fl_req"} {
				if got := sortedRows(t, db, fmt.Sprintf(all, cat)); !slices.Equal(got, only) {
					t.Fatalf("%s: union read != Fluss-only read\nunion: %q\nfluss: %q", cat, got, only)
				}
				if got := sortedRows(t, db, fmt.Sprintf("SELECT id, name FROM %s.ice.%s", cat, tbl)); !slices.Equal(got, model[tbl]) {
					t.Fatalf("%s: rows differ from the model\ngot:  %q\nwant: %q", cat, got, model[tbl])
				}
				var plan []string
				for _, l := range rows(t, db, fmt.Sprintf("EXPLAIN SELECT * FROM %s.ice.%s", cat, tbl)) {
					plan = append(plan, strings.TrimSpace(l))
				}
				p := strings.Join(plan, "\n")
				if !strings.Contains(p, "unionRead=yes") || strings.Contains(p, "lakeSplits=0,") || !strings.Contains(p, "lakeFormat=iceberg") {
					t.Fatalf("%s: EXPLAIN does not show an Iceberg union read:\n%s", cat, p)
				}
				if split != "" {
					var splits, files int
					fmt.Sscanf(p[strings.Index(p, "lakeSplits="):], "lakeSplits=%d", &splits)
					fmt.Sscanf(p[strings.Index(p, "dataFiles="):], "dataFiles=%d", &files)
					if splits <= files {
						t.Fatalf("%s: file_split_size %s: %d lake splits for %d data files:\n%s", cat, split, splits, files, p)
					}
				}
				// PK tables' second round deleted keys of the first by
				// equality deletes, which the lake half applies.
				if strings.HasPrefix(tbl, "pk") == strings.Contains(p, "equalityDeleteFiles=0") {
					t.Fatalf("%s: equality delete files in the plan of %s:\n%s", cat, tbl, p)
				}
			}
			if got := sortedRows(t, db, fmt.Sprintf("SELECT id, name FROM fl_dis.ice.%s", tbl)); !slices.Equal(got, model[tbl]) {
				t.Fatalf("Fluss-only rows differ from the model\ngot:  %q\nwant: %q", got, model[tbl])
			}
			// Filtered reads (a partition column too) and an aggregate agree.
			qs := []string{"SELECT id, name FROM %s.ice." + tbl + " WHERE id BETWEEN 5 AND 12", "SELECT count(*), sum(id) FROM %s.ice." + tbl}
			if tbl == "logp" || tbl == "pkp" {
				qs = append(qs, "SELECT * FROM %s.ice."+tbl+" WHERE dt = 'b' OR dt = 'y'", "SELECT dt, count(*) FROM %s.ice."+tbl+" GROUP BY dt")
			}
			for _, q := range qs {
				if a, b := sortedRows(t, db, fmt.Sprintf(q, "fl_req")), sortedRows(t, db, fmt.Sprintf(q, "fl_dis")); !slices.Equal(a, b) {
					t.Fatalf("%s: union %q, Fluss-only %q", q, a, b)
				}
			}
			lake := sortedRows(t, db, fmt.Sprintf("SELECT id, name FROM fl_auto.ice.`%s$lake`", tbl))
			if !strings.HasPrefix(tbl, "pk") {
				var want []string // rows 1..40 were tiered, 41..50 are the tail
				for i := 1; i <= 40; i++ {
					want = append(want, fmt.Sprintf("%d|n%d", i, i))
				}
				slices.Sort(want)
				if !slices.Equal(lake, want) {
					t.Fatalf("%s$lake: %q, want ids 1..40", tbl, lake)
				}
			} else if len(lake) != 18 {
				// 20 keys, 3 and 4 deleted before the second round.
				t.Fatalf("%s$lake: %d rows, want 18: %q", tbl, len(lake), lake)
			}
			// tbl$snapshots lists the Iceberg table's snapshots: one per
			// tiering round, committed by the tiering with the offsets
			// file; the first is the first round's rows.
			snaps := rows(t, db, fmt.Sprintf("SELECT snapshot_id, parent_id IS NULL, summary FROM fl_auto.ice.`%s$snapshots` ORDER BY committed_at, snapshot_id", tbl))
			if len(snaps) != 2 {
				t.Fatalf("%s$snapshots: %q, want two snapshots (two rounds)", tbl, snaps)
			}
			for i, r := range snaps {
				c := strings.SplitN(r, "|", 3)
				if root := map[bool]string{true: "1", false: "0"}[i == 0]; c[1] != root || !strings.Contains(c[2], `"commit-user":"__fluss_lake_tiering"`) || !strings.Contains(c[2], `"fluss-offsets":`) {
					t.Fatalf("%s$snapshots row %d: %q", tbl, i, r)
				}
			}
			first := strings.SplitN(snaps[0], "|", 2)[0]
			want := "30" // log tables: ids 1..30 in the first round
			if strings.HasPrefix(tbl, "pk") {
				want = "19" // 20 keys, 3 deleted
			}
			if got := rows(t, db, fmt.Sprintf("SELECT count(*) FROM fl_auto.ice.`%s$lake` FOR VERSION AS OF %s", tbl, first)); !slices.Equal(got, []string{want}) {
				t.Fatalf("%s$lake at the first snapshot %s: %q, want %s", tbl, first, got, want)
			}
		})
	}
}

// TestFlussIcebergLakeSettings: the fluss.lake.iceberg.* overrides. A
// warehouse where nothing was tiered fails the union read (required) and
// $lake, naming the cause; an Iceberg catalog type other than hadoop is
// refused by name; a bad type is refused at CREATE CATALOG.
func TestFlussIcebergLakeSettings(t *testing.T) {
	text, _ := icebergScenario()
	sc, err := minifluss.ParseScenario(text)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFEOn(t, sc, "iceberg")
	db := f.db("")
	boot := f.cluster.BootstrapAddr()
	mustExec(t, db,
		fmt.Sprintf(`CREATE CATALOG ice_wrong PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.union_read.mode'='required', 'fluss.lake.iceberg.warehouse'='%s')`, boot, t.TempDir()),
		fmt.Sprintf(`CREATE CATALOG ice_rest PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.lake.iceberg.type'='rest')`, boot),
		fmt.Sprintf(`CREATE CATALOG ice_ok PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.lake.iceberg.warehouse'='%s')`, boot, f.warehouse))
	wantMetaErr(t, db, "SELECT * FROM ice_wrong.ice.logb", "does not exist")
	wantMetaErr(t, db, "SELECT * FROM ice_wrong.ice.`pk$lake`", "nothing has been tiered")
	wantMetaErr(t, db, "SELECT * FROM ice_rest.ice.`logb$lake`", "Iceberg catalog type is 'rest'")
	wantMetaErr(t, db, fmt.Sprintf(`CREATE CATALOG bad PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.lake.iceberg.type'='hadoopp')`, boot), "fluss.lake.iceberg.type")
	if a, b := sortedRows(t, db, "SELECT * FROM ice_ok.ice.pk"), sortedRows(t, db, "SELECT * FROM fl_dis.ice.pk"); !slices.Equal(a, b) {
		t.Fatalf("with the warehouse given explicitly: %q, Fluss-only %q", a, b)
	}
}

// TestFlussIcebergLiveTiering: tiering rounds commit to the Iceberg lake
// continuously while a PK table and a log table take upserts, deletes and
// appends in steps; after each step (writes paused, tiering not) the union
// read under required equals the model of everything written and the
// Fluss-only read: no row lost or read twice while the lake moves.
func TestFlussIcebergLiveTiering(t *testing.T) {
	sc, err := minifluss.ParseScenario(`CREATE DATABASE live;
CREATE TABLE live.pk (id INT NOT NULL, seq BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '3', 'table.datalake.enabled' = 'true');
CREATE TABLE live.lg (id BIGINT, seq BIGINT) WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true');
`)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFEOn(t, sc, "iceberg")
	db := f.db("")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var rounds atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			for _, tbl := range []string{"pk", "lg"} {
				if _, err := f.cluster.TierLake(ctx, "live", tbl); err != nil && ctx.Err() == nil {
					t.Error(err)
				}
			}
			rounds.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	rng := rand.New(rand.NewPCG(28, 1))
	pk := map[int32]int64{}
	var logRows []string
	var next int64
	withLake := 0
	for step := 0; step < 30; step++ {
		var ups, dels [][]any
		var delKeys []int32
		for i := 0; i < 20; i++ {
			k := int32(rng.IntN(60))
			next++
			if rng.IntN(5) == 0 {
				dels = append(dels, []any{k})
				delKeys = append(delKeys, k)
			} else {
				ups = append(ups, []any{k, next})
				pk[k] = next
			}
		}
		// The upserts are written first, then the deletes.
		for _, k := range delKeys {
			delete(pk, k)
		}
		if len(ups) > 0 {
			if err := f.cluster.Upsert(ctx, "live", "pk", ups); err != nil {
				t.Fatal(err)
			}
		}
		if len(dels) > 0 {
			if err := f.cluster.Delete(ctx, "live", "pk", dels); err != nil {
				t.Fatal(err)
			}
		}
		var app [][]any
		for i := 0; i < 15; i++ {
			next++
			app = append(app, []any{next, int64(step)})
			logRows = append(logRows, fmt.Sprintf("%d|%d", next, step))
		}
		if err := f.cluster.Append(ctx, "live", "lg", app); err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			// Union reads under required need a first lake snapshot.
			for r := rounds.Load(); rounds.Load() < r+2; {
				time.Sleep(5 * time.Millisecond)
			}
		}
		var wantPK []string
		for k, s := range pk {
			wantPK = append(wantPK, fmt.Sprintf("%d|%d", k, s))
		}
		slices.Sort(wantPK)
		wantLog := slices.Clone(logRows)
		slices.Sort(wantLog)
		for _, c := range []struct {
			tbl  string
			want []string
		}{{"pk", wantPK}, {"lg", wantLog}} {
			q := "SELECT * FROM %s.live." + c.tbl
			withLake++
			if got := sortedRows(t, db, fmt.Sprintf(q, "fl_req")); !slices.Equal(got, c.want) {
				t.Fatalf("step %d %s: union read (%d rows) differs from the model (%d rows)\n%q\n%q", step, c.tbl, len(got), len(c.want), got, c.want)
			}
			if got := sortedRows(t, db, fmt.Sprintf(q, "fl_dis")); !slices.Equal(got, c.want) {
				t.Fatalf("step %d %s: Fluss-only read differs from the model", step, c.tbl)
			}
		}
	}
	t.Logf("%d tiering rounds, %d union reads with a lake snapshot", rounds.Load(), withLake)
	if withLake < 20 || rounds.Load() < 5 {
		t.Fatalf("only %d union reads with a lake, %d rounds", withLake, rounds.Load())
	}
}
