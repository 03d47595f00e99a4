# test_fluss_union_log: log tables tiered into the lake, read as lake +
# log under required, compared with a Fluss-only read (disabled).

-- catalog fluss_required

-- query lake_log_rows
SELECT * FROM ${ctl}.fluss_test.lake_log ORDER BY id
-- result
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40
5	hot5	5.50
6	hot6	6.60
-- explain
readMode=default
unionRead=yes
mode=required
lakeSplits>=1
1<=logRanges<=2
pkRanges=0
pkTailRanges=0
-- same-as fluss_disabled

-- query lake_log_count_sum
SELECT COUNT(*), SUM(price) FROM ${ctl}.fluss_test.lake_log
-- result
6	23.10
-- same-as fluss_disabled

-- query lake_cold
SELECT * FROM ${ctl}.fluss_test.lake_cold ORDER BY id
-- result
1	cold1
2	cold2
3	cold3
-- explain
unionRead=yes
lakeSplits>=1
logRanges=0
-- same-as fluss_disabled

-- query lake_types_across_seam
SELECT id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double, f_decimal, f_char, f_string, hex(f_binary), hex(f_bytes), f_date, f_timestamp, f_timestamp_ltz, f_array, f_map, f_row FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	1	1	2	3	4	1.5	2.5	123.4567	char1	string1	010203	0A0B	2026-01-01	2026-01-01 01:02:03.456789	2026-01-01 01:02:03.456	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
-- explain
unionRead=yes
lakeSplits=1
logRanges=1
-- same-as fluss_disabled

-- query lake_types_map_parts
SELECT id, map_keys(f_map), map_values(f_map) FROM ${ctl}.fluss_test.lake_types ORDER BY id
-- result
1	["k1", "k2"]	[1, 2]
2	\N	\N
-- same-as fluss_disabled

# lake_part: 20260102 was dropped from Fluss after tiering, so the union
# still has it (from the lake) and the Fluss-only read does not.
-- query lake_part_full
SELECT * FROM ${ctl}.fluss_test.lake_part ORDER BY id
-- result
1	lp1a	20260101
2	lp1b	20260101
3	lp2a	20260102
4	lp1c	20260101
-- explain
unionRead=yes
lakeSplits>=2
logRanges=1

-- query lake_part_disabled
SELECT * FROM fluss_disabled.fluss_test.lake_part ORDER BY id
-- result
1	lp1a	20260101
2	lp1b	20260101
4	lp1c	20260101
-- explain
unionRead=no
lakeSplits=0
mode=disabled

-- query lake_part_tail_partition
SELECT id, name FROM ${ctl}.fluss_test.lake_part WHERE dt = '20260101' ORDER BY id
-- result
1	lp1a
2	lp1b
4	lp1c
-- explain
lakeSplits>=1
logRanges=1
-- same-as fluss_disabled

-- query lake_part_tiered_partition
SELECT id, name FROM ${ctl}.fluss_test.lake_part WHERE dt = '20260102'
-- result
3	lp2a
-- explain
lakeSplits>=1
logRanges=0

-- query lake_pk_plan
SELECT * FROM ${ctl}.fluss_test.lake_pk
-- explain
unionRead=yes
logRanges=0
pkTailRanges>=1

-- query non_lake_table_under_required
SELECT * FROM ${ctl}.fluss_test.log_basic ORDER BY id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30
-- explain
unionRead=no
lakeSplits=0
mode=required
-- same-as fluss_disabled
