package server

import (
	"regexp"
	"strings"
	"testing"
)

// TestDorisLastScalarFunctions: the last scalar functions of Doris's list
// (fe/bind/testdata/doris_functions.txt), through a real MySQL client.
// Expected values are the examples of Doris's manual pages (int_to_uuid,
// ngram_search, first_significant_subdomain,
// cut_to_first_significant_subdomain, format, parse_data_size, tokenize)
// and hand derivations: int_to_uuid prints the LARGEINT's bytes least
// significant first, so 1 is 01000000-...; ngram_search is
// 2·|common grams| / (|text grams| + |pattern grams|) over distinct grams;
// '2.3MB' is 2.3·1048576 = 2411724.8 bytes, the fraction dropped.
func TestDorisLastScalarFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE u (k INT, url VARCHAR(64), n LARGEINT, s VARCHAR(32)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"INSERT INTO u VALUES (1, 'https://news.clickhouse.com.tr/x?y=1', 1, '1kB'), (2, 'www.baidu.com', -1, '2.3MB'), (3, NULL, NULL, NULL), (4, '', 0, '0B')")
	for _, c := range []struct{ q, want string }{
		{"SELECT int_to_uuid(95721955514869408091759290071393952876), int_to_uuid(NULL)", "6ce4766f-6783-4b30-b357-bba1c7600348|NULL"},
		{"SELECT k, int_to_uuid(n) FROM u ORDER BY k", "1|01000000-0000-0000-0000-000000000000\n2|ffffffff-ffff-ffff-ffff-ffffffffffff\n3|NULL\n4|00000000-0000-0000-0000-000000000000"},
		{"SELECT ngram_search('123456789', '12345', 3), ngram_search('abababab', 'babababa', 2)", "0.6|1"},
		// Shorter than the gram size: 0; NULL text: NULL.
		{"SELECT ngram_search('ab', 'abc', 3), ngram_search('abc', 'ab', 3), ngram_search(NULL, 'abc', 2), ngram_search('', 'ab', 1)", "0|0|NULL|0"},
		{"SELECT first_significant_subdomain('www.baidu.com'), first_significant_subdomain('www.google.com.cn'), first_significant_subdomain('wwwwwwww')", "baidu|google|"},
		{"SELECT cut_to_first_significant_subdomain('www.baidu.com'), cut_to_first_significant_subdomain('www.google.com.cn'), cut_to_first_significant_subdomain('wwwwwwww')", "baidu.com|google.com.cn|"},
		{"SELECT k, first_significant_subdomain(url), cut_to_first_significant_subdomain(url) FROM u ORDER BY k", "1|clickhouse|clickhouse.com.tr\n2|baidu|baidu.com\n3|NULL|NULL\n4||"},
		{`SELECT format("{:.5}", pi()), format("{:08.2}", pi()), format("{0}-{1}", "second", "first")`, "3.1416|000003.1|second-first"},
		{`SELECT format('{:>5}|{:<4}|{:^5}|{:*^7}', 1, 'ab', 'c', -2)`, "    1|ab  |  c  |**-2***"},
		{`SELECT format('{:x} {:#X} {:#b} {:o} {:+d}', 255, 255, 5, 8, 3), format('{} {} {}', 1.5, 1e20, 0.25)`, "ff 0XFF 0b101 10 +3|1.5 1e+20 0.25"},
		{`SELECT format('{}', CAST(0.1 AS FLOAT)), format('{:e}', 0.0), format('{:g}', 1e-5)`, "0.1|0.000000e+00|1e-05"},
		{`SELECT format('{{{}}}', 7), format('{:.2f}|{:e}', 2.0, 1234.5), format('{:.3}', 'abcdef'), format('{}', NULL)`, "{7}|2.00|1.234500e+03|abc|NULL"},
		{"SELECT parse_data_size('1024B'), parse_data_size('1kB'), parse_data_size('2.5MB'), parse_data_size('1GB'), parse_data_size('1TB'), parse_data_size(NULL)",
			"1024|1024|2621440|1073741824|1099511627776|NULL"},
		{"SELECT k, parse_data_size(s) FROM u ORDER BY k", "1|1024\n2|2411724\n3|NULL\n4|0"},
		{"SELECT length(random_bytes(8)), left(random_bytes(4), 2), random_bytes(NULL), random_bytes(16) REGEXP '^0x[0-9a-f]{32}$'", "18|0x|NULL|1"},
		// tokenize: Doris's examples (the unicode analyzer splits ideographs
		// and drops English stop words unless "stopwords"="none").
		{`SELECT tokenize('I love Doris', '"parser"="english"')`, `[{"token":"i"},{"token":"love"},{"token":"doris"}]`},
		{`SELECT tokenize('Apache Doris数据库', "'parser'='unicode'")`, `[{"token":"apache"},{"token":"doris"},{"token":"数"},{"token":"据"},{"token":"库"}]`},
		{`SELECT tokenize('GET /images/hm_bg.jpg HTTP/1.0 test:abc=bcd', '"parser"="unicode","char_filter_type" = "char_replace","char_filter_pattern" = "._=:,","char_filter_replacement" = " "')`,
			`[{"token":"get"},{"token":"images"},{"token":"hm"},{"token":"bg"},{"token":"jpg"},{"token":"http"},{"token":"1"},{"token":"0"},{"token":"test"},{"token":"abc"},{"token":"bcd"}]`},
		{`SELECT tokenize('华夏智胜新税股票A', '"parser"="unicode"'), tokenize('华夏A', '"parser"="unicode","stopwords" = "none"')`,
			`[{"token":"华"},{"token":"夏"},{"token":"智"},{"token":"胜"},{"token":"新"},{"token":"税"},{"token":"股"},{"token":"票"}]|[{"token":"华"},{"token":"夏"},{"token":"a"}]`},
		{`SELECT tokenize('GET /images/hm_bg.jpg HTTP/1.0', '"built_in_analyzer"="basic"')`,
			`[{"token":"get"},{"token":"images"},{"token":"hm"},{"token":"bg"},{"token":"jpg"},{"token":"http"},{"token":"1"},{"token":"0"}]`},
		{`SELECT tokenize('Hello World', '"built_in_analyzer"="standard", "support_phrase"="true"'), tokenize('', '"parser"="english"'), tokenize(NULL, '"parser"="english"')`,
			`[{"token":"hello","position":0},{"token":"world","position":1}]|[]|NULL`},
		{`SELECT tokenize('Ab Cd', '"built_in_analyzer"="none"'), tokenize('Ab Cd', '"parser"="english", "lower_case"="false"')`, `[{"token":"Ab Cd"}]|[{"token":"Ab"},{"token":"Cd"}]`},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}
	wantErr(t, db, "SELECT parse_data_size('1iB')", 1105, `Invalid Input argument "1iB" of function parse_data_size`)
	wantErr(t, db, "SELECT random_bytes(-1)", 1105, "random_bytes: argument -1 was invalid")
	wantErr(t, db, `SELECT format('{:d}', 'x')`, 1105, "invalid format specifier")
	wantErr(t, db, `SELECT format('{1}', 'x')`, 1105, "argument 1 not found")
	wantErr(t, db, `SELECT tokenize('我来到北京清华大学', "'parser'='chinese'")`, 1235, "the chinese analyzer")
	wantErr(t, db, "SELECT ngram_search('abc', s, 2) FROM u", 1105, "the pattern must be a constant")

	// uuid_numeric: a LARGEINT per row, distinct, whose int_to_uuid is a
	// version-4 UUID.
	got := rows(t, db, "SELECT int_to_uuid(uuid_numeric()) FROM u")
	seen := map[string]bool{}
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, u := range got {
		if !v4.MatchString(u) || seen[u] {
			t.Errorf("uuid_numeric gave %q (seen before: %v)", u, seen[u])
		}
		seen[u] = true
	}
	if len(got) != 4 {
		t.Errorf("uuid_numeric over 4 rows: %v", got)
	}
	wantRows(t, db, "SELECT count(DISTINCT random_bytes(8)) FROM u", "4")

	// last_query_id: the previous statement's query id, which differs from
	// one statement to the next.
	id := regexp.MustCompile(`^[0-9a-f]{16}-[0-9a-f]{16}$`)
	first := rows(t, db, "SELECT last_query_id()")[0]
	second := rows(t, db, "SELECT last_query_id()")[0]
	if !id.MatchString(first) || !id.MatchString(second) || first == second {
		t.Errorf("last_query_id: %q then %q", first, second)
	}
	db2 := f.db("")
	wantRows(t, db2, "SELECT last_query_id()", "NULL")
	if strings.Contains(first, "NULL") {
		t.Error("last_query_id is NULL after a statement")
	}
}
