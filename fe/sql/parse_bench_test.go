package sql

import "testing"

var benchQueries = []struct{ name, sql string }{
	{"point", "SELECT /*+ SET_VAR(fluss_union_read_mode='required') */ a, count(*) FROM fluss.db.tbl WHERE dt = '20260101' AND b > 10 GROUP BY a ORDER BY a DESC LIMIT 10"},
	{"join", "WITH c AS (SELECT k, sum(v) AS s FROM fluss.db.`tbl$lake` GROUP BY k) SELECT t.k, c.s, CASE WHEN c.s > 100 THEN 'big' ELSE 'small' END AS size, row_number() OVER (PARTITION BY t.g ORDER BY c.s DESC) AS rn FROM fluss.db.tbl t LEFT JOIN c ON t.k = c.k WHERE t.dt BETWEEN '2026-01-01' AND '2026-01-31' AND t.name LIKE 'a%' AND t.id IN (1, 2, 3, 4, 5) ORDER BY rn LIMIT 100"},
	{"create_catalog", "CREATE CATALOG fluss_lake PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '10.0.0.1:9123', 'fluss.lake.paimon.s3.endpoint' = 'http://minio:9000', 'fluss.lake.paimon.s3.access-key' = '<ak>', 'fluss.lake.paimon.s3.secret-key' = '<sk>')"},
}

func BenchmarkParse(b *testing.B) {
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			b.SetBytes(int64(len(q.sql)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(q.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
