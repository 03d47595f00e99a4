# test_fluss_lake_pk_comma_key: a primary key (`region,code`, region, code)
# with a column literally named `region,code` (guards a naive comma split of
# the key column list: split, the key would be region, code, region, code and
# the tail of key-a would suppress key-b's lake row too).
# lake (key-a lake-a, key-b lake-b) + tail (key-a -> tail-a).

-- catalog fluss_required

-- query merged
SELECT `region,code`, region, code, name FROM ${ctl}.fluss_test.lake_pk_comma ORDER BY `region,code`
-- result
key-a	same	same	tail-a
key-b	same	same	lake-b
-- explain
unionRead=yes
suppressedLakeSplits>=1
pkTailRanges=1
-- same-as fluss_disabled

-- query by_key
SELECT name FROM ${ctl}.fluss_test.lake_pk_comma WHERE `region,code` = 'key-b'
-- result
lake-b
-- same-as fluss_disabled
