# The S3 half of test_fluss_lake_override: only where the lake is on an
# object store (docker-compose with MinIO). Without credentials the lake
# cannot be read, while plain Fluss tables still can.
-- requires s3

-- statement create_no_creds
CREATE CATALOG ovr_nocreds PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required')

-- query no_creds_lake_fails
SELECT COUNT(*) FROM ovr_nocreds.fluss_test.`lake_log$lake`
-- error s3

-- query no_creds_plain_reads
SELECT COUNT(*) FROM ovr_nocreds.fluss_test.log_basic
-- result
3

-- query with_creds_union
SELECT COUNT(*) FROM fluss_required.fluss_test.lake_log
-- result
6

-- statement cleanup
DROP CATALOG ovr_nocreds
