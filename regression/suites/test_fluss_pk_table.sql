# Doris's test_fluss_pk_table, statement for statement
# (test_fluss_pk_table.groovy 2bc7d140 asserts in code; test_fluss_pk_table.out
# is the recorded revision of the same queries, whose names the blocks take).
#
# Printing: BOOLEAN 1/0 vs true/false, DATETIME ' ' vs 'T'.
# The .out's types_all (the row with its map read through array_sort) is
# not a block here; the groovy's predicate checks of the same row run instead.

-- statement drop
drop catalog if exists test_fluss_pk_table
-- statement create
create catalog test_fluss_pk_table properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}"
)
-- statement switch
switch test_fluss_pk_table
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query basic_all
select id, name, score from pk_basic order by id
-- result
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5

-- query basic_count
select count(*) from pk_basic
-- result
3

-- query basic_deleted_key
select count(*) from pk_basic where id = 3
-- result
0

-- query basic_updated_key
select count(*) from pk_basic where id = 2
-- result
1

-- query basic_stale_value
select count(*) from pk_basic where name = 'k2'
-- result
0

-- query basic_names
select name from pk_basic order by name
-- result
k1
k2-updated
k4

-- query basic_reordered
select score, name from pk_basic where id = 1
-- result
1.5	k1

-- query basic_filtered
select count(*) from pk_basic where score > 2.0
-- result
2

-- query types_count
select count(*) from pk_types
-- result
2

-- query types_numbers
select count(*) from pk_types where id = 1
    and f_boolean = true
    and f_tinyint = 1
    and f_smallint = 2
    and f_int = 3
    and f_bigint = 4
    and f_float = cast(1.5 as float)
    and f_double = 2.5
    and f_decimal = 123.4567
-- result
1

-- query types_strings
select count(*) from pk_types where id = 1
    and f_char = 'char1'
    and f_string = 'string1'
    and hex(f_binary) = '010203'
    and hex(f_bytes) = '0A0B'
-- result
1

-- query types_times
select count(*) from pk_types where id = 1
    and f_date = '2026-01-01'
    and f_timestamp = '2026-01-01 01:02:03.456789'
    and f_timestamp_ltz is not null
-- result
1

-- query types_nested_predicates
select count(*) from pk_types where id = 1
    and array_size(f_array) = 3
    and f_array[1] = 1
    and f_array[3] = 3
    and f_map['k1'] = 1
    and f_map['k2'] = 2
    and struct_element(f_row, 'r_int') = 1
    and struct_element(f_row, 'r_string') = 'nested1'
-- result
1

-- query types_all_null
select count(*) from pk_types where id = 2
    and f_boolean is null and f_tinyint is null and f_smallint is null
    and f_int is null and f_bigint is null and f_float is null
    and f_double is null and f_decimal is null and f_char is null
    and f_string is null and f_binary is null and f_bytes is null
    and f_date is null and f_timestamp is null and f_timestamp_ltz is null
    and f_array is null and f_map is null and f_row is null
-- result
1

-- query types_nested
select id, array_size(f_array), f_array[1], f_map['k1'], f_map['k2'],
       struct_element(f_row, 'r_int'), struct_element(f_row, 'r_string')
from pk_types
-- result sorted
1	3	1	1	2	1	nested1
2	\N	\N	\N	\N	\N	\N

-- query part_all
select id, name, dt from pk_part order by dt, id
-- result
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102

-- query part_grouped
select dt, count(*) from pk_part group by dt order by dt
-- result
20260101	2
20260102	1

-- query part_pruned
select id, name from pk_part where dt = '20260101' order by id
-- result
1	q1a
2	q1b-updated

# Doris's revision asserts the text "flussScan: unionRead=no", from before
# the spec's readMode field; the line is "flussScan: readMode=default,
# unionRead=no, ...", as Doris's newer suites (union_log) read it.
-- query basic_plan
select * from pk_basic
-- explain
unionRead=no
contains lakeSplits=0
contains mode=auto
logRanges=0
1<=pkRanges<=3

-- query full_part_plan
select * from pk_part
-- explain
contains partition=2/2

-- query pruned_plan
select * from pk_part where dt = '20260101'
-- explain
contains partition=1/2
1<=pkRanges<=2

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog test_fluss_pk_table
