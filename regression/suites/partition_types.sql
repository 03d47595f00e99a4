# test_fluss_partition_types: partition columns of every readable type,
# pruning per column, unreadable TIMESTAMP partitions, INT-partitioned lake
# tables (log: union works; PK: partition-type fallback). p_bin BINARY(2)
# is named and read as the hex text of its bytes (spec, Partitioned Tables).

-- catalog fluss_auto

-- query show_partitions
SHOW PARTITIONS FROM ${ctl}.fluss_test.part_types
-- result sorted
p_str=cn/p_char=c1/p_bool=true/p_tiny=1/p_small=10/p_int=100/p_big=1000/p_date=2026-01-01/p_bin=0102
p_str=us/p_char=c2/p_bool=false/p_tiny=2/p_small=20/p_int=200/p_big=2000/p_date=2026-01-02/p_bin=0304

-- query rows
SELECT * FROM ${ctl}.fluss_test.part_types ORDER BY id
-- result
1	pt1	cn	c1	1	1	10	100	1000	2026-01-01	0102
2	pt2	us	c2	0	2	20	200	2000	2026-01-02	0304
-- explain
partition=2/2

-- query prune_str
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_str = 'us'
-- result
2
-- explain
partition=1/2

-- query prune_char
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_char = 'c1'
-- result
1
-- explain
partition=1/2

-- query prune_bool
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_bool = true
-- result
1
-- explain
partition=1/2

-- query prune_tiny
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_tiny = 2
-- result
2
-- explain
partition=1/2

-- query prune_small
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_small = 10
-- result
1
-- explain
partition=1/2

-- query prune_int
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_int = 200
-- result
2
-- explain
partition=1/2

-- query prune_big
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_big = 1000
-- result
1
-- explain
partition=1/2

-- query prune_date
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_date = '2026-01-02'
-- result
2
-- explain
partition=1/2

-- query impossible_combination
SELECT id FROM ${ctl}.fluss_test.part_types WHERE p_str = 'cn' AND p_int = 200
-- result
-- explain
partition=0/2

-- query desc_part_ts
DESC ${ctl}.fluss_test.part_ts
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
p_ts	datetime(3)	Yes	true	\N	

-- query part_ts_query_fails
SELECT * FROM ${ctl}.fluss_test.part_ts
-- error its partition column 'p_ts' has fluss type TIMESTAMP(3)

-- query part_ts_partitions_fail
SHOW PARTITIONS FROM ${ctl}.fluss_test.part_ts
-- error p_ts

-- catalog fluss_required

-- query lake_part_int_union requires=paimon-lake
SELECT * FROM ${ctl}.fluss_test.lake_part_int ORDER BY id
-- result
1	li1a	1
2	li1b	1
3	li2a	2
4	li1c	1
-- explain
unionRead=yes
lakeSplits>=2
logRanges=1
-- same-as fluss_disabled

-- query lake_part_int_tail_partition requires=paimon-lake
SELECT id FROM fluss_required.fluss_test.lake_part_int WHERE p_int = 1 ORDER BY id
-- result
1
2
4
-- explain
logRanges=1

-- query lake_part_int_tiered_partition requires=paimon-lake
SELECT id FROM fluss_required.fluss_test.lake_part_int WHERE p_int = 2
-- result
3
-- explain
logRanges=0

-- query lake_pk_part_int_required requires=paimon-lake
SELECT * FROM fluss_required.fluss_test.lake_pk_part_int
-- error cannot be read as its lake plus its

-- catalog fluss_auto

-- query lake_pk_part_int_auto requires=paimon-lake
SELECT * FROM ${ctl}.fluss_test.lake_pk_part_int ORDER BY id
-- result
1	pi1a-hot	1
2	pi1b	1
3	pi2a	2
4	pi2b	2
-- explain
unionRead=no
degraded=partition-type
lakeSplits=0
pkRanges>=1
-- same-as fluss_disabled

-- query varbinary_mapping
DESC fluss_varbinary.fluss_test.log_types
-- contains f_binary	varbinary(3)
-- contains f_bytes	varbinary
