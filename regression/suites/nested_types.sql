# test_fluss_nested_types: ARRAY/MAP/ROW nested two and three levels on a
# log table, a PK table (updated row) and a lake table (union = Fluss-only).

-- catalog fluss_required

-- query log_nested_rows
SELECT id, f_arr_arr, f_map_arr, f_row_deep, f_arr_arr_arr FROM ${ctl}.fluss_test.log_nested ORDER BY id
-- result
1	[[1, 2], [3]]	{"k1":[1, 2], "k2":[3]}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}	[[[1], [2, 3]], [[4]]]
2	[null]	{"k1":null}	{"r_int":null, "r_arr":null, "r_map":null, "r_row":null}	[null]
3	\N	\N	\N	\N

-- query log_nested_elements
SELECT id, f_arr_arr[1][2], f_map_arr['k2'][1], struct_element(struct_element(f_row_deep, 'r_row'), 'y'), f_arr_arr_arr[1][2][2] FROM ${ctl}.fluss_test.log_nested ORDER BY id
-- result
1	2	3	deep	3
2	\N	\N	\N	\N
3	\N	\N	\N	\N

-- query log_nested_maps_rows
SELECT id, f_arr_map, f_arr_row, f_map_row FROM ${ctl}.fluss_test.log_nested WHERE id = 1
-- result
1	[{"a":1}, {"b":2}]	[{"a":1, "b":"x"}, {"a":2, "b":"y"}]	{"k1":{"a":9, "b":"z"}}

-- query pk_nested_updated
SELECT id, f_arr_arr, f_arr_row, f_map_arr, f_map_row, f_row_deep FROM ${ctl}.fluss_test.pk_nested ORDER BY id
-- result
1	[[10, 20]]	[{"a":11, "b":"xx"}]	{"k9":[10]}	{"k9":{"a":99, "b":"zz"}}	{"r_int":2, "r_arr":[70], "r_map":{"mm":30}, "r_row":{"x":50, "y":"deeper"}}
2	\N	\N	\N	\N	\N

-- query lake_nested_union
SELECT * FROM ${ctl}.fluss_test.lake_nested ORDER BY id
-- result
1	[[1, 2], [3]]	[{"a":1, "b":"x"}]	{"k1":[1, 2]}	{"k1":{"a":9, "b":"z"}}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}
2	\N	\N	\N	\N	\N
-- explain
unionRead=yes
-- same-as fluss_disabled

-- query lake_nested_elements
SELECT id, f_arr_row[1], struct_element(f_row_deep, 'r_arr')[2], f_map_row['k1'] FROM ${ctl}.fluss_test.lake_nested ORDER BY id
-- result
1	{"a":1, "b":"x"}	8	{"a":9, "b":"z"}
2	\N	\N	\N
-- same-as fluss_disabled

# Same types as the base table; Doris prints a $lake column's Extra NONE.
-- query lake_half_types_match_base
DESC ${ctl}.fluss_test.`lake_nested$lake`
-- result
id	int	Yes	true	\N	NONE
f_arr_arr	array<array<int>>	Yes	true	\N	NONE
f_arr_row	array<struct<a:int,b:text>>	Yes	true	\N	NONE
f_map_arr	map<text,array<int>>	Yes	true	\N	NONE
f_map_row	map<text,struct<a:int,b:text>>	Yes	true	\N	NONE
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	true	\N	NONE
