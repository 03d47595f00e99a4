# test_fluss_big_data: big_log (100000 rows in the lake + 1000 in the log)
# and big_pk (100000 in the lake; tail: 500 updates, 500 new keys, 5
# deletes). Closed forms: 101000 rows, id sum 5100550500; 100495 rows, id
# sum 5049927468.

-- catalog fluss_required

-- query big_log_closed_form
SELECT COUNT(*), SUM(id), SUM(price) FROM ${ctl}.fluss_test.big_log
-- result
101000	5100550500	5100550500.00
-- explain
unionRead=yes
1<=logRanges<=3
lakeSplits>=1
-- same-as fluss_disabled

-- query big_log_groups
SELECT grp, COUNT(*) FROM ${ctl}.fluss_test.big_log GROUP BY grp ORDER BY grp
-- result
0	14428
1	14429
2	14429
3	14429
4	14429
5	14428
6	14428
-- same-as fluss_disabled

-- query big_pk_closed_form
SELECT COUNT(*), SUM(id) FROM ${ctl}.fluss_test.big_pk
-- result
100495	5049927468
-- explain
unionRead=yes
logRanges=0
lakeSplits>=3
suppressedLakeSplits=lakeSplits
pkTailRanges=3
pkRanges=0
-- same-as fluss_disabled

-- query big_pk_disabled_plan
SELECT COUNT(*) FROM fluss_disabled.fluss_test.big_pk
-- result
100495
-- explain
pkRanges=3
lakeSplits=0

-- query big_pk_tail_rows
SELECT SUM(CASE WHEN name LIKE 'hot%' THEN 1 ELSE 0 END), SUM(CASE WHEN name LIKE 'new%' THEN 1 ELSE 0 END) FROM ${ctl}.fluss_test.big_pk
-- result
499	500
-- same-as fluss_disabled

-- query big_pk_deleted
SELECT COUNT(*) FROM ${ctl}.fluss_test.big_pk WHERE id IN (7, 19999, 50000, 77777, 99999)
-- result
0
