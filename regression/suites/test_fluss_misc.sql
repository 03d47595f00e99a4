# Doris's test_fluss_misc, statement for statement
# (test_fluss_misc.groovy 04b6e720; expected rows from test_fluss_misc.out).
# sameWithScannerV2Off(q) is q run with enable_file_scanner_v2 on and off,
# both with the same rows (the variable is a no-op here: one scanner).

-- statement drop
drop catalog if exists test_fluss_misc
-- statement create
create catalog test_fluss_misc properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement switch
switch test_fluss_misc
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query pk_empty_count
select count(*) from pk_empty
-- result sorted
0

-- query pk_empty_rows
select id, name from pk_empty
-- result sorted

-- query pk_empty_plan
select * from pk_empty
-- explain
pkRanges=0

-- query empty_aggregates
select count(*), count(id), sum(id), min(id), max(id), avg(id) from pk_empty
-- result sorted
0	0	\N	\N	\N	\N

-- query log_empty_aggregates
select count(*), count(id), sum(id), min(id), max(id) from log_empty
-- result sorted
0	0	\N	\N	\N

-- query empty_join
select count(*) from log_empty a join log_basic b on a.id = b.id
-- result sorted
0

-- query lake_empty_plan
select * from lake_empty
-- explain
contains unionRead=no
contains lakeSplits=0

-- query lake_empty_count
select count(*) from lake_empty
-- result sorted
0

-- statement drop_required
drop catalog if exists test_fluss_misc_required
-- statement create_required
create catalog test_fluss_misc_required properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- query required_lake_empty
select * from test_fluss_misc_required.fluss_test.lake_empty
-- error has no readable lake snapshot yet

-- query desc_log_time
desc log_time
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
f_time	unknown type: UNSUPPORTED_TYPE	Yes	true	\N	

-- query time_other_columns
select id, name from log_time
-- result sorted
1	time1
2	time2

-- query time_count
select count(*) from log_time
-- result sorted
2

-- query time_selected
select f_time from log_time
-- error UNSUPPORTED

-- query time_star
select * from log_time
-- error UNSUPPORTED

-- query no_table
select * from no_such_table
-- error no_such_table

-- query no_column
select no_such_column from log_basic
-- error no_such_column

-- query no_db
select * from no_such_db.log_basic
-- error no_such_db

-- query join_fluss
select b.id, b.name, t.f_string
from log_basic b join log_types t on b.id = t.id
-- result sorted
1	alice	string1
2	bob	string2
3	carol	\N

-- query join_pk
select p.id, p.name, l.name as log_name
from pk_basic p join log_basic l on p.id = l.id
-- result sorted
1	k1	alice
2	k2-updated	bob

-- query join_lake
select l.id, l.name, c.name as cold_name
from lake_log l left join lake_cold c on l.id = c.id
-- result sorted
1	lake1	cold1
2	lake2	cold2
3	lake3	cold3
4	lake4	\N
5	hot5	\N
6	hot6	\N

-- query join_self
select a.id, a.name, b.name
from log_part a join log_part b on a.dt = b.dt and a.id < b.id
-- result sorted
1	p1a	p1b

-- query subquery_in
select id, name from log_basic where id in (select id from pk_basic where score > 2.0)
-- result sorted
2	bob

-- query subquery_exists
select id from log_basic b where exists (select 1 from log_types t where t.id = b.id)
-- result sorted
1
2
3

-- query subquery_scalar
select id, name from log_basic where price > (select min(price) from log_basic)
-- result sorted
2	bob
3	carol

-- query cte
with hot as (select id, name from lake_log where id >= 5)
select count(*), min(id) from hot
-- result sorted
2	5

-- query union_all
select id, name from log_basic union all select id, name from lake_cold
-- result sorted
1	alice
1	cold1
2	bob
2	cold2
3	carol
3	cold3

-- query union_distinct
select id from log_basic union select id from lake_cold
-- result sorted
1
2
3

-- query except
select id from lake_log except select id from lake_cold
-- result sorted
4
5
6

-- query intersect
select id from lake_log intersect select id from lake_cold
-- result sorted
1
2
3

-- query aggregates
select count(*), count(distinct name), min(price), max(price), sum(price), avg(id)
from log_basic
-- result sorted
3	3	10.10	30.30	60.60	2

-- query group_having
select dt, count(*) as c from log_part group by dt having count(*) > 1
-- result sorted
20260101	2

-- query order_limit
select id, name from log_basic order by price desc limit 2
-- result sorted
2	bob
3	carol

-- query limit_offset
select id from log_basic order by id limit 1 offset 1
-- result sorted
2

-- query star
select * from log_basic
-- result sorted
1	alice	10.10
2	bob	20.20
3	carol	30.30

-- query expression
select id * 2 as doubled, upper(name) from log_basic where id < 3
-- result sorted
2	ALICE
4	BOB

-- query case
select id, case when price > 20 then 'high' else 'low' end as band from log_basic
-- result sorted
1	low
2	high
3	high

-- statement switch_internal
switch internal
-- statement drop_db
drop database if exists test_fluss_misc_internal
-- statement create_db
create database test_fluss_misc_internal
-- statement use_db
use test_fluss_misc_internal

-- statement create_copied
create table copied (
    id int,
    name varchar(64),
    price decimalv3(10, 2)
) distributed by hash(id) buckets 1 properties ("replication_num" = "1")

-- statement insert_copied
insert into copied select id, name, price from test_fluss_misc.fluss_test.log_basic

-- query copied
select id, name, price from copied
-- result sorted
1	alice	10.10
2	bob	20.20
3	carol	30.30

-- statement ctas_types
create table ctas_types properties ("replication_num" = "1") as
select id, f_boolean, f_tinyint, f_smallint, f_int, f_bigint, f_float, f_double,
       f_decimal, f_char, f_string, f_date, f_timestamp, f_timestamp_ltz,
       f_array, f_map, f_row
from test_fluss_misc.fluss_test.log_types

-- query desc_ctas
desc ctas_types
-- result
id	int	Yes	true	\N	
f_boolean	boolean	Yes	true	\N	
f_tinyint	tinyint	Yes	true	\N	
f_smallint	smallint	Yes	false	\N	NONE
f_int	int	Yes	false	\N	NONE
f_bigint	bigint	Yes	false	\N	NONE
f_float	float	Yes	false	\N	NONE
f_double	double	Yes	false	\N	NONE
f_decimal	decimal(20,4)	Yes	false	\N	NONE
f_char	text	Yes	false	\N	NONE
f_string	text	Yes	false	\N	NONE
f_date	date	Yes	false	\N	NONE
f_timestamp	datetime(6)	Yes	false	\N	NONE
f_timestamp_ltz	timestamptz(3)	Yes	false	\N	NONE
f_array	array<int>	Yes	false	\N	NONE
f_map	map<text,int>	Yes	false	\N	NONE
f_row	struct<r_int:int,r_string:text>	Yes	false	\N	NONE

-- query ctas_count
select count(*), count(f_string), count(f_array) from ctas_types
-- result sorted
3	2	2

-- statement ctas_nested
create table ctas_nested properties ("replication_num" = "1") as
select id, f_arr_arr, f_map_row, f_row_deep
from test_fluss_misc.fluss_test.log_nested where id = 1

-- query desc_ctas_nested
desc ctas_nested
-- result
id	int	Yes	true	\N	
f_arr_arr	array<array<int>>	Yes	false	\N	NONE
f_map_row	map<text,struct<a:int,b:text>>	Yes	false	\N	NONE
f_row_deep	struct<r_int:int,r_arr:array<int>,r_map:map<text,int>,r_row:struct<x:int,y:text>>	Yes	false	\N	NONE

-- query ctas_nested_rows
select id, f_arr_arr, f_map_row, f_row_deep from ctas_nested
-- result sorted
1	[[1, 2], [3]]	{"k1":{"a":9, "b":"z"}}	{"r_int":1, "r_arr":[7, 8], "r_map":{"m":3}, "r_row":{"x":5, "y":"deep"}}

-- query join_internal
select c.id, c.name, t.f_string
from copied c join test_fluss_misc.fluss_test.log_types t on c.id = t.id
-- result sorted
1	alice	string1
2	bob	string2
3	carol	\N

# sameWithScannerV2Off: LOG, PK_FULL and a partitioned log table.
-- statement v2_on_1
set enable_file_scanner_v2 = true
-- query v2_on_log
select id, name, price from test_fluss_misc.fluss_test.log_basic order by id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30
-- statement v2_off_1
set enable_file_scanner_v2 = false
-- query v2_off_log
select id, name, price from test_fluss_misc.fluss_test.log_basic order by id
-- result
1	alice	10.10
2	bob	20.20
3	carol	30.30
-- statement v2_on_2
set enable_file_scanner_v2 = true
-- query v2_on_pk
select id, name from test_fluss_misc.fluss_test.pk_basic order by id
-- result
1	k1
2	k2-updated
4	k4
-- statement v2_off_2
set enable_file_scanner_v2 = false
-- query v2_off_pk
select id, name from test_fluss_misc.fluss_test.pk_basic order by id
-- result
1	k1
2	k2-updated
4	k4
-- statement v2_on_3
set enable_file_scanner_v2 = true
-- query v2_on_part
select count(*) from test_fluss_misc.fluss_test.log_part
-- result
4
-- statement v2_off_3
set enable_file_scanner_v2 = false
-- query v2_off_part
select count(*) from test_fluss_misc.fluss_test.log_part
-- result
4
-- statement v2_restore
set enable_file_scanner_v2 = true

-- statement drop_db_force
drop database if exists test_fluss_misc_internal force
-- statement switch_internal_end
switch internal
-- statement cleanup
drop catalog if exists test_fluss_misc
-- statement cleanup_required
drop catalog if exists test_fluss_misc_required
