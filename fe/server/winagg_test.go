package server

import "testing"

// Window functions over an aggregating block (issue 24): they run after
// GROUP BY and HAVING, over the groups, and their arguments, PARTITION BY
// and ORDER BY may use the block's aggregates (Doris and MySQL alike).
// Rows (g, h, v), groups derived by hand:
//
//	(a,1,10) (a,2,20) (a,NULL,5) (b,1,7) (NULL,1,3)
//	GROUP BY g: a 35 (3 rows), b 7 (1), NULL 3 (1); total 45.
func TestWindowOverAggregates(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE wa", "USE wa",
		`CREATE TABLE t (g VARCHAR(10), h INT, v INT) DISTRIBUTED BY HASH(v) BUCKETS 3`,
		"INSERT INTO t VALUES ('a', 1, 10), ('a', 2, 20), ('a', NULL, 5), ('b', 1, 7), (NULL, 1, 3)")
	for _, c := range []struct {
		q    string
		want []string
	}{
		// The aggregate only in the window's ORDER BY (was "aggregate
		// sum(v) not collected").
		{"SELECT g, rank() OVER (ORDER BY sum(v) DESC) FROM t GROUP BY g ORDER BY g",
			[]string{"NULL|3", "a|1", "b|2"}},
		// An aggregate of aggregates (was "nested aggregate"): the share
		// of each group, 3/45, 35/45, 7/45 as DOUBLE (Doris's int / int).
		{"SELECT g, sum(v), sum(sum(v)) OVER (), sum(v) / sum(sum(v)) OVER () FROM t GROUP BY g ORDER BY g",
			[]string{"NULL|3|45|0.06666666666666667", "a|35|45|0.7777777777777778", "b|7|45|0.15555555555555556"}},
		// Running total per g over h (NULL first): a: 5, 15, 35.
		{"SELECT g, h, sum(sum(v)) OVER (PARTITION BY g ORDER BY h), max(count(*)) OVER (PARTITION BY g) FROM t GROUP BY g, h ORDER BY g, h",
			[]string{"NULL|1|3|1", "a|NULL|5|1", "a|1|15|1", "a|2|35|1", "b|1|7|1"}},
		// PARTITION BY an aggregate, after HAVING dropped g = NULL: counts
		// a 3, b 1, so each group is alone in its partition.
		{"SELECT g, row_number() OVER (PARTITION BY count(*) ORDER BY g), lag(sum(v)) OVER (ORDER BY g) FROM t GROUP BY g HAVING g IS NOT NULL ORDER BY g",
			[]string{"a|1|NULL", "b|1|35"}},
		// No GROUP BY: one group, the window sees one row.
		{"SELECT count(*), rank() OVER (ORDER BY sum(v)), sum(count(*)) OVER () FROM t",
			[]string{"5|1|5"}},
		// ORDER BY a window over aggregates.
		{"SELECT g FROM t GROUP BY g ORDER BY rank() OVER (ORDER BY sum(v))",
			[]string{"NULL", "b", "a"}},
		// Over grouping sets: rank within GROUPING(h). h grouped: sums 3
		// (NULL,1), 5 (a,NULL), 7 (b,1), 10 (a,1), 20 (a,2); h rolled up:
		// 3 (g NULL), 7 (b), 35 (a), 45 (total).
		{"SELECT g, h, sum(v), rank() OVER (PARTITION BY grouping(h) ORDER BY sum(v)) FROM t GROUP BY ROLLUP(g, h) ORDER BY grouping(h), sum(v)",
			[]string{"NULL|1|3|1", "a|NULL|5|2", "b|1|7|3", "a|1|10|4", "a|2|20|5",
				"NULL|NULL|3|1", "b|NULL|7|2", "a|NULL|35|3", "NULL|NULL|45|4"}},
	} {
		wantRows(t, db, c.q, c.want...)
	}
	// Still refused: an aggregate inside an aggregate without OVER, and a
	// column neither grouped nor aggregated under a window.
	wantErr(t, db, "SELECT sum(sum(v)) FROM t GROUP BY g", 1105, "nested aggregate in sum")
	wantErr(t, db, "SELECT g, sum(v) OVER () FROM t GROUP BY g", 1105, "v not in aggregate's output")
}
