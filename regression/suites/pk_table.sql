# test_fluss_pk_table: primary-key tables read from Fluss alone (KV
# snapshot + change log): 4 inserts, 1 update, 1 delete on pk_basic.

-- catalog fluss_auto

-- query merged_rows
SELECT * FROM ${ctl}.fluss_test.pk_basic ORDER BY id
-- result
1	k1	1.5
2	k2-updated	22.5
4	k4	4.5
-- explain
unionRead=no
logRanges=0
lakeSplits=0
1<=pkRanges<=3
mode=auto

-- query count
SELECT COUNT(*) FROM ${ctl}.fluss_test.pk_basic
-- result
3

-- query deleted_key
SELECT COUNT(*) FROM ${ctl}.fluss_test.pk_basic WHERE id = 3
-- result
0

-- query updated_key
SELECT name, score FROM ${ctl}.fluss_test.pk_basic WHERE id = 2
-- result
k2-updated	22.5

-- query projection_reordered
SELECT score, name, id FROM ${ctl}.fluss_test.pk_basic ORDER BY id
-- result
1.5	k1	1
22.5	k2-updated	2
4.5	k4	4

-- query types_by_predicate
SELECT id, f_boolean, f_decimal, f_string, f_date, f_timestamp, f_array, f_map, f_row FROM ${ctl}.fluss_test.pk_types WHERE f_int = 3
-- result
1	1	123.4567	string1	2026-01-01	2026-01-01 01:02:03.456789	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}

-- query types_all_null_row
SELECT * FROM ${ctl}.fluss_test.pk_types WHERE f_int IS NULL
-- result
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query part_merged
SELECT * FROM ${ctl}.fluss_test.pk_part ORDER BY dt, id
-- result
1	q1a	20260101
2	q1b-updated	20260101
3	q2a	20260102
-- explain
partition=2/2
logRanges=0
1<=pkRanges<=4

-- query part_pruned
SELECT id, name FROM ${ctl}.fluss_test.pk_part WHERE dt = '20260102'
-- result
3	q2a
-- explain
partition=1/2
1<=pkRanges<=2

-- query empty
SELECT * FROM ${ctl}.fluss_test.pk_empty
-- result
-- explain
pkRanges=0
logRanges=0
