package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// changelogModel is the expected $changelog of a sequence of writes, kept
// apart from the code under test: per (table, partition, bucket) log, the
// change records Fluss's write path produces (Fluss docs, virtual-tables:
// an upsert of a new key is +I, of an existing key -U old then +U new; a
// delete of an existing key -D old; a log-table append +A), each at the
// next offset of its bucket, stamped with the commit time of its write.
type changelogModel struct {
	state map[string]map[string]string // table -> key -> row text
	next  map[string]int64             // table/partition/bucket -> next offset
	rows  map[string][]clRow           // table -> change records
}

type clRow struct {
	change string
	offset int64
	ts     time.Time
	row    string // the table columns, "|"-joined
	part   string
}

func newChangelogModel() *changelogModel {
	return &changelogModel{state: map[string]map[string]string{}, next: map[string]int64{}, rows: map[string][]clRow{}}
}

func (m *changelogModel) emit(table, part string, bucket int, ts time.Time, change, row string) {
	k := fmt.Sprintf("%s/%s/%d", table, part, bucket)
	m.rows[table] = append(m.rows[table], clRow{change: change, offset: m.next[k], ts: ts, row: row, part: part})
	m.next[k]++
}

// upsert and del model a primary-key table of one bucket per partition.
func (m *changelogModel) upsert(table, part, key, row string, ts time.Time) {
	st := m.state[table]
	if st == nil {
		st = map[string]string{}
		m.state[table] = st
	}
	if old, ok := st[key]; ok {
		m.emit(table, part, 0, ts, "-U", old)
		m.emit(table, part, 0, ts, "+U", row)
	} else {
		m.emit(table, part, 0, ts, "+I", row)
	}
	st[key] = row
}

func (m *changelogModel) del(table, part, key string, ts time.Time) {
	if old, ok := m.state[table][key]; ok {
		m.emit(table, part, 0, ts, "-D", old)
		delete(m.state[table], key)
	}
}

// want renders the records of table that keep passes, as
// _change_type|_log_offset|_commit_timestamp|columns (UTC), sorted.
func (m *changelogModel) want(table string, keep func(clRow) bool) []string {
	var out []string
	for _, r := range m.rows[table] {
		if keep == nil || keep(r) {
			out = append(out, fmt.Sprintf("%s|%d|%s|%s", r.change, r.offset, r.ts.UTC().Format("2006-01-02 15:04:05.000"), r.row))
		}
	}
	slices.Sort(out)
	return out
}

// startChangelogFE starts an emulated cluster on a settable clock, writes
// the history below through scenario statements (recording each write in
// the model), and an FE with a catalog `cl` over it.
func startChangelogFE(t *testing.T) (*testFE, *changelogModel, []time.Time) {
	t.Helper()
	ctx := context.Background()
	var now atomic.Int64
	base := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	now.Store(base.UnixMilli())
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), TabletServers: 1, DefaultBucketNumber: 1,
		Now: func() time.Time { return time.UnixMilli(now.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	run := func(src string) {
		t.Helper()
		sc, err := minifluss.ParseScenario(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Run(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	run(`CREATE DATABASE cl;
CREATE TABLE cl.orders (order_id INT NOT NULL, customer STRING, amount DECIMAL(10, 2), PRIMARY KEY (order_id) NOT ENFORCED) WITH ('bucket.num' = '1');
CREATE TABLE cl.clicks (event_id INT, user_id INT, kind STRING) WITH ('bucket.num' = '2');
CREATE TABLE cl.part_pk (id INT NOT NULL, dt STRING NOT NULL, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket.num' = '1')`)

	m := newChangelogModel()
	// Commit times, one per step: 10:30, 10:35, 10:40, 10:45.
	times := []time.Time{base, base.Add(5 * time.Minute), base.Add(10 * time.Minute), base.Add(15 * time.Minute)}
	step := func(i int, src string, model func(ts time.Time)) {
		now.Store(times[i].UnixMilli())
		run(src)
		model(times[i])
	}
	step(0, `INSERT INTO cl.orders VALUES (1, 'Rhea', 100.00), (2, 'Ann', 5.00);
INSERT INTO cl.clicks BUCKET 0 VALUES (1, 101, 'click'), (2, 102, 'view');
INSERT INTO cl.part_pk VALUES (1, '2024-01-01', 'a'), (2, '2024-01-02', 'b')`, func(ts time.Time) {
		m.upsert("orders", "", "1", "1|Rhea|100.00", ts)
		m.upsert("orders", "", "2", "2|Ann|5.00", ts)
		m.emit("clicks", "", 0, ts, "+A", "1|101|click")
		m.emit("clicks", "", 0, ts, "+A", "2|102|view")
		m.upsert("part_pk", "2024-01-01", "1", "1|2024-01-01|a", ts)
		m.upsert("part_pk", "2024-01-02", "2", "2|2024-01-02|b", ts)
	})
	step(1, `INSERT INTO cl.orders VALUES (1, 'Rhea', 150.00);
INSERT INTO cl.clicks BUCKET 1 VALUES (3, 101, 'buy');
INSERT INTO cl.part_pk VALUES (2, '2024-01-02', 'b2')`, func(ts time.Time) {
		m.upsert("orders", "", "1", "1|Rhea|150.00", ts)
		m.emit("clicks", "", 1, ts, "+A", "3|101|buy")
		m.upsert("part_pk", "2024-01-02", "2", "2|2024-01-02|b2", ts)
	})
	step(2, `DELETE FROM cl.orders WHERE order_id = 1;
INSERT INTO cl.clicks BUCKET 0 VALUES (4, 103, 'click')`, func(ts time.Time) {
		m.del("orders", "", "1", ts)
		m.emit("clicks", "", 0, ts, "+A", "4|103|click")
	})
	step(3, `INSERT INTO cl.orders VALUES (3, 'Bo', 7.50);
DELETE FROM cl.part_pk WHERE id = 1 AND dt = '2024-01-01'`, func(ts time.Time) {
		m.upsert("orders", "", "3", "3|Bo|7.50", ts)
		m.del("part_pk", "2024-01-01", "1", ts)
	})

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	t.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	dir := t.TempDir()
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{fluss.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	mustExec(t, tf.db(""), fmt.Sprintf(`CREATE CATALOG cl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, c.BootstrapAddr()))
	return tf, m, times
}

func TestFlussChangelogSmoke(t *testing.T) {
	f, m, _ := startChangelogFE(t)
	db := f.db("")
	mustExec(t, db, "SET time_zone = 'UTC'")
	for _, tbl := range []string{"orders", "clicks", "part_pk"} {
		got := sortedRows(t, db, "SELECT * FROM cl.cl.`"+tbl+"$changelog`")
		t.Logf("%s got:\n%s\nwant:\n%s", tbl, strings.Join(got, "\n"), strings.Join(m.want(tbl, nil), "\n"))
	}
	for _, l := range rows(t, db, "EXPLAIN SELECT * FROM cl.cl.`part_pk$changelog` WHERE dt = '2024-01-02' AND _log_offset >= 1") {
		t.Log(l)
	}
	for _, l := range rows(t, db, "DESC cl.cl.`orders$changelog`") {
		t.Log(l)
	}
}
