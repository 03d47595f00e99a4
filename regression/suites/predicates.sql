# test_fluss_predicates: SQL three-valued logic over Fluss rows, partition
# predicates, PK predicates after the merge, predicates over a union read.

-- catalog fluss_required

-- query and_or_not
SELECT id FROM ${ctl}.fluss_test.log_basic WHERE (id = 1 OR price > 25) AND NOT name = 'bob' ORDER BY id
-- result
1
3
-- same-as fluss_disabled

-- query in_list
SELECT id FROM ${ctl}.fluss_test.log_basic WHERE name IN ('alice', 'carol', 'nobody') ORDER BY id
-- result
1
3

-- query like
SELECT name FROM ${ctl}.fluss_test.log_basic WHERE name LIKE '%o%' ORDER BY name
-- result
bob
carol

-- query null_is_not_true
SELECT id FROM ${ctl}.fluss_test.log_types WHERE f_int > 0 OR f_int <= 0 ORDER BY id
-- result
1
2

-- query not_of_null_is_null
SELECT id FROM ${ctl}.fluss_test.log_types WHERE NOT (f_boolean = true) ORDER BY id
-- result
2

-- query is_null
SELECT id FROM ${ctl}.fluss_test.log_types WHERE f_string IS NULL AND f_map IS NULL
-- result
3

-- query not_in_with_null_row
SELECT id FROM ${ctl}.fluss_test.log_types WHERE f_tinyint NOT IN (1) ORDER BY id
-- result
2

-- query partition_or
SELECT id FROM ${ctl}.fluss_test.log_part WHERE dt = '20260101' OR dt = '20260103' ORDER BY id
-- result
1
2
4
-- explain
partition=2/3

-- query partition_in
SELECT id FROM ${ctl}.fluss_test.log_part WHERE dt IN ('20260102', '20260103') ORDER BY id
-- result
3
4
-- explain
partition=2/3

-- query partition_not_equal
SELECT id FROM ${ctl}.fluss_test.log_part WHERE dt <> '20260102' ORDER BY id
-- result
1
2
4
-- explain
partition=2/3

-- query partition_or_data_column
SELECT id FROM ${ctl}.fluss_test.log_part WHERE dt = '20260101' OR name = 'p3a' ORDER BY id
-- result
1
2
4
-- explain
partition=3/3

-- query pk_after_merge
SELECT id, name FROM ${ctl}.fluss_test.pk_basic WHERE score > 2 ORDER BY id
-- result
2	k2-updated
4	k4

-- query pk_old_value_gone
SELECT COUNT(*) FROM ${ctl}.fluss_test.pk_basic WHERE name = 'k2' OR score = 3.5
-- result
0

-- query union_log_predicate
SELECT id FROM ${ctl}.fluss_test.lake_log WHERE price BETWEEN 3 AND 6 ORDER BY id
-- result
3
4
5
-- same-as fluss_disabled

-- query union_pk_predicate_on_updated
SELECT id, name FROM ${ctl}.fluss_test.lake_pk_multi WHERE name LIKE '%hot' OR id IN (5, 7) ORDER BY id
-- result
2	m2-hot
5	m5-lake
10	m10-hot
-- same-as fluss_disabled

-- query union_pk_predicate_on_stale_lake_value
SELECT COUNT(*) FROM ${ctl}.fluss_test.lake_pk WHERE name IN ('lp1', 'lp3')
-- result
0
-- same-as fluss_disabled

# The lake-only partition 20260102 is visible under union, not disabled.
-- query retained_partition_union
SELECT id FROM ${ctl}.fluss_test.lake_part WHERE dt >= '20260102'
-- result
3

-- query retained_partition_disabled
SELECT COUNT(*) FROM fluss_disabled.fluss_test.lake_part WHERE dt >= '20260102'
-- result
0
