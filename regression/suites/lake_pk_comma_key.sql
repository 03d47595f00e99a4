# test_fluss_lake_pk_comma_key: a primary key with a column named
# `region,code` (guards a naive comma split of the key column list).
# lake (1 r1 a, 2 r2 b, 3 r3 c) + tail (2 -> b-hot, +4 d-hot, -3).

-- catalog fluss_required

-- query merged
SELECT id, `region,code`, name FROM ${ctl}.fluss_test.lake_pk_comma ORDER BY id
-- result
1	r1	a
2	r2	b-hot
4	r4	d-hot
-- explain
unionRead=yes
suppressedLakeSplits>=1
pkTailRanges=1
-- same-as fluss_disabled

-- query by_key
SELECT name FROM ${ctl}.fluss_test.lake_pk_comma WHERE `region,code` = 'r2'
-- result
b-hot
-- same-as fluss_disabled
