# test_fluss_log_table: plain log tables on a catalog in auto mode (no lake).

-- catalog fluss_auto

-- query full_scan
SELECT * FROM ${ctl}.fluss_test.log_basic ORDER BY id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30
-- explain
readMode=default
unionRead=no
lakeSplits=0
pkRanges=0
mode=auto
1<=logRanges<=3
!degraded

-- query count
SELECT COUNT(*), SUM(price) FROM ${ctl}.fluss_test.log_basic
-- result
3	60.60

-- query projection
SELECT name FROM ${ctl}.fluss_test.log_basic ORDER BY name
-- result
alice
bob
carol

-- query swapped_projection
SELECT price, id FROM ${ctl}.fluss_test.log_basic ORDER BY id
-- result
10.10	1
20.20	2
30.30	3

-- query filter
SELECT id, name FROM ${ctl}.fluss_test.log_basic WHERE price > 15 AND name <> 'carol'
-- result sorted
2	bob

-- query all_types
SELECT id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double, f_decimal, f_char, f_string, hex(f_binary), hex(f_bytes), f_date, f_timestamp, f_timestamp_ltz, f_array, f_map, f_row FROM ${ctl}.fluss_test.log_types ORDER BY id
-- result
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 01:02:03.456	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}
2	0	-1	-2	-3	-4	-1.5	-2.5	-123.4567	char2	string2	040506	0C0D	2026-01-02	2026-01-02 01:02:03.456789	2026-01-02 01:02:03.456	[4, 5]	{"k3":3}	{"r_int":2, "r_string":"nested2"}
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query nested_elements
SELECT id, f_array[1], f_map['k1'], struct_element(f_row, 'r_string') FROM ${ctl}.fluss_test.log_types ORDER BY id
-- result
1	1	1	nested1
2	4	\N	nested2
3	\N	\N	\N

-- query partitioned_all
SELECT * FROM ${ctl}.fluss_test.log_part ORDER BY id
-- result
1	p1a	20260101
2	p1b	20260101
3	p2a	20260102
4	p3a	20260103
-- explain
partition=3/3
unionRead=no
1<=logRanges<=6

-- query partitioned_grouped
SELECT dt, COUNT(*) FROM ${ctl}.fluss_test.log_part GROUP BY dt ORDER BY dt
-- result
20260101	2
20260102	1
20260103	1

-- query partition_pruned
SELECT id, name FROM ${ctl}.fluss_test.log_part WHERE dt = '20260101' ORDER BY id
-- result
1	p1a
2	p1b
-- explain
partition=1/3
1<=logRanges<=2

-- query show_partitions
SHOW PARTITIONS FROM ${ctl}.fluss_test.log_part
-- result sorted
dt=20260101
dt=20260102
dt=20260103

-- query empty_table
SELECT * FROM ${ctl}.fluss_test.log_empty
-- result
-- explain
logRanges=0
lakeSplits=0

-- query empty_count
SELECT COUNT(*) FROM ${ctl}.fluss_test.log_empty
-- result
0
