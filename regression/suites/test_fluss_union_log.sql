# Doris's test_fluss_union_log, statement for statement
# (test_fluss_union_log.groovy 02b5b0d2; expected rows from
# test_fluss_union_log.out). compareModes(q) is the query on the union
# catalog with -- same-as the fluss-only catalog.
#
# Printing conventions (Doris's runner renders through JDBC objects, Inlet's
# through the MySQL text protocol): BOOLEAN prints 1/0 where the .out has
# true/false; DATETIME prints '2026-01-01 01:02:03.456789' where the .out
# has Java's '2026-01-01T01:02:03.456789'.
# types_all reads the map through array_sort, as Doris's does.
# Fixture: the newer Doris init (and this emulator) drops partition
# 20260102 of lake_part from Fluss after tiering, so the fluss-only read of
# lake_part lacks row 3: compareModes on lake_part is left out (the lake-only
# partition is what test_fluss_predicates checks).

-- statement drop_union
drop catalog if exists test_fluss_union_log
-- statement create_union
create catalog test_fluss_union_log properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_off
drop catalog if exists test_fluss_union_log_off
-- statement create_off
create catalog test_fluss_union_log_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement switch
switch test_fluss_union_log
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement time_zone
set time_zone = 'Asia/Shanghai'

-- catalog test_fluss_union_log

-- query log_plan
select * from lake_log
-- explain
contains flussScan: readMode=default, unionRead=yes
contains mode=required
lakeSplits>=1
1<=logRanges<=2
pkRanges=0

-- query log_rows
select id, name, price from lake_log
-- result sorted
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60

-- query log_rows_compare
select id, name, price from ${ctl}.fluss_test.lake_log order by id
-- same-as test_fluss_union_log_off

-- query log_count
select count(*) from lake_log
-- result sorted
6

-- query log_sum
select sum(price) from lake_log
-- result sorted
23.10

-- query cold_plan
select * from lake_cold
-- explain
contains unionRead=yes
lakeSplits>=1
logRanges=0

-- query cold_rows
select id, name from lake_cold
-- result sorted
1	cold1
2	cold2
3	cold3

-- query cold_rows_compare
select id, name from ${ctl}.fluss_test.lake_cold order by id
-- same-as test_fluss_union_log_off

# Doris's .out rows, printed as the MySQL protocol does (booleans 1/0,
# datetimes with a space where Doris's runner prints Java's T).
Doris's .out row (booleans and datetimes in its runner's printing):
-- query types_all
select id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double,
       f_decimal, f_char, f_string, hex(f_binary) as f_binary_hex,
       hex(f_bytes) as f_bytes_hex, f_date, f_timestamp, f_timestamp_ltz,
       f_array, array_sort(map_keys(f_map)) as f_map_keys,
       array_sort(map_values(f_map)) as f_map_values, f_row
from lake_types
-- result sorted
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 09:02:03.456	[1, 2, 3]	["k1", "k2"]	[1, 2]	{"r_int":1, "r_string":"nested1"}
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query types_ids_compare
select id from ${ctl}.fluss_test.lake_types order by id
-- result
1
2
-- same-as test_fluss_union_log_off

-- query part_rows
select id, name, dt from lake_part
-- result sorted
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102
4	lp1c	20260101

-- query tiered_part_plan
select * from lake_part where dt = '20260102'
-- explain
contains unionRead=yes
logRanges=0

-- query part_tiered_only
select id from lake_part where dt = '20260102'
-- result sorted
3

-- query tail_part_plan
select * from lake_part where dt = '20260101'
-- explain
logRanges=1

-- query part_with_tail
select id from lake_part where dt = '20260101'
-- result sorted
1
2
4

-- query pk_plan
select * from lake_pk
-- explain
contains unionRead=yes
logRanges=0
pkTailRanges>=1

-- query plain_plan
select * from log_basic
-- explain
contains flussScan: readMode=default, unionRead=no
lakeSplits=0

-- query plain_count
select count(*) from log_basic
-- result sorted
3

-- statement switch_internal
switch internal
-- statement cleanup_union
drop catalog if exists test_fluss_union_log
-- statement cleanup_off
drop catalog if exists test_fluss_union_log_off
