package server

import (
	"strings"
	"testing"
)

// TestAnalyzeTable: ANALYZE TABLE computes what SHOW COLUMN STATS shows (the
// values are counted by hand from the rows inserted), and the statistics
// survive a restart with the table's metadata.
func TestAnalyzeTable(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE s", "USE s",
		"CREATE TABLE t (k INT, name VARCHAR(10), d DATE, p DECIMAL(10,2)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO t VALUES (1, 'b', '2024-01-02', 1.50), (2, 'a', '2024-03-01', NULL), (2, 'b', NULL, 9.25), (7, NULL, '2023-12-31', 2.00)")
	// Before ANALYZE: no column statistics, the row count from the load.
	wantRows(t, db, "SHOW COLUMN STATS t")
	if got := rows(t, db, "SHOW TABLE STATS t"); len(got) != 1 || strings.Split(got[0], "|")[2] != "4" {
		t.Errorf("SHOW TABLE STATS before ANALYZE: %q", got)
	}
	mustExec(t, db, "ANALYZE TABLE t WITH SYNC")
	// column_name, count, ndv, num_null, min, max
	want := []string{
		"k|4|3|0|1|7",
		"name|4|2|1|'a'|'b'",
		"d|4|3|1|2023-12-31|2024-03-01",
		"p|4|3|1|1.5|9.25",
	}
	check := func() {
		t.Helper()
		var got []string
		for _, r := range rows(t, db, "SHOW COLUMN STATS t") {
			c := strings.Split(r, "|")
			if c[1] != "t" || c[9] != "FULL" {
				t.Errorf("index_name/method: %q", r)
			}
			got = append(got, strings.Join([]string{c[0], c[2], c[3], c[4], c[7], c[8]}, "|"))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SHOW COLUMN STATS:\n got %q\nwant %q", got, want)
		}
	}
	check()
	if got := rows(t, db, "SHOW COLUMN STATS t (name)"); len(got) != 1 || !strings.HasPrefix(got[0], "name|") {
		t.Errorf("SHOW COLUMN STATS t (name): %q", got)
	}
	wantErr(t, db, "SHOW COLUMN STATS t (nope)", 1054, "Unknown column 'nope'")
	if got := rows(t, db, "SHOW TABLE STATS t"); len(got) != 1 || strings.Split(got[0], "|")[4] != "[k, name, d, p]" {
		t.Errorf("SHOW TABLE STATS: %q", got)
	}
	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("s")
	check()
}
