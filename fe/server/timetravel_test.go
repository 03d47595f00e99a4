package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/minifluss"
)

// TestPaimonTimeTravelJavaTables reads the Java-written fixtures through a
// type=paimon catalog at every snapshot EXPECTED.json lists rows for (FOR
// VERSION AS OF), checks t$snapshots against the fixture's snapshot list,
// FOR TIME AS OF at each listed commit time, and the errors for snapshots
// that never existed.
func TestPaimonTimeTravelJavaTables(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	wh, err := filepath.Abs(filepath.Join("..", "..", "testdata", "paimon", "parquet"))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG tt PROPERTIES ('type'='paimon', 'warehouse'='%s')`, wh))
	type read struct {
		Name            string   `json:"name"`
		Mode            string   `json:"mode"`
		Snapshot        int64    `json:"snapshot"`
		Columns         []string `json:"columns"`
		RowCount        int      `json:"row_count"`
		Rows            [][]any  `json:"rows"`
		PartitionFilter any      `json:"partition_filter"`
		Predicate       any      `json:"predicate"`
		BucketFilter    any      `json:"bucket_filter"`
		Limit           any      `json:"limit"`
	}
	type snap struct {
		ID         int64  `json:"id"`
		SchemaID   int64  `json:"schema_id"`
		CommitKind string `json:"commit_kind"`
		Total      *int64 `json:"total_record_count"`
		Delta      *int64 `json:"delta_record_count"`
	}
	type expected struct {
		TableDir string `json:"table_dir"`
		Columns  []struct {
			Type any `json:"type"`
		} `json:"columns"`
		Snapshots []snap `json:"snapshots"`
		Reads     []read `json:"reads"`
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "paimon", "parquet", "*.db", "EXPECTED.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("fixtures: %v (%d files)", err, len(files))
	}
	versions, snapshotTables := 0, 0
	for _, file := range files {
		var e expected
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		parts := strings.Split(e.TableDir, "/")
		name := "tt." + strings.TrimSuffix(parts[1], ".db") + "." + parts[2]
		if len(e.Snapshots) > 0 {
			// t$snapshots: ids, kinds and record counts as Java wrote them.
			var want []string
			for _, s := range e.Snapshots {
				want = append(want, fmt.Sprintf("%d|%d|%s|%s|%s", s.ID, s.SchemaID, s.CommitKind, nullable(s.Total), nullable(s.Delta)))
			}
			got := rows(t, db, "SELECT snapshot_id, schema_id, commit_kind, total_record_count, delta_record_count FROM "+name+"$snapshots ORDER BY snapshot_id")
			if !slices.Equal(got, want) {
				t.Errorf("%s$snapshots:\n got %q\nwant %q", name, got, want)
			}
			snapshotTables++
			last := e.Snapshots[len(e.Snapshots)-1].ID
			// A snapshot past the latest never existed.
			_, err := tryRows(db, fmt.Sprintf("SELECT count(*) FROM %s FOR VERSION AS OF %d", name, last+7))
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("has no snapshot %d: it never existed (the latest snapshot is %d", last+7, last)) ||
				!strings.Contains(err.Error(), parts[2]) {
				t.Errorf("%s FOR VERSION AS OF %d: err %v", name, last+7, err)
			}
			_, err = tryRows(db, fmt.Sprintf("SELECT count(*) FROM %s FOR VERSION AS OF 'no_such_tag'", name))
			if err == nil || !strings.Contains(err.Error(), "has no tag 'no_such_tag'") {
				t.Errorf("%s unknown tag: err %v", name, err)
			}
			// FOR TIME AS OF each snapshot's commit time (shown in the session
			// zone, read back in it) reads that snapshot: the record counts
			// agree with the listed totals.
			times := rows(t, db, "SELECT snapshot_id, commit_time FROM "+name+"$snapshots ORDER BY snapshot_id")
			for _, line := range times {
				id, at, _ := strings.Cut(line, "|")
				ex := strings.Join(rows(t, db, fmt.Sprintf("EXPLAIN SELECT * FROM %s FOR TIME AS OF '%s'", name, at)), "\n")
				// Two commits in one millisecond resolve to the later one.
				if !strings.Contains(ex, "FOR TIME AS OF '"+at+"' -> snapshot ") {
					t.Errorf("%s FOR TIME AS OF '%s' (snapshot %s): EXPLAIN lacks the snapshot line:\n%s", name, at, id, ex)
				}
			}
			_, err = tryRows(db, fmt.Sprintf("SELECT count(*) FROM %s FOR TIME AS OF '1999-01-01 00:00:00'", name))
			if err == nil || !strings.Contains(err.Error(), "has no snapshot at or before FOR TIME AS OF '1999-01-01 00:00:00'") {
				t.Errorf("%s time before the first commit: err %v", name, err)
			}
		}
		simple := true
		for _, c := range e.Columns {
			s, ok := c.Type.(string)
			s = strings.TrimSuffix(s, " NOT NULL")
			if !ok || !slices.Contains([]string{"STRING", "INT", "BIGINT", "DOUBLE", "BOOLEAN"}, s) {
				simple = false
			}
		}
		if !simple {
			continue
		}
		for _, r := range e.Reads {
			if r.Mode != "batch" || r.Snapshot == 0 || r.Predicate != nil || r.BucketFilter != nil || r.Limit != nil || r.PartitionFilter != nil {
				continue
			}
			q := fmt.Sprintf("SELECT %s FROM %s FOR VERSION AS OF %d", strings.Join(r.Columns, ", "), name, r.Snapshot)
			t.Run(parts[2]+"/"+r.Name, func(t *testing.T) {
				got := sortedRows(t, db, q)
				var want []string
				for _, row := range r.Rows {
					vals := make([]string, len(row))
					for i, v := range row {
						vals[i] = jsonCell(v)
					}
					want = append(want, strings.Join(vals, "|"))
				}
				slices.Sort(want)
				if len(want) != r.RowCount || !slices.Equal(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", q, got, want)
				}
				ex := strings.Join(rows(t, db, "EXPLAIN "+q), "\n")
				if !strings.Contains(ex, "TIME TRAVEL: FOR VERSION AS OF "+strconv.FormatInt(r.Snapshot, 10)+" -> snapshot "+strconv.FormatInt(r.Snapshot, 10)) {
					t.Errorf("EXPLAIN %s lacks the snapshot read:\n%s", q, ex)
				}
			})
			versions++
		}
	}
	if versions < 5 || snapshotTables < 5 {
		t.Errorf("checked only %d snapshot reads of %d tables", versions, snapshotTables)
	}
}

func nullable(v *int64) string {
	if v == nil {
		return "NULL"
	}
	return strconv.FormatInt(*v, 10)
}

// TestPaimonTimeTravelTagsAndExpiry copies a Java-written fixture, tags two
// of its snapshots the way Paimon lays tags out (tag/tag-<name>, the
// snapshot's JSON) and expires snapshots 1 and 2 (their files gone, EARLIEST
// moved): tags read their snapshot, expired ones fail naming table and id.
func TestPaimonTimeTravelTagsAndExpiry(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	src := filepath.Join("..", "..", "testdata", "paimon", "parquet", "append_09.db")
	wh := t.TempDir()
	if err := os.CopyFS(filepath.Join(wh, "append_09.db"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	tbl := filepath.Join(wh, "append_09.db", "append_09")
	if err := os.MkdirAll(filepath.Join(tbl, "tag"), 0o755); err != nil {
		t.Fatal(err)
	}
	tag := func(name string, snap int) {
		b, err := os.ReadFile(filepath.Join(tbl, "snapshot", "snapshot-"+strconv.Itoa(snap)))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // commitIdentifier is a full int64
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		m["tagCreateTime"] = []int{2024, 1, 1, 0, 0, 0, 0}
		out, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(tbl, "tag", "tag-"+name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tag("t3", 3)
	tag("old", 1)
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG tg PROPERTIES ('type'='paimon', 'warehouse'='%s')`, wh))
	name := "tg.append_09.append_09"
	// Rows of snapshot 3 from EXPECTED.json (read "snapshot-3").
	want3 := []string{"Alex|10|0|16.1", "Alice|10|1|11.1", "Bob|10|0|12.1", "Bob|10|0|12.1", "David|10|0|17.1",
		"Emily|10|0|13.1", "Emily|10|0|15.1", "Lucy|20|1|14.1", "Paul|20|1|NULL", "Tony|10|0|14.1"}
	if got := sortedRows(t, db, "SELECT f0, f1, f2, f3 FROM "+name+" FOR VERSION AS OF 't3'"); !slices.Equal(got, want3) {
		t.Errorf("tag t3:\n got %q\nwant %q", got, want3)
	}
	ex := strings.Join(rows(t, db, "EXPLAIN SELECT * FROM "+name+" FOR VERSION AS OF 't3'"), "\n")
	if !strings.Contains(ex, "TIME TRAVEL: FOR VERSION AS OF 't3' -> snapshot 3") {
		t.Errorf("EXPLAIN of a tag read lacks the snapshot:\n%s", ex)
	}
	// Expire snapshots 1 and 2.
	for _, id := range []string{"1", "2"} {
		if err := os.Remove(filepath.Join(tbl, "snapshot", "snapshot-"+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tbl, "snapshot", "EARLIEST"), []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM " + name + " FOR VERSION AS OF 1", "Snapshot 1 of table append_09.append_09 has expired (the earliest snapshot still kept is 3"},
		{"SELECT * FROM " + name + " FOR VERSION AS OF 'old'", "Tag 'old' points to snapshot 1, which cannot be read: Snapshot 1 of table append_09.append_09 has expired"},
		{"SELECT * FROM " + name + " FOR VERSION AS OF 6", "Table append_09.append_09 has no snapshot 6: it never existed (the latest snapshot is 5"},
		{"SELECT * FROM " + name + " FOR VERSION AS OF 'nope'", "Table append_09.append_09 has no tag 'nope'"},
		{"SELECT * FROM " + name + " FOR TIME AS OF 'yesterday'", "FOR TIME AS OF 'yesterday' on table " + name + ": not a datetime"},
		{"WITH x AS (SELECT 1 AS a) SELECT * FROM x FOR VERSION AS OF 3", "time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on WITH x"},
		{"SELECT * FROM " + name + "$snapshots FOR VERSION AS OF 3", "time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on table " + name + "$snapshots"},
	} {
		if _, err := tryRows(db, c.q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got error %v\nwant it to contain %q", c.q, err, c.want)
		}
	}
	if got, want := rows(t, db, "SELECT snapshot_id FROM "+name+"$snapshots"), []string{"3", "4", "5"}; !slices.Equal(got, want) {
		t.Errorf("$snapshots after expiry: got %v, want %v", got, want)
	}
	if got := sortedRows(t, db, "SELECT f0, f1, f2, f3 FROM "+name+" FOR VERSION AS OF 't3'"); !slices.Equal(got, want3) {
		t.Errorf("tag t3 after expiring older snapshots:\n got %q\nwant %q", got, want3)
	}
}

// TestFlussLakeTimeTravel tiers a partitioned log table and a composite-key
// PK table in several rounds through the emulator and reads tbl$lake at each
// round's snapshot: the rows are those tiered up to it, derived by hand from
// what the test wrote. The table itself (the union read) and tbl$log refuse
// time travel; tbl$snapshots lists the rounds.
func TestFlussLakeTimeTravel(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	ctx := context.Background()
	// The shared fixture set ends with tiering frozen; these tables are
	// tiered by hand, round by round.
	f.cluster.FreezeTiering(false)
	run := func(src string) {
		t.Helper()
		sc, err := minifluss.ParseScenario(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Run(ctx, f.cluster); err != nil {
			t.Fatal(err)
		}
	}
	tier := func(tbl string) int64 {
		t.Helper()
		r, err := f.cluster.TierLake(ctx, "tt", tbl)
		if err != nil {
			t.Fatal(err)
		}
		return r.SnapshotID
	}
	run(`CREATE DATABASE tt;
CREATE TABLE tt.ev (id INT, name STRING, dt STRING) PARTITIONED BY (dt)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
CREATE TABLE tt.pk (k1 INT NOT NULL, k2 STRING NOT NULL, v BIGINT, PRIMARY KEY (k1, k2) NOT ENFORCED)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO tt.ev VALUES (1, 'a', '20260101'), (2, 'b', '20260102');
INSERT INTO tt.pk VALUES (1, 'a', 10), (1, 'b', 20), (2, 'a', 30);`)
	ev1, pk1 := tier("ev"), tier("pk")
	run(`INSERT INTO tt.ev VALUES (3, 'c', '20260101'), (4, NULL, '20260102');
INSERT INTO tt.pk VALUES (1, 'a', 11), (3, 'c', NULL);
DELETE FROM tt.pk WHERE k1 = 2 AND k2 = 'a';`)
	ev2, pk2 := tier("ev"), tier("pk")
	run(`INSERT INTO tt.ev VALUES (5, 'e', '20260101');
INSERT INTO tt.pk VALUES (1, 'b', 21);`)
	ev3, pk3 := tier("ev"), tier("pk")
	// Written after the last round: in the Fluss log only.
	run(`INSERT INTO tt.ev VALUES (6, 'f', '20260101');
INSERT INTO tt.pk VALUES (4, 'd', 40);`)

	for _, c := range []struct {
		q    string
		want []string
	}{
		{fmt.Sprintf("SELECT id, name, dt FROM fl_auto.tt.`ev$lake` FOR VERSION AS OF %d", ev1), []string{"1|a|20260101", "2|b|20260102"}},
		{fmt.Sprintf("SELECT id, name, dt FROM fl_auto.tt.`ev$lake` FOR VERSION AS OF %d", ev2), []string{"1|a|20260101", "2|b|20260102", "3|c|20260101", "4|NULL|20260102"}},
		{fmt.Sprintf("SELECT id, name, dt FROM fl_auto.tt.`ev$lake` FOR VERSION AS OF %d", ev3), []string{"1|a|20260101", "2|b|20260102", "3|c|20260101", "4|NULL|20260102", "5|e|20260101"}},
		{fmt.Sprintf("SELECT id FROM fl_auto.tt.`ev$lake` FOR VERSION AS OF %d WHERE dt = '20260102'", ev2), []string{"2", "4"}},
		{fmt.Sprintf("SELECT k1, k2, v FROM fl_auto.tt.`pk$lake` FOR VERSION AS OF %d", pk1), []string{"1|a|10", "1|b|20", "2|a|30"}},
		{fmt.Sprintf("SELECT k1, k2, v FROM fl_auto.tt.`pk$lake` FOR VERSION AS OF %d", pk2), []string{"1|a|11", "1|b|20", "3|c|NULL"}},
		{fmt.Sprintf("SELECT k1, k2, v FROM fl_auto.tt.`pk$lake` FOR VERSION AS OF %d", pk3), []string{"1|a|11", "1|b|21", "3|c|NULL"}},
		{fmt.Sprintf("SELECT v FROM fl_auto.tt.`pk$lake` FOR VERSION AS OF %d WHERE k2 = 'b'", pk2), []string{"20"}},
		// Without time travel: the lake at the last round, and the union
		// read with the untiered rows.
		{"SELECT k1, k2, v FROM fl_auto.tt.`pk$lake`", []string{"1|a|11", "1|b|21", "3|c|NULL"}},
		{"SELECT k1, k2, v FROM fl_auto.tt.pk", []string{"1|a|11", "1|b|21", "3|c|NULL", "4|d|40"}},
		{"SELECT count(*) FROM fl_auto.tt.ev", []string{"6"}},
	} {
		if got := sortedRows(t, db, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.q, got, c.want)
		}
	}
	// $snapshots lists each round; a log table's record counts follow the
	// rows tiered (2, then 2 more, then 1).
	want := []string{
		fmt.Sprintf("%d|2|2", ev1), fmt.Sprintf("%d|4|2", ev2), fmt.Sprintf("%d|5|1", ev3),
	}
	got := rows(t, db, fmt.Sprintf("SELECT snapshot_id, total_record_count, delta_record_count FROM fl_auto.tt.`ev$snapshots` WHERE snapshot_id >= %d ORDER BY snapshot_id", ev1))
	if !slices.Equal(got, want) {
		t.Errorf("ev$snapshots:\n got %q\nwant %q", got, want)
	}
	// FOR TIME AS OF a round's commit time reads that round, in the session
	// time zone (commit_time is shown in it too).
	for _, tz := range []string{"UTC", "Asia/Shanghai"} {
		mustExec(t, db, "SET time_zone = '"+tz+"'")
		at := rows(t, db, fmt.Sprintf("SELECT commit_time FROM fl_auto.tt.`pk$snapshots` WHERE snapshot_id = %d", pk2))
		if len(at) != 1 {
			t.Fatalf("pk$snapshots has no snapshot %d: %v", pk2, at)
		}
		q := fmt.Sprintf("SELECT k1, k2, v FROM fl_auto.tt.`pk$lake` FOR TIME AS OF '%s'", at[0])
		ex := strings.Join(rows(t, db, "EXPLAIN "+q), "\n")
		// Rounds in the same millisecond resolve to the later one; the
		// rows then are those of pk3 (a different answer), so only accept
		// pk2 or, when they share a commit time, pk3.
		at3 := rows(t, db, fmt.Sprintf("SELECT commit_time FROM fl_auto.tt.`pk$snapshots` WHERE snapshot_id = %d", pk3))
		wantID, wantRows := pk2, []string{"1|a|11", "1|b|20", "3|c|NULL"}
		if len(at3) == 1 && at3[0] == at[0] {
			wantID, wantRows = pk3, []string{"1|a|11", "1|b|21", "3|c|NULL"}
		}
		if !strings.Contains(ex, fmt.Sprintf("-> snapshot %d", wantID)) {
			t.Errorf("time_zone %s: EXPLAIN %s:\n%s", tz, q, ex)
		}
		if got := sortedRows(t, db, q); !slices.Equal(got, wantRows) {
			t.Errorf("time_zone %s: %s:\n got %q\nwant %q", tz, q, got, wantRows)
		}
	}
	mustExec(t, db, "SET time_zone = 'UTC'")
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM fl_auto.tt.pk FOR VERSION AS OF 1", "Time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on Fluss table 'pk'; it is supported on its lake half only: query 'pk$lake'"},
		{"SELECT * FROM fl_auto.tt.ev FOR TIME AS OF '2026-01-01 00:00:00'", "is not supported on Fluss table 'ev'"},
		{"SELECT * FROM fl_auto.tt.`ev$log` FOR VERSION AS OF 1", "is not supported on Fluss table 'ev$log'"},
		{fmt.Sprintf("SELECT * FROM fl_auto.tt.`pk$lake` FOR VERSION AS OF %d", pk3+5), fmt.Sprintf("Table tt.pk$lake has no snapshot %d: it never existed (the latest snapshot is %d; list them in tt.pk$snapshots)", pk3+5, pk3)},
		{"SELECT * FROM fl_auto.tt.`pk$lake` FOR TIME AS OF '2000-01-01'", "Table tt.pk$lake has no snapshot at or before FOR TIME AS OF '2000-01-01'"},
	} {
		if _, err := tryRows(db, c.q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got error %v\nwant it to contain %q", c.q, err, c.want)
		}
	}
}
