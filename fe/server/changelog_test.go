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
// startClockedFluss starts an emulator whose commit timestamps read now
// (ms), and run applies a scenario script to it, for tests whose model
// needs each write's commit time.
func startClockedFluss(t *testing.T) (*minifluss.Cluster, *atomic.Int64, func(src string)) {
	t.Helper()
	ctx := context.Background()
	now := new(atomic.Int64)
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
	return c, now, run
}

func startChangelogFE(t *testing.T) (*testFE, *minifluss.Cluster, *changelogModel, []time.Time) {
	t.Helper()
	base := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	c, now, run := startClockedFluss(t)
	ctx := context.Background()
	now.Store(base.UnixMilli())
	run(`CREATE DATABASE cl;
CREATE TABLE cl.orders (order_id INT NOT NULL, customer STRING, amount DECIMAL(10, 2), PRIMARY KEY (order_id) NOT ENFORCED) WITH ('bucket.num' = '1');
CREATE TABLE cl.clicks (event_id INT, user_id INT, kind STRING) WITH ('bucket.num' = '2');
CREATE TABLE cl.part_pk (id INT NOT NULL, dt STRING NOT NULL, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket.num' = '1');
CREATE TABLE cl.big (id INT, name STRING) WITH ('bucket.num' = '3');
GENERATE INTO cl.big FROM 1 TO 30000 VALUES (ID, 'n{id}')`)

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
	return tf, c, m, times
}

// TestFlussChangelog reads tbl$changelog of a primary-key table, a log
// table of two buckets and a partitioned primary-key table, and checks
// every answer against the model of the writes.
func TestFlussChangelog(t *testing.T) {
	f, cluster, m, times := startChangelogFE(t)
	db := f.db("")
	mustExec(t, db, "SET time_zone = 'UTC'")
	since := func(i int) func(clRow) bool { return func(r clRow) bool { return !r.ts.Before(times[i]) } }
	cases := []struct {
		name, q string
		want    []string
	}{
		{"pk all", "SELECT * FROM cl.cl.`orders$changelog`", m.want("orders", nil)},
		{"log all", "SELECT * FROM cl.cl.`clicks$changelog`", m.want("clicks", nil)},
		{"partitioned all", "SELECT * FROM cl.cl.`part_pk$changelog`", m.want("part_pk", nil)},
		{"partition pruned", "SELECT * FROM cl.cl.`part_pk$changelog` WHERE dt = '2024-01-02'",
			m.want("part_pk", func(r clRow) bool { return r.part == "2024-01-02" })},
		{"change type filter", "SELECT * FROM cl.cl.`orders$changelog` WHERE _change_type IN ('-U', '-D')",
			m.want("orders", func(r clRow) bool { return r.change == "-U" || r.change == "-D" })},
		{"offset start", "SELECT * FROM cl.cl.`orders$changelog` WHERE _log_offset >= 2",
			m.want("orders", func(r clRow) bool { return r.offset >= 2 })},
		{"offset window", "SELECT * FROM cl.cl.`orders$changelog` WHERE _log_offset > 1 AND _log_offset < 4",
			m.want("orders", func(r clRow) bool { return r.offset > 1 && r.offset < 4 })},
		{"commit time", "SELECT * FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00'",
			m.want("clicks", since(1))},
		// East of UTC: the pushed start must not drop what the engine's
		// own comparison keeps (the same rows as without any pushdown).
		{"commit time zone", "SELECT /*+ SET_VAR(time_zone='Asia/Shanghai') */ * FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00'",
			sortedRows(t, db, "SELECT /*+ SET_VAR(time_zone='Asia/Shanghai') */ * FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00' OR _log_offset < 0")},
		{"commit time zone west", "SELECT /*+ SET_VAR(time_zone='America/New_York') */ * FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00'",
			sortedRows(t, db, "SELECT /*+ SET_VAR(time_zone='America/New_York') */ * FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00' OR _log_offset < 0")},
		// A literal compared with a zone-aware column is wall-clock time
		// in the session zone: 18:35 in Shanghai is 10:35 UTC.
		{"shanghai literal", "SELECT /*+ SET_VAR(time_zone='Asia/Shanghai') */ count(*) FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 18:35:00'",
			[]string{fmt.Sprint(len(m.want("clicks", since(1))))}},
		// 10:35 in Shanghai is 02:35 UTC, before every commit.
		{"shanghai early literal", "SELECT /*+ SET_VAR(time_zone='Asia/Shanghai') */ count(*) FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp >= '2024-01-15 10:35:00'",
			[]string{fmt.Sprint(len(m.want("clicks", nil)))}},
		{"shanghai shown value", "SELECT /*+ SET_VAR(time_zone='Asia/Shanghai') */ count(*) FROM cl.cl.`clicks$changelog` WHERE _commit_timestamp = '2024-01-15 18:35:00'",
			[]string{fmt.Sprint(len(m.want("clicks", func(r clRow) bool { return r.ts.Equal(times[1]) })))}},
		{"metadata only", "SELECT _log_offset FROM cl.cl.`clicks$changelog` WHERE user_id = 101", []string{"0", "0"}},
		{"table column only", "SELECT customer FROM cl.cl.`orders$changelog` WHERE _change_type = '-U'", []string{"Rhea"}},
		{"count", "SELECT count(*) FROM cl.cl.`orders$changelog`", []string{fmt.Sprint(len(m.rows["orders"]))}},
		{"startup latest", "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='latest') */ * FROM cl.cl.`orders$changelog`", nil},
		{"startup timestamp", fmt.Sprintf("SELECT /*+ SET_VAR(fluss_changelog_startup_mode='timestamp', fluss_changelog_startup_timestamp='%d') */ * FROM cl.cl.`part_pk$changelog`", times[1].UnixMilli()),
			m.want("part_pk", since(1))},
		{"startup earliest", "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='earliest') */ * FROM cl.cl.`clicks$changelog`", m.want("clicks", nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sortedRows(t, db, c.q)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s:\n got: %q\nwant: %q", c.q, got, c.want)
			}
		})
	}

	// EXPLAIN: the read mode, the pushed start and the ranges it implies.
	explain := func(q string) string { return strings.Join(rows(t, db, "EXPLAIN "+q), "\n") }
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM cl.cl.`orders$changelog`", "readMode=changelog, unionRead=no, lakeSplits=0, suppressedLakeSplits=0, logRanges=1"},
		{"SELECT * FROM cl.cl.`orders$changelog`", "LOG b0 [0, 6)"},
		{"SELECT * FROM cl.cl.`clicks$changelog`", "logRanges=2"},
		{"SELECT * FROM cl.cl.`orders$changelog` WHERE _log_offset >= 2", "pushedStart=_log_offset>=2"},
		{"SELECT * FROM cl.cl.`orders$changelog` WHERE _log_offset >= 2", "LOG b0 [2, 6)"},
		{"SELECT * FROM cl.cl.`orders$changelog` WHERE _log_offset < 3", "LOG b0 [0, 3)"},
		{"SELECT * FROM cl.cl.`orders$changelog` WHERE _commit_timestamp >= '2024-01-15 10:40:00'",
			fmt.Sprintf("pushedStart=_commit_timestamp>=%d", times[2].UnixMilli())},
		{"SELECT * FROM cl.cl.`orders$changelog` WHERE _commit_timestamp >= '2024-01-15 10:40:00'", "LOG b0 [4, 6)"},
		{"SELECT * FROM cl.cl.`part_pk$changelog` WHERE dt = '2024-01-02'", "partition=1/2"},
		{"SELECT /*+ SET_VAR(fluss_changelog_startup_mode='latest') */ * FROM cl.cl.`orders$changelog`", "logRanges=0"},
		{"SELECT * FROM cl.cl.`orders$changelog`", "TABLE: cl.cl.orders$changelog"},
	} {
		if got := explain(c.q); !strings.Contains(got, c.want) {
			t.Errorf("EXPLAIN %s: no %q in\n%s", c.q, c.want, got)
		}
	}

	// Metadata statements: DESC and SHOW CREATE TABLE show the metadata
	// columns first; SHOW TABLES does not list the virtual table.
	desc := rows(t, db, "DESC cl.cl.`orders$changelog`")
	wantDesc := []string{"_change_type|text|No", "_log_offset|bigint|No", "_commit_timestamp|datetime(3)|No", "order_id|int|", "customer|text|", "amount|decimal(10,2)|"}
	if len(desc) != len(wantDesc) {
		t.Fatalf("DESC: %q", desc)
	}
	for i, w := range wantDesc {
		if !strings.HasPrefix(desc[i], w) {
			t.Errorf("DESC row %d: %q, want prefix %q", i, desc[i], w)
		}
	}
	sc := strings.Join(rows(t, db, "SHOW CREATE TABLE cl.cl.`orders$changelog`"), "\n")
	for _, w := range []string{"`_change_type` text NOT NULL", "`_log_offset` bigint NOT NULL", "`_commit_timestamp` datetime(3) NOT NULL", "`order_id` int"} {
		if !strings.Contains(sc, w) {
			t.Errorf("SHOW CREATE TABLE: no %q in\n%s", w, sc)
		}
	}
	if strings.Contains(sc, "PRIMARY KEY") {
		t.Errorf("SHOW CREATE TABLE of a changelog claims a primary key (keys repeat in a changelog):\n%s", sc)
	}
	wantRows(t, db, "SHOW TABLES FROM cl.cl", "big", "clicks", "orders", "part_pk")

	// Errors name the knob.
	wantErr(t, db, "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='timestamp') */ * FROM cl.cl.`orders$changelog`", 1105, "fluss_changelog_startup_timestamp")
	wantErr(t, db, "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='first') */ * FROM cl.cl.`orders$changelog`", 1105, "expected one of earliest, latest, timestamp")
	wantErr(t, db, "SELECT * FROM cl.cl.`orders$changes`", 1146, "Unknown sys table 'orders$changes'")

	// Retention: once the log before offset 2 is deleted, the changelog
	// starts at the earliest offset still there, and EXPLAIN says so.
	sc2, err := minifluss.ParseScenario("EXPIRE LOG cl.orders BUCKET 0 BEFORE 2")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc2.Run(context.Background(), cluster); err != nil {
		t.Fatal(err)
	}
	got := sortedRows(t, db, "SELECT * FROM cl.cl.`orders$changelog`")
	if want := m.want("orders", func(r clRow) bool { return r.offset >= 2 }); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after retention:\n got: %q\nwant: %q", got, want)
	}
	if e := explain("SELECT * FROM cl.cl.`orders$changelog`"); !strings.Contains(e, "deleted by log retention: b0 from 2") || !strings.Contains(e, "LOG b0 [2, 6)") {
		t.Errorf("EXPLAIN after retention:\n%s", e)
	}
}

// TestFlussLimitCutsLogRanges: a LIMIT with no WHERE on a log table (or a
// changelog) plans only the log records it needs: the first ranges, the
// last cut short, so the BE reads n records, not the table.
func TestFlussLimitCutsLogRanges(t *testing.T) {
	f, _, m, _ := startChangelogFE(t)
	db := f.db("")
	mustExec(t, db, "SET time_zone = 'UTC'")
	// The changelog's first records are its first rows: LIMIT keeps offsets
	// 0 and 1 of the one bucket, deterministically.
	got := sortedRows(t, db, "SELECT * FROM cl.cl.`orders$changelog` LIMIT 2")
	if want := m.want("orders", func(r clRow) bool { return r.offset < 2 }); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("LIMIT 2:\n got: %q\nwant: %q", got, want)
	}
	explain := func(q string) string { return strings.Join(rows(t, db, "EXPLAIN "+q), "\n") }
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM cl.cl.`orders$changelog` LIMIT 2", "LOG b0 [0, 2)"},
		{"SELECT * FROM cl.cl.`clicks$changelog` LIMIT 2", "logRanges=1,"},
		{"SELECT * FROM cl.cl.big LIMIT 10", "logRanges=1,"},
		{"SELECT * FROM cl.cl.big LIMIT 10", "limit: 10 rows are the first 10 of 30000 log records; 1 of 3 log ranges kept"},
		{"SELECT * FROM cl.cl.big WHERE id > 5 LIMIT 10", "logRanges=3,"},
		{"SELECT * FROM cl.cl.`orders$changelog` LIMIT 100", "logRanges=1,"},
	} {
		if e := explain(c.q); !strings.Contains(e, c.want) {
			t.Errorf("EXPLAIN %s: no %q in\n%s", c.q, c.want, e)
		}
	}
	for _, c := range []struct {
		q    string
		rows int
	}{
		{"SELECT * FROM cl.cl.big LIMIT 10", 10},
		{"SELECT * FROM cl.cl.big LIMIT 20000", 20000},
		{"SELECT * FROM cl.cl.big LIMIT 30000", 30000},
		{"SELECT * FROM cl.cl.big LIMIT 5 OFFSET 29997", 3},
		{"SELECT count(*) FROM (SELECT id FROM cl.cl.big LIMIT 25000) t", 1},
	} {
		if n := len(rows(t, db, c.q)); n != c.rows {
			t.Errorf("%s: %d rows, want %d", c.q, n, c.rows)
		}
	}
	wantRows(t, db, "SELECT count(*), count(DISTINCT id) FROM (SELECT id FROM cl.cl.big LIMIT 25000) t", "25000|25000")
}
