# test_fluss_lake_pk: lake_pk = lake (1 lp1, 2 lp2-lake, 3 lp3) + tail
# (3 -> lp3-hot, +4 lp4-hot, -1): merged 2 lp2-lake, 3 lp3-hot, 4 lp4-hot.

-- catalog fluss_auto

-- query lake_half
SELECT * FROM ${ctl}.fluss_test.`lake_pk$lake` ORDER BY id
-- result
1	lp1
2	lp2-lake
3	lp3

-- query union_auto
SELECT * FROM ${ctl}.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- explain
matches flussScan: readMode=default, unionRead=yes, lakeSplits=1, suppressedLakeSplits=1, logRanges=0, pkRanges=0, pkTailRanges=1, mode=auto($|\n)
-- same-as fluss_disabled
-- same-as fluss_required

-- query fluss_only
SELECT * FROM fluss_disabled.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- explain
unionRead=no
lakeSplits=0
1<=pkRanges<=1
mode=disabled

-- query required_merges
SELECT * FROM fluss_required.fluss_test.lake_pk
-- explain
unionRead=yes
suppressedLakeSplits=1
pkTailRanges=1
mode=required

-- query count
SELECT COUNT(*) FROM ${ctl}.fluss_test.lake_pk
-- result
3
-- same-as fluss_disabled
-- same-as fluss_required

-- query projection
SELECT name FROM ${ctl}.fluss_test.lake_pk ORDER BY name
-- result
lp2-lake
lp3-hot
lp4-hot
-- same-as fluss_disabled

-- query deleted_row
SELECT COUNT(*) FROM ${ctl}.fluss_test.lake_pk WHERE id = 1
-- result
0
-- same-as fluss_disabled

-- query log_only_key
SELECT name FROM ${ctl}.fluss_test.lake_pk WHERE id = 4
-- result
lp4-hot
-- same-as fluss_disabled
