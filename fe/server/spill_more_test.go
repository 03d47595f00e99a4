package server

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 23, the operators the first spill work left in memory: DISTINCT
// aggregates (grouped and not), GROUP_CONCAT, ARRAY_AGG, a window over
// partitions, NOT IN and a Top-N whose N rows pass exec_mem_limit each
// fail with the memory error without enable_spill and, with it, finish
// with the answer derived by hand from big (id 0..99999, pad 194 p's and
// the id in 6 digits), leaving nothing in the spill directory and nothing
// held by the FE's allocator.
func TestSpillMoreOperators(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	bigTable(t, db)
	root := dir + "/data/spill"
	mustExec(t, db, fmt.Sprintf("SET exec_mem_limit = %d", spillLimit))
	pad := func(id int) string { return strings.Repeat("p", 194) + fmt.Sprintf("%06d", id) }
	const n = memLimitRows
	cases := []struct {
		name, q string
		want    []string
	}{
		{"count distinct", "SELECT count(DISTINCT pad), min(DISTINCT pad), max(DISTINCT pad), count(*) FROM big",
			[]string{fmt.Sprintf("%d|%s|%s|%d", n, pad(0), pad(n-1), n)}},
		// Two DISTINCT arguments: each row goes out once per argument.
		{"distinct of two arguments", "SELECT sum(DISTINCT id), count(DISTINCT pad), count(*), max(id) FROM big",
			[]string{fmt.Sprintf("%d|%d|%d|%d", n*(n-1)/2, n, n, n-1)}},
		// Every value twice, in two halves of the input.
		{"count distinct of duplicates", "SELECT count(DISTINCT pad) FROM (SELECT pad FROM big UNION ALL SELECT pad FROM big) u",
			[]string{fmt.Sprint(n)}},
		// id % 10 groups of 10^4 distinct pads each.
		{"grouped count distinct", "SELECT count(*), sum(c), min(c) FROM (SELECT id % 10 AS k, count(DISTINCT pad) AS c FROM big GROUP BY id % 10) g",
			[]string{fmt.Sprintf("10|%d|%d", n, n/10)}},
		// 1000 groups of 100 pads of 200 characters and 99 commas.
		{"group_concat", "SELECT count(*), sum(length(g)) FROM (SELECT id % 1000 AS k, group_concat(pad) AS g FROM big GROUP BY id % 1000) s",
			[]string{fmt.Sprintf("1000|%d", n*200+1000*99)}},
		{"array_agg", "SELECT count(*), sum(size(a)), min(size(a)) FROM (SELECT id % 1000 AS k, array_agg(pad) AS a FROM big GROUP BY id % 1000) s",
			[]string{fmt.Sprintf("1000|%d|100", n)}},
		// Partition id % 100 in pad (= id) order: the row number of id is
		// id DIV 100 + 1.
		{"window", "SELECT count(*), sum(r * 100 = id - id % 100 + 100), max(r) FROM " +
			"(SELECT id, row_number() OVER (PARTITION BY id % 100 ORDER BY pad) AS r FROM big) w",
			[]string{fmt.Sprintf("%d|%d|%d", n, n, n/100)}},
		// One partition of every row, in pad (= id) order: row id+1.
		{"window without partition", "SELECT count(*), sum(r = id + 1), sum(k = id + 1), max(d) FROM " +
			"(SELECT id, row_number() OVER (ORDER BY pad) AS r, rank() OVER (ORDER BY pad) AS k, dense_rank() OVER (ORDER BY pad) AS d FROM big) w",
			[]string{fmt.Sprintf("%d|%d|%d|%d", n, n, n, n)}},
		// The odd ids: 1 + 3 + … + 99999 = 50000².
		{"not in", "SELECT count(*), sum(id) FROM big WHERE pad NOT IN (SELECT pad FROM big WHERE id % 2 = 0)",
			[]string{fmt.Sprintf("%d|%d", n/2, 50000*50000)}},
		{"not in a set with NULL", "SELECT count(*) FROM big WHERE pad NOT IN (SELECT CASE WHEN id = 4 THEN NULL ELSE pad END FROM big WHERE id % 2 = 0)",
			[]string{"0"}},
		// pad DESC: ids 99999 down; offset 10, then 60000 rows.
		{"top-n", "SELECT count(*), min(id), max(id), sum(id) FROM (SELECT id, pad FROM big ORDER BY pad DESC LIMIT 60000 OFFSET 10) s",
			[]string{fmt.Sprintf("60000|%d|%d|%d", n-10-60000, n-11, (n-10-60000+n-11)*60000/2)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustExec(t, db, "SET enable_spill = false")
			wantMemLimit(t, db, c.q, spillLimit)
			mustExec(t, db, "SET enable_spill = true")
			before := f.fe.Server.spill.bytes.Load()
			wantRows(t, db, c.q, c.want...)
			if f.fe.Server.spill.bytes.Load() == before {
				t.Errorf("nothing was spilled")
			}
			if left := spillFiles(t, root); len(left) != 0 {
				t.Errorf("left in the spill directory: %v", left)
			}
			if n := f.mem.CurrentAlloc(); n != 0 {
				t.Errorf("the FE allocator holds %d bytes after the query", n)
			}
		})
	}
	// The Top-N's rows come in order.
	got := rows(t, db, "SELECT id FROM big ORDER BY pad DESC LIMIT 60000")
	for i, r := range got {
		if r != fmt.Sprint(n-1-i) {
			t.Fatalf("row %d = %s, want %d", i, r, n-1-i)
		}
	}
}
