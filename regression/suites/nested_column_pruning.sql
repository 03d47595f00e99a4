# test_fluss_nested_column_pruning: with enable_prune_nested_column on, a
# struct read for one field is pruned to it; rows equal with it off.

-- catalog fluss_required

-- statement prune_on
SET enable_prune_nested_column = true

-- query log_pruned_plan
SELECT struct_element(f_row, 'r_int') FROM ${ctl}.fluss_test.log_types
-- explain
contains pruned type: struct<r_int:int>

-- query log_pruned_rows
SELECT id, struct_element(f_row, 'r_int') FROM ${ctl}.fluss_test.log_types ORDER BY id
-- result
1	1
2	2
3	\N

-- query pk_pruned_rows
SELECT id, struct_element(f_row, 'r_int') FROM ${ctl}.fluss_test.pk_types ORDER BY id
-- result
1	1
2	\N

-- query union_pruned_rows
SELECT id, struct_element(f_row, 'r_string') FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	nested1
2	\N
-- same-as fluss_disabled

-- query lake_half_pruned_rows
SELECT id, struct_element(struct_element(f_row_deep, 'r_row'), 'x') FROM ${ctl}.fluss_test.`lake_nested$lake`
-- result
1	5

-- statement prune_off
SET enable_prune_nested_column = false

-- query log_unpruned_plan
SELECT struct_element(f_row, 'r_int') FROM ${ctl}.fluss_test.log_types
-- explain
!contains pruned type:

-- query log_unpruned_rows
SELECT id, struct_element(f_row, 'r_int') FROM ${ctl}.fluss_test.log_types ORDER BY id
-- result
1	1
2	2
3	\N

-- query union_unpruned_rows
SELECT id, struct_element(f_row, 'r_string') FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	nested1
2	\N

-- statement prune_reset
SET enable_prune_nested_column = true
