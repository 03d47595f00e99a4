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
INSERT INTO fluss_test.lake_log VALUES (5, 'hot5', 5.50), (6, 'hot6', 6.60);
INSERT INTO fluss_test.lake_types VALUES
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO fluss_test.lake_part VALUES (4, 'lp1c', '20260101');
INSERT INTO fluss_test.lake_pk VALUES (3, 'lp3-hot'), (4, 'lp4-hot');
INSERT INTO fluss_test.lake_pk_multi VALUES (2, 'm2-hot'), (10, 'm10-hot');
INSERT INTO fluss_test.lake_pk_part VALUES (1, 'pp1a-hot', '20260101');
INSERT INTO fluss_test.lake_pk_part VALUES (5, 'pp3a', '20260103');
INSERT INTO fluss_test.lake_nested VALUES (2, NULL, NULL, NULL, NULL, NULL);
INSERT INTO fluss_test.lake_part_int VALUES (4, 'li1c', 1);
INSERT INTO fluss_test.lake_pk_part_int VALUES (1, 'pi1a-hot', 1);
CREATE TEMPORARY TABLE gen_big_log_100001 (id INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '100001', 'fields.id.end' = '101000');
INSERT INTO fluss_test.big_log SELECT id, CONCAT('hot', CAST(id AS STRING)), CAST(id AS DECIMAL(10, 2)), MOD(id, 7) FROM gen_big_log_100001;
CREATE TEMPORARY TABLE gen_big_pk_1 (id INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '500');
INSERT INTO fluss_test.big_pk SELECT id, CONCAT('hot', CAST(id AS STRING)), MOD(id, 7) FROM gen_big_pk_1;
INSERT INTO fluss_test.big_pk SELECT 100000 + id, CONCAT('new', CAST(id AS STRING)), MOD(100000 + id, 7) FROM gen_big_pk_1;
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.lake_pk WHERE id = 1;
SET 'execution.runtime-mode' = 'streaming';
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.lake_pk_multi WHERE id = 7;
SET 'execution.runtime-mode' = 'streaming';
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.lake_pk_part WHERE id = 2 AND dt = '20260101';
SET 'execution.runtime-mode' = 'streaming';
SET 'execution.runtime-mode' = 'batch';
DELETE FROM fluss_test.big_pk WHERE id = 7 OR id = 19999 OR id = 50000 OR id = 77777 OR id = 99999;
SET 'execution.runtime-mode' = 'streaming';

ALTER TABLE fluss_test.lake_part DROP PARTITION (dt = '20260102');
ALTER TABLE fluss_test.lake_pk_part DROP PARTITION (dt = '20260102');
INSERT INTO fluss_test.lake_pk_comma VALUES ('key-a', 'same', 'same', 'tail-a');
INSERT INTO fluss_test.lake_pk_ltz VALUES (1, TIMESTAMP '2026-01-01 00:00:00.000', 'z1-hot');
CREATE TABLE fluss_test.lake_untiered (id INT, name STRING)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO fluss_test.lake_untiered VALUES (1, 'u1'), (2, 'u2');
