# Doris's test_fluss_log_table, statement for statement
# (test_fluss_log_table.groovy 1851ea83; expected rows from
# test_fluss_log_table.out, whose types_all is of a later revision that
# reads the map through array_sort(map_keys/map_values)).
#
# Printing: BOOLEAN 1/0 vs true/false, DATETIME ' ' vs 'T' (see
# test_fluss_union_log). LTZ renders in Asia/Shanghai as Doris's does.
# types_all: the groovy revision read selects f_map whole; its row here is
# the .out's with the map as Inlet prints it ({"k1":1, "k2":2}, insertion
# order). The .out's array_sort revision runs too.

-- statement drop
drop catalog if exists test_fluss_log_table
-- statement create
create catalog test_fluss_log_table properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}"
)
-- statement switch
switch test_fluss_log_table
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement time_zone
set time_zone = 'Asia/Shanghai'

-- query basic_all
select id, name, price from log_basic
-- result sorted
1	alice	10.10
2	bob	20.20
3	carol	30.30

-- query basic_count
select count(*) from log_basic
-- result sorted
3

-- query basic_names
select name from log_basic
-- result sorted
alice
bob
carol

-- query basic_swapped
select name, id from log_basic where id = 2
-- result sorted
bob	2

-- query basic_filtered
select id from log_basic where price > 15.00
-- result sorted
2
3

-- query basic_count_filtered
select count(*) from log_basic where name = 'bob'
-- result sorted
1

-- query types_all
select id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double,
       f_decimal, f_char, f_string, hex(f_binary) as f_binary_hex,
       hex(f_bytes) as f_bytes_hex, f_date, f_timestamp, f_timestamp_ltz,
       f_array, f_map, f_row
from log_types
-- result sorted
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 09:02:03.456	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}
2	0	-1	-2	-3	-4	-1.5	-2.5	-123.4567	char2	string2	040506	0C0D	2026-01-02	2026-01-02 01:02:03.456789	2026-01-02 09:02:03.456	[4, 5]	{"k3":3}	{"r_int":2, "r_string":"nested2"}
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

# Doris's .out rows, printed as the MySQL protocol does (booleans 1/0,
# datetimes with a space where Doris's runner prints Java's T).
-- query types_all_sorted_map
select id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double,
       f_decimal, f_char, f_string, hex(f_binary) as f_binary_hex,
       hex(f_bytes) as f_bytes_hex, f_date, f_timestamp, f_timestamp_ltz,
       f_array, array_sort(map_keys(f_map)) as f_map_keys,
       array_sort(map_values(f_map)) as f_map_values, f_row
from log_types
-- result sorted
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 09:02:03.456	[1, 2, 3]	["k1", "k2"]	[1, 2]	{"r_int":1, "r_string":"nested1"}
2	0	-1	-2	-3	-4	-1.5	-2.5	-123.4567	char2	string2	040506	0C0D	2026-01-02	2026-01-02 01:02:03.456789	2026-01-02 09:02:03.456	[4, 5]	["k3"]	[3]	{"r_int":2, "r_string":"nested2"}
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query types_nested
select id, array_size(f_array), f_array[1], f_map['k1'], f_map['k2'],
       struct_element(f_row, 'r_int'), struct_element(f_row, 'r_string')
from log_types
-- result sorted
1	3	1	1	2	1	nested1
2	2	4	\N	\N	2	nested2
3	\N	\N	\N	\N	\N	\N

-- query part_all
select id, name, dt from log_part
-- result sorted
1	p1a	20260101
2	p1b	20260101
3	p2a	20260102
4	p3a	20260103

-- query part_grouped
select dt, count(*) from log_part group by dt
-- result sorted
20260101	2
20260102	1
20260103	1

-- query part_pruned
select id from log_part where dt = '20260101'
-- result sorted
1
2

# Doris's revision asserts the text "flussScan: unionRead=no", from before
# the spec's readMode field; the line is "flussScan: readMode=default,
# unionRead=no, ...", as Doris's newer suites (union_log) read it.
-- query basic_plan
select * from log_basic
-- explain
unionRead=no
contains lakeSplits=0
contains mode=auto
1<=logRanges<=3

-- query full_part_plan
select * from log_part
-- explain
contains partition=3/3
logRanges>=3

-- query pruned_plan
select * from log_part where dt = '20260101'
-- explain
contains partition=1/3
1<=logRanges<=2

-- query empty_count
select count(*) from log_empty
-- result sorted
0

-- query empty_rows
select id, name from log_empty
-- result sorted

-- query empty_plan
select * from log_empty
-- explain
logRanges=0

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog test_fluss_log_table
