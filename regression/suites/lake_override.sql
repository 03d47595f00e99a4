# test_fluss_lake_override: fluss.lake.paimon.* overrides, per key, on
# $lake and union reads; ALTER CATALOG blanking restores the cluster's value.

-- statement create_wrong_warehouse
CREATE CATALOG ovr_wrong PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required', 'fluss.lake.paimon.warehouse' = '/nonexistent/inlet-regression-wh' ${LAKE_PROPS})

-- query wrong_warehouse_lake
SELECT COUNT(*) FROM ovr_wrong.fluss_test.`lake_log$lake`
-- error nothing has been tiered

-- query wrong_warehouse_union
SELECT COUNT(*) FROM ovr_wrong.fluss_test.lake_log
-- error warehouse and the fluss cluster disagree

-- query wrong_warehouse_plain_table_reads
SELECT COUNT(*) FROM ovr_wrong.fluss_test.log_basic
-- result
3

-- statement blank_restores
ALTER CATALOG ovr_wrong SET PROPERTIES ('fluss.lake.paimon.warehouse' = '')

-- query restored_lake
SELECT COUNT(*) FROM ovr_wrong.fluss_test.`lake_log$lake`
-- result
4

-- query restored_union
SELECT COUNT(*), SUM(price) FROM ovr_wrong.fluss_test.lake_log
-- result
6	23.10

-- statement create_metastore_only
CREATE CATALOG ovr_metastore PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required', 'fluss.lake.paimon.metastore' = 'filesystem' ${LAKE_PROPS})

-- query metastore_only_merges_per_key
SELECT * FROM ovr_metastore.fluss_test.lake_pk ORDER BY id
-- result
2	lp2-lake
3	lp3-hot
4	lp4-hot

# A jdbc metastore is accepted at CREATE and refused by name where the lake
# is read (Doris's test_fluss_lake_override).
-- statement jdbc_created
CREATE CATALOG ovr_jdbc PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.lake.paimon.metastore' = 'jdbc' ${LAKE_PROPS})

-- query jdbc_refused
SELECT * FROM ovr_jdbc.fluss_test.lake_log$lake
-- error 'jdbc'

-- statement cleanup_jdbc
DROP CATALOG ovr_jdbc

-- statement cleanup_wrong
DROP CATALOG ovr_wrong

-- statement cleanup_metastore
DROP CATALOG ovr_metastore
