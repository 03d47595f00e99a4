# The catalogs the suites share, created once per run before the suites
# (anchors §1.10: every Doris suite creates its own; here the common ones are
# made once and each suite picks them by name). ${BOOTSTRAP} is the Fluss
# cluster, ${LAKE_PROPS} the lake credentials when the lake is on S3.

-- statement drop_auto
DROP CATALOG IF EXISTS fluss_auto
-- statement create_auto
CREATE CATALOG fluss_auto PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}' ${LAKE_PROPS})

-- statement drop_required
DROP CATALOG IF EXISTS fluss_required
-- statement create_required
CREATE CATALOG fluss_required PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required' ${LAKE_PROPS})

-- statement drop_disabled
DROP CATALOG IF EXISTS fluss_disabled
-- statement create_disabled
CREATE CATALOG fluss_disabled PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'disabled' ${LAKE_PROPS})

# Tail ceilings of one row: every PK union read with a tail is over them.
-- statement drop_capped
DROP CATALOG IF EXISTS fluss_capped
-- statement create_capped
CREATE CATALOG fluss_capped PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.max_tail_rows' = '1', 'fluss.union_read.max_total_tail_rows' = '1' ${LAKE_PROPS})

-- statement drop_capped_required
DROP CATALOG IF EXISTS fluss_capped_required
-- statement create_capped_required
CREATE CATALOG fluss_capped_required PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required',
  'fluss.union_read.max_tail_rows' = '1', 'fluss.union_read.max_total_tail_rows' = '1' ${LAKE_PROPS})

-- statement drop_varbinary
DROP CATALOG IF EXISTS fluss_varbinary
-- statement create_varbinary
CREATE CATALOG fluss_varbinary PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'enable.mapping.varbinary' = 'true' ${LAKE_PROPS})

-- statement drop_tz
DROP CATALOG IF EXISTS fluss_tz
-- statement create_tz
CREATE CATALOG fluss_tz PROPERTIES ('type' = 'fluss', 'fluss.bootstrap.servers' = '${BOOTSTRAP}',
  'fluss.union_read.mode' = 'required', 'enable.mapping.timestamp_tz' = 'true' ${LAKE_PROPS})

