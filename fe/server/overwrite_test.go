package server

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestInsertOverwrite: INSERT OVERWRITE TABLE replaces every row of an
// internal table (UNIQUE KEY and DUPLICATE KEY, VALUES and SELECT, a column
// list, reading the table itself, WITH LABEL), through a real MySQL client;
// the result survives a restart, and a failed overwrite changes nothing.
func TestInsertOverwrite(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE d",
		"USE d",
		`CREATE TABLE u (k1 INT NOT NULL, k2 VARCHAR(8), v BIGINT DEFAULT '5', s VARCHAR(20))
			UNIQUE KEY(k1, k2) DISTRIBUTED BY HASH(k1) BUCKETS 4`,
		`CREATE TABLE dup (k INT, v INT, s VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2`,
		"INSERT INTO u VALUES (1, 'a', 10, 'x'), (1, 'b', 11, 'y'), (2, NULL, 20, 'z'), (3, 'c', 30, NULL)",
		"INSERT INTO u VALUES (1, 'a', 100, 'x2')",
		"INSERT INTO dup VALUES (1, 10, 'a'), (2, 20, NULL), (3, 30, 'c'), (1, 40, 'd'), (4, NULL, 'e')",
		"DELETE FROM dup WHERE k = 4",
	)

	// VALUES with a column list: absent columns get their default or NULL;
	// within the statement the later row of a key wins.
	mustExec(t, db, "INSERT OVERWRITE TABLE u (k1, k2, s) VALUES (2, NULL, 'n'), (9, 'z', 'p'), (9, 'z', 'q')")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2", "2|NULL|5|n", "9|z|5|q")

	// SELECT reading the table it overwrites: it reads the old rows.
	mustExec(t, db, "INSERT OVERWRITE TABLE dup SELECT k + 10, v * 2, concat(s, '!') FROM dup WHERE k <> 3")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "11|20|a!", "11|80|d!", "12|40|NULL")

	// From another table, with a label; a replay of the label is refused and
	// changes nothing.
	mustExec(t, db, "INSERT OVERWRITE TABLE u WITH LABEL ow_1 SELECT k, 'k', v, s FROM dup")
	wantErr(t, db, "INSERT OVERWRITE TABLE u WITH LABEL ow_1 VALUES (7, 'x', 7, 'x')", 1105, "Label [ow_1] has already been used, relate to txn [")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2", "11|k|80|d!", "12|k|40|NULL")

	// A failing overwrite (a NULL into a NOT NULL key, found mid-stream)
	// leaves the old rows; so do a wrong column count and an unknown column.
	wantErr(t, db, "INSERT OVERWRITE TABLE u SELECT NULL, 'x', 1, 'y'", 1105, "Column 'k1' is NOT NULL but the inserted data contains NULL")
	wantErr(t, db, "INSERT OVERWRITE TABLE u VALUES (1, 'a')", 1136, "Column count doesn't match value count")
	wantErr(t, db, "INSERT OVERWRITE TABLE u (k1, nope) VALUES (1, 'a')", 1054, "Unknown column 'nope'")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2", "11|k|80|d!", "12|k|40|NULL")

	// Later inserts add to the new rows; UPDATE and DELETE act on them.
	mustExec(t, db, "INSERT INTO u VALUES (11, 'k', 81, 'later')", "UPDATE u SET v = v + 1 WHERE k1 = 12", "DELETE FROM dup WHERE k = 12")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2", "11|k|81|later", "12|k|41|NULL")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "11|20|a!", "11|80|d!")

	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("d")
	wantRows(t, db, "SELECT k1, k2, v, s FROM u ORDER BY k1, k2", "11|k|81|later", "12|k|41|NULL")
	wantRows(t, db, "SELECT k, v, s FROM dup ORDER BY k, v", "11|20|a!", "11|80|d!")
	wantErr(t, db, "INSERT OVERWRITE TABLE u WITH LABEL ow_1 VALUES (7, 'x', 7, 'x')", 1105, "Label [ow_1] has already been used")
	// An overwrite with no rows empties the table, after a restart too.
	mustExec(t, db, "INSERT OVERWRITE TABLE dup SELECT k, v, s FROM dup WHERE k < 0")
	wantRows(t, db, "SELECT count(*) FROM dup", "0")
	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("d")
	wantRows(t, db, "SELECT count(*) FROM dup", "0")
	wantRows(t, db, "SELECT count(*) FROM u", "2")
	// Tables Inlet cannot overwrite say so.
	wantErr(t, db, "INSERT OVERWRITE TABLE information_schema.tables SELECT * FROM information_schema.tables", 1235, "table tables does not support INSERT OVERWRITE")
	f.stop()
}

// TestInsertOverwriteAtomic: readers running beside repeated overwrites of a
// table with several thousand rows see the whole old set or the whole new
// one, never a mix or an empty table.
func TestInsertOverwriteAtomic(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE n (i INT) DUPLICATE KEY(i) DISTRIBUTED BY HASH(i) BUCKETS 1",
		"INSERT INTO n VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
		`CREATE TABLE t (k INT NOT NULL, v BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3`,
	)
	// 10^4 rows: k = 0..9999, v = gen.
	fill := func(gen int) string {
		return fmt.Sprintf("INSERT OVERWRITE TABLE t SELECT a.i + 10*b.i + 100*c.i + 1000*e.i, %d FROM n a, n b, n c, n e", gen)
	}
	mustExec(t, db, fill(1))
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	stop := make(chan struct{})
	reader := f.db("d")
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, err := tryRows(reader, "SELECT count(*), min(v), max(v), sum(k) FROM t")
			reads.Add(1)
			if err == nil && (len(got) != 1 || !wholeGen(got[0])) {
				err = fmt.Errorf("a reader saw %q: not one whole generation", got)
			}
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
		}
	}()
	// Overwrite until the reader has read often enough (bounded).
	gens := 1
	for gens < 6 || (reads.Load() < 20 && gens < 200) {
		gens++
		mustExec(t, db, fill(gens))
	}
	t.Logf("%d overwrites, %d reads beside them", gens-1, reads.Load())
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	wantRows(t, db, "SELECT count(*), min(v), max(v), sum(k) FROM t", fmt.Sprintf("10000|%d|%d|49995000", gens, gens))
	f.stop()
}

// wholeGen: count 10^4, one generation in v (min = max), keys 0..9999
// (sum 49995000).
func wholeGen(row string) bool {
	f := strings.Split(row, "|")
	return len(f) == 4 && f[0] == "10000" && f[1] == f[2] && f[3] == "49995000"
}
