# Doris's test_fluss_nested_types, statement for statement
# (test_fluss_nested_types.groovy 24429a99; expected rows from
# test_fluss_nested_types.out).
#
# Known differences:
# - The groovy revision read asserts that lake_nested$lake has the three
#   Fluss system columns more than lake_nested (Fluss before 1.0.0); its
#   .out (desc_lake_nested_lake) is already Fluss 1.0.0's, with exactly the
#   table's columns. Inlet follows the .out.
# log_rows reads a map through array_sort(map_keys(...)), as Doris's does.

-- statement drop
drop catalog if exists test_fluss_nested_types
-- statement create
create catalog test_fluss_nested_types properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_nested_types
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query desc_log_nested
desc log_nested
-- result
id	int	Yes	true	\N	
f_arr_arr	array<array<int>>	Yes	true	\N	
f_arr_map	array<map<text,int>>	Yes	true	\N	
f_arr_row	array<struct<a:int,b:text>>	Yes	true	\N	
f_map_arr	map<text,array<int>>	Yes	true	\N	
f_map_row	map<text,struct<a:int,b:text>>	Yes	true	\N	
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	true	\N	
f_arr_arr_arr	array<array<array<int>>>	Yes	true	\N	

-- query desc_pk_nested
desc pk_nested
-- result
id	int	Yes	true	\N	
f_arr_arr	array<array<int>>	Yes	true	\N	
f_arr_row	array<struct<a:int,b:text>>	Yes	true	\N	
f_map_arr	map<text,array<int>>	Yes	true	\N	
f_map_row	map<text,struct<a:int,b:text>>	Yes	true	\N	
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	true	\N	

# Doris's .out rows, printed as the MySQL protocol does (booleans 1/0,
# datetimes with a space where Doris's runner prints Java's T).
-- query log_rows
select id, f_arr_arr, f_arr_map, f_arr_row,
       array_sort(map_keys(f_map_arr)) as f_map_arr_keys,
       f_map_arr['k1'] as f_map_arr_k1, f_map_arr['k2'] as f_map_arr_k2,
       f_map_row, f_row_deep, f_arr_arr_arr
from log_nested
-- result sorted
1	[[1, 2], [3]]	[{"a":1}, {"b":2}]	[{"a":1, "b":"x"}, {"a":2, "b":"y"}]	["k1", "k2"]	[1, 2]	[3]	{"k1":{"a":9, "b":"z"}}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}	[[[1], [2, 3]], [[4]]]
2	[null]	[null]	[null]	["k1"]	\N	\N	{"k1":null}	{"r_int":null, "r_arr":null, "r_map":null, "r_row":null}	[null]
3	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query log_elements
select id,
       array_size(f_arr_arr), f_arr_arr[1], array_size(f_arr_arr[1]), f_arr_arr[1][2],
       f_arr_map[1]['a'],
       struct_element(f_arr_row[1], 'a'), struct_element(f_arr_row[1], 'b'),
       f_map_arr['k1'], f_map_arr['k1'][2],
       struct_element(f_map_row['k1'], 'a'), struct_element(f_map_row['k1'], 'b')
from log_nested
-- result sorted
1	2	[1, 2]	2	2	1	1	x	[1, 2]	2	9	z
2	1	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query log_deep
select id,
       f_arr_arr_arr[1][2][1],
       struct_element(f_row_deep, 'r_int'),
       struct_element(f_row_deep, 'r_arr')[2],
       struct_element(f_row_deep, 'r_map')['m'],
       struct_element(struct_element(f_row_deep, 'r_row'), 'x'),
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from log_nested
-- result sorted
1	2	1	8	3	5	deep
2	\N	\N	\N	\N	\N	\N
3	\N	\N	\N	\N	\N	\N

-- query log_nested_predicate
select id from log_nested
where f_arr_arr[1][1] = 1 and struct_element(f_map_row['k1'], 'a') = 9
-- result sorted
1

-- query pk_rows
select id, f_arr_arr, f_arr_row, f_map_arr, f_map_row, f_row_deep from pk_nested
-- result sorted
1	[[10, 20]]	[{"a":11, "b":"xx"}]	{"k9":[10]}	{"k9":{"a":99, "b":"zz"}}	{"r_int":2, "r_arr":[70], "r_map":{"mm":30}, "r_row":{"x":50, "y":"deeper"}}
2	\N	\N	\N	\N	\N

-- query pk_elements
select id,
       array_size(f_arr_arr), f_arr_arr[1][1],
       struct_element(f_arr_row[1], 'b'),
       f_map_arr['k9'], f_map_arr['k9'][1],
       struct_element(f_map_row['k9'], 'a'),
       struct_element(f_row_deep, 'r_arr')[1],
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from pk_nested
-- result sorted
1	1	10	xx	[10]	10	99	70	deeper
2	\N	\N	\N	\N	\N	\N	\N	\N

-- query desc_lake_nested
desc lake_nested
-- result
id	int	Yes	true	\N	
f_arr_arr	array<array<int>>	Yes	true	\N	
f_arr_row	array<struct<a:int,b:text>>	Yes	true	\N	
f_map_arr	map<text,array<int>>	Yes	true	\N	
f_map_row	map<text,struct<a:int,b:text>>	Yes	true	\N	
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	true	\N	

-- query desc_lake_nested_lake
desc lake_nested$lake
-- result
id	int	Yes	true	\N	NONE
f_arr_arr	array<array<int>>	Yes	true	\N	NONE
f_arr_row	array<struct<a:int,b:text>>	Yes	true	\N	NONE
f_map_arr	map<text,array<int>>	Yes	true	\N	NONE
f_map_row	map<text,struct<a:int,b:text>>	Yes	true	\N	NONE
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	true	\N	NONE

-- query lake_side
select id, f_arr_arr, f_arr_row, f_map_arr, f_map_row, f_row_deep from lake_nested$lake
-- result sorted
1	[[1, 2], [3]]	[{"a":1, "b":"x"}]	{"k1":[1, 2]}	{"k1":{"a":9, "b":"z"}}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}

-- query lake_plan
select * from lake_nested
-- explain
contains unionRead=yes

-- query lake_union
select id, f_arr_arr, f_arr_row, f_map_arr, f_map_row, f_row_deep from lake_nested
-- result sorted
1	[[1, 2], [3]]	[{"a":1, "b":"x"}]	{"k1":[1, 2]}	{"k1":{"a":9, "b":"z"}}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}
2	\N	\N	\N	\N	\N

-- query lake_union_elements
select id, f_arr_arr[1][2], struct_element(f_arr_row[1], 'b'),
       f_map_arr['k1'][1], struct_element(f_map_row['k1'], 'b'),
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from lake_nested
-- result sorted
1	2	x	1	z	deep
2	\N	\N	\N	\N	\N

-- statement drop_off
drop catalog if exists test_fluss_nested_types_off
-- statement create_off
create catalog test_fluss_nested_types_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- catalog test_fluss_nested_types
-- query union_equals_fluss_only
select id, f_arr_arr, f_arr_row, f_map_arr, f_map_row, f_row_deep
        from ${ctl}.fluss_test.lake_nested order by id
-- same-as test_fluss_nested_types_off

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog if exists test_fluss_nested_types
-- statement cleanup_off
drop catalog if exists test_fluss_nested_types_off
