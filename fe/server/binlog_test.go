package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// binlogModel is the expected $binlog of a sequence of single-key writes,
// kept apart from the code under test (Fluss docs, virtual-tables: +I is an
// insert, -U then +U one update at the +U's offset, -D a delete). Which
// bucket a key lands in is observed from the emulator's bucket end offsets
// around each write, so the offsets are the model's own count.
type binlogModel struct {
	state map[string]string // table/partition/key -> "id|...": the current row
	next  map[string]int64  // table/partition/bucket -> next offset
	rows  map[string][]blRow
}

type blRow struct {
	kind          string
	offset        int64
	ts            time.Time
	before, after string // "|"-joined columns, "NULL" for no image
	part          string
	bucket        int32
}

func (r blRow) text() string {
	return fmt.Sprintf("%s|%d|%s|%s|%s", r.kind, r.offset, r.ts.UTC().Format("2006-01-02 15:04:05.000"), r.before, r.after)
}

// nullImage is an absent image as the test's SELECT renders it: every
// field NULL.
func nullImage(n int) string { return strings.TrimSuffix(strings.Repeat("NULL|", n), "|") }

// want renders the rows of table that keep passes, sorted.
func (m *binlogModel) want(table string, keep func(blRow) bool) []string {
	var out []string
	for _, r := range m.rows[table] {
		if keep == nil || keep(r) {
			out = append(out, r.text())
		}
	}
	slices.Sort(out)
	return out
}

// TestFlussBinlog reads tbl$binlog of a primary-key table of two buckets
// and of a partitioned one, and checks every answer against the model.
func TestFlussBinlog(t *testing.T) {
	base := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	c, now, run := startClockedFluss(t)
	ctx := context.Background()
	run(`CREATE DATABASE bl;
CREATE TABLE bl.acct (id INT NOT NULL, name STRING, bal INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '2');
CREATE TABLE bl.part (id INT NOT NULL, dt STRING NOT NULL, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket.num' = '2');
CREATE TABLE bl.events (a INT, b STRING) WITH ('bucket.num' = '1');
INSERT INTO bl.part VALUES (100, '2024-03-01', 'seed'), (100, '2024-03-02', 'seed')`)

	m := &binlogModel{state: map[string]string{}, next: map[string]int64{}, rows: map[string][]blRow{}}
	// The seed rows are inserts at offset 0 of whichever bucket took them.
	ends := func(table, part string) [2]int64 {
		var e [2]int64
		for b := range int32(2) {
			o, err := c.Offsets("bl", table, part, b)
			if err != nil {
				t.Fatal(err)
			}
			e[b] = o.HighWatermark
		}
		return e
	}
	for _, p := range []string{"2024-03-01", "2024-03-02"} {
		e := ends("part", p)
		b := int32(0)
		if e[1] == 1 {
			b = 1
		}
		m.rows["part"] = append(m.rows["part"], blRow{kind: "insert", offset: 0, ts: time.UnixMilli(0), before: nullImage(3), after: "100|" + p + "|seed", part: p, bucket: b})
		m.next[fmt.Sprintf("part/%s/%d", p, b)] = 1
		m.state["part/"+p+"/100"] = "100|" + p + "|seed"
	}
	// write runs one single-key statement at ts and models it: row is the
	// new image ("" for a delete of key).
	write := func(table, part, key, row string, ts time.Time, stmt string) {
		t.Helper()
		before := ends(table, part)
		now.Store(ts.UnixMilli())
		run(stmt)
		after := ends(table, part)
		b, grew := int32(-1), int64(0)
		for i := range int32(2) {
			if d := after[i] - before[i]; d > 0 {
				b, grew = i, d
			}
		}
		sk := table + "/" + part + "/" + key
		old, had := m.state[sk]
		const nimg = 3 // both tables have three columns
		wantGrow := map[bool]int64{true: 2, false: 1}[had && row != ""]
		if b < 0 || grew != wantGrow {
			t.Fatalf("%s: bucket ends %v -> %v, want one bucket grown by %d", stmt, before, after, wantGrow)
		}
		bk := fmt.Sprintf("%s/%s/%d", table, part, b)
		off := m.next[bk]
		r := blRow{ts: ts, part: part, bucket: b, before: nullImage(nimg), after: nullImage(nimg)}
		switch {
		case row == "":
			r.kind, r.offset, r.before = "delete", off, old
			m.next[bk] = off + 1
			delete(m.state, sk)
		case had:
			r.kind, r.offset, r.before, r.after = "update", off+1, old, row
			m.next[bk] = off + 2
			m.state[sk] = row
		default:
			r.kind, r.offset, r.after = "insert", off, row
			m.next[bk] = off + 1
			m.state[sk] = row
		}
		m.rows[table] = append(m.rows[table], r)
	}
	times := []time.Time{base, base.Add(10 * time.Minute), base.Add(20 * time.Minute), base.Add(30 * time.Minute)}
	for id := 1; id <= 6; id++ {
		write("acct", "", fmt.Sprint(id), fmt.Sprintf("%d|u%d|%d", id, id, id*10), times[0],
			fmt.Sprintf("INSERT INTO bl.acct VALUES (%d, 'u%d', %d)", id, id, id*10))
	}
	for _, id := range []int{2, 3, 5} {
		write("acct", "", fmt.Sprint(id), fmt.Sprintf("%d|u%d|%d", id, id, id*100), times[1],
			fmt.Sprintf("INSERT INTO bl.acct VALUES (%d, 'u%d', %d)", id, id, id*100))
	}
	write("acct", "", "3", "", times[2], "DELETE FROM bl.acct WHERE id = 3")
	write("acct", "", "4", "", times[2], "DELETE FROM bl.acct WHERE id = 4")
	write("acct", "", "2", "2|two|7", times[3], "INSERT INTO bl.acct VALUES (2, 'two', 7)")
	write("acct", "", "7", "7|u7|70", times[3], "INSERT INTO bl.acct VALUES (7, 'u7', 70)")
	write("part", "2024-03-01", "100", "100|2024-03-01|x", times[1], "INSERT INTO bl.part VALUES (100, '2024-03-01', 'x')")
	write("part", "2024-03-02", "100", "", times[2], "DELETE FROM bl.part WHERE id = 100 AND dt = '2024-03-02'")
	write("part", "2024-03-02", "101", "101|2024-03-02|y", times[2], "INSERT INTO bl.part VALUES (101, '2024-03-02', 'y')")
	// Both buckets of acct must hold changes, or the test checks one.
	var perBucket [2]int
	for _, r := range m.rows["acct"] {
		perBucket[r.bucket]++
	}
	if perBucket[0] == 0 || perBucket[1] == 0 {
		t.Fatalf("acct's writes all landed in one bucket: %v", perBucket)
	}

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
	f := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(f.stop)
	db := f.db("")
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG bl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, c.BootstrapAddr()))
	mustExec(t, db, "SET time_zone = 'UTC'")

	acctCols := "_change_type, _log_offset, _commit_timestamp, struct_element(`before`, 'id'), struct_element(`before`, 'name'), struct_element(`before`, 'bal'), " +
		"struct_element(`after`, 'id'), struct_element(`after`, 'name'), struct_element(`after`, 'bal')"
	partCols := "_change_type, _log_offset, _commit_timestamp, struct_element(`before`, 'id'), struct_element(`before`, 'dt'), struct_element(`before`, 'v'), " +
		"struct_element(`after`, 'id'), struct_element(`after`, 'dt'), struct_element(`after`, 'v')"
	acct := func(where string) string { return "SELECT " + acctCols + " FROM bl.bl.`acct$binlog` " + where }
	since := func(i int) func(blRow) bool { return func(r blRow) bool { return !r.ts.Before(times[i]) } }
	cases := []struct {
		name, q string
		want    []string
	}{
		{"all", acct(""), m.want("acct", nil)},
		{"partitioned all", "SELECT " + partCols + " FROM bl.bl.`part$binlog`", m.want("part", nil)},
		{"partition image filter", "SELECT " + partCols + " FROM bl.bl.`part$binlog` WHERE struct_element(`before`, 'dt') = '2024-03-02' OR struct_element(`after`, 'dt') = '2024-03-02'",
			m.want("part", func(r blRow) bool { return r.part == "2024-03-02" })},
		{"change type filter", acct("WHERE _change_type = 'update'"), m.want("acct", func(r blRow) bool { return r.kind == "update" })},
		{"change type IN", acct("WHERE _change_type IN ('insert', 'delete')"), m.want("acct", func(r blRow) bool { return r.kind != "update" })},
		// An update's offset is its +U's: the -U just below the bound is
		// still read so before is the old image.
		{"offset start", acct("WHERE _log_offset >= 5"), m.want("acct", func(r blRow) bool { return r.offset >= 5 })},
		{"offset window", acct("WHERE _log_offset > 2 AND _log_offset < 6"), m.want("acct", func(r blRow) bool { return r.offset > 2 && r.offset < 6 })},
		{"offset equal", acct("WHERE _log_offset = 4"), m.want("acct", func(r blRow) bool { return r.offset == 4 })},
		{"commit time", acct("WHERE _commit_timestamp >= '2024-03-01 09:10:00'"), m.want("acct", since(1))},
		{"image field filter", acct("WHERE struct_element(`after`, 'bal') >= 100"),
			m.want("acct", func(r blRow) bool {
				f := strings.Split(r.after, "|")
				var n int
				_, err := fmt.Sscan(f[2], &n)
				return err == nil && n >= 100
			})},
		{"before is null", acct("WHERE `before` IS NULL"), m.want("acct", func(r blRow) bool { return r.kind == "insert" })},
		{"count", "SELECT count(*) FROM bl.bl.`acct$binlog`", []string{fmt.Sprint(len(m.rows["acct"]))}},
		{"count by kind", "SELECT _change_type, count(*) FROM bl.bl.`acct$binlog` GROUP BY _change_type",
			[]string{"delete|2", "insert|7", "update|4"}},
		{"limit", "SELECT count(*) FROM (SELECT _log_offset FROM bl.bl.`acct$binlog` LIMIT 12) t", []string{"12"}},
		{"startup latest", "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='latest') */ " + acctCols + " FROM bl.bl.`acct$binlog`", nil},
		{"startup timestamp", fmt.Sprintf("SELECT /*+ SET_VAR(fluss_changelog_startup_mode='timestamp', fluss_changelog_startup_timestamp='%d') */ %s FROM bl.bl.`acct$binlog`",
			times[2].UnixMilli(), acctCols), m.want("acct", since(2))},
		{"startup earliest", "SELECT /*+ SET_VAR(fluss_changelog_startup_mode='earliest') */ " + acctCols + " FROM bl.bl.`acct$binlog`", m.want("acct", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := sortedRows(t, db, tc.q)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("%s:\n got: %q\nwant: %q", tc.q, got, tc.want)
			}
		})
	}

	// The whole row images as the MySQL protocol renders a struct.
	wantRows(t, db, "SELECT `before`, `after` FROM bl.bl.`part$binlog` WHERE _change_type = 'update'",
		`{"id":100, "dt":"2024-03-01", "v":"seed"}|{"id":100, "dt":"2024-03-01", "v":"x"}`)
	wantRows(t, db, "SELECT `before`, `after` FROM bl.bl.`part$binlog` WHERE _change_type = 'delete'",
		`{"id":100, "dt":"2024-03-02", "v":"seed"}|NULL`)

	explain := func(q string) string { return strings.Join(rows(t, db, "EXPLAIN "+q), "\n") }
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM bl.bl.`acct$binlog`", "readMode=binlog, unionRead=no, lakeSplits=0, suppressedLakeSplits=0, logRanges=2"},
		{"SELECT * FROM bl.bl.`acct$binlog`", "TABLE: bl.bl.acct$binlog"},
		{"SELECT * FROM bl.bl.`acct$binlog`", "binlog: startupMode=earliest"},
		{"SELECT * FROM bl.bl.`acct$binlog` WHERE _log_offset >= 5", "pushedStart=_log_offset>=4"},
		{"SELECT /*+ SET_VAR(fluss_changelog_startup_mode='latest') */ * FROM bl.bl.`acct$binlog`", "logRanges=0"},
	} {
		if got := explain(tc.q); !strings.Contains(got, tc.want) {
			t.Errorf("EXPLAIN %s: no %q in\n%s", tc.q, tc.want, got)
		}
	}

	desc := rows(t, db, "DESC bl.bl.`acct$binlog`")
	wantDesc := []string{"_change_type|text|No", "_log_offset|bigint|No", "_commit_timestamp|datetime(3)|No",
		"before|struct<id:int,name:text,bal:int>|Yes", "after|struct<id:int,name:text,bal:int>|Yes"}
	if len(desc) != len(wantDesc) {
		t.Fatalf("DESC: %q", desc)
	}
	for i, w := range wantDesc {
		if !strings.HasPrefix(desc[i], w) {
			t.Errorf("DESC row %d: %q, want prefix %q", i, desc[i], w)
		}
	}
	sc := strings.Join(rows(t, db, "SHOW CREATE TABLE bl.bl.`acct$binlog`"), "\n")
	for _, w := range []string{"`_change_type` text NOT NULL", "`before` struct<id:int,name:text,bal:int>", "`after` struct<id:int,name:text,bal:int>"} {
		if !strings.Contains(sc, w) {
			t.Errorf("SHOW CREATE TABLE: no %q in\n%s", w, sc)
		}
	}
	if strings.Contains(sc, "PRIMARY KEY") {
		t.Errorf("SHOW CREATE TABLE of a binlog claims a primary key:\n%s", sc)
	}
	wantRows(t, db, "SHOW TABLES FROM bl.bl", "acct", "events", "part")

	// Retention asked to cut an update in two (up to its +U): Fluss, and
	// the emulator, delete whole batches, and the -U and +U of one write
	// share a batch, so the update survives whole and everything before it
	// in that bucket is gone.
	var cut blRow
	for _, r := range m.rows["acct"] {
		if r.kind == "update" {
			cut = r
			break
		}
	}
	sc2, err := minifluss.ParseScenario(fmt.Sprintf("EXPIRE LOG bl.acct BUCKET %d BEFORE %d", cut.bucket, cut.offset))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc2.Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	var afterCut []string
	for _, r := range m.rows["acct"] {
		if r.bucket != cut.bucket || r.offset >= cut.offset {
			afterCut = append(afterCut, r.text())
		}
	}
	slices.Sort(afterCut)
	if got := sortedRows(t, db, acct("")); strings.Join(got, "\n") != strings.Join(afterCut, "\n") {
		t.Errorf("after retention before the +U at %d of bucket %d:\n got: %q\nwant: %q", cut.offset, cut.bucket, got, afterCut)
	}
	wantErr(t, db, "SELECT * FROM bl.bl.`events$binlog`", 1235, "Table bl.events is a log table: events$binlog exists only for primary-key tables")
}
