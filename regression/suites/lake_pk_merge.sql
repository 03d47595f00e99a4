# test_fluss_lake_pk_merge: several buckets (lake_pk_multi), partitions
# with lake+tail / lake-only / Fluss-only (lake_pk_part), no tail
# (lake_pk_cold), tail ceilings.

-- catalog fluss_required

-- query multi_rows requires=paimon-lake
SELECT * FROM ${ctl}.fluss_test.lake_pk_multi ORDER BY id
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
-- explain
unionRead=yes
lakeSplits>=2
pkTailRanges>=2
1<=suppressedLakeSplits<lakeSplits
pkRanges=0
logRanges=0
-- same-as fluss_disabled

-- query multi_count
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.lake_pk_multi
-- result
9	48
-- same-as fluss_disabled

-- query part_rows
SELECT * FROM ${ctl}.fluss_test.lake_pk_part ORDER BY dt, id
-- result
1	pp1a-hot	20260101
3	pp2a	20260102
4	pp2b	20260102
5	pp3a	20260103
-- explain
unionRead=yes
lakeSplits>=2
suppressedLakeSplits>=1
pkTailRanges>=1
pkRanges>=1

# disabled ignores the lake, including its lake-only partition 20260102.
-- query part_disabled
SELECT * FROM fluss_disabled.fluss_test.lake_pk_part ORDER BY dt, id
-- result
1	pp1a-hot	20260101
5	pp3a	20260103

-- query part_pruned_to_lake_only
SELECT id, name FROM ${ctl}.fluss_test.lake_pk_part WHERE dt = '20260102' ORDER BY id
-- result
3	pp2a
4	pp2b
-- explain
partition=0/2
lakeSplits>=1
pkRanges=0
pkTailRanges=0

-- query part_fluss_only_partition
SELECT id, name FROM ${ctl}.fluss_test.lake_pk_part WHERE dt = '20260103'
-- result
5	pp3a
-- explain
lakeSplits=0
pkRanges>=1
-- same-as fluss_disabled

-- query part_tail_partition
SELECT id, name FROM ${ctl}.fluss_test.lake_pk_part WHERE dt = '20260101'
-- result
1	pp1a-hot
-- explain
suppressedLakeSplits>=1
pkTailRanges>=1
-- same-as fluss_disabled

-- query cold
SELECT * FROM ${ctl}.fluss_test.lake_pk_cold ORDER BY id
-- result
1	c1
2	c2
3	c3
-- explain
unionRead=yes
lakeSplits>=1
suppressedLakeSplits=0
pkTailRanges=0
pkRanges=0
-- same-as fluss_disabled

# On an Iceberg lake Fluss buckets keys with Iceberg's bucket function, so
# which of the 3 buckets hold lake files and tails differs from Paimon's;
# the rows do not, and the assertions below hold for any bucketing.
-- query multi_rows_iceberg requires=iceberg-lake
SELECT * FROM ${ctl}.fluss_test.lake_pk_multi ORDER BY id
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
-- explain
unionRead=yes
pkRanges=0
1<=suppressedLakeSplits<=lakeSplits
contains lakeFormat=iceberg
-- same-as fluss_disabled

-- query capped_falls_back_iceberg requires=iceberg-lake
SELECT * FROM fluss_capped.fluss_test.lake_pk_multi ORDER BY id
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
-- explain
unionRead=no
degraded=tail-too-large
lakeSplits=0
1<=pkRanges<=3

-- query capped_falls_back requires=paimon-lake
SELECT * FROM fluss_capped.fluss_test.lake_pk_multi ORDER BY id
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
-- explain
unionRead=no
degraded=tail-too-large
lakeSplits=0
pkRanges=3

-- query capped_required_fails
SELECT * FROM fluss_capped_required.fluss_test.lake_pk_multi
-- error cannot be read as its lake plus its log
