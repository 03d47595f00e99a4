# Doris's test_fluss_read_modes, statement for statement
# (test_fluss_read_modes.groovy 275097cf; expected rows from
# test_fluss_read_modes.out). Doris's assertions in code (halves add up,
# plan anchors, errors) are blocks here with the rows derived from the
# fixture by hand.
#
# Printing: DESC of a sys table prints Extra NONE, as Doris does.
# types_log reads the map through array_sort, as Doris's does.

-- statement drop_auto
drop catalog if exists test_fluss_read_modes
-- statement create_auto
create catalog test_fluss_read_modes properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement drop_off
drop catalog if exists test_fluss_read_modes_off
-- statement create_off
create catalog test_fluss_read_modes_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "disabled"
)
-- statement drop_required
drop catalog if exists test_fluss_read_modes_req
-- statement create_required
create catalog test_fluss_read_modes_req properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_capped
drop catalog if exists test_fluss_read_modes_capped
-- statement create_capped
create catalog test_fluss_read_modes_capped properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.max_tail_rows" = "1"
)

-- statement switch
switch test_fluss_read_modes
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement time_zone
set time_zone = 'Asia/Shanghai'
-- statement mode_unset
set fluss_union_read_mode = ''

-- query log_rows
select id, name, price from lake_log$log
-- result sorted
5	hot5	5.50
6	hot6	6.60

# lakeIds, logIds, wholeIds: disjoint halves that add up to the table.
-- query lake_ids
select id from lake_log$lake order by id
-- result
1
2
3
4

-- query log_ids
select id from lake_log$log order by id
-- result
5
6

-- query whole_ids
select id from lake_log order by id
-- result
1
2
3
4
5
6

-- query cold_plan
select * from lake_cold$log
-- explain
logRanges=0

-- query cold_log_count
select count(*) from lake_cold$log
-- result sorted
0

-- query part_log_rows
select id, name, dt from lake_part$log
-- result sorted
4	lp1c	20260101

-- query big_log_closed_form
select count(*) as tail_rows, min(id) as first_id, max(id) as last_id, sum(id) as id_sum
from big_log$log
-- result sorted
1000	100001	101000	100500500

-- query big_log_halves
select (select count(*) from big_log$lake) as lake_rows,
       (select count(*) from big_log$log) as log_rows,
       (select count(*) from big_log) as whole_rows
-- result sorted
100000	1000	101000

# Doris's .out rows, printed as the MySQL protocol does (booleans 1/0,
# datetimes with a space where Doris's runner prints Java's T).
-- query types_log
select id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double,
       f_decimal, f_char, f_string, hex(f_binary) as f_binary_hex,
       hex(f_bytes) as f_bytes_hex, f_date, f_timestamp, f_timestamp_ltz,
       f_array, array_sort(map_keys(f_map)) as f_map_keys,
       array_sort(map_values(f_map)) as f_map_values, f_row
from lake_types$log
-- result sorted
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

# columnsOf(lake_log) == columnsOf(lake_log$log) == columnsOf(lake_log$lake)
# on Field, Type, Null (Doris compares the first three fields only).
-- query desc_base
desc lake_log
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
price	decimal(10,2)	Yes	true	\N	

-- query desc_lake_half
desc lake_log$lake
-- result
id	int	Yes	true	\N	NONE
name	text	Yes	true	\N	NONE
price	decimal(10,2)	Yes	true	\N	NONE

-- query desc_log_half
desc lake_log$log
-- result
id	int	Yes	true	\N	NONE
name	text	Yes	true	\N	NONE
price	decimal(10,2)	Yes	true	\N	NONE

-- query log_plan
select * from lake_log$log
-- explain
contains flussScan: readMode=log, unionRead=yes, lakeSplits=0
1<=logRanges<=3

-- query base_plan
select * from lake_log
-- explain
contains flussScan: readMode=default

-- query pk_log_refused
select * from lake_pk$log
-- error has a primary key

-- query empty_log_refused
select * from lake_empty$log
-- error has no readable lake snapshot

-- query plain_log_refused
select * from log_basic$log
-- error Unknown sys table

-- query empty_lake_count
select count(*) from lake_empty$lake
-- result sorted
0

-- query required_empty_refused
select * from test_fluss_read_modes_req.fluss_test.lake_empty
-- error no readable lake snapshot

-- query log_rows_mode_disabled
select id, name from test_fluss_read_modes_off.fluss_test.lake_log$log
-- result sorted
5	hot5
6	hot6

-- statement session_disabled
set fluss_union_read_mode = 'disabled'

-- query log_rows_session_disabled
select id, name from lake_log$log
-- result sorted
5	hot5
6	hot6

-- statement session_typo
set fluss_union_read_mode = 'sometimes'

-- query log_typo_refused
select * from lake_log$log
-- error fluss_union_read_mode

-- statement session_unset
set fluss_union_read_mode = ''

# rowsUnderMode: '', disabled and required return the same rows.
-- statement rows_mode_follow
set fluss_union_read_mode = ''
-- query rows_follows_catalog
select id, name, price from lake_log order by id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60
-- statement rows_mode_disabled
set fluss_union_read_mode = 'disabled'
-- query rows_fluss_only
select id, name, price from lake_log order by id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60
-- statement rows_mode_required
set fluss_union_read_mode = 'required'
-- query rows_lake_plus_log
select id, name, price from lake_log order by id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60

-- statement plan_unset
set fluss_union_read_mode = ''
-- query unset_plan
select * from lake_log
-- explain
contains mode=auto
-- statement plan_disabled
set fluss_union_read_mode = 'disabled'
-- query off_plan
select * from lake_log
-- explain
contains unionRead=no
contains mode=disabled(session)
-- statement plan_required
set fluss_union_read_mode = 'required'
-- query on_plan
select * from lake_log
-- explain
contains unionRead=yes

-- statement over_off
set fluss_union_read_mode = 'required'
-- query on_over_off_plan
select * from test_fluss_read_modes_off.fluss_test.lake_log
-- explain
contains unionRead=yes
-- statement over_on
set fluss_union_read_mode = 'disabled'
-- query off_over_on_plan
select * from test_fluss_read_modes_req.fluss_test.lake_log
-- explain
contains unionRead=no
-- statement back_to_catalog
set fluss_union_read_mode = ''
-- query back_to_catalog_plan
select * from test_fluss_read_modes_req.fluss_test.lake_log
-- explain
contains unionRead=yes
contains mode=required
!contains (session)

-- statement session_typo_again
set fluss_union_read_mode = 'sometimes'
-- query typo_names_variable
select * from lake_log
-- error session variable 'fluss_union_read_mode'
-- statement session_unset_again
set fluss_union_read_mode = ''

-- statement capped_unset
set fluss_union_read_mode = ''
-- query degraded_plan
select * from test_fluss_read_modes_capped.fluss_test.lake_pk
-- explain
contains degraded=tail-too-large
contains unionRead=no

-- query capped_degraded_rows
select id, name from test_fluss_read_modes_capped.fluss_test.lake_pk
-- result sorted
2	lp2-lake
3	lp3-hot
4	lp4-hot

-- statement capped_required
set fluss_union_read_mode = 'required'
-- query capped_required_refused
select * from test_fluss_read_modes_capped.fluss_test.lake_pk
-- error session variable 'fluss_union_read_mode'
-- statement capped_unset_again
set fluss_union_read_mode = ''

-- statement switch_internal
switch internal
-- statement cleanup_auto
drop catalog if exists test_fluss_read_modes
-- statement cleanup_off
drop catalog if exists test_fluss_read_modes_off
-- statement cleanup_required
drop catalog if exists test_fluss_read_modes_req
-- statement cleanup_capped
drop catalog if exists test_fluss_read_modes_capped
