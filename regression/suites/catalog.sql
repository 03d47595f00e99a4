# test_fluss_catalog (anchors §1.10): databases, tables, DESC, SHOW CREATE
# TABLE, REFRESH, DROP and the CREATE CATALOG errors (spec §Configuring
# Catalog, anchors §1.2). Expected rows come from the fixture scenario.

# The emulator's fixture has the default `fluss` database a Fluss
# coordinator creates; every catalog lists information_schema and mysql.
-- query show_databases
SHOW DATABASES FROM fluss_auto
-- result sorted
fluss
fluss_test
information_schema
mysql

-- statement switch
SWITCH fluss_auto

-- statement use
USE fluss_test

-- query show_tables
SHOW TABLES
-- result sorted
big_log
big_pk
lake_cold
lake_empty
lake_log
lake_nested
lake_part
lake_part_int
lake_pk
lake_pk_comma
lake_pk_cold
lake_pk_ltz
lake_pk_multi
lake_pk_part
lake_pk_part_int
lake_types
lake_untiered
log_basic
log_comma_part
log_empty
log_nested
log_part
log_time
log_types
part_ts
part_types
pk_basic
pk_empty
pk_nested
pk_part
pk_types

-- query desc_log_basic
DESC log_basic
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
price	decimal(10,2)	Yes	true	\N	

-- query desc_log_types
DESC log_types
-- result
id	int	Yes	true	\N	
f_boolean	boolean	Yes	true	\N	
f_tinyint	tinyint	Yes	true	\N	
f_smallint	smallint	Yes	true	\N	
f_int	int	Yes	true	\N	
f_bigint	bigint	Yes	true	\N	
f_float	float	Yes	true	\N	
f_double	double	Yes	true	\N	
f_decimal	decimal(20,4)	Yes	true	\N	
f_char	char(5)	Yes	true	\N	
f_string	text	Yes	true	\N	
f_binary	text	Yes	true	\N	
f_bytes	text	Yes	true	\N	
f_date	date	Yes	true	\N	
f_timestamp	datetime(6)	Yes	true	\N	
f_timestamp_ltz	datetime(3)	Yes	true	\N	WITH_TIMEZONE
f_array	array<int>	Yes	true	\N	
f_map	map<text,int>	Yes	true	\N	
f_row	struct<r_int:int,r_string:text>	Yes	true	\N	

-- query desc_log_part
DESC log_part
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
dt	text	Yes	true	\N	

-- query desc_pk_basic
DESC pk_basic
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
score	double	Yes	true	\N	

-- query show_create_table_comments
SHOW CREATE TABLE log_basic
-- contains `id` int
-- contains COMMENT "row id"
-- contains COMMENT "row name"
-- contains COMMENT "fluss log table for regression"
-- contains `price` decimal(10,2)

-- query refresh_keeps_tables
SELECT COUNT(*) FROM information_schema.tables WHERE TABLE_SCHEMA = 'fluss_test'
-- result
31

-- statement refresh
REFRESH CATALOG fluss_auto

-- query tables_after_refresh
SELECT COUNT(*) FROM information_schema.tables WHERE TABLE_SCHEMA = 'fluss_test'
-- result
31

-- statement create_throwaway
CREATE CATALOG fluss_throwaway PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}' ${LAKE_PROPS})

-- query throwaway_reads
SELECT COUNT(*) FROM fluss_throwaway.fluss_test.log_basic
-- result
3

-- statement drop_throwaway
DROP CATALOG fluss_throwaway

-- query dropped_is_gone
SELECT COUNT(*) FROM fluss_throwaway.fluss_test.log_basic
-- error fluss_throwaway

-- statement missing_bootstrap
CREATE CATALOG fluss_bad1 PROPERTIES ('type' = 'fluss')
-- error Required property 'fluss.bootstrap.servers' is missing

-- statement blank_bootstrap
CREATE CATALOG fluss_bad2 PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '  ')
-- error Required property 'fluss.bootstrap.servers' is missing

-- statement bad_port
CREATE CATALOG fluss_bad3 PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '127.0.0.1:99999')
-- error expected a number between 1 and 65535

-- statement bad_mode
CREATE CATALOG fluss_bad4 PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}', 'fluss.union_read.mode' = 'sometimes')
-- error expected one of auto, required, disabled

-- statement bad_total_ceiling
CREATE CATALOG fluss_bad5 PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.max_tail_rows' = '10', 'fluss.union_read.max_total_tail_rows' = '5')
-- error fluss.union_read.max_total_tail_rows
