package server

import "testing"

// TestArrayFunctions (issue 22 §3, issue 24): Doris's array functions
// through a real MySQL client, over constants (the examples of Doris's
// manual, sql-functions/scalar-functions/array-functions, with its
// results) and over an internal table with ARRAY columns of INT, STRING,
// DECIMAL and DATE holding NULL arrays, NULL elements and empty arrays
// (results derived by hand). Set functions leave the order to the engine in
// Doris, so their checks sort first.
func TestArrayFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	for _, c := range []struct{ q, want string }{
		// array_sort: NULLs first; array_reverse_sort: NULLs last.
		{"SELECT array_sort([2,1,3,null]), array_sort(NULL), array_sort([]), array_reverse_sort([2,1,3,null]), array_sort(['bc', 'ab', 'dc'])",
			`[null, 1, 2, 3]|NULL|[]|[3, 2, 1, null]|["ab", "bc", "dc"]`},
		// Literal forms and subscripts: [..] is array(..), 1-based, negative
		// from the end, out of range NULL.
		{"SELECT [1, 2, 3], array(1, 2, 3)[1], [1, 2, 3][-1], [1, 2, 3][4], element_at(['a', 'b'], 0), [[1, 2], [3]][2]",
			"[1, 2, 3]|1|3|NULL|NULL|[3]"},
		{"SELECT array_size([1, 2, 3]), size([]), cardinality(NULL), array_size(['a', NULL])", "3|0|NULL|2"},
		// Searching: a NULL value finds a NULL element (array_position's
		// manual example); only a NULL array gives NULL.
		{"SELECT array_position(['apple', 'banana', 'cherry', 'apple'], 'apple'), array_position([1.1, 2.2, 3.3, 4.4, 5.5], 3.3), array_position([1, 2, 3, 4, 5], 10), array_position([1, null, 3, null, 5], null), array_position([], 1), array_position(NULL, 1)",
			"1|3|0|2|0|NULL"},
		{"SELECT array_contains([1, 2, 3], 2), array_contains([1, 2, 3], 4), array_contains([1, NULL], NULL), array_contains(NULL, 1), countequal([1, 2, 2, NULL, NULL], 2), countequal([1, NULL, NULL], NULL)",
			"1|0|1|NULL|2|2"},
		{"SELECT countequal(NULL, 1), countequal([1, 2, 3, 'c'], 2), countequal([], 'b'), array_contains([null, 1, 2], null), array_contains([1, 2, 3], null), array_enumerate_uniq([1, 2, 1, 3, 2, 1]), array_enumerate_uniq([1, null, 1, null, 1]), array_enumerate_uniq([1, 2, 1], [10, 20, 10])",
			"NULL|1|0|1|0|[1, 1, 2, 1, 2, 3]|[1, 1, 2, 2, 3]|[1, 1, 2]"},
		{"SELECT array_distinct([1, 2, 3, 4, 5]), array_distinct(['a', 'b', 'a', 'c', 'b', 'd']), array_distinct([1, null, 2, null, 3, null]), array_distinct([]), array_distinct(NULL)",
			`[1, 2, 3, 4, 5]|["a", "b", "c", "d"]|[1, null, 2, 3]|[]|NULL`},
		{"SELECT array_join([1, 2, 3, 4, 5], ','), array_join(['hello', 'world', 'doris'], ' '), array_join([1, null, 3, null, 5], '-'), array_join([1, null, 3, null, 5], '-', 'NULL'), array_join([1.1, 2.2, 3.3], ' | '), array_join([], ','), array_join(NULL, ',')",
			"1,2,3,4,5|hello world doris|1-3-5|1-NULL-3-NULL-5|1.1 | 2.2 | 3.3||NULL"},
		{"SELECT array_join(CAST(['2023-01-01', '2023-06-15', '2023-12-31'] AS ARRAY<DATETIME>), ' to ')",
			"2023-01-01 00:00:00 to 2023-06-15 00:00:00 to 2023-12-31 00:00:00"},
		// Aggregates over elements skip NULLs; nothing left gives NULL.
		{"SELECT array_sum([1, 2, 3, 4]), array_sum([1, NULL, 3]), array_sum(NULL), array_sum([NULL, NULL]), array_min([3, NULL, 1]), array_max(['a', 'c', 'b']), array_min([])",
			"10|4|NULL|NULL|1|c|NULL"},
		{"SELECT array_avg([1, null, 3, null, 5]), array_avg([1.1, 2.2, 3.3, 4.4, 5.5]), array_avg([]), array_product([1, 2, 3, 4, 5]), array_product([1, null, 3, null, 5]), array_product([true, false, true]), array_product([]), array_product([null, null, null])",
			"3|3.3|NULL|120|15|0|NULL|NULL"},
		{"SELECT x FROM (SELECT [] AS x UNION ALL SELECT [1] UNION ALL SELECT [NULL, 2.5]) u ORDER BY array_size(x)", "[]\n[1.0]\n[null, 2.5]"},
		// Strings are read as numbers; [1, 'a'] is ARRAY<STRING>, as in Doris.
		{"SELECT array_avg(['1', '2', '3', '4', '5']), array_sum(['1', 'x', '2.5']), [1, 'a'], ['a', 1.5, NULL], if(true, [], [1, 2]), if(false, [1], [1.5])",
			`3|3.5|["1", "a"]|["a", "1.5", null]|[]|[1.5]`},
		{"SELECT array_cum_sum([1, 2, 3, 4, 5]), array_cum_sum([null, 1, null, 3, null, 5]), array_cum_sum([42]), array_cum_sum([]), array_difference([1, 3, 6, 10]), array_difference([NULL]), array_difference([0, 1, 2, 3, NULL, 4, 6])",
			"[1, 3, 6, 10, 15]|[null, 1, 1, 4, 4, 9]|[42]|[]|[0, 2, 3, 4]|[null]|[0, 1, 1, 1, null, null, 2]"},
		// array_remove: NULL target gives NULL (manual); NULL elements stay.
		{"SELECT array_remove([1,2,3], 1), array_remove([1,2,3,null], 1), array_remove(['a','b','c',NULL], NULL), array_remove(NULL, 2), array_remove([1,2,3], 258)",
			"[2, 3]|[2, 3, null]|NULL|NULL|[1, 2, 3]"},
		{"SELECT array_slice([1, 2, 3, 4, 5, 6], 2, 3), array_slice([1, 2, 3, 4, 5, 6], -2), array_slice([1, 2, 3, 4, 5, 6], 2, -1), array_slice([1, 2, 3], 9), array_slice(NULL, 1)",
			"[2, 3, 4]|[5, 6]|[2, 3, 4, 5]|[]|NULL"},
		{"SELECT array_concat([1, 2], [7, 8], [5, 6]), array_concat([1, 2], NULL), array_concat(['a'], []), array_compact([1, 1, null, null, 2, 1]), array_popback([1, 2, 3]), array_popfront(['a', 'b']), array_popback([])",
			`[1, 2, 7, 8, 5, 6]|NULL|["a"]|[1, null, 2, 1]|[1, 2]|["b"]|[]`},
		{"SELECT array_pushback([1, 2], 3), array_pushback([1, 2], NULL), array_pushfront(['b'], 'a'), array_pushfront(NULL, 1)",
			`[1, 2, 3]|[1, 2, null]|["a", "b"]|NULL`},
		// Set functions: one NULL kept; any NULL array gives NULL.
		{"SELECT array_sort(array_union([1, 2, 3], [3, 5, 6])), array_sort(array_union(['hello', 'world'], ['hello', NULL])), array_union([1], NULL), array_sort(array_intersect([1, 2, 3, null], [null, 3, 2])), array_except([1, 2, 3], [2]), array_except([1, 1, 2], [])",
			`[1, 2, 3, 5, 6]|[null, "hello", "world"]|NULL|[null, 2, 3]|[1, 3]|[1, 2]`},
		// arrays_overlap: NULL when nothing matches but a NULL element is there.
		{"SELECT arrays_overlap(['hello', 'aloha'], ['hello', 'hi', 'hey']), arrays_overlap(['Pinnacle', 'aloha'], ['hi', 'hey']), arrays_overlap(['HELLO', 'ALOHA'], NULL), arrays_overlap(['HELLO', 'ALOHA'], ['HELLO', NULL]), arrays_overlap(['PICKLE', 'ALOHA'], ['HELLO', NULL])",
			"1|0|NULL|1|NULL"},
		{"SELECT array_with_constant(2, 'hello'), array_repeat('hello', 2), array_repeat(12345, 3), array_with_constant(2, NULL), array_with_constant(0, 1), array_with_constant(NULL, 'hello'), array_with_constant(NULL, NULL)",
			`["hello", "hello"]|["hello", "hello"]|[12345, 12345, 12345]|[null, null]|[]|[]|[]`},
		{"SELECT array_sortby([10, 20, 30], [3, 1, 2]), array_sortby(['a', 'b', 'c'], [2, 2, 1]), array_sortby(x -> x + 1, [3, 1, 2]), array_sortby([10, 20, 30], NULL), array_sortby(NULL, [2, 3]), array_sortby(x -> x[1], [[1, 2], [0, 1]])",
			`[20, 30, 10]|["c", "a", "b"]|[1, 2, 3]|[10, 20, 30]|NULL|[[0, 1], [1, 2]]`},
		{"SELECT array_compact([1, 2, 3, 3, null, null, 4, 4]), array_compact(['aaa', 'aaa', 'bbb', 'ccc', 'ccccc', null, null, 'dddd'])",
			`[1, 2, 3, null, 4]|["aaa", "bbb", "ccc", "ccccc", null, "dddd"]`},
		{"SELECT array_range(5), array_range(0, 5), array_range(2, 6, 2), array_range(3, 3), array_range(3, 2), array_range(-1, 3), array_range(1, 3, 0), sequence(1, 4)",
			"[0, 1, 2, 3, 4]|[0, 1, 2, 3, 4]|[2, 4]|[]|[]|NULL|NULL|[1, 2, 3]"},
		{"SELECT array_range('2022-05-15 12:00:00', '2022-05-17 12:00:00'), array_range('2022-05-15 12:00:00', '2022-07-17 12:00:00', INTERVAL 1 MONTH), array_range('2022-05-15 12:00:00', '2024-05-17 12:00:00', INTERVAL 1 YEAR), array_range('2022-05-15 12:00:00', '2022-05-15 14:00:00', INTERVAL 1 HOUR)",
			`["2022-05-15 12:00:00", "2022-05-16 12:00:00"]|["2022-05-15 12:00:00", "2022-06-15 12:00:00"]|["2022-05-15 12:00:00", "2023-05-15 12:00:00"]|["2022-05-15 12:00:00", "2022-05-15 13:00:00"]`},
		{"SELECT array_apply([1000000, 1000001, 1000002], '=', 1000002), array_apply([1, 2, 3, null], '>', 1), array_apply(['a', 'b'], '!=', 'a')",
			`[1000002]|[2, 3]|["b"]`},
		{"SELECT array_zip([23, 24, 25], ['John', 'Jane', 'Jim'], [true, false, true]), array_zip([23, NULL], ['John', NULL]), array_zip([1], NULL), array_zip([23, 24], ['John', 'Jane'])[1]",
			`[{"col1":23, "col2":"John", "col3":1}, {"col1":24, "col2":"Jane", "col3":0}, {"col1":25, "col2":"Jim", "col3":1}]|[{"col1":23, "col2":"John"}, {"col1":null, "col2":null}]|NULL|{"col1":23, "col2":"John"}`},
		{"SELECT array_enumerate([10, 20, 30]), array_enumerate_uniq([1, 2, 1, 4, 1]), array_enumerate_uniq([1, 1, 1], [2, 3, 2]), array_enumerate([])",
			"[1, 2, 3]|[1, 1, 2, 1, 3]|[1, 1, 2]|[]"},
		// The forms over an array of conditions (a lambda's results).
		{"SELECT array_count([0, 1, 2, 3]), array_count(NULL), array_exists([0, 2, NULL]), array_first_index([0, 0, 1, 1]), array_last_index([1, 1, 0]), array_first_index([0])",
			"3|0|[0, 1, null]|3|2|0"},
		{"SELECT array_filter([1, 2, 3], [true, false, true]), array_sortby(['a', 'b', 'c'], [3, 2, 1]), array_sortby([1, 2, 3], [NULL, 2, 1]), array_flatten([[1, 2], NULL, [3]]), array_contains_all([1, 2, 3, 4], [2, 3]), array_contains_all([1, 2, 3], [3, 2])",
			`[1, 3]|["c", "b", "a"]|[1, 3, 2]|[1, 2, 3]|1|0`},
		// Lambdas (the manual's array_count, array_split, array_match_all
		// examples): one or several parameters, NULL elements passed in.
		{"SELECT array_map(x -> x + 1, [1, 2, 3]), array_map((x, y) -> x * y, [1, 2], [3, 4]), array_map(x -> x IS NULL, [1, NULL]), array_map(x -> upper(x), ['a', NULL])",
			`[2, 3, 4]|[3, 8]|[0, 1]|["A", null]`},
		{"SELECT array_exists(x -> x >= 3, [1.1, 2.2, 3.3, 4.4, 5.5]), array_exists(x -> x > 0, []), array_exists(NULL), array_exists(x -> x > 2, [1, null, 3, null, 5]), array_first_index(NULL), array_first_index(x -> x is not null, [null, 1, null, 3, null, 5]), array_first_index(x -> size(x) > 2, [[1,2],[3,4,5],[6],[7,8,9,10]])",
			"[0, 0, 1, 1, 1]|[]|NULL|[0, null, 1, null, 1]|0|2|2"},
		{"SELECT array_count(x -> x > 2, [1, 2, 3, 4, 5]), array_count((x, y) -> x > y, [1, 2, 3], [0, 3, 2]), array_count(x -> array_size(x) > 2, [[1,2],[1,2,3],[4,5,6,7]]), array_count(x -> x % 2 = 0, [1, 2, 3, 4, 5, 6])",
			"3|2|2|3"},
		{"SELECT array_count(x -> size(array_filter(y -> y > 5, x)) > 0, [[1,2,3],[4,5,6],[7,8,9]]), array_filter(x -> x > 1, [1, 2, 3, NULL]), array_exists(x -> x > 1, [1, 2]), array_first(x -> x > 1, [1, 2, 3]), array_last(x -> x > 1, [1, 2, 3]), array_first(x -> x > 9, [1])",
			"2|[2, 3]|[0, 1]|2|3|NULL"},
		{"SELECT array_first_index(x -> x > 1, [1, 2, 3]), array_last_index(x -> x > 1, [1, 2, 3, 0]), array_sortby(x -> -x, [1, 3, 2]), array_sortby((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2])",
			`2|3|[3, 2, 1]|["b", "c", "a"]`},
		{"SELECT array_match_all(x -> x > 5, [1, 2, 3, 4, 7]), array_match_all((x, i) -> x > i, [1, 2, 3, 4, 5], [1, 2, 3, 4, 7]), array_match_all(x -> x > 0, [1, NULL]), array_match_any(x -> x > 5, [1, 7]), array_match_any(x -> x > 5, [1, NULL]), array_match_all(x -> x > 0, [])",
			"0|0|NULL|1|NULL|1"},
		{"SELECT array_split([1,2,3,4,5], [false,true,false,true,false]), array_split(['a','b','c'], [false,false,false]), array_split([1,NULL,3], [false,null,false]), array_split(x -> x - 1, [1, 2, 3]), array_split((x, y) -> x - y, [1, 2, 3], [0, 1, 2]), array_reverse_split([1,2,3,4,5], [false,true,false,true,false])",
			`[[1], [2, 3], [4, 5]]|[["a", "b", "c"]]|[[1, null, 3]]|[[1], [2], [3]]|[[1], [2], [3]]|[[1, 2], [3, 4], [5]]`},
		// array_sort with a comparator and array_reduce (the manual's
		// examples).
		{"SELECT array_sort((x, y) -> IF(x < y, 1, IF(x = y, 0, -1)), [3, 2, 5, 1, 2]), array_sort((x, y) -> IF(x < y, 1, IF(x = y, 0, -1)), ['bc', 'ab', 'dc']), array_sort((x, y) -> CASE WHEN x IS NULL THEN -1 WHEN y IS NULL THEN 1 WHEN x < y THEN 1 WHEN x = y THEN 0 ELSE -1 END, [3, 2, null, 5, null, 1, 2])",
			`[5, 3, 2, 2, 1]|["dc", "bc", "ab"]|[null, null, 5, 3, 2, 2, 1]`},
		{"SELECT array_sort((x, y) -> CASE WHEN x IS NULL THEN 1 WHEN y IS NULL THEN -1 WHEN x < y THEN 1 WHEN x = y THEN 0 ELSE -1 END, [3, 2, null, 5, null, 1, 2]), array_sort((x, y) -> IF(length(x) < length(y), -1, IF(length(x) = length(y), 0, 1)), ['a', 'abcd', 'abc']), array_sort((x, y) -> IF(cardinality(x) < cardinality(y), -1, IF(cardinality(x) = cardinality(y), 0, 1)), [[2, 3, 1], [4, 2, 1, 4], [1, 2]])",
			`[5, 3, 2, 2, 1, null, null]|["a", "abc", "abcd"]|[[1, 2], [2, 3, 1], [4, 2, 1, 4]]`},
		{"SELECT array_reduce((s, x) -> s + x, [1, 2, 3, 4, 5], 0), array_reduce((s, x) -> s - x, [1, 2, 3], 0), array_reduce((s, x) -> concat(s, x), ['a', 'b'], '>'), array_reduce((s, x) -> s + x, [1.5, 2.25], 0), array_reduce((s, x) -> s + x, [], 7)",
			"15|-6|>ab|3.75|7"},
		{"SELECT trim_array([1, 2, 3, 4], 2), trim_array(['a', 'b', 'c'], 0), trim_array([1, 2, 3], 3), trim_array([[1, NULL], [2, 3], [4, 5]], 1), trim_array(NULL, 0)",
			`[1, 2]|["a", "b", "c"]|[]|[[1, null], [2, 3]]|NULL`},
		{"SELECT array_except_all([1, 1, 2, 3], [1, 3]), array_except_all(['a', 'a', 'b'], ['a']), array_except_all([3, 1, 3, 2], [3]), array_except_all(['a', NULL, 'a', NULL], [NULL]), array_except_all([1, 1, 2], []), array_except_all(NULL, [1])",
			`[1, 2]|["a", "b"]|[1, 3, 2]|["a", "a", null]|[1, 1, 2]|NULL`},
		{"SELECT array_cross_product([2.5, -3.0, 4.25], [-7.5, 0.5, 1.25]), cross_product([-128, 0, 127], [3, -5, 7]), array_cross_product(NULL, [4.0, 5.0, 6.0])",
			"[-5.875, -35, -21.25]|[635, 1277, 640]|NULL"},
		// String functions over an array of needles or patterns.
		{"SELECT multi_search_all_positions('Hello, World!', ['hello', '!', 'world', 'Hello', 'World']), multi_search_all_positions(NULL, ['a']), multi_match_any('Hello, World!', ['hello', '!', 'world']), multi_match_any('Hello, World!', ['hello', 'xyz']), multi_match_any('abc', ['^a.c$'])",
			"[0, 13, 0, 1, 8]|NULL|1|0|1"},
		// A seeded shuffle keeps the elements and repeats itself.
		{"SELECT array_sort(array_shuffle([1, 2, 3, 4, 5], 7)), array_join(array_shuffle([1, 2, 3, 4, 5], 7), ',') = array_join(array_shuffle([1, 2, 3, 4, 5], 7), ','), array_size(shuffle(['a', 'b']))",
			"[1, 2, 3, 4, 5]|1|2"},
		// Nested and mixed element types take the common type.
		{"SELECT array_sort([[2, 1], [1, 3], [1]]), array_concat([1, 2], [2.5]), array_position([1, 2], 2.0), array_sort(split_by_string('b,a', ','))",
			`[[1], [1, 3], [2, 1]]|[1.0, 2.0, 2.5]|2|["a", "b"]`},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}

	// ARRAY columns of an internal table: every row, NULL arrays, NULL
	// elements and empty arrays included.
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE a (k INT, i ARRAY<INT>, s ARRAY<STRING>, m ARRAY<DECIMAL(10,2)>, dt ARRAY<DATE>) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"INSERT INTO a VALUES (1, [3, 1, NULL, 2, 1], ['b', 'a', NULL, 'b'], [1.50, NULL, 2.25], ['2024-03-01', '2023-12-31']), (2, [], [], [], []), (3, NULL, NULL, NULL, NULL), (4, [5], ['x'], [-0.01], [NULL])")
	for _, c := range []struct{ q, want string }{
		{"SELECT k, array_sort(i), array_sort(s), array_reverse_sort(m), array_sort(dt), array_distinct(s) FROM a ORDER BY k",
			`1|[null, 1, 1, 2, 3]|[null, "a", "b", "b"]|[2.25, 1.50, null]|["2023-12-31", "2024-03-01"]|["b", "a", null]` + "\n" +
				"2|[]|[]|[]|[]|[]\n3|NULL|NULL|NULL|NULL|NULL\n" + `4|[5]|["x"]|[-0.01]|[null]|["x"]`},
		// DECIMAL keeps its scale (the average rounds half up); DATE stays DATE.
		{"SELECT k, array_sum(m), array_avg(m), array_max(dt), array_join(dt, '/'), array_sum(i), array_avg(i) FROM a ORDER BY k",
			"1|3.75|1.88|2024-03-01|2024-03-01/2023-12-31|7|1.75\n2|NULL|NULL|NULL||NULL|NULL\n3|NULL|NULL|NULL|NULL|NULL|NULL\n4|-0.01|-0.01|NULL||5|5"},
		{"SELECT k, array_position(s, 'b'), i[2], element_at(s, -1), array_size(i), array_contains(dt, '2023-12-31'), array_join(s, ',', '?') FROM a ORDER BY k",
			"1|1|1|b|5|1|b,a,?,b\n2|0|NULL|NULL|0|0|\n3|NULL|NULL|NULL|NULL|NULL|NULL\n4|0|NULL|x|1|0|x"},
		{"SELECT k FROM a WHERE array_contains(i, 1) OR arrays_overlap(s, ['x']) ORDER BY k", "1\n4"},
		// A lambda reads outer columns (k), its parameter shadows a column
		// of the same name, and lambdas nest.
		{"SELECT k, array_map(x -> x + k, i), array_filter(x -> x IS NOT NULL, s), array_count(x -> x IS NULL, i), array_map(k -> k * 2, i), array_map(x -> array_map(y -> y * x + k, [1, 2]), i) FROM a ORDER BY k",
			"1|[4, 2, null, 3, 2]|[\"b\", \"a\", \"b\"]|1|[6, 2, null, 4, 2]|[[4, 7], [2, 3], [null, null], [3, 5], [2, 3]]\n" +
				"2|[]|[]|0|[]|[]\n3|NULL|NULL|0|NULL|NULL\n4|[9]|[\"x\"]|0|[10]|[[9, 14]]"},
		{"SELECT k FROM a WHERE array_count(x -> x > 2, i) > 0 ORDER BY k", "1\n4"},
		{"SELECT sum(array_size(array_filter(x -> x > 1, i))) FROM a", "3"},
		{"SELECT k, array_reduce((s, x) -> s + ifnull(x, 0) * k, i, 0), array_sort((x, y) -> y - x, array_filter(x -> x IS NOT NULL, i)) FROM a ORDER BY k",
			"1|7|[3, 2, 1, 1]\n2|0|[]\n3|NULL|NULL\n4|20|[5]"},
		{"SELECT k, array_cum_sum(i), array_remove(i, 1), array_slice(s, 2, 2), array_pushback(m, 9.99) FROM a ORDER BY k",
			`1|[3, 4, 4, 6, 7]|[3, null, 2]|["a", null]|[1.50, null, 2.25, 9.99]` + "\n" + "2|[]|[]|[]|[9.99]\n3|NULL|NULL|NULL|NULL\n4|[5]|[5]|[]|[-0.01, 9.99]"},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}

	// The aggregates that build arrays (Doris's array_agg example: NULLs
	// kept; collect_list/collect_set drop them; no rows give []). Element
	// order is left open by Doris, so the checks sort.
	mustExec(t, db, "CREATE TABLE c (c1 INT, c2 INT) DUPLICATE KEY(c1) DISTRIBUTED BY HASH(c1) BUCKETS 3",
		"INSERT INTO c VALUES (1, 10), (1, 20), (1, 30), (2, 100), (2, 200), (3, NULL), (1, 10)")
	for _, c := range []struct{ q, want string }{
		{"SELECT c1, array_sort(array_agg(c2)), array_sort(collect_list(c2)), array_sort(collect_set(c2)), array_size(group_array(c2)), array_sort(group_uniq_array(c2)) FROM c GROUP BY c1 ORDER BY c1",
			"1|[10, 10, 20, 30]|[10, 10, 20, 30]|[10, 20, 30]|4|[10, 20, 30]\n2|[100, 200]|[100, 200]|[100, 200]|2|[100, 200]\n3|[null]|[]|[]|0|[]"},
		{"SELECT array_agg(c2), collect_list(c2), collect_set(c2) FROM c WHERE c1 IS NULL", "[]|[]|[]"},
		{"SELECT c1, array_size(collect_list(c2, 2)), array_size(collect_set(c2, 2)), array_size(collect_list(c2, 0)) FROM c GROUP BY c1 ORDER BY c1", "1|2|2|0\n2|2|2|0\n3|0|0|0"},
		{"SELECT array_sort(collect_set(c1)), array_sum(collect_list(c2)), array_size(array_agg(c2)) FROM c", "[1, 2, 3]|370|7"},
		// Lambdas over aggregates, reading a group key (not the first input
		// column), and in HAVING.
		{"SELECT c2, array_map(x -> x + c2, collect_list(c1)) FROM c WHERE c2 < 100 GROUP BY c2 ORDER BY c2", "10|[11, 11]\n20|[21]\n30|[31]"},
		{"SELECT c1 FROM c GROUP BY c1 HAVING array_count(x -> x > 15, collect_list(c2)) > 1 ORDER BY c1", "1\n2"},
		// Arrays of arrays and of strings.
		{"SELECT array_sort(array_agg(i)), array_sort(collect_set(array_join(s, ''))) FROM a", `[null, [], [3, 1, null, 2, 1], [5]]|["", "bab", "x"]`},
	} {
		wantRows(t, db, c.q, splitRows(c.want)...)
	}

	wantErr(t, db, "SELECT array_sort(1)", 1105, "not an array")
	wantErr(t, db, "SELECT array_cum_sum([DATE '2024-01-01'])", 1105, "are not numbers")
	wantErr(t, db, "SELECT array_zip([1, 2], [1])", 1105, "different lengths")
	wantErr(t, db, "SELECT array_apply([1], 'like', 1)", 1105, "operator")
	wantErr(t, db, "SELECT array_map(x -> x, [1], [2])", 1105, "1 parameter(s) for 2 array(s)")
	wantErr(t, db, "SELECT array_first_index(x -> x > 2, NULL)", 1105, "lambda argument must be array but is NULL")
	wantErr(t, db, "SELECT x -> x + 1", 1105, "allowed only as the first argument of an array function")
	wantErr(t, db, "SELECT collect_list(c2, -1) FROM c", 1105, "max_size must be a non-negative integer constant")
	wantErr(t, db, "SELECT array_map((x, y) -> x, [1], [2, 3])", 1105, "different lengths")
	wantErr(t, db, "SELECT array_size(x -> x, [1])", 1105, "does not take a lambda")
	wantErr(t, db, "SELECT trim_array([1, 2, 3], 4)", 1105, "cardinality 3: 4")
	wantErr(t, db, "SELECT array_with_constant(-1, 'hello')", 1105, "not in [0, 1000000]")
	wantErr(t, db, "SELECT array_cross_product([-11, NULL, 13], [17, -19, 23])", 1105, "cannot have NULL")
	wantErr(t, db, "SELECT array_cross_product([1, 2], [1, 2])", 1105, "3 elements")
	f.stop()
}
