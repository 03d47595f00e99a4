# Doris's test_fluss_big_data, statement for statement
# (test_fluss_big_data.groovy eb19ab07; expected rows from
# test_fluss_big_data.out). compareModes(q) is the query on the union
# catalog with -- same-as the fluss-only catalog.

-- statement drop_union
drop catalog if exists test_fluss_big_data
-- statement create_union
create catalog test_fluss_big_data properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_off
drop catalog if exists test_fluss_big_data_off
-- statement create_off
create catalog test_fluss_big_data_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement switch
switch test_fluss_big_data
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- catalog test_fluss_big_data

-- query log_plan
select * from big_log
-- explain
contains unionRead=yes
lakeSplits>=1
1<=logRanges<=3

-- query log_summary
select count(*) as rows_read, sum(id) as id_sum, min(id) as id_min, max(id) as id_max,
       count(distinct grp) as groups, sum(price) as price_sum
from big_log
-- result sorted
101000	5100550500	1	101000	7	5100550500.00

-- query log_summary_compare
select count(*), sum(id), min(id), max(id), sum(price) from ${ctl}.fluss_test.big_log
-- same-as test_fluss_big_data_off

-- query log_distinct
select count(distinct id) from big_log
-- result sorted
101000

-- query log_groups
select grp, count(*) from big_log group by grp order by grp
-- result sorted
0	14428
1	14429
2	14429
3	14429
4	14429
5	14428
6	14428

-- query log_groups_compare
select grp, count(*) from ${ctl}.fluss_test.big_log group by grp order by grp
-- same-as test_fluss_big_data_off

-- query log_seam
select id, name, price, grp from big_log
where id in (1, 2, 50000, 99999, 100000, 100001, 100002, 100999, 101000)
-- result sorted
1	n1	1.00	1
100000	n100000	100000.00	5
100001	hot100001	100001.00	6
100002	hot100002	100002.00	0
100999	hot100999	100999.00	3
101000	hot101000	101000.00	4
2	n2	2.00	2
50000	n50000	50000.00	6
99999	n99999	99999.00	4

-- query log_range
select count(*), sum(id) from big_log where id between 99990 and 100010
-- result sorted
21	2100000

-- query log_projection
select count(*) from big_log where name like 'hot%'
-- result sorted
1000

-- query log_ordered_head
select id, name from big_log order by id limit 5
-- result sorted
1	n1
2	n2
3	n3
4	n4
5	n5

-- query log_ordered_tail
select id, name from big_log order by id desc limit 5
-- result sorted
100996	hot100996
100997	hot100997
100998	hot100998
100999	hot100999
101000	hot101000

-- query pk_plan
select * from big_pk
-- explain
contains unionRead=yes
logRanges=0
lakeSplits>=3
suppressedLakeSplits=lakeSplits
pkTailRanges=3
pkRanges=0

-- query pk_summary
select count(*) as rows_read, sum(id) as id_sum, min(id) as id_min, max(id) as id_max,
       count(distinct grp) as groups
from big_pk
-- result sorted
100495	5049927468	1	100500	7

-- query pk_summary_compare
select count(*), sum(id), min(id), max(id) from ${ctl}.fluss_test.big_pk
-- same-as test_fluss_big_data_off

-- query pk_distinct
select count(distinct id) from big_pk
-- result sorted
100495

-- query pk_by_origin
select
    sum(case when name like 'hot%' then 1 else 0 end) as replaced,
    sum(case when name like 'new%' then 1 else 0 end) as added,
    sum(case when name like 'p%' then 1 else 0 end) as untouched
from big_pk
-- result sorted
499	500	99496

-- query pk_by_origin_compare
select
    sum(case when name like 'hot%' then 1 else 0 end),
    sum(case when name like 'new%' then 1 else 0 end),
    sum(case when name like 'p%' then 1 else 0 end)
from ${ctl}.fluss_test.big_pk
-- same-as test_fluss_big_data_off

-- query pk_deleted
select id, name from big_pk where id in (7, 19999, 50000, 77777, 99999)
-- result sorted

-- query pk_neighbours
select id, name from big_pk where id in (6, 8, 19998, 20000, 49999, 50001, 99998, 100000)
-- result sorted
100000	p100000
19998	p19998
20000	p20000
49999	p49999
50001	p50001
6	hot6
8	hot8
99998	p99998

-- query pk_sample
select id, name, grp from big_pk
where id in (1, 500, 501, 99999, 100000, 100001, 100500)
-- result sorted
1	hot1	1
100000	p100000	5
100001	new1	6
100500	new500	1
500	hot500	3
501	p501	4

-- query pk_groups
select grp, count(*) from big_pk group by grp order by grp
-- result sorted
0	14354
1	14358
2	14357
3	14357
4	14356
5	14357
6	14356

-- query pk_ordered_head
select id, name from big_pk order by id limit 5
-- result sorted
1	hot1
2	hot2
3	hot3
4	hot4
5	hot5

-- statement switch_off
switch test_fluss_big_data_off
-- statement use_off
use fluss_test
-- statement scanner_v2_off
set enable_file_scanner_v2 = true

-- query fluss_only_log_plan
select * from big_log
-- explain
contains unionRead=no
lakeSplits=0

-- query fluss_only_log
select count(*) as rows_read, sum(id) as id_sum, max(id) as id_max from big_log
-- result sorted
101000	5100550500	101000

-- query fluss_only_pk_plan
select * from big_pk
-- explain
contains unionRead=no
pkRanges=3

-- query fluss_only_pk
select count(*) as rows_read, sum(id) as id_sum, max(id) as id_max from big_pk
-- result sorted
100495	5049927468	100500

-- statement switch_internal
switch internal
-- statement cleanup_union
drop catalog if exists test_fluss_big_data
-- statement cleanup_off
drop catalog if exists test_fluss_big_data_off
