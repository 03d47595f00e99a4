# test_fluss_lake_only: tbl$lake reads only what tiering wrote (the
# readable lake snapshot), with the base table's columns (Fluss 1.0: no
# system columns).

-- catalog fluss_auto

-- query lake_log
SELECT * FROM ${ctl}.fluss_test.`lake_log$lake` ORDER BY id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
-- explain
!contains flussScan:

-- query lake_log_count_sum
SELECT COUNT(*), SUM(price) FROM ${ctl}.fluss_test.`lake_log$lake`
-- result
4	11.00

-- query lake_log_projection
SELECT name FROM ${ctl}.fluss_test.`lake_log$lake` WHERE id >= 3 ORDER BY name
-- result
lake3
lake4

-- query lake_types
SELECT id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double, f_decimal, f_char, f_string, hex(f_binary), hex(f_bytes), f_date, f_timestamp, f_timestamp_ltz, f_array, f_map, f_row FROM ${ctl}.fluss_test.`lake_types$lake`
-- result
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 01:02:03.456	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}

-- query lake_cold
SELECT COUNT(*) FROM ${ctl}.fluss_test.`lake_cold$lake`
-- result
3

-- query lake_part
SELECT * FROM ${ctl}.fluss_test.`lake_part$lake` ORDER BY id
-- result
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102

-- query lake_part_pruned
SELECT id FROM ${ctl}.fluss_test.`lake_part$lake` WHERE dt = '20260102'
-- result
3

-- query lake_pk
SELECT * FROM ${ctl}.fluss_test.`lake_pk$lake` ORDER BY id
-- result
1	lp1
2	lp2-lake
3	lp3

# Same types as the base table; Doris prints a $lake column's Extra NONE.
-- query desc_lake_types
DESC ${ctl}.fluss_test.`lake_log$lake`
-- result
id	int	Yes	true	\N	NONE
name	text	Yes	true	\N	NONE
price	decimal(10,2)	Yes	true	\N	NONE

-- query desc_base_types
DESC ${ctl}.fluss_test.lake_log
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
price	decimal(10,2)	Yes	true	\N	

-- query not_a_lake_table
SELECT * FROM ${ctl}.fluss_test.`log_basic$lake`
-- error Unknown sys table

-- query lake_not_listed
SHOW TABLES FROM ${ctl}.fluss_test LIKE 'lake_log%'
-- result
lake_log

-- query untiered_lake_is_empty
SELECT COUNT(*) FROM ${ctl}.fluss_test.`lake_untiered$lake`
-- result
0
