package server

import (
	"fmt"
	"testing"
)

// TestTopNArrayWeighted: the examples of Doris's TOPN_ARRAY and
// TOPN_WEIGHTED pages. Page 1 is visited 4 times, 2 twice, 3 and 4 once:
// the top 3 is [1, 2, 4] (equal counts: the value first seen last comes
// first, as Doris's hash table hands them to its sort); by summed sale
// amount 1 has 570, 2 130, 4 90, 3 75. No row, or only NULLs, is NULL.
func TestTopNArrayWeighted(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE tn", "USE tn",
		"CREATE TABLE page_visits (page_id INT, user_id INT, visit_date DATE) DISTRIBUTED BY HASH(page_id) BUCKETS 1",
		`INSERT INTO page_visits VALUES (1, 101, '2024-01-01'), (2, 102, '2024-01-01'), (1, 103, '2024-01-01'), (3, 101, '2024-01-01'),
			(1, 104, '2024-01-01'), (2, 105, '2024-01-01'), (1, 106, '2024-01-01'), (4, 107, '2024-01-01')`,
		"CREATE TABLE product_sales (product_id INT, sale_amount DECIMAL(10,2), sale_date DATE) DISTRIBUTED BY HASH(product_id) BUCKETS 1",
		`INSERT INTO product_sales VALUES (1, 100.00, '2024-01-01'), (2, 50.00, '2024-01-01'), (1, 150.00, '2024-01-01'), (3, 75.00, '2024-01-01'),
			(1, 200.00, '2024-01-01'), (2, 80.00, '2024-01-01'), (1, 120.00, '2024-01-01'), (4, 90.00, '2024-01-01')`,
		"CREATE TABLE g (k INT, s VARCHAR(8), w DOUBLE) DISTRIBUTED BY HASH(k) BUCKETS 3",
		"INSERT INTO g VALUES (1, 'a', 1), (1, 'b', 5), (1, 'a', 1), (2, 'c', NULL), (2, 'd', 2), (3, NULL, 1)")
	for _, c := range []struct{ q, want string }{
		{"SELECT TOPN_ARRAY(page_id, 3) AS top_pages FROM page_visits", "[1, 2, 4]"},
		{"SELECT TOPN_ARRAY(page_id, 3, 100) FROM page_visits WHERE page_id IS NULL", "NULL"},
		{"SELECT TOPN_WEIGHTED(product_id, sale_amount, 3) AS top_products FROM product_sales", "[1, 2, 4]"},
		{"SELECT TOPN_WEIGHTED(product_id, sale_amount, 3) FROM product_sales WHERE product_id IS NULL", "NULL"},
		// Per group; strings keep their type; a NULL weight skips its row.
		{"SELECT k, topn_array(s, 1), topn_weighted(s, w, 2) FROM g GROUP BY k ORDER BY k",
			`1|["a"]|["b", "a"]` + "\n" + `2|["d"]|["d"]` + "\n" + "3|NULL|NULL"},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}
	wantErr(t, db, "SELECT topn_array(page_id, 0) FROM page_visits", 1105, "the count must be a positive integer constant")
}

// TestCountByEnum is Doris's COUNT_BY_ENUM page and regression test
// (test_aggregate_count_by_enum: every get_json_string of its .out file),
// plus the whole JSON of the page's three-column example: values last
// seen first, NULLs counted apart.
func TestCountByEnum(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE cbe", "USE cbe",
		"CREATE TABLE count_by_enum_test (id VARCHAR(1024), f1 TEXT, f2 TEXT, f3 TEXT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1",
		`INSERT INTO count_by_enum_test VALUES (1, "F", "10", "China"), (2, "F", "20", "China"), (3, "M", NULL, "United States"),
			(4, "M", NULL, "United States"), (5, "M", NULL, "England")`)
	wantRows(t, db, "SELECT count_by_enum(f1, f2, f3) FROM count_by_enum_test",
		`[{"cbe":{"M":3,"F":2},"notnull":5,"null":0,"all":5},{"cbe":{"20":1,"10":1},"notnull":2,"null":3,"all":5},{"cbe":{"England":1,"United States":2,"China":2},"notnull":5,"null":0,"all":5}]`)
	// The .out file's 25 answers, in order.
	want := []string{"2", "3", "5", "0", "5", "NULL", "NULL", "2", "3", "5", "2", "3", "5", "0", "5",
		"NULL", "NULL", "2", "3", "5", "NULL", "NULL", "5", "0", "5"}
	var qs []string
	for _, args := range []string{"f1", "f2"} {
		for _, p := range []string{"cbe.F", "cbe.M", "notnull", "null", "all"} {
			qs = append(qs, fmt.Sprintf("SELECT get_json_string(count_by_enum(%s), '$.[0].%s') FROM count_by_enum_test", args, p))
		}
	}
	for i := 0; i < 3; i++ {
		for _, p := range []string{"cbe.F", "cbe.M", "notnull", "null", "all"} {
			qs = append(qs, fmt.Sprintf("SELECT get_json_string(count_by_enum(f1,f2,f3), '$.[%d].%s') FROM count_by_enum_test", i, p))
		}
	}
	for i, q := range qs {
		wantRows(t, db, q, want[i])
	}
	wantRows(t, db, "SELECT id, count_by_enum(f2) FROM count_by_enum_test WHERE id IN ('1', '3') GROUP BY id ORDER BY id",
		`1|[{"cbe":{"10":1},"notnull":1,"null":0,"all":1}]`, `3|[{"cbe":{},"notnull":0,"null":1,"all":1}]`)
	wantRows(t, db, "SELECT count_by_enum(f1) FROM count_by_enum_test WHERE id = 'none'", `[{"cbe":{},"notnull":0,"null":0,"all":0}]`)
}

// TestPercentileApproxWeighted: Doris's PERCENTILE_APPROX_WEIGHTED page
// (weighted scores: 95.3499984741211 at p 0.9 for every compression; only
// the one score above 95 gives 95.5; a NULL compression leaves no row) and
// its regression test's table, derived by hand: the values sorted with
// their weights 1(10) 2(6) 3(4) 4(2) 5(2) 5(4) 6(1) (total 29) put the
// centroids at 5, 13, 18, 21, 23, 26, 28.5; p·29 interpolates between
// the two centres around it, in float32 (p 0.35: 10.15 between 5 and 13
// is 1 + 5.15/8 = 1.64375; p 0.1 is below the first half-weight: 1; p
// 0.99 is past the last centre: 6). Weights 0 and -1 are skipped.
func TestPercentileApproxWeighted(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE paw", "USE paw",
		"CREATE TABLE weighted_scores (student_id INT, score DECIMAL(10, 2), weight INT) DUPLICATE KEY(student_id) DISTRIBUTED BY HASH(student_id) BUCKETS 3",
		`INSERT INTO weighted_scores VALUES (1, 85.5, 1), (2, 90.0, 2), (3, 75.5, 1), (4, 95.5, 3), (5, 88.0, 2), (6, 92.5, 2),
			(7, 78.0, 1), (8, 89.5, 2), (9, 94.0, 3), (10, 83.5, 1)`,
		"CREATE TABLE quantile_weighted_table (k INT, w INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO quantile_weighted_table VALUES (1,10),(2,6),(3,4),(4,2),(5,2),(6,1),(5,4)")
	wantRows(t, db, `SELECT percentile_approx_weighted(score, weight, 0.9), percentile_approx_weighted(score, weight, 0.9, 2048),
		percentile_approx_weighted(score, weight, 0.9, 10000) FROM weighted_scores`, "95.3499984741211|95.3499984741211|95.3499984741211")
	wantRows(t, db, "SELECT percentile_approx_weighted(if(score>95,score,null), weight, 0.9) FROM weighted_scores", "95.5")
	wantRows(t, db, "SELECT percentile_approx_weighted(score, weight, 0.9, null) FROM weighted_scores", "NULL")
	q := `SELECT percentile_approx_weighted(k,w,0.1), percentile_approx_weighted(k,w,0.35), percentile_approx_weighted(k,w,0.55),
		percentile_approx_weighted(k,w,0.78), percentile_approx_weighted(k,w,0.99) FROM quantile_weighted_table`
	// p 0.55: 15.95 between 13 (2) and 18 (3): 2 + 2.95/5 = 2.59; p 0.78:
	// 22.62 between 21 (4) and 23 (5): 4 + 1.62/2 = 4.81; each step rounded
	// to float32 as Doris's t-digest computes (worked through with
	// Python's struct float32 rounding: 2.5900001525878906, ...).
	want := "1|1.6437499523162842|2.5900001525878906|4.809999465942383|6"
	wantRows(t, db, q, want)
	mustExec(t, db, "INSERT INTO quantile_weighted_table VALUES (7,0),(8,-1)")
	wantRows(t, db, q, want)
	wantRows(t, db, "SELECT k, percentile_approx_weighted(k, w, 0.5) FROM quantile_weighted_table WHERE k >= 5 GROUP BY k ORDER BY k",
		"5|5", "6|6", "7|NULL", "8|NULL")
}

// TestHistograms: Doris's HISTOGRAM page (c_float and c_string examples,
// the empty histogram over NULLs), the two-bucket histograms of its
// regression test over the whole table (test_aggregate_histogram.out:
// ceil(n / buckets) values per bucket, equal values never split), and
// LINEAR_HISTOGRAM's page example: a = 1..10 twice, width 2 (offset 0
// and 1).
func TestHistograms(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE hg", "USE hg",
		"CREATE TABLE histogram_test (c_int INT, c_float FLOAT, c_string VARCHAR(20)) DISTRIBUTED BY HASH(c_int) BUCKETS 1",
		`INSERT INTO histogram_test VALUES (1, 0.1, 'str1'), (2, 0.2, 'str2'), (3, 0.8, 'str3'), (4, 0.9, 'str4'), (5, 1.0, 'str5'),
			(6, 1.0, 'str6'), (NULL, NULL, 'str7')`,
		`CREATE TABLE h2 (c_id INT, c_bool BOOLEAN, c_tinyint TINYINT, c_smallint SMALLINT, c_bigint BIGINT, c_largeint LARGEINT,
			c_double DOUBLE, c_char CHAR(1), c_varchar VARCHAR(10), c_date DATE, c_date_time DATETIME, c_date_timev2 DATETIME(6),
			c_string_not_null VARCHAR(10) NOT NULL) DISTRIBUTED BY HASH(c_id) BUCKETS 3`,
		`INSERT INTO h2 VALUES
			(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(1, false, 10, 20, 4444444444444, 55555555555, 0.222, 'c', 'varchar1', '2022-12-01', '2022-12-01 22:23:23', '2022-12-01 22:23:24.999999', 'not null'),
			(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(1, false, 11, 21, 4444444444444, 55555555555, 0.222, 'c', 'varchar1', '2022-12-01', '2022-12-01 22:23:23', '2022-12-01 22:23:24.999999', 'not null'),
			(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(1, true, 11, 12, 1444444444444, 1555555555, 1.222, 'd', 'varchar2', '2022-12-02', '2022-12-02 22:23:23', '2022-12-02 22:23:24.999999', 'not null'),
			(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(2, false, 21, 22, 2444444444444, 255555555, 2.222, 'f', 'varchar3', '2022-12-03', '2022-12-03 22:23:23', '2022-12-03 22:23:24.999999', 'not null'),
			(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(2, true, 31, 32, 3444444444444, 3555555555, 3.222, 'l', 'varchar3', '2022-12-03', '2022-12-03 22:23:23', '2022-12-03 22:23:24.999999', 'not null'),
			(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'not null'),
			(2, false, 10, 20, 944444444444, 9555555555, 9.222, 'p', 'varchar9', '2022-12-09', '2022-12-09 22:23:23', '2022-12-09 22:23:24.999999', 'not null')`,
		"CREATE TABLE lh (a INT) DISTRIBUTED BY HASH(a) BUCKETS 3",
		"INSERT INTO lh VALUES (1),(1),(2),(2),(3),(3),(4),(4),(5),(5),(6),(6),(7),(7),(8),(8),(9),(9),(10),(10),(NULL)")
	wantRows(t, db, "SELECT histogram(c_float) FROM histogram_test",
		`{"num_buckets":5,"buckets":[{"lower":"0.1","upper":"0.1","ndv":1,"count":1,"pre_sum":0},{"lower":"0.2","upper":"0.2","ndv":1,"count":1,"pre_sum":1},{"lower":"0.8","upper":"0.8","ndv":1,"count":1,"pre_sum":2},{"lower":"0.9","upper":"0.9","ndv":1,"count":1,"pre_sum":3},{"lower":"1","upper":"1","ndv":1,"count":2,"pre_sum":4}]}`)
	wantRows(t, db, "SELECT histogram(c_string, 2), hist(c_string, 2) = histogram(c_string, 2) FROM histogram_test",
		`{"num_buckets":2,"buckets":[{"lower":"str1","upper":"str4","ndv":4,"count":4,"pre_sum":0},{"lower":"str5","upper":"str7","ndv":3,"count":3,"pre_sum":4}]}|1`)
	wantRows(t, db, "SELECT histogram(c_float) FROM histogram_test WHERE c_float IS NULL", `{"num_buckets":0,"buckets":[]}`)
	cols := []struct{ col, want string }{
		{"c_bool", `{"num_buckets":2,"buckets":[{"lower":"0","upper":"0","ndv":1,"count":4,"pre_sum":0},{"lower":"1","upper":"1","ndv":1,"count":2,"pre_sum":4}]}`},
		{"c_tinyint", `{"num_buckets":2,"buckets":[{"lower":"10","upper":"11","ndv":2,"count":4,"pre_sum":0},{"lower":"21","upper":"31","ndv":2,"count":2,"pre_sum":4}]}`},
		{"c_smallint", `{"num_buckets":2,"buckets":[{"lower":"12","upper":"20","ndv":2,"count":3,"pre_sum":0},{"lower":"21","upper":"32","ndv":3,"count":3,"pre_sum":3}]}`},
		{"c_bigint", `{"num_buckets":2,"buckets":[{"lower":"944444444444","upper":"2444444444444","ndv":3,"count":3,"pre_sum":0},{"lower":"3444444444444","upper":"4444444444444","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_largeint", `{"num_buckets":2,"buckets":[{"lower":"255555555","upper":"3555555555","ndv":3,"count":3,"pre_sum":0},{"lower":"9555555555","upper":"55555555555","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_double", `{"num_buckets":2,"buckets":[{"lower":"0.222","upper":"1.222","ndv":2,"count":3,"pre_sum":0},{"lower":"2.222","upper":"9.222","ndv":3,"count":3,"pre_sum":3}]}`},
		{"c_char", `{"num_buckets":2,"buckets":[{"lower":"c","upper":"d","ndv":2,"count":3,"pre_sum":0},{"lower":"f","upper":"p","ndv":3,"count":3,"pre_sum":3}]}`},
		{"c_varchar", `{"num_buckets":2,"buckets":[{"lower":"varchar1","upper":"varchar2","ndv":2,"count":3,"pre_sum":0},{"lower":"varchar3","upper":"varchar9","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_date", `{"num_buckets":2,"buckets":[{"lower":"2022-12-01","upper":"2022-12-02","ndv":2,"count":3,"pre_sum":0},{"lower":"2022-12-03","upper":"2022-12-09","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_date_time", `{"num_buckets":2,"buckets":[{"lower":"2022-12-01 22:23:23","upper":"2022-12-02 22:23:23","ndv":2,"count":3,"pre_sum":0},{"lower":"2022-12-03 22:23:23","upper":"2022-12-09 22:23:23","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_date_timev2", `{"num_buckets":2,"buckets":[{"lower":"2022-12-01 22:23:24.999999","upper":"2022-12-02 22:23:24.999999","ndv":2,"count":3,"pre_sum":0},{"lower":"2022-12-03 22:23:24.999999","upper":"2022-12-09 22:23:24.999999","ndv":2,"count":3,"pre_sum":3}]}`},
		{"c_string_not_null", `{"num_buckets":1,"buckets":[{"lower":"not null","upper":"not null","ndv":1,"count":12,"pre_sum":0}]}`},
	}
	for _, c := range cols {
		wantRows(t, db, "SELECT hist("+c.col+", 2), histogram("+c.col+", 1.0, 2) = hist("+c.col+", 2) FROM h2", c.want+"|1")
	}
	wantErr(t, db, "SELECT histogram(c_tinyint, 0.5, 2) FROM h2", 1235, "a sample rate other than 1")
	wantRows(t, db, "SELECT c_id, histogram(c_smallint, 2) FROM h2 GROUP BY c_id ORDER BY c_id",
		`1|{"num_buckets":2,"buckets":[{"lower":"12","upper":"20","ndv":2,"count":2,"pre_sum":0},{"lower":"21","upper":"21","ndv":1,"count":1,"pre_sum":2}]}`,
		`2|{"num_buckets":2,"buckets":[{"lower":"20","upper":"22","ndv":2,"count":2,"pre_sum":0},{"lower":"32","upper":"32","ndv":1,"count":1,"pre_sum":2}]}`)
	wantRows(t, db, "SELECT linear_histogram(a, 2) FROM lh",
		`{"num_buckets":6,"buckets":[{"lower":0.0,"upper":2.0,"count":2,"acc_count":2},{"lower":2.0,"upper":4.0,"count":4,"acc_count":6},{"lower":4.0,"upper":6.0,"count":4,"acc_count":10},{"lower":6.0,"upper":8.0,"count":4,"acc_count":14},{"lower":8.0,"upper":10.0,"count":4,"acc_count":18},{"lower":10.0,"upper":12.0,"count":2,"acc_count":20}]}`)
	wantRows(t, db, "SELECT linear_histogram(a, 2, 1) FROM lh",
		`{"num_buckets":5,"buckets":[{"lower":1.0,"upper":3.0,"count":4,"acc_count":4},{"lower":3.0,"upper":5.0,"count":4,"acc_count":8},{"lower":5.0,"upper":7.0,"count":4,"acc_count":12},{"lower":7.0,"upper":9.0,"count":4,"acc_count":16},{"lower":9.0,"upper":11.0,"count":4,"acc_count":20}]}`)
	// Half-width buckets, negative values, GROUP BY, no value.
	wantRows(t, db, "SELECT a % 2, linear_histogram(a - 5, 2.5) FROM lh WHERE a IS NOT NULL GROUP BY a % 2 ORDER BY a % 2",
		`0|{"num_buckets":5,"buckets":[{"lower":-5.0,"upper":-2.5,"count":2,"acc_count":2},{"lower":-2.5,"upper":0.0,"count":2,"acc_count":4},{"lower":0.0,"upper":2.5,"count":2,"acc_count":6},{"lower":2.5,"upper":5.0,"count":2,"acc_count":8},{"lower":5.0,"upper":7.5,"count":2,"acc_count":10}]}`,
		`1|{"num_buckets":4,"buckets":[{"lower":-5.0,"upper":-2.5,"count":2,"acc_count":2},{"lower":-2.5,"upper":0.0,"count":2,"acc_count":4},{"lower":0.0,"upper":2.5,"count":4,"acc_count":8},{"lower":2.5,"upper":5.0,"count":2,"acc_count":10}]}`)
	wantRows(t, db, "SELECT linear_histogram(a, 1) FROM lh WHERE a IS NULL", `{"num_buckets":0,"buckets":[]}`)
	wantErr(t, db, "SELECT linear_histogram(a, 2, 3) FROM lh", 1105, "offset should be in [0, interval)")
	wantErr(t, db, "SELECT linear_histogram(a, 0) FROM lh", 1105, "interval should be larger than 0")

	// Doris's test_linear_histogram_boolean (.out file): TRUE is 1, FALSE 0;
	// offset 0.5 puts 0 in [-0.5, 0.5).
	mustExec(t, db, "CREATE TABLE linear_histogram_boolean (id INT NOT NULL, b BOOLEAN NULL, non_null_b BOOLEAN NOT NULL) DISTRIBUTED BY HASH(id) BUCKETS 3",
		"INSERT INTO linear_histogram_boolean VALUES (1, TRUE, TRUE), (2, FALSE, FALSE), (3, TRUE, TRUE), (4, NULL, FALSE)")
	for _, c := range []struct{ q, want string }{
		{"SELECT linear_histogram(b, 1.0), linear_histogram(b, 1.0, 0.5) FROM linear_histogram_boolean",
			`{"num_buckets":2,"buckets":[{"lower":0.0,"upper":1.0,"count":1,"acc_count":1},{"lower":1.0,"upper":2.0,"count":2,"acc_count":3}]}|{"num_buckets":2,"buckets":[{"lower":-0.5,"upper":0.5,"count":1,"acc_count":1},{"lower":0.5,"upper":1.5,"count":2,"acc_count":3}]}`},
		{"SELECT linear_histogram(non_null_b, 1.0), linear_histogram(non_null_b, 1.0, 0.5) FROM linear_histogram_boolean",
			`{"num_buckets":2,"buckets":[{"lower":0.0,"upper":1.0,"count":2,"acc_count":2},{"lower":1.0,"upper":2.0,"count":2,"acc_count":4}]}|{"num_buckets":2,"buckets":[{"lower":-0.5,"upper":0.5,"count":2,"acc_count":2},{"lower":0.5,"upper":1.5,"count":2,"acc_count":4}]}`},
		{"SELECT id % 2, linear_histogram(b, 1.0), linear_histogram(b, 1.0, 0.5) FROM linear_histogram_boolean GROUP BY id % 2 ORDER BY 1",
			`0|{"num_buckets":1,"buckets":[{"lower":0.0,"upper":1.0,"count":1,"acc_count":1}]}|{"num_buckets":1,"buckets":[{"lower":-0.5,"upper":0.5,"count":1,"acc_count":1}]}` + "\n" +
				`1|{"num_buckets":1,"buckets":[{"lower":1.0,"upper":2.0,"count":2,"acc_count":2}]}|{"num_buckets":1,"buckets":[{"lower":0.5,"upper":1.5,"count":2,"acc_count":2}]}`},
		{"SELECT linear_histogram(b, 1.0), linear_histogram(b, 1.0, 0.5) FROM linear_histogram_boolean WHERE b IS NULL",
			`{"num_buckets":0,"buckets":[]}|{"num_buckets":0,"buckets":[]}`},
		{"SELECT linear_histogram(b, 1.0), linear_histogram(b, 1.0, 0.5) FROM linear_histogram_boolean WHERE id < 0",
			`{"num_buckets":0,"buckets":[]}|{"num_buckets":0,"buckets":[]}`},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}
	wantErr(t, db, "SELECT linear_histogram(non_null_b, 0.0) FROM linear_histogram_boolean", 1105, "interval should be larger than 0")
	wantErr(t, db, "SELECT linear_histogram(non_null_b, 1.0, 1.0) FROM linear_histogram_boolean", 1105, "offset should be in [0, interval)")
}

// TestSequenceMatchCount runs Doris's regression test
// (test_aggregate_sequence_match.sql and .out) and the examples of the
// SEQUENCE_MATCH and SEQUENCE_COUNT pages. Rows meeting no condition are
// no events, so (?1)(?2) needs the next event after a 1 to be a 2;
// 10:41:00 to 11:41:00 is exactly 3600 s (matches >= 3600, not > 3600).
func TestSequenceMatchCount(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE sm", "USE sm")
	tables := map[string]string{
		"sequence_match_test1": `(1, '2022-11-02 10:41:00', 1), (2, '2022-11-02 11:41:00', 7), (3, '2022-11-02 16:15:01', 3),
			(4, '2022-11-02 19:05:04', 4), (5, '2022-11-02 21:24:12', 5)`,
		"sequence_match_test2": `(1, '2022-11-02 10:41:00', 1), (2, '2022-11-02 13:28:02', 2), (3, '2022-11-02 16:15:01', 1),
			(4, '2022-11-02 19:05:04', 2), (5, '2022-11-02 20:08:44', 3)`,
		"sequence_match_test3": `(5, '2022-11-02 20:08:44', 3), (4, '2022-11-02 19:05:04', 2), (3, '2022-11-02 16:15:01', 1),
			(2, '2022-11-02 13:28:02', 2), (1, '2022-11-02 10:41:00', 1)`,
	}
	for name, rows := range tables {
		mustExec(t, db, "CREATE TABLE "+name+" (uid INT, `date` DATETIME, number INT NULL) DUPLICATE KEY(uid) DISTRIBUTED BY HASH(uid) BUCKETS 3",
			"INSERT INTO "+name+" VALUES "+rows)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 2) FROM sequence_match_test1", "0"},
		{"SELECT sequence_count('(?1)(?2)', date, number = 1, number = 2) FROM sequence_match_test1", "0"},
		{"SELECT sequence_match('(?1)(?2).*', date, number = 1, number = 2) FROM sequence_match_test1", "0"},
		{"SELECT sequence_count('(?1)(?2).*', date, number = 1, number = 2) FROM sequence_match_test1", "0"},
		{"SELECT sequence_match('(?1)(?t>3600)(?2)', date, number = 1, number = 7) FROM sequence_match_test1", "0"},
		{"SELECT sequence_match('(?1)(?t>=3600)(?2)', date, number = 1, number = 7) FROM sequence_match_test1", "1"},
		{"SELECT sequence_count('(?1)(?t>3600)(?2)', date, number = 1, number = 7) FROM sequence_match_test1", "0"},
		{"SELECT sequence_count('(?1)(?t>=3600)(?2)', date, number = 1, number = 7) FROM sequence_match_test1", "1"},
		{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 4, number = 3) FROM sequence_match_test1", "0"},
		{"SELECT sequence_count('(?1)(?2)', date, number = 1, number = 4, number = 3) FROM sequence_match_test1", "0"},
		// The page's "special" examples: 7, 3 and 4 are no events unless a
		// condition names them.
		{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 5) FROM sequence_match_test1", "1"},
		{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 5, number = 4) FROM sequence_match_test1", "0"},
		{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 5, number = 6) FROM sequence_match_test1", "1"},
		{"SELECT sequence_match('(?1)(?t==3600)(?2)', date, number = 1, number = 7), sequence_match('(?1)(?t<3600)(?2)', date, number = 1, number = 7), sequence_match('(?1).(?2)', date, number = 1, number = 3) FROM sequence_match_test1", "1|0|0"},
	} {
		wantRows(t, db, c.q, c.want)
	}
	for _, tb := range []string{"sequence_match_test2", "sequence_match_test3"} {
		for _, c := range []struct{ q, want string }{
			{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 3) FROM " + tb, "1"},
			{"SELECT sequence_count('(?1)(?2)', date, number = 1, number = 3) FROM " + tb, "1"},
			{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 2) FROM " + tb, "1"},
			{"SELECT sequence_count('(?1)(?2)', date, number = 1, number = 2) FROM " + tb, "2"},
			{"SELECT sequence_match('(?1)(?2)', date, number = 1, number = 3, number = 4) FROM " + tb, "1"},
			{"SELECT sequence_count('(?1)(?2)', date, number = 1, number = 3, number = 4) FROM " + tb, "1"},
			// SEQUENCE_COUNT's page: c1, c2, c3 = 1, 2, 2; SEQUENCE_MATCH's
			// page: all three match.
			{`SELECT sequence_count('(?1)(?2)', date, number = 1, number = 3), sequence_count('(?1)(?2)', date, number = 1, number = 2),
				sequence_count('(?1)(?t>=3600)(?2)', date, number = 1, number = 2), sequence_match('(?1)(?t>=3600)(?2)', date, number = 1, number = 2) FROM ` + tb, "1|2|2|1"},
			// Both 1→2 steps are longer than 10000 s (10022 s and 10203 s):
			// two matches with >= 10000, none with <= 10000.
			{"SELECT sequence_count('(?1)(?t>=10000)(?2)', date, number = 1, number = 2), sequence_count('(?1)(?t<=10000)(?2)', date, number = 1, number = 2) FROM " + tb, "2|0"},
			{"SELECT sequence_count('(?1).*(?2)', date, number = 1, number = 3), sequence_count('.*', date, number = 1), sequence_match('(?2)(?1)', date, number = 1, number = 2) FROM " + tb, "1|0|1"},
		} {
			wantRows(t, db, c.q, c.want)
		}
	}
	// Per group; a group without rows is NULL, one whose rows meet no
	// condition matches nothing.
	wantRows(t, db, "SELECT uid % 2, sequence_match('(?1)(?2)', date, number = 1, number = 2), sequence_count('(?1)(?2)', date, number = 1, number = 2) FROM sequence_match_test2 GROUP BY uid % 2 ORDER BY uid % 2",
		"0|0|0", "1|0|0")
	wantRows(t, db, "SELECT sequence_match('(?1)', date, number = 1), sequence_count('(?1)', date, number = 1) FROM sequence_match_test2 WHERE uid > 10", "NULL|NULL")
	wantRows(t, db, "SELECT sequence_count('(?1)', date, number = 1), sequence_count('(?1)(?1)', date, number = 1) FROM sequence_match_test2", "2|1")
	wantErr(t, db, "SELECT sequence_match('(?3)', date, number = 1) FROM sequence_match_test2", 1105, "event number 3 is out of range")
	wantErr(t, db, "SELECT sequence_match('(?1)(?x)', date, number = 1) FROM sequence_match_test2", 1105, "could not parse number")
	wantErr(t, db, "SELECT sequence_match(concat('(?1)', ''), date, number = 1) FROM sequence_match_test2", 1105, "the pattern must be a constant string")
}
