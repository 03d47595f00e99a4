# test_fluss_jni_heap_admission: enable_jni_heap_admission defaults to off;
# rows are identical with it on (readers may only wait).

-- catalog fluss_required

-- query default_off
SHOW VARIABLES LIKE 'enable_jni_heap_admission'
-- result
enable_jni_heap_admission	false	false	0

-- statement on
SET enable_jni_heap_admission = true

-- query pk_basic_on
SELECT * FROM ${ctl}.fluss_test.pk_basic ORDER BY id
-- result
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5

-- query pk_part_on
SELECT * FROM ${ctl}.fluss_test.pk_part ORDER BY dt, id
-- result
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102

-- query lake_pk_multi_on
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.lake_pk_multi
-- result
9	48

-- query log_basic_on
SELECT COUNT(*), SUM(price) FROM ${ctl}.fluss_test.log_basic
-- result
3	60.60

-- statement off
SET enable_jni_heap_admission = false

-- query lake_pk_multi_off
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.lake_pk_multi
-- result
9	48

-- query hint_on
SELECT /*+ SET_VAR(enable_jni_heap_admission=true) */ COUNT(*) FROM ${ctl}.fluss_test.big_pk
-- result
100495
