-- GENERATED from minifluss/testdata/doris_regression.scenario and
-- regression/testdata/extra.scenario (Flink SQL spelling; docker/README.md
-- says how); docker/compose_test.go checks the table lists agree.
-- Placeholders @BOOTSTRAP@ @WAREHOUSE@ @S3_ENDPOINT@ @S3_ACCESS_KEY@ @S3_SECRET_KEY@
-- are substituted by scripts/init.sh (the Flink SQL client expands no env vars).
SET 'table.dml-sync' = 'true';
SET 'table.local-time-zone' = 'UTC';
CREATE CATALOG fluss_catalog WITH ('type' = 'fluss', 'bootstrap.servers' = '@BOOTSTRAP@',
  'paimon.s3.access-key' = '@S3_ACCESS_KEY@', 'paimon.s3.secret-key' = '@S3_SECRET_KEY@');
USE CATALOG fluss_catalog;
DROP DATABASE IF EXISTS fluss_test CASCADE;
CREATE DATABASE fluss_test;

CREATE TABLE fluss_test.log_basic (
  id INT COMMENT 'row id',
  name STRING COMMENT 'row name',
  price DECIMAL(10, 2)
) COMMENT 'fluss log table for regression' WITH ('bucket.num' = '3');
INSERT INTO fluss_test.log_basic VALUES (1, 'alice', 10.10), (2, 'bob', 20.20), (3, 'carol', 30.30);

CREATE TABLE fluss_test.log_types (
  id INT, f_boolean BOOLEAN, f_tinyint TINYINT, f_smallint SMALLINT, f_int INT, f_bigint BIGINT,
  f_float FLOAT, f_double DOUBLE, f_decimal DECIMAL(20, 4), f_char CHAR(5), f_string STRING,
  f_binary BINARY(3), f_bytes BYTES, f_date DATE, f_timestamp TIMESTAMP(6), f_timestamp_ltz TIMESTAMP_LTZ(3),
  f_array ARRAY<INT>, f_map MAP<STRING, INT>, f_row ROW<r_int INT, r_string STRING>
) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.log_types VALUES
  (1, TRUE, 1, 2, 3, 4, 1.5, 2.5, 123.4567, 'char1', 'string1', X'010203', X'0a0b', DATE '2026-01-01',
   TIMESTAMP '2026-01-01 01:02:03.456789', TIMESTAMP '2026-01-01 01:02:03.456', ARRAY[1, 2, 3], MAP['k1', 1, 'k2', 2], ROW(1, 'nested1')),
  (2, FALSE, -1, -2, -3, -4, -1.5, -2.5, -123.4567, 'char2', 'string2', X'040506', X'0c0d', DATE '2026-01-02',
   TIMESTAMP '2026-01-02 01:02:03.456789', TIMESTAMP '2026-01-02 01:02:03.456', ARRAY[4, 5], MAP['k3', 3], ROW(2, 'nested2')),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TABLE fluss_test.log_part (id INT, name STRING, dt STRING) PARTITIONED BY (dt) WITH ('bucket.num' = '2');
INSERT INTO fluss_test.log_part VALUES (1, 'p1a', '20260101'), (2, 'p1b', '20260101'), (3, 'p2a', '20260102'), (4, 'p3a', '20260103');

CREATE TABLE fluss_test.log_empty (id INT, name STRING) WITH ('bucket.num' = '2');

CREATE TABLE fluss_test.log_nested (
  id INT,
  f_arr_arr ARRAY<ARRAY<INT>>,
  f_arr_map ARRAY<MAP<STRING, INT>>,
  f_arr_row ARRAY<ROW<a INT, b STRING>>,
  f_map_arr MAP<STRING, ARRAY<INT>>,
  f_map_row MAP<STRING, ROW<a INT, b STRING>>,
  f_row_deep ROW<r_int INT, r_arr ARRAY<INT>, r_map MAP<STRING, INT>, r_row ROW<x INT, y STRING>>,
  f_arr_arr_arr ARRAY<ARRAY<ARRAY<INT>>>
) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.log_nested VALUES
  (1, ARRAY[ARRAY[1, 2], ARRAY[3]], ARRAY[MAP['a', 1], MAP['b', 2]], ARRAY[ROW(1, 'x'), ROW(2, 'y')],
   MAP['k1', ARRAY[1, 2], 'k2', ARRAY[3]], MAP['k1', ROW(9, 'z')], ROW(1, ARRAY[7, 8], MAP['m', 3], ROW(5, 'deep')),
   ARRAY[ARRAY[ARRAY[1], ARRAY[2, 3]], ARRAY[ARRAY[4]]]),
  (2, ARRAY[NULL], ARRAY[NULL], ARRAY[NULL], MAP['k1', NULL], MAP['k1', NULL], ROW(NULL, NULL, NULL, NULL), ARRAY[NULL]),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TABLE fluss_test.pk_nested (
  id INT NOT NULL,
  f_arr_arr ARRAY<ARRAY<INT>>,
  f_arr_row ARRAY<ROW<a INT, b STRING>>,
  f_map_arr MAP<STRING, ARRAY<INT>>,
  f_map_row MAP<STRING, ROW<a INT, b STRING>>,
  f_row_deep ROW<r_int INT, r_arr ARRAY<INT>, r_map MAP<STRING, INT>, r_row ROW<x INT, y STRING>>,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.pk_nested VALUES
  (1, ARRAY[ARRAY[1, 2], ARRAY[3]], ARRAY[ROW(1, 'x')], MAP['k1', ARRAY[1, 2]], MAP['k1', ROW(9, 'z')],
   ROW(1, ARRAY[7, 8], MAP['m', 3], ROW(5, 'deep'))),
  (2, NULL, NULL, NULL, NULL, NULL);
INSERT INTO fluss_test.pk_nested VALUES
  (1, ARRAY[ARRAY[10, 20]], ARRAY[ROW(11, 'xx')], MAP['k9', ARRAY[10]], MAP['k9', ROW(99, 'zz')],
   ROW(2, ARRAY[70], MAP['mm', 30], ROW(50, 'deeper')));

CREATE TABLE fluss_test.part_types (
  id INT, name STRING, p_str STRING, p_char CHAR(2), p_bool BOOLEAN, p_tiny TINYINT, p_small SMALLINT,
  p_int INT, p_big BIGINT, p_date DATE, p_bin BINARY(2)
) PARTITIONED BY (p_str, p_char, p_bool, p_tiny, p_small, p_int, p_big, p_date, p_bin) WITH ('bucket.num' = '2');
INSERT INTO fluss_test.part_types VALUES
  (1, 'pt1', 'cn', 'c1', TRUE, 1, 10, 100, 1000, DATE '2026-01-01', X'0102'),
  (2, 'pt2', 'us', 'c2', FALSE, 2, 20, 200, 2000, DATE '2026-01-02', X'0304');

CREATE TABLE fluss_test.log_time (id INT, name STRING, f_time TIME(0)) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.log_time VALUES (1, 'time1', TIME '01:02:03'), (2, 'time2', TIME '04:05:06');

CREATE TABLE fluss_test.pk_basic (id INT NOT NULL, name STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '3');
INSERT INTO fluss_test.pk_basic VALUES (1, 'k1', 1.5), (2, 'k2', 2.5), (3, 'k3', 3.5), (4, 'k4', 4.5);
INSERT INTO fluss_test.pk_basic VALUES (2, 'k2-updated', 22.5);
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.pk_basic WHERE id = 3;
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE fluss_test.pk_types (
  id INT NOT NULL, f_boolean BOOLEAN, f_tinyint TINYINT, f_smallint SMALLINT, f_int INT, f_bigint BIGINT,
  f_float FLOAT, f_double DOUBLE, f_decimal DECIMAL(20, 4), f_char CHAR(5), f_string STRING,
  f_binary BINARY(3), f_bytes BYTES, f_date DATE, f_timestamp TIMESTAMP(6), f_timestamp_ltz TIMESTAMP_LTZ(3),
  f_array ARRAY<INT>, f_map MAP<STRING, INT>, f_row ROW<r_int INT, r_string STRING>,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.pk_types VALUES
  (1, TRUE, 1, 2, 3, 4, 1.5, 2.5, 123.4567, 'char1', 'string1', X'010203', X'0a0b', DATE '2026-01-01',
   TIMESTAMP '2026-01-01 01:02:03.456789', TIMESTAMP '2026-01-01 01:02:03.456', ARRAY[1, 2, 3], MAP['k1', 1, 'k2', 2], ROW(1, 'nested1')),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TABLE fluss_test.pk_part (id INT NOT NULL, name STRING, dt STRING NOT NULL, PRIMARY KEY (id, dt) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('bucket.num' = '2');
INSERT INTO fluss_test.pk_part VALUES (1, 'q1a', '20260101'), (2, 'q1b', '20260101'), (3, 'q2a', '20260102'), (4, 'q2b', '20260102');
INSERT INTO fluss_test.pk_part VALUES (2, 'q1b-updated', '20260101');
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.pk_part WHERE id = 4 AND dt = '20260102';
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE fluss_test.pk_empty (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '2');

CREATE TABLE fluss_test.lake_log (id INT, name STRING, price DECIMAL(10, 2)) COMMENT 'fluss log table tiered into paimon'
  WITH ('bucket.num' = '3', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_log VALUES (1, 'lake1', 1.10), (2, 'lake2', 2.20), (3, 'lake3', 3.30), (4, 'lake4', 4.40);

CREATE TABLE fluss_test.lake_cold (id INT, name STRING)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_cold VALUES (1, 'cold1'), (2, 'cold2'), (3, 'cold3');

CREATE TABLE fluss_test.lake_types (
  id INT, f_boolean BOOLEAN, f_tinyint TINYINT, f_smallint SMALLINT, f_int INT, f_bigint BIGINT,
  f_float FLOAT, f_double DOUBLE, f_decimal DECIMAL(20, 4), f_char CHAR(5), f_string STRING,
  f_binary BINARY(3), f_bytes BYTES, f_date DATE, f_timestamp TIMESTAMP(6), f_timestamp_ltz TIMESTAMP_LTZ(3),
  f_array ARRAY<INT>, f_map MAP<STRING, INT>, f_row ROW<r_int INT, r_string STRING>
) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_types VALUES
  (1, TRUE, 1, 2, 3, 4, 1.5, 2.5, 123.4567, 'char1', 'string1', X'010203', X'0a0b', DATE '2026-01-01',
   TIMESTAMP '2026-01-01 01:02:03.456789', TIMESTAMP '2026-01-01 01:02:03.456', ARRAY[1, 2, 3], MAP['k1', 1, 'k2', 2], ROW(1, 'nested1'));

CREATE TABLE fluss_test.lake_part (id INT, name STRING, dt STRING) PARTITIONED BY (dt)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_part VALUES (1, 'lp1a', '20260101'), (2, 'lp1b', '20260101'), (3, 'lp2a', '20260102');

CREATE TABLE fluss_test.lake_pk (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk VALUES (1, 'lp1'), (2, 'lp2'), (3, 'lp3');
INSERT INTO fluss_test.lake_pk VALUES (2, 'lp2-lake');

CREATE TABLE fluss_test.lake_pk_multi (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '3', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_multi VALUES (1, 'm1'), (2, 'm2'), (3, 'm3'), (4, 'm4'), (5, 'm5'), (6, 'm6'), (7, 'm7'), (8, 'm8'), (9, 'm9');
INSERT INTO fluss_test.lake_pk_multi VALUES (5, 'm5-lake');

CREATE TABLE fluss_test.lake_pk_part (id INT NOT NULL, name STRING, dt STRING NOT NULL, PRIMARY KEY (id, dt) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_part VALUES (1, 'pp1a', '20260101'), (2, 'pp1b', '20260101'), (3, 'pp2a', '20260102'), (4, 'pp2b', '20260102');

CREATE TABLE fluss_test.lake_pk_cold (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_cold VALUES (1, 'c1'), (2, 'c2'), (3, 'c3');

CREATE TABLE fluss_test.lake_nested (
  id INT,
  f_arr_arr ARRAY<ARRAY<INT>>,
  f_arr_row ARRAY<ROW<a INT, b STRING>>,
  f_map_arr MAP<STRING, ARRAY<INT>>,
  f_map_row MAP<STRING, ROW<a INT, b STRING>>,
  f_row_deep ROW<r_int INT, r_arr ARRAY<INT>, r_map MAP<STRING, INT>, r_row ROW<x INT, y STRING>>
) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_nested VALUES
  (1, ARRAY[ARRAY[1, 2], ARRAY[3]], ARRAY[ROW(1, 'x')], MAP['k1', ARRAY[1, 2]], MAP['k1', ROW(9, 'z')],
   ROW(1, ARRAY[7, 8], MAP['m', 3], ROW(5, 'deep')));

CREATE TABLE fluss_test.lake_empty (id INT, name STRING)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');

CREATE TABLE fluss_test.lake_part_int (id INT, name STRING, p_int INT) PARTITIONED BY (p_int)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_part_int VALUES (1, 'li1a', 1), (2, 'li1b', 1), (3, 'li2a', 2);

CREATE TABLE fluss_test.lake_pk_part_int (id INT NOT NULL, name STRING, p_int INT NOT NULL, PRIMARY KEY (id, p_int) NOT ENFORCED)
  PARTITIONED BY (p_int) WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_part_int VALUES (1, 'pi1a', 1), (2, 'pi1b', 1), (3, 'pi2a', 2), (4, 'pi2b', 2);

CREATE TABLE fluss_test.big_log (id INT, name STRING, price DECIMAL(10, 2), grp INT)
  WITH ('bucket.num' = '3', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
CREATE TEMPORARY TABLE gen_big_log_1 (id INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000');
INSERT INTO fluss_test.big_log SELECT id, CONCAT('n', CAST(id AS STRING)), CAST(id AS DECIMAL(10, 2)), MOD(id, 7) FROM gen_big_log_1;

CREATE TABLE fluss_test.big_pk (id INT NOT NULL, name STRING, grp INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '3', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
CREATE TEMPORARY TABLE gen_big_pk_1 (id INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000');
INSERT INTO fluss_test.big_pk SELECT id, CONCAT('p', CAST(id AS STRING)), MOD(id, 7) FROM gen_big_pk_1;
CREATE TABLE fluss_test.log_comma_part (id INT, name STRING, `region,code` STRING)
  PARTITIONED BY (`region,code`) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.log_comma_part VALUES (1, 'c1', 'r1');

CREATE TABLE fluss_test.part_ts (id INT, name STRING, p_ts TIMESTAMP(3))
  PARTITIONED BY (p_ts) WITH ('bucket.num' = '1');
INSERT INTO fluss_test.part_ts VALUES (1, 'ts1', TIMESTAMP '2026-01-01 00:00:00.000');

CREATE TABLE fluss_test.lake_pk_comma (`region,code` STRING NOT NULL, region STRING NOT NULL, code STRING NOT NULL,
  name STRING, PRIMARY KEY (`region,code`, region, code) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_comma VALUES ('key-a', 'same', 'same', 'lake-a'), ('key-b', 'same', 'same', 'lake-b');

CREATE TABLE fluss_test.lake_pk_ltz (id INT NOT NULL, ts TIMESTAMP_LTZ(3) NOT NULL, name STRING,
  PRIMARY KEY (id, ts) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_pk_ltz VALUES (1, TIMESTAMP '2026-01-01 00:00:00.000', 'z1'), (2, TIMESTAMP '2026-01-02 00:00:00.000', 'z2');
