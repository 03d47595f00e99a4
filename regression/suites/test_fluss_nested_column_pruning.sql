# Doris's test_fluss_nested_column_pruning, statement for statement
# (test_fluss_nested_column_pruning.groovy cb8ea56f; expected rows from
# test_fluss_nested_column_pruning.out). prunedMatchesUnpruned(q) is q run
# with enable_prune_nested_column off and on, both with the rows derived
# from the fixture by hand.

-- statement drop
drop catalog if exists test_fluss_nested_column_pruning
-- statement create
create catalog test_fluss_nested_column_pruning properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_nested_column_pruning
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- statement prune_on
set enable_prune_nested_column = true
-- query pruned_type_log
select id, struct_element(f_row_deep, 'r_int') from log_nested order by id
-- explain
contains pruned type: struct<r_int:int>
-- query pruned_type_pk
select id, struct_element(f_row_deep, 'r_int') from pk_nested order by id
-- explain
contains pruned type: struct<r_int:int>
-- query pruned_type_union
select id, struct_element(f_row_deep, 'r_int') from lake_nested order by id
-- explain
contains pruned type: struct<r_int:int>

-- statement log_off
set enable_prune_nested_column = false
-- query log_unpruned
select id, struct_element(f_row_deep, 'r_int'),
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from log_nested order by id
-- result
1	1	deep
2	\N	\N
3	\N	\N
-- statement log_on
set enable_prune_nested_column = true
-- query log_pruned_same
select id, struct_element(f_row_deep, 'r_int'),
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from log_nested order by id
-- result
1	1	deep
2	\N	\N
3	\N	\N

-- statement log_array_map_off
set enable_prune_nested_column = false
-- query log_array_map_unpruned
select id, struct_element(f_arr_row[1], 'b'), struct_element(f_map_row['k1'], 'a')
from log_nested order by id
-- result
1	x	9
2	\N	\N
3	\N	\N
-- statement log_array_map_on
set enable_prune_nested_column = true
-- query log_array_map_pruned_same
select id, struct_element(f_arr_row[1], 'b'), struct_element(f_map_row['k1'], 'a')
from log_nested order by id
-- result
1	x	9
2	\N	\N
3	\N	\N

-- statement pk_off
set enable_prune_nested_column = false
-- query pk_unpruned
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_arr_row[1], 'b')
from pk_nested order by id
-- result
1	2	xx
2	\N	\N
-- statement pk_on
set enable_prune_nested_column = true
-- query pk_pruned_same
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_arr_row[1], 'b')
from pk_nested order by id
-- result
1	2	xx
2	\N	\N

-- statement pk_map_off
set enable_prune_nested_column = false
-- query pk_map_unpruned
select id, struct_element(f_map_row['k9'], 'a') from pk_nested order by id
-- result
1	99
2	\N
-- statement pk_map_on
set enable_prune_nested_column = true
-- query pk_map_pruned_same
select id, struct_element(f_map_row['k9'], 'a') from pk_nested order by id
-- result
1	99
2	\N

-- statement union_off
set enable_prune_nested_column = false
-- query union_unpruned
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_map_row['k1'], 'b')
from lake_nested order by id
-- result
1	1	z
2	\N	\N
-- statement union_on
set enable_prune_nested_column = true
-- query union_pruned_same
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_map_row['k1'], 'b')
from lake_nested order by id
-- result
1	1	z
2	\N	\N

-- statement lake_off
set enable_prune_nested_column = false
-- query lake_unpruned
select id, struct_element(f_row_deep, 'r_int') from lake_nested$lake order by id
-- result
1	1
-- statement lake_on
set enable_prune_nested_column = true
-- query lake_pruned_same
select id, struct_element(f_row_deep, 'r_int') from lake_nested$lake order by id
-- result
1	1

-- statement prune_on_again
set enable_prune_nested_column = true
-- query log_pruned
select id, struct_element(f_row_deep, 'r_int'),
       struct_element(struct_element(f_row_deep, 'r_row'), 'y')
from log_nested order by id
-- result sorted
1	1	deep
2	\N	\N
3	\N	\N
-- query pk_pruned
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_arr_row[1], 'b')
from pk_nested order by id
-- result sorted
1	2	xx
2	\N	\N
-- query union_pruned
select id, struct_element(f_row_deep, 'r_int'), struct_element(f_map_row['k1'], 'b')
from lake_nested order by id
-- result sorted
1	1	z
2	\N	\N

# lake_sys_pruned is of the .out's later revision (the $lake read above).
-- query lake_sys_pruned
select id, struct_element(f_row_deep, 'r_int') from lake_nested$lake order by id
-- result sorted
1	1

-- statement cleanup
drop catalog if exists test_fluss_nested_column_pruning
