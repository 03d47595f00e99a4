package server

import "testing"

// TestLibraryDorisFunctions (issue 15): the JSON, date/time, string/URL and
// math/hash functions added from Doris's list, through a real MySQL client,
// over constants and over a table with a JSON column (JSON is STRING in
// Inlet, holding JSON text). Values are Doris manual examples or derived
// by hand (exec/expr's tests say which).
func TestLibraryDorisFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE j (k INT, doc JSON, ts DATETIME, s VARCHAR(64)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		`INSERT INTO j VALUES (1, '{"a": {"b": [1, 2, 3]}, "name": "x y"}', '2024-01-02 03:04:05', 'https://www.example.com/p?q=1'),
			(2, '[{"k": 1}, {"k": 2}]', '2023-06-15 23:59:59', 'Hello'), (3, NULL, NULL, NULL)`)
	for _, c := range []struct{ q, want string }{
		// JSON over a JSON column: every row, NULLs included.
		{"SELECT k, json_extract(doc, '$.a.b[1]'), json_extract_string(doc, '$.name'), json_length(doc), json_type(doc, '$'), json_valid(doc) FROM j ORDER BY k",
			"1|2|x y|2|object|1\n2|NULL|NULL|2|array|1\n3|NULL|NULL|NULL|NULL|NULL"},
		{"SELECT k, json_extract(doc, '$[*].k'), json_extract_int(doc, '$[last].k'), json_object('k', k, 's', s) FROM j ORDER BY k",
			`1|NULL|NULL|{"k":1,"s":"https://www.example.com/p?q=1"}` + "\n" + `2|[1,2]|2|{"k":2,"s":"Hello"}` + "\n" + `3|NULL|NULL|{"k":3,"s":null}`},
		{`SELECT json_parse('{"k1":"v31","k2":300}'), json_extract('{"k1":"v31","k2":300}', '$.k1'), get_json_string('{"k1":"v1", "my.key":["e1", "e2", "e3"]}', '$."my.key"[1]')`,
			`{"k1":"v31","k2":300}|"v31"|e2`},
		{`SELECT json_insert('{}', '$.k', json_parse('{}'), '$.k.k2', 123), json_set('{"k": 1}', '$.k', 2), json_search('{"name": "John", "age": 30}', 'one', 'John')`,
			`{"k":{"k2":123}}|{"k":2}|"$.name"`},
		{`SELECT json_extract_largeint('{"id": 170141183460469231731687303715884105727}', '$.id'), json_extract_bigint('{"id": 3000000000}', '$.id'), json_extract_double('{"x": 1.5}', '$.x')`,
			"170141183460469231731687303715884105727|3000000000|1.5"},
		// Date/time: DATE_FLOOR with INTERVAL, the _floor/_ceil family, TIME
		// results (sent as text, hours beyond 24 and signs kept).
		{"SELECT k, date_floor(ts, INTERVAL 5 MINUTE), hour_ceil(ts), to_monday(ts), timediff(ts, date(ts)) FROM j ORDER BY k",
			"1|2024-01-02 03:00:00|2024-01-02 04:00:00|2024-01-01|03:04:05\n2|2023-06-15 23:55:00|2023-06-16 00:00:00|2023-06-12|23:59:59\n3|NULL|NULL|NULL|NULL"},
		{"SELECT date_floor('2023-07-13 22:28:18', INTERVAL 5 WEEK), date_ceil('2023-07-13 22:28:18', INTERVAL 5 MINUTE), month_floor('2023-07-13 22:28:18', 4)",
			"2023-07-10 00:00:00|2023-07-13 22:30:00|2023-05-01 00:00:00"},
		{"SELECT sec_to_time(90061), sec_to_time(-3600), timediff('2024-07-20 16:59:30', '2024-07-11 16:35:21'), time_to_sec('16:32:18'), length(curtime())",
			"25:01:01|-01:00:00|216:24:09|59538|8"},
		{"SELECT convert_tz('2019-08-01 13:21:03', 'Asia/Shanghai', 'America/Los_Angeles'), convert_tz('2019-08-01 13:21:03', '+08:00', 'Nowhere/Zone'), from_iso8601_date('0522-W01-1'), to_iso8601('2020-01-01 12:30:45')",
			"2019-07-31 22:21:03|NULL|0521-12-29|2020-01-01T12:30:45.000000"},
		{"SELECT milliseconds_add('2024-01-02 03:04:05', 1500), timestamp('2025-11-30 23:45:12', '12:34:56'), millisecond_timestamp('1970-01-01 00:00:01.5')",
			"2024-01-02 03:04:06.500000|2025-12-01 12:20:08|1500"},
		// String / URL / regexp.
		{`SELECT regexp_replace('a b c', '(b)', '<\\1>'), regexp_extract_all('AbCdEfCg', '([[:lower:]]+)C([[:lower:]]+)'), regexp_extract_or_null('abc', '(x)', 1)`,
			"a <b> c|['b','f']|NULL"},
		{"SELECT k, parse_url(s, 'HOST'), domain_without_www(s), protocol(s), extract_url_parameter(s, 'q') FROM j ORDER BY k",
			"1|www.example.com|example.com|https|1\n2|NULL|Hello||\n3|NULL|NULL|NULL|NULL"},
		{"SELECT format_number(1500), money_format(17014116.67), sub_replace('doris', '***', 1, 2), quote(NULL), field('b', 'a', 'b'), split_by_string('a,b', ',')",
			`1.50K|17,014,116.67|d***is|NULL|2|["a", "b"]`},
		{"SELECT char(68, 111, 114, 105, 115), soundex('Robert'), levenshtein('kitten', 'sitting'), url_encode('a b/c'), length(uuid())",
			"Doris|R163|3|a+b%2Fc|36"},
		{"SELECT digital_masking('13812345678'), split_by_regexp('a12bc23de345f', '\\\\d+'), uncompress(compress('abc')), uncompress('x')",
			`138****5678|["a", "bc", "de", "f"]|abc|NULL`},
		// Math / hash (Doris manual values).
		{"SELECT murmur_hash3_32('hello'), murmur_hash3_64('hello'), xxhash_32('hello'), xxhash_64('hello', 'world')",
			"1321743225|-3215607508166160593|-83855367|7001965798170371843"},
		{"SELECT bin(12), conv('a', 16, 2), round_bankers(2.5), round_bankers(10.755, 2), width_bucket(400000, 200000, 600000, 4), bit_shift_left(1, 10), normal_cdf(10, 9, 10)",
			"1100|1010|2|10.76|3|1024|0.5"},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}
	// from_second reads the session time zone (Doris manual, at +08:00).
	mustExec(t, db, "SET time_zone = '+08:00'")
	wantRows(t, db, "SELECT from_second(1700000000), from_second(0)", "2023-11-15 06:13:20|1970-01-01 08:00:00")
	mustExec(t, db, "SET time_zone = 'UTC'")
	wantErr(t, db, "SELECT json_parse('invalid json')", 1105, "json_parse: invalid JSON text")
	wantErr(t, db, "SELECT json_extract('{}', 'k1')", 1105, "json_extract: invalid JSON path")
	wantErr(t, db, "SELECT hour_ceil('9999-12-31 22:28:18', 6)", 1690, "hour_ceil of 9999-12-31 22:28:18")
	wantErr(t, db, "SELECT from_second(-1)", 1690, "from_second(-1)")
	wantErr(t, db, "SELECT parse_url('https://a.b/', 'FOO')", 1105, "parse_url: part 'FOO'")
	f.stop()
}
