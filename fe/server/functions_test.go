package server

import (
	"fmt"
	"testing"
)

// TestLibraryFunctions: the functions added from Doris's function list
// (fe/bind/testdata/doris_functions.txt), through a real MySQL client, with
// values derived by hand or quoted from the MySQL/Doris manuals, NULL and
// domain edges included, over constants and over a table's columns.
func TestLibraryFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE v (k INT, x DOUBLE, s VARCHAR(32), dt DATETIME(6)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"INSERT INTO v VALUES (1, 0, 'abc', '2024-01-02 03:04:05.123456'), (2, 1, '', '2021-01-01 00:00:00'), (3, NULL, NULL, NULL)")
	for _, c := range []struct{ q, want string }{
		// Float math; out-of-domain arguments give NULL.
		{"SELECT sin(0), cos(0), tan(0), asin(1), asin(2), acos(1), atan(1)", "0|1|0|1.5707963267948966|NULL|0|0.7853981633974483"},
		{"SELECT atan2(1, 1), atan(1, 1), cot(0), degrees(pi()), radians(180), cbrt(27)", "0.7853981633974483|0.7853981633974483|NULL|180|3.141592653589793|3"},
		{"SELECT sinh(0), cosh(0), tanh(0), asinh(0), acosh(1), acosh(0), atanh(0), atanh(1)", "0|1|0|0|0|NULL|0|NULL"},
		{"SELECT e(), log(2, 65536), log(1, 5), log(10, 0), log(e())", "2.718281828459045|16|NULL|NULL|1"},
		{"SELECT fmod(7, 3), fmod(-7, 3), fmod(1, 0), pmod(-7, 3), pmod(7, -3), pmod(-7.5, 2), pmod(1, 0)", "1|-1|NULL|2|-2|0.5|NULL"},
		// Encodings and digests.
		{"SELECT hex(255), hex(-1), hex('abc'), unhex('616263'), unhex('zz'), hex(NULL)", "FF|FFFFFFFFFFFFFFFF|616263|abc||NULL"},
		{"SELECT to_base64('abc'), from_base64('YWJj'), from_base64('!')", "YWJj|abc|NULL"},
		{"SELECT md5('abc'), md5sum('a', 'bc'), sha1('abc')", "900150983cd24fb0d6963f7d28e17f72|900150983cd24fb0d6963f7d28e17f72|a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"SELECT sha2('abc', 256), sha2('abc', 1), crc32('abc')", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad|NULL|891568578"},
		// String helpers.
		{"SELECT initcap('hello wORLD-foo 1a'), elt(2, 'a', 'b'), elt(3, 'a', 'b'), elt(0, 'a'), elt(1, NULL, 'b')", "Hello World-Foo 1a|b|NULL|NULL|NULL"},
		{"SELECT find_in_set('b', 'a,b,c'), find_in_set('d', 'a,b,c'), find_in_set('a,b', 'a,b'), find_in_set(NULL, 'a')", "2|0|0|NULL"},
		{"SELECT substring_index('www.mysql.com', '.', 2), substring_index('www.mysql.com', '.', -2), substring_index('a.b', '.', 5), substring_index('a.b', '.', 0)", "www.mysql|mysql.com|a.b|"},
		{"SELECT strleft('abc', 2), strright('abc', 2), bit_length('abc'), translate('abcabc', 'ab', 'x')", "ab|bc|24|xcxc"},
		{"SELECT null_or_empty(NULL), null_or_empty(''), null_or_empty('a'), not_null_or_empty('a'), not_null_or_empty(NULL)", "1|1|0|1|0"},
		// Bits (64-bit two's complement), signs, masks.
		{"SELECT bitand(12, 10), bitor(12, 10), bitxor(12, 10), bitnot(0), bit_count(255), bit_count(-1), bitand(NULL, 1)", "8|14|6|-1|8|64|NULL"},
		{"SELECT positive(-3), negative(5), negative(-2.5), negative(NULL)", "-3|-5|2.5|NULL"},
		{"SELECT mask('Ab1-c'), mask('Ab1-c', '*', '#', '0'), mask_first_n('Ab12cd', 3), mask_last_n('Ab12cd', 3), mask_first_n('ab', 9)", "Xxn-x|*#0-#|Xxn2cd|Ab1nxx|xx"},
		// Dates.
		{"SELECT dayname('2024-01-02'), monthname('2024-01-02'), weekofyear('2024-01-02'), weekofyear('2021-01-01')", "Tuesday|January|1|53"},
		{"SELECT week('2024-01-02'), week('2024-01-07'), week('2008-02-20'), week('2008-02-20', 0), week('2021-01-01', 3), week('2024-12-31')", "0|1|7|7|53|52"},
		{"SELECT yearweek('1987-01-01'), yearweek('2024-01-07'), yearweek('2021-01-01', 3), yearweek(NULL)", "198652|202401|202053|NULL"},
		{"SELECT microsecond('2024-01-02 03:04:05.123456'), from_days(730669), from_days(0), to_days(from_days(730669))", "123456|2000-07-03|NULL|730669"},
		{"SELECT makedate(2011, 31), makedate(2011, 32), makedate(2011, 0), makedate(2012, 366)", "2011-01-31|2011-02-01|NULL|2012-12-31"},
		{"SELECT quarters_add(CAST('2024-01-31' AS DATE), 1), quarters_sub(CAST('2024-05-31' AS DATE), 1), quarters_add(NULL, 1)", "2024-04-30|2024-02-29|NULL"},
		{"SELECT months_diff('2020-12-25', '2020-02-25'), days_diff('2020-12-25 22:00:00', '2020-12-24 22:00:00'), years_diff('2024-01-01', '2020-06-01'), seconds_diff('2020-12-25 21:00:00', '2020-12-25 22:00:00')", "10|1|3|-3600"},
		{"SELECT extract(YEAR FROM '2024-05-06'), extract(month FROM '2024-05-06'), extract(MICROSECOND FROM '2024-05-06 00:00:00.5')", "2024|5|500000"},
		{"SELECT length(utc_timestamp())", "19"},
		// Over a table: every row, NULLs included.
		{"SELECT k, sin(x), hex(s), null_or_empty(s), dayname(dt), microsecond(dt), weekofyear(dt) FROM v ORDER BY k",
			"1|0|616263|0|Tuesday|123456|1\n2|0.8414709848078965||1|Friday|0|53\n3|NULL|NULL|1|NULL|NULL|NULL"},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}
	wantErr(t, db, "SELECT extract(WEEK FROM '2024-01-02')", 1235, "extract: unit WEEK")
	// The eight week modes of MySQL's table (first day of the week; range;
	// week 1 is the first week with a Sunday/Monday or with 4+ days),
	// derived by hand: 2024-01-01 is a Monday, 2021-01-01 a Friday.
	m := "week(%[1]s, 0), week(%[1]s, 1), week(%[1]s, 2), week(%[1]s, 3), week(%[1]s, 4), week(%[1]s, 5), week(%[1]s, 6), week(%[1]s, 7)"
	wantRows(t, db, "SELECT "+fmt.Sprintf(m, "'2024-01-01'"), "0|1|53|1|1|1|1|1")
	wantRows(t, db, "SELECT "+fmt.Sprintf(m, "'2021-01-01'"), "0|0|52|53|0|0|53|52")
	wantRows(t, db, "SELECT yearweek('2021-01-01'), yearweek('2021-01-01', 3), yearweek('1987-01-01'), week('2008-02-20', 1), week('2008-12-31', 1)",
		"202052|202053|198652|8|53")
	wantErr(t, db, "SELECT week('2024-01-02', k) FROM (SELECT 1 AS k) t", 1235, "week: the mode must be an integer constant")
	wantErr(t, db, "SELECT sin(1, 2)", 1105, "sin takes 1 argument(s), got 2")
	f.stop()
}

func splitRows(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
