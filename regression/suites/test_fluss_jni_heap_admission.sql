# Doris's test_fluss_jni_heap_admission, statement for statement
# (test_fluss_jni_heap_admission.groovy 5980a184; expected rows from
# test_fluss_jni_heap_admission.out). sameWithAdmissionOff(q) is q with the
# variable off and on, both with the same hand-derived rows.
# The .out also records union_rows_jni, from a later revision whose
# statement the groovy read does not contain; it is not guessed at here.

-- query default_off
show variables like 'enable_jni_heap_admission'
-- result
enable_jni_heap_admission	false	false	0

-- statement drop
drop catalog if exists test_fluss_jni_heap_admission
-- statement create
create catalog test_fluss_jni_heap_admission properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_jni_heap_admission
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement admission_on
set enable_jni_heap_admission = true

-- query pk_rows
select id, name, score from pk_basic
-- result sorted
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5

-- query pk_count
select count(*) from pk_basic
-- result sorted
3

-- query pk_part
select id, name, dt from pk_part
-- result sorted
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102

-- statement pk_basic_off
set enable_jni_heap_admission = false
-- query pk_basic_admission_off
select id, name, score from pk_basic order by id
-- result
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5
-- statement pk_basic_on
set enable_jni_heap_admission = true
-- query pk_basic_admission_on
select id, name, score from pk_basic order by id
-- result
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5

-- statement pk_part_off
set enable_jni_heap_admission = false
-- query pk_part_admission_off
select id, name, dt from pk_part order by id, dt
-- result
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102
-- statement pk_part_on
set enable_jni_heap_admission = true
-- query pk_part_admission_on
select id, name, dt from pk_part order by id, dt
-- result
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102

-- query union_rows
select id, name from lake_pk_multi
-- result sorted
1	m1
10	m10-hot
2	m2-hot
3	m3
4	m4
5	m5-lake
6	m6
8	m8
9	m9

-- query union_count
select count(*) from lake_pk_multi
-- result sorted
9

-- statement union_off
set enable_jni_heap_admission = false
-- query union_admission_off
select id, name from lake_pk_multi order by id
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
-- statement union_on
set enable_jni_heap_admission = true
-- query union_admission_on
select id, name from lake_pk_multi order by id
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

-- query log_rows
select id, name, price from log_basic
-- result sorted
1	alice	10.10
2	bob	20.20
3	carol	30.30

-- statement log_off
set enable_jni_heap_admission = false
-- query log_admission_off
select id, name, price from log_basic order by id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30
-- statement log_on
set enable_jni_heap_admission = true
-- query log_admission_on
select id, name, price from log_basic order by id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30

-- statement admission_off_end
set enable_jni_heap_admission = false
-- statement switch_internal
switch internal
-- statement cleanup
drop catalog if exists test_fluss_jni_heap_admission
