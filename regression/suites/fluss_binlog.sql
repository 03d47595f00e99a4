# tbl$binlog (Fluss's $binlog virtual table, website/docs/table-design/
# virtual-tables.md; primary-key tables only): _change_type insert, update
# or delete, _log_offset, _commit_timestamp, then the row images `before`
# (NULL for an insert) and `after` (NULL for a delete), each a struct of all
# the table's columns. A -U and the +U after it are one update at the +U's
# offset. Expected rows are derived by hand from the changelog of the
# fixture scenario (minifluss/testdata/doris_regression.scenario), as
# fluss_changelog.sql lists it:
#
# lake_pk (1 bucket):  0 +I 1 lp1 | 1 +I 2 lp2 | 2 +I 3 lp3 | 3 -U 2 lp2 |
#   4 +U 2 lp2-lake | 5 -U 3 lp3 | 6 +U 3 lp3-hot | 7 +I 4 lp4-hot | 8 -D 1 lp1
# so its binlog is: insert 0, 1, 2; update 4 (lp2 -> lp2-lake); update 6
# (lp3 -> lp3-hot); insert 7; delete 8 (lp1).

-- catalog fluss_auto
-- statement use
use ${ctl}.fluss_test
-- statement mode_default
set fluss_changelog_startup_mode = 'earliest'

-- query pk_rows
select _change_type, _log_offset, struct_element(`before`, 'id'), struct_element(`before`, 'name'), struct_element(`after`, 'id'), struct_element(`after`, 'name') from `lake_pk$binlog`
-- result sorted
delete	8	1	lp1	\N	\N
insert	0	\N	\N	1	lp1
insert	1	\N	\N	2	lp2
insert	2	\N	\N	3	lp3
insert	7	\N	\N	4	lp4-hot
update	4	2	lp2	2	lp2-lake
update	6	3	lp3	3	lp3-hot

-- query pk_images
select _log_offset, `before`, `after` from `lake_pk$binlog` where _change_type = 'update'
-- result sorted
4	{"id":2, "name":"lp2"}	{"id":2, "name":"lp2-lake"}
6	{"id":3, "name":"lp3"}	{"id":3, "name":"lp3-hot"}

-- query pk_delete_image
select `before`, `after` from `lake_pk$binlog` where _change_type = 'delete'
-- result
{"id":1, "name":"lp1"}	\N

-- query pk_count_by_type
select _change_type, count(*) from `lake_pk$binlog` group by _change_type
-- result sorted
delete	1
insert	4
update	2

# _log_offset >= 6 starts the read one record early, at the -U of the
# update at 6, so its before image is still there.
-- query pk_offset_start
select _change_type, _log_offset, struct_element(`before`, 'name'), struct_element(`after`, 'name') from `lake_pk$binlog` where _log_offset >= 6
-- result sorted
delete	8	lp1	\N
insert	7	\N	lp4-hot
update	6	lp3	lp3-hot

-- query pk_offset_start_plan
select * from `lake_pk$binlog` where _log_offset >= 6
-- explain
readMode=binlog
logRanges=1
contains pushedStart=_log_offset>=5
contains LOG b0 [5, 9)

# _log_offset < 6 reads one record past the bound: the -U at 5 pairs with
# its +U at 6, and that update (offset 6) is not below 6.
-- query pk_offset_stop
select _change_type, _log_offset from `lake_pk$binlog` where _log_offset < 6
-- result sorted
insert	0
insert	1
insert	2
update	4

-- query pk_after_filter
select _log_offset from `lake_pk$binlog` where struct_element(`after`, 'name') like '%hot'
-- result sorted
6
7

-- query pk_plan
select * from `lake_pk$binlog`
-- explain
readMode=binlog
unionRead=no
logRanges=1
lakeSplits=0
contains LOG b0 [0, 9)
contains startupMode=earliest

# lake_pk_part (2 buckets): Fluss keeps 20260101 and 20260103; in 20260101
# 1 pp1a was inserted, updated to pp1a-hot, and 2 pp1b inserted then deleted.
-- query pk_part_rows
select _change_type, struct_element(`before`, 'name'), struct_element(`after`, 'name'), coalesce(struct_element(`after`, 'dt'), struct_element(`before`, 'dt')) from `lake_pk_part$binlog`
-- result sorted
delete	pp1b	\N	20260101
insert	\N	pp1a	20260101
insert	\N	pp1b	20260101
insert	\N	pp3a	20260103
update	pp1a	pp1a-hot	20260101

# Startup modes.
-- statement mode_latest
set fluss_changelog_startup_mode = 'latest'
-- query latest_count
select count(*) from `lake_pk$binlog`
-- result
0
-- statement mode_timestamp
set fluss_changelog_startup_mode = 'timestamp'
-- statement timestamp_zero
set fluss_changelog_startup_timestamp = '0'
-- query timestamp_from_zero
select count(*) from `lake_pk$binlog`
-- result
7
-- statement mode_back
set fluss_changelog_startup_mode = 'earliest'

# Metadata statements.
-- query desc
desc `lake_pk$binlog`
-- result
_change_type	text	No	false	\N	
_log_offset	bigint	No	false	\N	
_commit_timestamp	datetime(3)	No	false	\N	WITH_TIMEZONE
before	struct<id:int,name:text>	Yes	false	\N	
after	struct<id:int,name:text>	Yes	false	\N	

-- query show_create
show create table `lake_pk$binlog`
-- contains `before` struct<id:int,name:text>

-- query not_listed requires=paimon-lake
show tables like 'lake_pk%'
-- result sorted
lake_pk
lake_pk_cold
lake_pk_comma
lake_pk_ltz
lake_pk_multi
lake_pk_part
lake_pk_part_int

-- query log_table_refused
select * from `lake_log$binlog`
-- error lake_log is a log table
