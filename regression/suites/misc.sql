# test_fluss_misc: empty tables, TIME columns, missing objects, joins
# (Fluss with Fluss, internal with Fluss), subqueries, CTE, set operations,
# windows, LIMIT/OFFSET, INSERT INTO internal SELECT FROM fluss, CTAS.

-- catalog fluss_required

-- query empty_pk_aggregate
SELECT COUNT(*), SUM(id), MAX(name) FROM ${ctl}.fluss_test.pk_empty
-- result
0	\N	\N
-- explain
pkRanges=0
logRanges=0

-- query empty_log_aggregate
SELECT COUNT(*), MIN(id) FROM ${ctl}.fluss_test.log_empty
-- result
0	\N

# lake_empty was never written to, so tiering committed nothing: no
# readable lake snapshot, which required refuses (Doris's test_fluss_misc).
-- query lake_empty_union
SELECT COUNT(*) FROM ${ctl}.fluss_test.lake_empty
-- error has no readable lake snapshot yet

-- query time_column_other_columns
SELECT id, name FROM ${ctl}.fluss_test.log_time ORDER BY id
-- result
1	time1
2	time2

-- query time_column_selected
SELECT f_time FROM ${ctl}.fluss_test.log_time
-- error UNSUPPORTED

-- query time_column_star
SELECT * FROM ${ctl}.fluss_test.log_time
-- error UNSUPPORTED

-- query missing_table
SELECT * FROM ${ctl}.fluss_test.no_such_table
-- error no_such_table

-- query missing_database
SELECT * FROM ${ctl}.no_such_db.log_basic
-- error no_such_db

-- query join_fluss_fluss
SELECT b.id, b.name, k.name FROM ${ctl}.fluss_test.log_basic b JOIN ${ctl}.fluss_test.pk_basic k ON b.id = k.id ORDER BY b.id
-- result
1	alice	k1
2	bob	k2-updated
-- same-as fluss_disabled

-- query left_join_union_tables
SELECT l.id, p.name FROM ${ctl}.fluss_test.lake_log l LEFT JOIN ${ctl}.fluss_test.lake_pk p ON l.id = p.id ORDER BY l.id
-- result
1	\N
2	lp2-lake
3	lp3-hot
4	lp4-hot
5	\N
6	\N
-- same-as fluss_disabled

-- statement internal_db
CREATE DATABASE IF NOT EXISTS internal.regress_misc

-- statement internal_drop
DROP TABLE IF EXISTS internal.regress_misc.people

-- statement internal_table
CREATE TABLE internal.regress_misc.people (id INT, city VARCHAR(16))

-- statement internal_rows
INSERT INTO internal.regress_misc.people VALUES (1, 'paris'), (4, 'oslo'), (9, 'rome')

-- query join_internal_fluss
SELECT p.city, k.name FROM internal.regress_misc.people p JOIN ${ctl}.fluss_test.pk_basic k ON p.id = k.id ORDER BY p.city
-- result
oslo	k4
paris	k1
-- same-as fluss_disabled

-- query subquery_in
SELECT id FROM ${ctl}.fluss_test.lake_pk_multi WHERE id IN (SELECT id FROM ${ctl}.fluss_test.log_basic) ORDER BY id
-- result
1
2
3

-- query cte
WITH hot AS (SELECT id, name FROM ${ctl}.fluss_test.lake_pk_multi WHERE name LIKE '%hot')
SELECT COUNT(*), SUM(id) FROM hot
-- result
2	12
-- same-as fluss_disabled

-- query union_distinct
SELECT id FROM ${ctl}.fluss_test.log_basic UNION SELECT id FROM ${ctl}.fluss_test.pk_basic ORDER BY id
-- result
1
2
3
4

-- query intersect
SELECT id FROM ${ctl}.fluss_test.log_basic INTERSECT SELECT id FROM ${ctl}.fluss_test.pk_basic ORDER BY id
-- result
1
2

-- query except
SELECT id FROM ${ctl}.fluss_test.lake_log EXCEPT SELECT id FROM ${ctl}.fluss_test.lake_pk ORDER BY id
-- result
1
5
6

-- query window
SELECT id, SUM(price) OVER (ORDER BY id) FROM ${ctl}.fluss_test.lake_log ORDER BY id
-- result
1	1.10
2	3.30
3	6.60
4	11.00
5	16.50
6	23.10
-- same-as fluss_disabled

-- query window_partitioned
SELECT dt, id, ROW_NUMBER() OVER (PARTITION BY dt ORDER BY id DESC) FROM ${ctl}.fluss_test.log_part ORDER BY dt, id
-- result
20260101	1	2
20260101	2	1
20260102	3	1
20260103	4	1

# LIMIT is not pushed into one half of a union (apache/fluss#3433).
-- query limit_offset
SELECT id FROM ${ctl}.fluss_test.lake_log ORDER BY id LIMIT 2 OFFSET 3
-- result
4
5
-- same-as fluss_disabled

-- query limit_without_order_counts
SELECT COUNT(*) FROM (SELECT id FROM ${ctl}.fluss_test.lake_pk_multi LIMIT 9) t
-- result
9

-- statement insert_target
CREATE TABLE internal.regress_misc.copied (id INT, name VARCHAR(32))

-- statement insert_select
INSERT INTO internal.regress_misc.copied SELECT id, name FROM ${ctl}.fluss_test.lake_pk

-- query insert_select_rows
SELECT * FROM internal.regress_misc.copied ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot

-- statement ctas
CREATE TABLE internal.regress_misc.ctas_log AS SELECT * FROM ${ctl}.fluss_test.lake_log

-- query ctas_rows
SELECT COUNT(*), SUM(price) FROM internal.regress_misc.ctas_log
-- result
6	23.10

-- statement ctas_nested
CREATE TABLE internal.regress_misc.ctas_nested AS SELECT id, f_array, f_map, f_row FROM ${ctl}.fluss_test.log_types

-- query ctas_nested_rows
SELECT * FROM internal.regress_misc.ctas_nested ORDER BY id
-- result
1	[1, 2, 3]	{"k1":1, "k2":2}	{"r_int":1, "r_string":"nested1"}
2	[4, 5]	{"k3":3}	{"r_int":2, "r_string":"nested2"}
3	\N	\N	\N

-- statement cleanup
DROP DATABASE internal.regress_misc FORCE
