# Doris's array functions over Fluss ARRAY and MAP columns, read as lake +
# log (required) and Fluss-only (disabled). test_fluss_union_log sorts
# map_keys/map_values with array_sort, as the first block does. Expected
# rows are derived by hand from the fixture (lake_types row 1: f_int 3,
# f_array [1, 2, 3], f_map {k1: 1, k2: 2}; row 2 all NULL; lake_nested row 1:
# f_arr_arr [[1, 2], [3]], f_row_deep.r_arr [7, 8]; row 2 all NULL).

-- catalog fluss_required

-- query lake_types_array_functions
SELECT id, array_sort(map_keys(f_map)), array_sort(map_values(f_map)), array_reverse_sort(f_array), array_sum(f_array), array_join(f_array, '-'), array_contains(f_array, 2), f_array[3] FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	["k1", "k2"]	[1, 2]	[3, 2, 1]	6	1-2-3	1	3
2	\N	\N	\N	\N	\N	\N	\N
-- same-as fluss_disabled

-- query lake_types_lambda
SELECT id, array_map(x -> x * f_int, f_array), array_filter(x -> x > 1, f_array), array_count(x -> x IS NOT NULL, f_array) FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	[3, 6, 9]	[2, 3]	3
2	\N	\N	0
-- same-as fluss_disabled

-- query lake_nested_array_functions
SELECT id, array_flatten(f_arr_arr), array_size(f_arr_arr), array_map(x -> array_sum(x), f_arr_arr), array_reverse_sort(struct_element(f_row_deep, 'r_arr')) FROM ${ctl}.fluss_test.lake_nested ORDER BY id
-- result
1	[1, 2, 3]	2	[3, 3]	[8, 7]
2	\N	\N	\N	\N
-- same-as fluss_disabled
