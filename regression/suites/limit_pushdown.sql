# LIMIT that stops early and filter pushdown into the Fluss log (issue 26,
# points 2 and 3), each with its session variable on and off: the rows are
# the same, EXPLAIN says what the BEs were given. Doris reads every range it
# planned; the expected rows are derived by hand from the fixture scenario
# (minifluss/testdata/doris_regression.scenario):
#
# big_pk (3 buckets, PK id): ids 1..100000, name p<id>, grp = id mod 7,
#   tiered into the lake; then ids 1..500 rewritten as hot<id>, ids
#   100001..100500 added as new<id - 100000>, ids 7, 19999, 50000, 77777
#   and 99999 deleted. A plain read is a union read (lake splits
#   suppressed by their bucket's tail keys plus PK_TAIL ranges).
# big_log (3 buckets, a log table with a lake): ids 1..100000 named n<id>
#   (tiered), then 100001..101000 named hot<id>, grp = id mod 7; a plain
#   read is a union read of lake splits and the log after them.

-- catalog fluss_auto
-- statement use
use ${ctl}.fluss_test

# ---- ORDER BY the primary key LIMIT n: a Top-N per range -----------------

-- query pk_order_limit
select id, name from big_pk order by id limit 5
-- result
1	hot1
2	hot2
3	hot3
4	hot4
5	hot5
-- explain
unionRead=yes
contains rangeTopN: each range returns at most its first 5 rows by `id` ASC

-- query pk_order_limit_off
select /*+ SET_VAR(fluss_limit_pushdown=false) */ id, name from big_pk order by id limit 5
-- result
1	hot1
2	hot2
3	hot3
4	hot4
5	hot5
-- explain
!contains rangeTopN

# 99999 is deleted in the tail; 100001 exists only in the tail.
-- query pk_order_limit_over_deletes
select id, name from big_pk where id > 99995 order by id limit 5
-- result
99996	p99996
99997	p99997
99998	p99998
100000	p100000
100001	new1
-- explain
contains rangeTopN

-- query pk_order_desc_limit
select id, name from big_pk order by id desc limit 3
-- result
100500	new500
100499	new499
100498	new498

-- query pk_order_limit_offset
select id from big_pk where id >= 5 order by id limit 3 offset 2
-- result
8
9
10
-- explain
contains at most its first 5 rows

# ---- WHERE … LIMIT n: the BEs stop once n rows passed the filters --------

-- query pk_where_limit
select id, name from big_pk where grp = 3 and id <= 20 limit 10
-- result sorted
3	hot3
10	hot10
17	hot17
-- explain
contains limit: 10 rows after the pushed filters

-- query pk_where_limit_off
select /*+ SET_VAR(fluss_limit_pushdown=false) */ id, name from big_pk where grp = 3 and id <= 20 limit 10
-- result sorted
3	hot3
10	hot10
17	hot17
-- explain
!contains after the pushed filters

-- query pk_where_limit_count
select count(*), count(distinct id) from (select id from big_pk where grp = 5 limit 20) t
-- result
20	20

-- query pk_where_deleted_limit
select count(*) from (select id from big_pk where id = 7 limit 1) t
-- result
0

-- query pk_where_in_limit
select id, name from big_pk where id in (6, 7, 8, 100002) limit 10
-- result sorted
6	hot6
8	hot8
100002	new2
-- explain
contains limit: 10 rows after the pushed filters

# A filter the BEs cannot apply exactly leaves the LIMIT to the FE.
-- query pk_where_expr_limit
select count(*) from (select id from big_pk where grp + 1 = 4 and id <= 20 limit 10) t
-- result
3
-- explain
!contains after the pushed filters

-- query log_where_limit
select id, name from big_log where grp = 0 and id < 50 limit 100
-- result sorted
7	n7
14	n14
21	n21
28	n28
35	n35
42	n42
49	n49
-- explain
unionRead=yes
contains limit: 100 rows after the pushed filters

-- query log_where_limit_count
select count(*) from (select id from big_log where name = 'hot100500' or grp = 1 limit 15) t
-- result
15

# ---- filter pushdown into the log, on and off ---------------------------

-- query log_filter_or
select id, name from big_log where id = 100500 or name = 'n42'
-- result sorted
42	n42
100500	hot100500
-- explain
contains logFilterOr: (`id` = 100500 OR `name` = 'n42')

-- query log_filter_or_off
select /*+ SET_VAR(fluss_log_filter_pushdown=false) */ id, name from big_log where id = 100500 or name = 'n42'
-- result sorted
42	n42
100500	hot100500

-- query log_filter_range
select count(*), min(id), max(id) from big_log where id between 100990 and 100995 or id < 3
-- result
8	1	100995

-- query log_filter_range_off
select /*+ SET_VAR(fluss_log_filter_pushdown=false) */ count(*), min(id), max(id) from big_log where id between 100990 and 100995 or id < 3
-- result
8	1	100995

# ---- Fluss alone (PK_FULL ranges, whose rows the FE holds until a range
# completes): a BE that stops a range at the LIMIT still delivers its rows.

-- catalog fluss_disabled

-- query pk_full_limit
select count(*), count(distinct id) from (select id from ${ctl}.fluss_test.big_pk limit 30) t
-- result
30	30

-- query pk_full_where_limit
select count(*), min(grp), max(grp) from (select id, grp from ${ctl}.fluss_test.big_pk where grp = 2 limit 25) t
-- result
25	2	2

-- query pk_full_where_limit_plan
select id from ${ctl}.fluss_test.big_pk where grp = 2 limit 25
-- explain
unionRead=no
contains limit: 25 rows after the pushed filters

-- query pk_full_order_limit
select id, name from ${ctl}.fluss_test.big_pk where id between 99990 and 100003 order by id desc limit 4
-- result
100003	new3
100002	new2
100001	new1
100000	p100000
