package server

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// wantStats runs q and compares each row's fields with want (NaN = NULL,
// strings compared exactly) to a relative 1e-9.
func wantStats(t *testing.T, got []string, q string, want ...[]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows %q, want %d", q, len(got), got, len(want))
	}
	for i, r := range got {
		fs := strings.Split(r, "|")
		if len(fs) != len(want[i]) {
			t.Fatalf("%s: row %q, want %d fields", q, r, len(want[i]))
		}
		for j, w := range want[i] {
			switch w := w.(type) {
			case string:
				if fs[j] != w {
					t.Errorf("%s: row %d field %d = %s, want %s", q, i, j, fs[j], w)
				}
			case float64:
				if math.IsNaN(w) {
					if fs[j] != "NULL" {
						t.Errorf("%s: row %d field %d = %s, want NULL", q, i, j, fs[j])
					}
					continue
				}
				v, err := strconv.ParseFloat(fs[j], 64)
				if err != nil || math.Abs(v-w) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Errorf("%s: row %d field %d = %s, want %v", q, i, j, fs[j], w)
				}
			}
		}
	}
}

// TestStddevVarianceSQL: Doris's statistical aggregates over an internal
// table through the MySQL protocol, against hand-derived values.
func TestStddevVarianceSQL(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE s (k INT, g VARCHAR(8), x INT, f DOUBLE, m DECIMAL(12, 2), b BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3",
		// a: {2,4,4,4,5,5,7,9} (mean 5, squared deviations 32); b: one
		// value; c: only NULLs; big: a + 1e9.
		`INSERT INTO s VALUES (1,'a',2,2,2.00,1000000002), (2,'a',4,4,4.00,1000000004), (3,'a',4,4,4.00,1000000004),
		 (4,'a',4,4,4.00,1000000004), (5,'a',5,5,5.00,1000000005), (6,'a',5,5,5.00,1000000005), (7,'a',7,7,7.00,1000000007),
		 (8,'a',9,9,9.00,1000000009), (9,'a',NULL,NULL,NULL,NULL), (10,'b',3,3,3.00,3), (11,'b',NULL,NULL,NULL,NULL),
		 (12,'c',NULL,NULL,NULL,NULL)`)
	n := math.NaN()
	all := "stddev(%s), std(%s), stddev_pop(%s), stddev_samp(%s), variance(%s), var_pop(%s), variance_pop(%s), var_samp(%s), variance_samp(%s)"
	for _, col := range []string{"x", "f", "m", "b"} {
		q := "SELECT g, " + strings.ReplaceAll(all, "%s", col) + " FROM s GROUP BY g ORDER BY g"
		sp, ss, vp, vs := 2.0, math.Sqrt(32.0/7), 4.0, 32.0/7
		wantStats(t, rows(t, db, q), q,
			[]any{"a", sp, sp, sp, ss, vp, vp, vp, vs, vs},
			[]any{"b", 0.0, 0.0, 0.0, n, 0.0, 0.0, 0.0, n, n},
			[]any{"c", n, n, n, n, n, n, n, n, n})
	}
	// Large offsets lose nothing: b is a + 1e9.
	q := "SELECT var_pop(b), var_samp(b) FROM s WHERE g = 'a'"
	wantRows(t, db, q, "4|"+strconv.FormatFloat(32.0/7, 'g', -1, 64))
	// Empty input: one row of NULL; empty groups: no rows.
	wantRows(t, db, "SELECT stddev(x), var_samp(x) FROM s WHERE k > 100", "NULL|NULL")
	wantRows(t, db, "SELECT g, stddev(x) FROM s WHERE k > 100 GROUP BY g")
	// Column names are the call as written (like SUM's), and the type is DOUBLE.
	r, err := db.Query("SELECT STDDEV(x), variance_samp(x), SUM(f) FROM s")
	if err != nil {
		t.Fatal(err)
	}
	cts, _ := r.ColumnTypes()
	r.Close()
	for i, want := range []string{"STDDEV(x)", "variance_samp(x)", "SUM(f)"} {
		if cts[i].Name() != want || cts[i].DatabaseTypeName() != "DOUBLE" {
			t.Errorf("column %d is %s %s, want %s DOUBLE", i, cts[i].Name(), cts[i].DatabaseTypeName(), want)
		}
	}
	// DISTINCT: a's distinct values {2,4,5,7,9} have squared deviations 29.2.
	q = "SELECT var_pop(DISTINCT x), stddev_samp(DISTINCT x) FROM s WHERE g = 'a'"
	wantStats(t, rows(t, db, q), q, []any{29.2 / 5, math.Sqrt(29.2 / 4)})
	// In expressions and HAVING.
	wantRows(t, db, "SELECT g FROM s GROUP BY g HAVING var_pop(x) * 2 = 8 ORDER BY g", "a")
	// Under OVER (TestWindowStddevSQL covers the frames): the whole table's
	// x = {2,4,4,4,5,5,7,9,3} has sum 43, sum of squares 241, so M2 =
	// 241 - 43²/9 = 320/9.
	q = "SELECT DISTINCT var_pop(x) OVER () FROM s"
	wantStats(t, rows(t, db, q), q, []any{320.0 / 81})
	if _, err := tryRows(db, "SELECT stddev(DISTINCT x) OVER () FROM s"); err == nil || !strings.Contains(err.Error(), "DISTINCT in window function stddev") {
		t.Errorf("stddev(DISTINCT) OVER (): %v", err)
	}
	wantErr(t, db, "SELECT stddev(s) FROM (SELECT CAST('2024-01-01' AS DATE) s) t", 1105, "does not accept")
	f.stop()
}

// TestStddevVarianceFluss: over a Fluss union read (lake + log tail) the
// statistical aggregates are split onto the BEs (each sends count, mean and
// M2 per group; the FE merges them with Chan's formula), and the answer
// matches the hand derivation: price = id
// for ids 1..101000, so the group id MOD 7 = r is an arithmetic progression
// of step 7 with m terms, whose population variance is 49(m²-1)/12.
func TestStddevVarianceFluss(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	q := "SELECT grp, count(price), var_pop(price), var_samp(price), stddev(id) FROM fl_req.fluss_test.big_log GROUP BY grp ORDER BY grp"
	if plan := strings.Join(rows(t, db, "EXPLAIN "+q), "\n"); !strings.Contains(plan, "partial aggregate on BE: group by grp; count(price), var_pop(") {
		t.Errorf("stddev/variance were not pushed to the BEs:\n%s", plan)
	}
	var want [][]any
	for r := 0; r < 7; r++ {
		m := 14428.0
		if r >= 1 && r <= 4 { // 101000 = 7·14428 + 4
			m++
		}
		vp := 49 * (m*m - 1) / 12
		want = append(want, []any{strconv.Itoa(r), strconv.Itoa(int(m)), vp, vp * m / (m - 1), math.Sqrt(vp)})
	}
	wantStats(t, rows(t, db, q), q, want...)
	q = "SELECT stddev_pop(id), variance_samp(price) FROM fl_req.fluss_test.big_log"
	const n = 101000.0
	wantStats(t, rows(t, db, q), q, []any{math.Sqrt((n*n - 1) / 12), n * (n + 1) / 12})
}
