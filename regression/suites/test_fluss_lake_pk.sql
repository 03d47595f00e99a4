# Doris's test_fluss_lake_pk, statement for statement
# (test_fluss_lake_pk.groovy 16ba6906; expected rows from
# test_fluss_lake_pk.out). The three-mode agreement is the auto query with
# -- same-as the disabled and required catalogs.

-- statement drop_auto
drop catalog if exists test_fluss_lake_pk
-- statement create_auto
create catalog test_fluss_lake_pk properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement drop_off
drop catalog if exists test_fluss_lake_pk_off
-- statement create_off
create catalog test_fluss_lake_pk_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement drop_required
drop catalog if exists test_fluss_lake_pk_required
-- statement create_required
create catalog test_fluss_lake_pk_required properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_lake_pk
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query lake_side
select id, name from lake_pk$lake
-- result sorted
1	lp1
2	lp2-lake
3	lp3

-- query front_door
select id, name from lake_pk
-- result sorted
2	lp2-lake
3	lp3-hot
4	lp4-hot

-- query fluss_only
select id, name from test_fluss_lake_pk_off.fluss_test.lake_pk
-- result sorted
2	lp2-lake
3	lp3-hot
4	lp4-hot

-- query plan
select * from lake_pk
-- explain
contains flussScan: readMode=default, unionRead=yes, lakeSplits=1, suppressedLakeSplits=1, logRanges=0, pkRanges=0, pkTailRanges=1, mode=auto

-- query required_plan
select * from test_fluss_lake_pk_required.fluss_test.lake_pk
-- explain
contains unionRead=yes
contains mode=required

-- catalog test_fluss_lake_pk
-- query modes_agree
select id, name from ${ctl}.fluss_test.lake_pk order by id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- same-as test_fluss_lake_pk_off
-- same-as test_fluss_lake_pk_required

-- query count
select count(*) from lake_pk
-- result sorted
3

-- query projection
select name from lake_pk where id = 3
-- result sorted
lp3-hot

-- query deleted_row
select name from lake_pk where id = 1
-- result sorted

-- query log_only_key
select id, name from lake_pk where id > 3
-- result sorted
4	lp4-hot

-- statement switch_internal
switch internal
-- statement cleanup_auto
drop catalog if exists test_fluss_lake_pk
-- statement cleanup_off
drop catalog if exists test_fluss_lake_pk_off
-- statement cleanup_required
drop catalog if exists test_fluss_lake_pk_required
