# test_fluss_read_modes: $log (the log after the lake snapshot), $lake
# and $log are disjoint and together the table; the session variable.

-- catalog fluss_auto

-- query log_rows
SELECT * FROM ${ctl}.fluss_test.`lake_log$log` ORDER BY id
-- result
5	hot5	5.50
6	hot6	6.60
-- explain
readMode=log
unionRead=yes
lakeSplits=0
logRanges>=1

-- query lake_union_log_is_table
SELECT id FROM ${ctl}.fluss_test.`lake_log$lake` UNION ALL SELECT id FROM ${ctl}.fluss_test.`lake_log$log`
-- result sorted
1
2
3
4
5
6

-- query lake_and_log_disjoint
SELECT COUNT(*) FROM ${ctl}.fluss_test.`lake_log$lake` l JOIN ${ctl}.fluss_test.`lake_log$log` g ON l.id = g.id
-- result
0

-- query big_log_log_half
SELECT COUNT(*), MIN(id), MAX(id), SUM(id) FROM ${ctl}.fluss_test.`big_log$log`
-- result
1000	100001	101000	100500500

-- query big_log_lake_half
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.`big_log$lake`
-- result
100000	5000050000

-- query types_via_log
SELECT * FROM ${ctl}.fluss_test.`lake_types$log`
-- result
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N

-- query desc_log_extra
DESC ${ctl}.fluss_test.`lake_log$log`
-- result
id	int	Yes	true	\N	NONE
name	text	Yes	true	\N	NONE
price	decimal(10,2)	Yes	true	\N	NONE

-- query log_of_pk_table
SELECT * FROM ${ctl}.fluss_test.`lake_pk$log`
-- error has a primary key

-- query log_without_snapshot
SELECT * FROM ${ctl}.fluss_test.`lake_untiered$log`
-- error has no readable lake snapshot

-- query log_of_plain_table
SELECT * FROM ${ctl}.fluss_test.`log_basic$log`
-- error Unknown sys table

-- query untiered_auto_reads_fluss
SELECT * FROM ${ctl}.fluss_test.lake_untiered ORDER BY id
-- result
1	u1
2	u2
-- explain
unionRead=no
lakeSplits=0
logRanges=1
!degraded

-- query untiered_required_fails
SELECT * FROM fluss_required.fluss_test.lake_untiered
-- error has no readable lake snapshot

-- query untiered_lake_empty
SELECT COUNT(*) FROM ${ctl}.fluss_test.`lake_untiered$lake`
-- result
0

-- statement session_disabled
SET fluss_union_read_mode = 'disabled'

-- query session_mode_shown
SELECT * FROM fluss_required.fluss_test.lake_log
-- explain
mode=disabled(session)
unionRead=no
lakeSplits=0

-- statement session_blank
SET fluss_union_read_mode = ''

-- query blank_hands_back
SELECT * FROM fluss_required.fluss_test.lake_log
-- explain
mode=required
unionRead=yes

-- query hint_overrides
SELECT /*+ SET_VAR(fluss_union_read_mode='disabled') */ * FROM fluss_required.fluss_test.lake_log
-- explain
mode=disabled(session)

# Doris takes any value at SET; the query that reads it refuses it.
-- statement bad_session_value
SET fluss_union_read_mode = 'sometimes'

-- query bad_session_value_refused
SELECT * FROM ${ctl}.fluss_test.lake_log
-- error session variable 'fluss_union_read_mode'

-- statement reset_session_value
SET fluss_union_read_mode = ''

-- query capped_auto_degrades
SELECT * FROM fluss_capped.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot
-- explain
unionRead=no
degraded=tail-too-large
mode=auto

-- statement session_required
SET fluss_union_read_mode = 'required'

-- query capped_session_required_fails
SELECT * FROM fluss_capped.fluss_test.lake_pk
-- error cannot be read as its lake plus its log

-- statement session_reset
SET fluss_union_read_mode = ''
