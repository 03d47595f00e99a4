# tbl$changelog (Fluss's $changelog virtual table, website/docs/table-design/
# virtual-tables.md): _change_type, _log_offset, _commit_timestamp before the
# table's columns, one bounded LOG range per bucket. Doris has no such table;
# the expected rows are derived by hand from the fixture scenario
# (minifluss/testdata/doris_regression.scenario): one batch per statement and
# bucket, offsets dense from 0, an upsert of an existing key -U old then +U
# new, a delete -D old, a log-table append +A. Commit timestamps are the
# emulator's wall clock, so only bounds on them are asserted.
#
# lake_pk (1 bucket):  0 +I 1 lp1 | 1 +I 2 lp2 | 2 +I 3 lp3 | 3 -U 2 lp2 |
#   4 +U 2 lp2-lake | 5 -U 3 lp3 | 6 +U 3 lp3-hot | 7 +I 4 lp4-hot | 8 -D 1 lp1
# (the lake holds offsets 0..4 too; the changelog reads the Fluss log).

-- catalog fluss_auto
-- statement use
use ${ctl}.fluss_test
-- statement mode_default
set fluss_changelog_startup_mode = 'earliest'

-- query pk_all
select * from `lake_pk$changelog` order by _log_offset
-- contains +I
-- query pk_changes
select _change_type, _log_offset, id, name from `lake_pk$changelog`
-- result sorted
+I	0	1	lp1
+I	1	2	lp2
+I	2	3	lp3
-U	3	2	lp2
+U	4	2	lp2-lake
-U	5	3	lp3
+U	6	3	lp3-hot
+I	7	4	lp4-hot
-D	8	1	lp1

-- query pk_plan
select * from `lake_pk$changelog`
-- explain
readMode=changelog
unionRead=no
logRanges=1
lakeSplits=0
contains LOG b0 [0, 9)
contains startupMode=earliest

-- query pk_type_filter
select _log_offset, id, name from `lake_pk$changelog` where _change_type in ('-U', '-D')
-- result sorted
3	2	lp2
5	3	lp3
8	1	lp1

-- query pk_offset_start
select _change_type, _log_offset, id from `lake_pk$changelog` where _log_offset >= 6
-- result sorted
+U	6	3
+I	7	4
-D	8	1

-- query pk_offset_start_plan
select * from `lake_pk$changelog` where _log_offset >= 6
-- explain
logRanges=1
contains pushedStart=_log_offset>=6
contains LOG b0 [6, 9)

-- query pk_offset_window
select _log_offset from `lake_pk$changelog` where _log_offset > 2 and _log_offset <= 4
-- result sorted
3
4

-- query pk_key_filter
select _change_type, _log_offset, name from `lake_pk$changelog` where id = 3
-- result sorted
+I	2	lp3
-U	5	lp3
+U	6	lp3-hot

-- query pk_commit_time_all
select count(*) from `lake_pk$changelog` where _commit_timestamp >= '2000-01-01 00:00:00'
-- result
9

-- query pk_commit_time_none
select count(*) from `lake_pk$changelog` where _commit_timestamp < '2000-01-01 00:00:00'
-- result
0

-- query pk_limit
select count(*) from (select * from `lake_pk$changelog` limit 4) t
-- result
4

# A log table of one bucket: every row +A.
-- query log_all
select _change_type, _log_offset, id, name from `lake_cold$changelog`
-- result sorted
+A	0	1	cold1
+A	1	2	cold2
+A	2	3	cold3

# A log table of three buckets: one range per bucket that holds rows.
-- query log_buckets
select _change_type, id, name, price from `lake_log$changelog`
-- result sorted
+A	1	lake1	1.10
+A	2	lake2	2.20
+A	3	lake3	3.30
+A	4	lake4	4.40
+A	5	hot5	5.50
+A	6	hot6	6.60

-- query log_buckets_plan
select * from `lake_log$changelog`
-- explain
readMode=changelog
1<=logRanges<=3

# Partitioned: log_part (2 buckets) has partitions 20260101, 20260102,
# 20260103; 20260102 holds one row, so its offset is 0.
-- query part_pruned
select _change_type, _log_offset, id, name, dt from `log_part$changelog` where dt = '20260102'
-- result sorted
+A	0	3	p2a	20260102

-- query part_pruned_plan
select * from `log_part$changelog` where dt = '20260102'
-- explain
readMode=changelog
logRanges=1
contains partition=1/3

# lake_pk_part: Fluss keeps 20260101 and 20260103 (20260102 was dropped).
-- query pk_part_all
select _change_type, id, name, dt from `lake_pk_part$changelog`
-- result sorted
+I	1	pp1a	20260101
+I	2	pp1b	20260101
-U	1	pp1a	20260101
+U	1	pp1a-hot	20260101
-D	2	pp1b	20260101
+I	5	pp3a	20260103

-- query pk_part_pruned
select _change_type, id, name from `lake_pk_part$changelog` where dt = '20260103'
-- result sorted
+I	5	pp3a

# Startup modes.
-- statement mode_latest
set fluss_changelog_startup_mode = 'latest'
-- query latest_count
select count(*) from `lake_pk$changelog`
-- result
0
-- query latest_plan
select * from `lake_pk$changelog`
-- explain
logRanges=0
contains startupMode=latest

-- statement mode_timestamp
set fluss_changelog_startup_mode = 'timestamp'
-- query timestamp_unset
select * from `lake_pk$changelog`
-- error fluss_changelog_startup_timestamp
-- statement timestamp_zero
set fluss_changelog_startup_timestamp = '0'
-- query timestamp_from_zero
select count(*) from `lake_pk$changelog`
-- result
9
-- query timestamp_plan
select * from `lake_pk$changelog`
-- explain
contains startupMode=timestamp(0)

-- statement mode_bad
set fluss_changelog_startup_mode = 'first'
-- query mode_bad_error
select * from `lake_pk$changelog`
-- error expected one of earliest, latest, timestamp

-- query hint_overrides
select /*+ SET_VAR(fluss_changelog_startup_mode='earliest') */ count(*) from `lake_pk$changelog`
-- result
9

-- statement mode_back
set fluss_changelog_startup_mode = 'earliest'

# Metadata statements.
-- query desc
desc `lake_pk$changelog`
-- result
_change_type	text	No	false	\N	
_log_offset	bigint	No	false	\N	
_commit_timestamp	datetime(3)	No	false	\N	WITH_TIMEZONE
id	int	Yes	true	\N	
name	text	Yes	true	\N	

-- query show_create
show create table `lake_pk$changelog`
-- contains `_change_type` text NOT NULL
-- contains `_commit_timestamp` datetime(3) NOT NULL

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

-- query unknown_suffix
select * from `lake_pk$changes`
-- error Unknown sys table
