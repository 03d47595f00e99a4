-- Lake row counts of the fixture tables, read by Flink from the Paimon
-- warehouse (PK tables merged), one LAKEROWS:<table>=<n> marker per table.
SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE CATALOG paimon_wh WITH ('type' = 'paimon', 'warehouse' = '@WAREHOUSE@', 's3.endpoint' = '@S3_ENDPOINT@',
  's3.access-key' = '@S3_ACCESS_KEY@', 's3.secret-key' = '@S3_SECRET_KEY@', 's3.path.style.access' = 'true');
SELECT CONCAT('LAKEROWS:lake_log=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_log
UNION ALL
SELECT CONCAT('LAKEROWS:lake_cold=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_cold
UNION ALL
SELECT CONCAT('LAKEROWS:lake_types=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_types
UNION ALL
SELECT CONCAT('LAKEROWS:lake_part=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_part
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_multi=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_multi
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_part=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_part
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_cold=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_cold
UNION ALL
SELECT CONCAT('LAKEROWS:lake_nested=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_nested
UNION ALL
SELECT CONCAT('LAKEROWS:lake_part_int=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_part_int
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_part_int=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_part_int
UNION ALL
SELECT CONCAT('LAKEROWS:big_log=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.big_log
UNION ALL
SELECT CONCAT('LAKEROWS:big_pk=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.big_pk
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_comma=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_comma
UNION ALL
SELECT CONCAT('LAKEROWS:lake_pk_ltz=', CAST(COUNT(*) AS STRING)) FROM paimon_wh.fluss_test.lake_pk_ltz;
