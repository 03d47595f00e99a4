# Doris's test_fluss_lake_pk_merge, statement for statement
# (test_fluss_lake_pk_merge.groovy 788e815f; expected rows from
# test_fluss_lake_pk_merge.out). compareModes(q) is q on the merge catalog
# with -- same-as the fluss-only catalog; Doris's assertEquals between two
# queries are two blocks with the same rows.

-- statement drop_merge
drop catalog if exists test_fluss_lake_pk_merge
-- statement create_merge
create catalog test_fluss_lake_pk_merge properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_off
drop catalog if exists test_fluss_lake_pk_merge_off
-- statement create_off
create catalog test_fluss_lake_pk_merge_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement switch
switch test_fluss_lake_pk_merge
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- catalog test_fluss_lake_pk_merge

-- query multi_plan
select * from lake_pk_multi
-- explain
contains unionRead=yes
lakeSplits>=2
pkTailRanges>=2
1<=suppressedLakeSplits<lakeSplits
pkRanges=0

-- query multi_lake
select id, name from lake_pk_multi$lake
-- result sorted
1	m1
2	m2
3	m3
4	m4
5	m5-lake
6	m6
7	m7
8	m8
9	m9

-- query multi_rows
select id, name from lake_pk_multi
-- result sorted
1	m1
10	m10-hot
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9

-- query multi_rows_compare
select id, name from ${ctl}.fluss_test.lake_pk_multi order by id
-- same-as test_fluss_lake_pk_merge_off

-- query multi_count
select count(*) from lake_pk_multi
-- result sorted
9

-- query multi_updated
select name from lake_pk_multi where id = 2
-- result sorted
m2-hot

-- query multi_deleted
select name from lake_pk_multi where id = 7
-- result sorted

-- query multi_new
select name from lake_pk_multi where id = 10
-- result sorted
m10-hot

-- query part_plan
select * from lake_pk_part
-- explain
contains unionRead=yes
lakeSplits>=2
suppressedLakeSplits>=1
pkTailRanges>=1
pkRanges>=1

-- query part_rows
select id, name, dt from lake_pk_part
-- result sorted
1	pp1a-hot	20260101
3	pp2a	20260102
4	pp2b	20260102
5	pp3a	20260103

-- query tiered_plan
select * from lake_pk_part where dt = '20260102'
-- explain
contains partition=0/2
lakeSplits>=1
suppressedLakeSplits=0

-- query part_lake_only
select id, name from lake_pk_part where dt = '20260102'
-- result sorted
3	pp2a
4	pp2b

-- query retained_required
select id, name from lake_pk_part where dt = '20260102' order by id
-- result
3	pp2a
4	pp2b

-- query retained_fluss_only
select id, name from test_fluss_lake_pk_merge_off.fluss_test.lake_pk_part
                         where dt = '20260102' order by id
-- result

-- statement session_auto
set fluss_union_read_mode = 'auto'
-- query retained_auto_plan
select * from lake_pk_part where dt = '20260102'
-- explain
contains unionRead=yes
-- query retained_auto
select id, name from lake_pk_part where dt = '20260102' order by id
-- result
3	pp2a
4	pp2b
-- statement session_unset
set fluss_union_read_mode = ''

-- query fluss_only_part_plan
select * from lake_pk_part where dt = '20260103'
-- explain
lakeSplits=0
pkRanges>=1

-- query part_fluss_only
select id, name from lake_pk_part where dt = '20260103'
-- result sorted
5	pp3a

-- query tail_part_plan
select * from lake_pk_part where dt = '20260101'
-- explain
suppressedLakeSplits>=1
pkTailRanges=1

-- query part_with_tail
select id, name from lake_pk_part where dt = '20260101'
-- result sorted
1	pp1a-hot

-- query cold_plan
select * from lake_pk_cold
-- explain
contains unionRead=yes
lakeSplits>=1
suppressedLakeSplits=0
pkTailRanges=0
pkRanges=0

-- query cold_rows
select id, name from lake_pk_cold
-- result sorted
1	c1
2	c2
3	c3

-- query cold_rows_compare
select id, name from ${ctl}.fluss_test.lake_pk_cold order by id
-- same-as test_fluss_lake_pk_merge_off

-- statement drop_capped
drop catalog if exists test_fluss_lake_pk_merge_capped
-- statement create_capped
create catalog test_fluss_lake_pk_merge_capped properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.max_tail_rows" = "1",
    "fluss.union_read.max_total_tail_rows" = "1"
)
-- query capped_plan
select * from test_fluss_lake_pk_merge_capped.fluss_test.lake_pk_multi
-- explain
contains unionRead=no
contains degraded=tail-too-large

-- query capped_rows_merged
select id, name from lake_pk_multi order by id
-- result
1	m1
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9
10	m10-hot
-- query capped_rows
select id, name from test_fluss_lake_pk_merge_capped.fluss_test.lake_pk_multi order by id
-- result
1	m1
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9
10	m10-hot

-- statement drop_capped_required
drop catalog if exists test_fluss_lake_pk_merge_capped_required
-- statement create_capped_required
create catalog test_fluss_lake_pk_merge_capped_required properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required",
    "fluss.union_read.max_tail_rows" = "1",
    "fluss.union_read.max_total_tail_rows" = "1"
)
-- query capped_required
select id, name from test_fluss_lake_pk_merge_capped_required.fluss_test.lake_pk_multi
-- error cannot be read as its lake plus its log

-- statement v2_off
set enable_file_scanner_v2 = false
-- query merged_without_v2
select id, name from lake_pk_multi order by id
-- result
1	m1
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9
10	m10-hot
-- statement v2_on
set enable_file_scanner_v2 = true
-- query merged_with_v2
select id, name from lake_pk_multi order by id
-- result
1	m1
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9
10	m10-hot

-- statement switch_internal
switch internal
-- statement cleanup_merge
drop catalog if exists test_fluss_lake_pk_merge
-- statement cleanup_off
drop catalog if exists test_fluss_lake_pk_merge_off
-- statement cleanup_capped
drop catalog if exists test_fluss_lake_pk_merge_capped
-- statement cleanup_capped_required
drop catalog if exists test_fluss_lake_pk_merge_capped_required
