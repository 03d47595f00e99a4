package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestParallelJoinsSessionVariable: joins of every kind, grouped
// aggregates (DISTINCT included) and decimal products run through a real
// client at parallel_pipeline_task_num 1 (one goroutine per operator), 2
// and 0 (every core) give the same rows; the counts are also derived
// here row by row.
func TestParallelJoinsSessionVariable(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE pj", "USE pj",
		"CREATE TABLE f (id BIGINT, k INT, v BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ('replication_num' = '1')",
		"CREATE TABLE d (id BIGINT, k INT, v BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ('replication_num' = '1')")
	const n, dims = 60_000, 800
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	fk := func(id int64) int32 { return int32(id % 1000) }
	fv := func(id int64) (int64, bool) { return id * 7 % 1000, id%13 != 0 }
	appendRows(t, f, "pj", "f", ids, fk, fv)
	dk := func(id int64) int32 { return int32(id % 10) }
	dv := func(id int64) (int64, bool) { return id * 3 % 1000, id != 5 }
	appendRows(t, f, "pj", "d", ids[:dims], dk, dv)

	// Row-by-row answers for some of the queries.
	inner := map[int32]int{} // d.k -> rows of f JOIN d ON f.k = d.id WHERE f.v > 100
	semi, notIn := 0, 0
	for id := int64(0); id < n; id++ {
		k := fk(id)
		if v, ok := fv(id); ok && v > 100 && int64(k) < dims {
			inner[dk(int64(k))]++
		}
		if int64(k) < dims && k%2 == 0 {
			semi++ // k IN (SELECT id FROM d WHERE id % 2 = 0)
		}
		if k >= 500 {
			notIn++ // k NOT IN (SELECT id FROM d WHERE id < 500)
		}
	}
	var innerRows []string
	for k := int32(0); k < 10; k++ {
		innerRows = append(innerRows, fmt.Sprintf("%d|%d", k, inner[k]))
	}

	queries := []struct {
		sql  string
		want []string // nil: only compared across settings
	}{
		{"SELECT d.k, count(*) FROM f JOIN d ON f.k = d.id WHERE f.v > 100 GROUP BY d.k ORDER BY d.k", innerRows},
		{"SELECT d.k, sum(f.v), count(DISTINCT f.v), sum(CAST(f.v AS DECIMAL(15,2)) * (1 - CAST(d.v AS DECIMAL(15,2)) / 1000) * (1 + 0.05)) FROM f JOIN d ON f.k = d.id GROUP BY d.k ORDER BY d.k", nil},
		{"SELECT count(*), count(d.id), sum(f.v) FROM f LEFT JOIN d ON f.k = d.id AND d.v > 600", nil},
		{"SELECT f.id, d.v FROM f LEFT JOIN d ON f.k = d.id WHERE f.id < 3000 ORDER BY f.id", nil},
		{"SELECT count(*) FROM f WHERE f.k IN (SELECT id FROM d WHERE id % 2 = 0)", []string{fmt.Sprint(semi)}},
		{"SELECT count(*) FROM f WHERE f.k NOT IN (SELECT id FROM d WHERE id < 500)", []string{fmt.Sprint(notIn)}},
		{"SELECT count(*) FROM f WHERE f.v NOT IN (SELECT v FROM d)", []string{"0"}}, // d.v has a NULL
		{"SELECT count(*) FROM f WHERE NOT EXISTS (SELECT 1 FROM d WHERE d.id = f.k AND d.v < 500)", nil},
		{"SELECT d.k, group_concat(f.v) FROM f JOIN d ON f.k = d.id WHERE f.id < 5000 GROUP BY d.k ORDER BY d.k", nil},
	}
	got := map[string][]string{}
	for _, par := range []int{1, 2, 0} {
		mustExec(t, db, fmt.Sprintf("SET parallel_pipeline_task_num = %d", par))
		for _, q := range queries {
			r := rows(t, db, q.sql)
			if q.want != nil && strings.Join(r, "\n") != strings.Join(q.want, "\n") {
				t.Errorf("parallel %d: %s:\ngot  %v\nwant %v", par, q.sql, r, q.want)
			}
			if prev, ok := got[q.sql]; ok && strings.Join(prev, "\n") != strings.Join(r, "\n") {
				t.Errorf("parallel %d: %s differs from parallel 1", par, q.sql)
			}
			got[q.sql] = r
		}
	}
}
