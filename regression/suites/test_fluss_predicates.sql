# Doris's test_fluss_predicates, statement for statement
# (test_fluss_predicates.groovy e11225f2; expected rows from
# test_fluss_predicates.out). compareModes(q) is q on the union catalog with
# -- same-as the fluss-only catalog; the retained-partition assertions are
# two blocks with hand-derived rows.

-- statement drop
drop catalog if exists test_fluss_predicates
-- statement create
create catalog test_fluss_predicates properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_off
drop catalog if exists test_fluss_predicates_off
-- statement create_off
create catalog test_fluss_predicates_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement switch
switch test_fluss_predicates
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement time_zone
set time_zone = 'Asia/Shanghai'

-- catalog test_fluss_predicates

-- query and
select id, name from log_basic where id > 1 and price < 25.00
-- result sorted
2	bob

-- query or
select id, name from log_basic where id = 1 or price > 25.00
-- result sorted
1	alice
3	carol

-- query and_or
select id, name from log_basic
where (id = 1 and price < 15.00) or (id = 3 and price > 25.00)
-- result sorted
1	alice
3	carol

-- query or_and
select id, name from log_basic
where (id = 1 or id = 3) and price > 25.00
-- result sorted
3	carol

-- query not
select id, name from log_basic where not (id = 1 or price > 25.00)
-- result sorted
2	bob

-- query not_between
select id from log_basic where id not between 2 and 3
-- result sorted
1

-- query in
select id, name from log_basic where id in (1, 3) and name <> 'carol'
-- result sorted
1	alice

-- query not_in
select id from log_basic where id not in (1, 2)
-- result sorted
3

-- query like
select id from log_basic where name like '%o%' and name not like 'c%'
-- result sorted
2

-- query always_false
select count(*) from log_basic where id > 0 and id < 0
-- result sorted
0

-- query always_true
select count(*) from log_basic where id > 0 or name is not null
-- result sorted
3

-- query is_null
select id from log_types where f_int is null
-- result sorted
3

-- query is_not_null
select id from log_types where f_int is not null
-- result sorted
1
2

-- query ne_excludes_null
select id from log_types where f_int <> 3
-- result sorted
2

-- query not_eq_excludes_null
select id from log_types where not (f_int = 3)
-- result sorted
2

-- query null_or
select id from log_types where f_int is null or f_int > 0
-- result sorted
1
3

-- query null_and
select id from log_types where f_string is null and f_boolean is null
-- result sorted
3

-- query mixed_types
select id from log_types
where f_boolean = true and f_tinyint > 0 and f_decimal > 0 and f_char = 'char1'
      and f_date = '2026-01-01' and f_string like 'string%'
-- result sorted
1

-- query mixed_types_or
select id from log_types
where f_bigint = 4 or f_double < 0 or (f_float is null and f_smallint is null)
-- result sorted
1
2
3

-- query nested_elements
select id from log_types
where f_array[1] = 1 and f_map['k1'] = 1 and struct_element(f_row, 'r_int') = 1
-- result sorted
1

-- query part_or_plan
select * from log_part where dt = '20260101' or dt = '20260103'
-- explain
contains partition=2/3

-- query part_or
select id, name, dt from log_part where dt = '20260101' or dt = '20260103'
-- result sorted
1	p1a	20260101
2	p1b	20260101
4	p3a	20260103

-- query part_in_plan
select * from log_part where dt in ('20260101', '20260102')
-- explain
contains partition=2/3

-- query part_in
select id, dt from log_part where dt in ('20260101', '20260102') and id > 1
-- result sorted
2	20260101
3	20260102

-- query part_not_plan
select * from log_part where dt <> '20260101'
-- explain
contains partition=2/3

-- query part_ne
select id, dt from log_part where dt <> '20260101'
-- result sorted
3	20260102
4	20260103

-- query part_and_data_plan
select * from log_part where dt = '20260101' and id = 2
-- explain
contains partition=1/3

-- query part_and_data
select id, name from log_part where dt = '20260101' and id = 2
-- result sorted
2	p1b

-- query part_or_data_plan
select * from log_part where dt = '20260101' or id = 4
-- explain
contains partition=3/3

-- query part_or_data
select id, name, dt from log_part where dt = '20260101' or id = 4
-- result sorted
1	p1a	20260101
2	p1b	20260101
4	p3a	20260103

-- query part_absent
select count(*) from log_part where dt = '20261231'
-- result sorted
0

-- query pk_and
select id, name from pk_basic where id >= 2 and score > 3.0
-- result sorted
2	k2-updated
4	k4

-- query pk_or
select id, name from pk_basic where name = 'k1' or score > 20.0
-- result sorted
1	k1
2	k2-updated

-- query pk_stale_value
select count(*) from pk_basic where name = 'k2' or id = 3
-- result sorted
0

-- query pk_not
select id, name from pk_basic where not (id = 1) and name is not null
-- result sorted
2	k2-updated
4	k4

-- query pk_in
select id, score from pk_basic where id in (1, 2, 3) and score is not null
-- result sorted
1	1.5
2	22.5

-- query union_and
select id, name from lake_log where id > 2 and price < 6.00
-- result sorted
3	lake3
4	lake4
5	hot5
-- query union_and_compare
select id, name from ${ctl}.fluss_test.lake_log where id > 2 and price < 6.00 order by id
-- same-as test_fluss_predicates_off

-- query union_or
select id, name from lake_log where id = 1 or id = 6
-- result sorted
1	lake1
6	hot6
-- query union_or_compare
select id, name from ${ctl}.fluss_test.lake_log where id = 1 or id = 6 order by id
-- same-as test_fluss_predicates_off

-- query union_not
select id from lake_log where not (id between 2 and 5)
-- result sorted
1
6
-- query union_not_compare
select id from ${ctl}.fluss_test.lake_log where not (id between 2 and 5) order by id
-- same-as test_fluss_predicates_off

-- query union_like
select id, name from lake_log where name like 'hot%' or name like '%1'
-- result sorted
1	lake1
5	hot5
6	hot6
-- query union_like_compare
select id, name from ${ctl}.fluss_test.lake_log where name like 'hot%' or name like '%1' order by id
-- same-as test_fluss_predicates_off

-- query union_lake_only
select id, name from lake_log where id <= 4 and price < 5.00
-- result sorted
1	lake1
2	lake2
3	lake3
4	lake4

-- query union_log_only
select id, name from lake_log where id >= 5
-- result sorted
5	hot5
6	hot6

-- query union_neither
select count(*) from lake_log where id > 100
-- result sorted
0

-- query union_part_or
select id, name, dt from lake_part where dt = '20260101' or dt = '20260102'
-- result sorted
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102
4	lp1c	20260101

# retainedAndLive holds 3 lp2a 20260102; liveOnly has no 20260102 row and
# equals retainedAndLive without it.
-- query retained_and_live
select id, name, dt from lake_part
where dt = '20260101' or dt = '20260102' order by id
-- result
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102
4	lp1c	20260101
-- query live_only
select id, name, dt from test_fluss_predicates_off.fluss_test.lake_part
where dt = '20260101' or dt = '20260102' order by id
-- result
1	lp1a	20260101
2	lp1b	20260101
4	lp1c	20260101

-- query union_part_and
select id from lake_part where dt = '20260101' and id > 2
-- result sorted
4
-- query union_part_and_compare
select id from ${ctl}.fluss_test.lake_part where dt = '20260101' and id > 2 order by id
-- same-as test_fluss_predicates_off

-- query union_pk_and
select id, name from lake_pk where id >= 2 and name like '%hot'
-- result sorted
3	lp3-hot
4	lp4-hot
-- query union_pk_and_compare
select id, name from ${ctl}.fluss_test.lake_pk where id >= 2 and name like '%hot' order by id
-- same-as test_fluss_predicates_off

-- query union_pk_or
select id, name from lake_pk where id = 1 or id = 4
-- result sorted
4	lp4-hot
-- query union_pk_or_compare
select id, name from ${ctl}.fluss_test.lake_pk where id = 1 or id = 4 order by id
-- same-as test_fluss_predicates_off

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog if exists test_fluss_predicates
-- statement cleanup_off
drop catalog if exists test_fluss_predicates_off
