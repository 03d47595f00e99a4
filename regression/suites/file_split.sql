# file_split_size: lake Parquet/ORC files of raw splits are cut into byte
# slices (each reads the row groups whose middle byte it holds), so a large
# file is shared by several scanners. Cut to 200 bytes, every tiny lake file
# here becomes several lake splits, and every row still comes out once:
# the same rows as the default and as a Fluss-only read.

-- catalog fluss_required

-- query default_auto
SHOW VARIABLES LIKE 'file_split_size'
-- result
file_split_size	0	0	0

-- statement cut
SET file_split_size = 200

-- query lake_log_cut
SELECT * FROM ${ctl}.fluss_test.lake_log ORDER BY id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60
-- explain
unionRead=yes
lakeSplits>=3
-- same-as fluss_disabled

-- query lake_log_count_cut
SELECT COUNT(*), SUM(price) FROM ${ctl}.fluss_test.lake_log
-- result
6	23.10
-- same-as fluss_disabled

-- query lake_pk_cut
SELECT * FROM ${ctl}.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- explain
unionRead=yes
suppressedLakeSplits>=3
pkTailRanges=1
-- same-as fluss_disabled

-- query lake_pk_multi_cut
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.lake_pk_multi
-- result
9	48
-- same-as fluss_disabled

-- query lake_part_cut
SELECT * FROM ${ctl}.fluss_test.lake_part ORDER BY id
-- result
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102
4	lp1c	20260101

-- query lake_half_cut
SELECT * FROM ${ctl}.fluss_test.`lake_pk$lake` ORDER BY id
-- result
1	lp1
2	lp2-lake
3	lp3

-- statement forced
SET force_jni_scanner = true

# The merge reader needs whole files: no cutting under force_jni_scanner.
-- query lake_pk_forced
SELECT * FROM ${ctl}.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- explain
suppressedLakeSplits=1

-- statement reset
SET force_jni_scanner = false

-- statement auto
SET file_split_size = 0
