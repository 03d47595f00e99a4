# Doris's test_fluss_predicate_pushdown (regression-test/suites/external_table_p0/fluss/
# test_fluss_predicate_pushdown.groovy, ca324b7e), from the superseded first Fluss PR (#59432).
# It has no .out (it only logs what it reads) and it reads a test_db
# database (all_types, partitioned_table, log_table) that no Doris Fluss
# init creates; its catalog names the cluster with 'bootstrap.servers',
# which the current connector (and the spec) no longer accept: the property
# is 'fluss.bootstrap.servers'. So the one statement that can be checked
# against the current spec is the CREATE CATALOG, refused as the current
# connector refuses it; the rest are kept below as comments, unrun.

-- statement drop
DROP CATALOG IF EXISTS fluss_pushdown_catalog

-- statement create
CREATE CATALOG fluss_pushdown_catalog PROPERTIES (
    "type" = "fluss",
    "bootstrap.servers" = "${BOOTSTRAP}"
)
-- error Required property 'fluss.bootstrap.servers' is missing

-- statement use
USE fluss_pushdown_catalog.test_db
-- error fluss_pushdown_catalog

# Unrun (the test_db fixture does not exist):
# Each EXPLAIN expects the old node name FLUSS_SCAN_NODE; the spec's (and
# this engine's) Fluss scan node is VPluginDrivenScanNode with a flussScan line.
# EXPLAIN SELECT * FROM all_types WHERE id = 1
# EXPLAIN SELECT * FROM all_types WHERE id > 10 AND id < 100
# EXPLAIN SELECT * FROM all_types WHERE string_col = 'test'
# EXPLAIN SELECT * FROM all_types WHERE id IN (1, 2, 3, 4, 5)
# EXPLAIN SELECT * FROM all_types WHERE string_col IS NULL
# EXPLAIN SELECT * FROM all_types WHERE string_col IS NOT NULL
# EXPLAIN SELECT * FROM all_types WHERE id > 0 AND string_col IS NOT NULL
# EXPLAIN SELECT * FROM all_types WHERE id = 1 OR id = 2
# EXPLAIN SELECT * FROM all_types WHERE date_col > '2024-01-01'
# EXPLAIN SELECT * FROM partitioned_table WHERE dt = '2024-01-01'
# EXPLAIN SELECT id, string_col FROM all_types

-- statement cleanup
DROP CATALOG IF EXISTS fluss_pushdown_catalog
