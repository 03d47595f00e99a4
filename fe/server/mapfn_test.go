package server

import (
	"fmt"
	"testing"
)

// TestMapStructFunctions: Doris's map and struct constructors. Expected
// values are the examples of Doris's map function pages (map(1, "100",
// 0.1, 2) is {1.0:"100", 0.1:"2"}: keys DECIMAL, values STRING; a
// repeated key keeps its last value at its last place) and hand-derived
// ones.
func TestMapStructFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	cases := []struct{ q, want string }{
		{`SELECT map(1, '100', 0.1, 2), map(1, '100', 0.1, 2)[1]`, `{1.0:"100", 0.1:"2"}|100`},
		{`SELECT map(1, 2, 2, 11, 1, 3)`, `{2:11, 1:3}`},
		{`SELECT map()`, `{}`},
		{`SELECT map_contains_key(map(1, '100', 0.1, 2), 0.1), map_contains_key(map(1, '100', 0.1, 2), 0.11)`, `1|0`},
		{`SELECT map_contains_value(map(1, '100', 0.1, 2), '100'), map_contains_value(map(1, '100', 0.1, 2), 101)`, `1|0`},
		// NULL finds a NULL value; a NULL map is NULL.
		{`SELECT map_contains_value(map(3, 1, 2, null), null), map_contains_key(NULL, 1)`, `1|NULL`},
		{`SELECT map_entries(map('a', 1, 'b', 2))`, `[{"key":"a", "value":1}, {"key":"b", "value":2}]`},
		{`SELECT map_from_arrays([1, 2], ['x', 'y']), map_from_arrays([1, 2], ['x'])`, `{1:"x", 2:"y"}|NULL`},
		{`SELECT map_concat(map('a', 1), map('a', 2, 'b', 3))`, `{"a":2, "b":3}`},
		{`SELECT map_keys(map('a', 1, 'b', 2)), map_values(map('a', 1, 'b', 2)), map_size(map('a', 1))`, `["a", "b"]|[1, 2]|1`},
		// struct(...) names its fields col1, col2, ... as Doris does.
		{`SELECT struct(1, 'a', null), struct_element(struct(1, 'a'), 2)`, `{"col1":1, "col2":"a", "col3":null}|a`},
		{`SELECT named_struct('x', 1, 'y', 'b'), struct_element(named_struct('x', 1, 'y', 'b'), 'y')`, `{"x":1, "y":"b"}|b`},
	}
	for _, c := range cases {
		wantRows(t, db, c.q, c.want)
	}
	wantErr(t, db, `SELECT map(1, 2, 3)`, 1105, "key, value pairs")
	wantErr(t, db, `SELECT named_struct('x', 1, 'x', 2)`, 1105, "given twice")
	wantErr(t, db, `SELECT map(NULL, 1)`, 1235, "a MAP key cannot be NULL")
}

// TestRetention is the example of Doris's RETENTION page: user 0 has all
// three days, user 1 the first two, user 2 only the first; user 3 (no
// 2022-10-12) gets zeros even where a later condition holds, and a NULL
// condition counts as not met.
func TestRetention(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE rt", "USE rt",
		"CREATE TABLE retention_test (uid INT, `date` DATETIME) DUPLICATE KEY(uid) DISTRIBUTED BY HASH(uid) BUCKETS 2",
		`INSERT INTO retention_test VALUES (0, '2022-10-12'), (0, '2022-10-13'), (0, '2022-10-14'),
			(1, '2022-10-12'), (1, '2022-10-13'), (2, '2022-10-12'), (3, '2022-10-13'), (3, NULL)`)
	wantRows(t, db, `SELECT uid,
			retention(date = '2022-10-12') AS r,
			retention(date = '2022-10-12', date = '2022-10-13') AS r2,
			retention(date = '2022-10-12', date = '2022-10-13', date = '2022-10-14') AS r3
		FROM retention_test GROUP BY uid ORDER BY uid`,
		"0|[1]|[1, 1]|[1, 1, 1]",
		"1|[1]|[1, 1]|[1, 1, 0]",
		"2|[1]|[1, 0]|[1, 0, 0]",
		"3|[0]|[0, 0]|[0, 0, 0]",
	)
	// Without GROUP BY: some row met each condition.
	wantRows(t, db, `SELECT retention(uid = 2, uid = 3, uid = 4) FROM retention_test`, "[1, 1, 0]")
}

// TestWindowFunnel runs the four examples of Doris's WINDOW_FUNNEL page,
// one per mode, with the levels the page gives.
func TestWindowFunnel(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE wf", "USE wf")
	common := `(100125, 'login', '2022-05-15 11:00:00'), (100125, 'visit', '2022-05-15 11:01:00'), (100125, 'order', '2022-05-15 11:02:00'),
		(100126, 'login', '2022-05-15 12:00:00'), (100126, 'visit', '2022-05-15 12:01:00'),
		(100127, 'login', '2022-05-15 11:30:00'), (100127, 'visit', '2022-05-15 11:31:00')`
	cases := []struct {
		mode   string
		window int
		rows   string // user 100123's events
		want   []string
	}{
		// default, 5 minutes: payment at 10:10 is past 10:01 + 300 s.
		{"default", 300, `(100123, 'login', '2022-05-14 10:01:00'), (100123, 'visit', '2022-05-14 10:02:00'),
			(100123, 'order', '2022-05-14 10:04:00'), (100123, 'payment', '2022-05-14 10:10:00')`,
			[]string{"100123|3", "100125|3", "100126|2", "100127|2"}},
		// deduplication: the second login after visit ends the chain.
		{"deduplication", 3600, `(100123, 'login', '2022-05-14 10:01:00'), (100123, 'visit', '2022-05-14 10:02:00'),
			(100123, 'login', '2022-05-14 10:03:00'), (100123, 'order', '2022-05-14 10:04:00'), (100123, 'payment', '2022-05-14 10:10:00')`,
			[]string{"100123|2", "100125|3", "100126|2", "100127|2"}},
		// fixed: login2 between order and payment ends the chain.
		{"fixed", 3600, `(100123, 'login', '2022-05-14 10:01:00'), (100123, 'visit', '2022-05-14 10:02:00'),
			(100123, 'order', '2022-05-14 10:03:00'), (100123, 'login2', '2022-05-14 10:04:00'), (100123, 'payment', '2022-05-14 10:10:00')`,
			[]string{"100123|3", "100125|3", "100126|2", "100127|2"}},
		// increase: payment at the same second as order does not count.
		{"increase", 3600, `(100123, 'login', '2022-05-14 10:01:00'), (100123, 'visit', '2022-05-14 10:02:00'),
			(100123, 'order', '2022-05-14 10:04:00'), (100123, 'payment', '2022-05-14 10:04:00')`,
			[]string{"100123|3", "100125|3", "100126|2", "100127|2"}},
	}
	for i, c := range cases {
		tb := fmt.Sprintf("events%d", i)
		mustExec(t, db, "CREATE TABLE "+tb+" (user_id BIGINT, event_name VARCHAR(64), event_timestamp DATETIME) DISTRIBUTED BY HASH(user_id) BUCKETS 3",
			"INSERT INTO "+tb+" VALUES "+c.rows+", "+common)
		wantRows(t, db, fmt.Sprintf(`SELECT user_id, window_funnel(%d, '%s', event_timestamp, event_name = 'login', event_name = 'visit',
			event_name = 'order', event_name = 'payment') AS level FROM %s GROUP BY user_id ORDER BY user_id`, c.window, c.mode, tb), c.want...)
	}
	wantErr(t, db, `SELECT window_funnel(60, 'sometimes', event_timestamp, event_name = 'a') FROM events0`, 1105, "the mode must be")
}

// TestPercentileArray: the exact percentiles at each p, interpolated
// linearly at position p*(n-1) of the sorted values as PERCENTILE is:
// over 1..10, p=0 is 1, p=0.5 is 5.5, p=0.9 is 9.1; over g=1's {1, 3}
// p=0.25 is 1.5; over g=2's 2, 4..10 (n=8) position 1.75 is 4.75; g=3 has
// only NULL.
func TestPercentileArray(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE pa", "USE pa",
		"CREATE TABLE p (g INT, v INT) DISTRIBUTED BY HASH(v) BUCKETS 3",
		"INSERT INTO p VALUES (1, 1), (2, 2), (1, 3), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (2, 9), (2, 10), (3, NULL)")
	wantRows(t, db, "SELECT percentile_array(v, [0, 0.5, 0.9]) FROM p", "[1, 5.5, 9.1]")
	wantRows(t, db, "SELECT g, percentile_array(v, [0.25]) FROM p GROUP BY g ORDER BY g", "1|[1.5]", "2|[4.75]", "3|[null]")
}

// TestMapAgg is the example of Doris's MAP_AGG page (nations by region),
// with a repeated key (the first value met stays: one bucket, one insert,
// so the order is the insert's) and a NULL key (skipped); a region with
// only a NULL key is the empty map.
func TestMapAgg(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE ma", "USE ma",
		"CREATE TABLE nation (n_nationkey INT, n_name STRING, n_regionkey INT) DISTRIBUTED BY HASH(n_nationkey) BUCKETS 1",
		"INSERT INTO nation VALUES (0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1), (2, 'BRASIL', 1), (NULL, 'NOWHERE', 5)")
	wantRows(t, db, "SELECT n_regionkey, map_agg(n_nationkey, n_name) FROM nation GROUP BY n_regionkey ORDER BY n_regionkey",
		`0|{0:"ALGERIA"}`, `1|{1:"ARGENTINA", 2:"BRAZIL", 3:"CANADA"}`, `5|{}`)
}

// TestGroupArrayIntersect is the example of Doris's GROUP_ARRAY_INTERSECT
// page (['a'..'e'], ['a', 'b'], ['a', NULL] share only 'a'; no rows give
// the empty array), and per group over integers (sorted: the order is
// the first array met's, and which comes first is open).
func TestGroupArrayIntersect(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE gi", "USE gi",
		"CREATE TABLE g (id INT, c_array_string ARRAY<STRING>, g INT, a ARRAY<INT>) DISTRIBUTED BY HASH(id) BUCKETS 2",
		`INSERT INTO g VALUES (1, ['a', 'b', 'c', 'd', 'e'], 1, [1, 2, 3, 2]), (2, ['a', 'b'], 1, [3, 2]), (3, ['a', NULL], 2, [5]), (4, NULL, 2, NULL)`)
	wantRows(t, db, "SELECT group_array_intersect(c_array_string) FROM g", `["a"]`)
	wantRows(t, db, "SELECT group_array_intersect(c_array_string) FROM g WHERE id IS NULL", `[]`)
	wantRows(t, db, "SELECT g, array_sort(group_array_intersect(a)) FROM g GROUP BY g ORDER BY g", "1|[2, 3]", "2|[5]")
}
