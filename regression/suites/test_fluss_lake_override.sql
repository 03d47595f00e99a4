# Doris's test_fluss_lake_override, statement for statement
# (test_fluss_lake_override.groovy 1f90c1be; expected rows from
# test_fluss_lake_override.out). Doris's assertEquals(rowsOf(a), rowsOf(b))
# are two blocks with the same hand-derived rows.
#
# Environment differences: Doris's lake is MinIO at s3://fluss-lake/wh. The
# statements that name that warehouse or need credentials run where the lake
# is on S3 (requires=s3); on the emulator (a local warehouse) the wrong
# warehouse is a local path nothing was tiered to, and the path-style and
# no-credentials cases do not apply. Doris's no-credentials catalog names
# its MinIO endpoint; the one here names an endpoint by a fixed address, as
# the suite cannot learn the environment's (LAKE_PROPS carries it with the
# keys): either way the read must fail naming s3.

-- statement drop_control
drop catalog if exists test_fluss_lake_override
-- statement drop_same
drop catalog if exists test_fluss_lake_override_same
-- statement drop_flavor
drop catalog if exists test_fluss_lake_override_flavor
-- statement drop_wrong
drop catalog if exists test_fluss_lake_override_wrong
-- statement drop_nocred
drop catalog if exists test_fluss_lake_override_nocred

-- statement create_control
create catalog test_fluss_lake_override properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement switch
switch test_fluss_lake_override
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query control_lake
select id, name, price from lake_log$lake
-- result sorted
1	lake1	1.10
2	lake2	2.20
3	lake3	3.30
4	lake4	4.40

-- statement create_same requires=s3
create catalog test_fluss_lake_override_same properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.warehouse" = "s3://fluss-lake/wh"
)
# On the emulator: the same catalog without the warehouse line (its path is
# the runner's temporary directory), so the non-lake read below has a catalog.
-- statement create_same_emulator requires=emulator
create catalog test_fluss_lake_override_same properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- query control_rows
select id, name from lake_log$lake order by id
-- result
1	lake1
2	lake2
3	lake3
4	lake4
-- query same_rows
select id, name from test_fluss_lake_override_same.fluss_test.lake_log$lake order by id
-- result
1	lake1
2	lake2
3	lake3
4	lake4

-- statement create_flavor
create catalog test_fluss_lake_override_flavor properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.metastore" = "filesystem"
)
-- query flavor_only_lake
select count(*) from test_fluss_lake_override_flavor.fluss_test.lake_log$lake
-- result sorted
4

-- statement create_wrong requires=s3
create catalog test_fluss_lake_override_wrong properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.warehouse" = "s3://fluss-lake/no-such-warehouse"
)
-- statement create_wrong_emulator requires=emulator
create catalog test_fluss_lake_override_wrong properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.warehouse" = "/nonexistent/no-such-warehouse"
)
-- query wrong_lake
select * from test_fluss_lake_override_wrong.fluss_test.lake_log$lake
-- error nothing has been tiered
-- statement wrong_required
set fluss_union_read_mode = 'required'
-- query wrong_union
select * from test_fluss_lake_override_wrong.fluss_test.lake_log
-- error warehouse and the fluss cluster disagree
-- statement wrong_unset
set fluss_union_read_mode = ''

-- statement blank_override
alter catalog test_fluss_lake_override_wrong set properties ("fluss.lake.paimon.warehouse" = "")
-- query blank_control_rows
select id, name from lake_log$lake order by id
-- result
1	lake1
2	lake2
3	lake3
4	lake4
-- query blank_restored_rows
select id, name from test_fluss_lake_override_wrong.fluss_test.lake_log$lake order by id
-- result
1	lake1
2	lake2
3	lake3
4	lake4

-- statement create_jdbc
create catalog test_fluss_lake_override_flavor_jdbc properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.metastore" = "jdbc"
)
-- query jdbc_refused
select * from test_fluss_lake_override_flavor_jdbc.fluss_test.lake_log$lake
-- error 'jdbc'
-- statement drop_jdbc
drop catalog if exists test_fluss_lake_override_flavor_jdbc

-- query non_lake_table_reads
select count(*) from test_fluss_lake_override_same.fluss_test.log_basic
-- result sorted
3

-- statement create_nocred requires=s3
create catalog test_fluss_lake_override_nocred properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.lake.paimon.s3.endpoint" = "http://127.0.0.1:19000"
)
-- query nocred_lake requires=s3
select * from test_fluss_lake_override_nocred.fluss_test.lake_log$lake
-- error s3
-- query no_cred_reads_fluss requires=s3
select count(*) from test_fluss_lake_override_nocred.fluss_test.log_basic
-- result sorted
3

-- statement create_path_style requires=s3
create catalog test_fluss_lake_override_ps properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.lake.paimon.s3.path.style.access" = "true"
)
-- query path_style_rows requires=s3
select id, name from test_fluss_lake_override_ps.fluss_test.lake_log$lake order by id
-- result
1	lake1
2	lake2
3	lake3
4	lake4
-- statement drop_path_style requires=s3
drop catalog if exists test_fluss_lake_override_ps

-- statement switch_internal
switch internal
-- statement cleanup_control
drop catalog if exists test_fluss_lake_override
-- statement cleanup_same
drop catalog if exists test_fluss_lake_override_same
-- statement cleanup_flavor
drop catalog if exists test_fluss_lake_override_flavor
-- statement cleanup_wrong
drop catalog if exists test_fluss_lake_override_wrong
-- statement cleanup_nocred
drop catalog if exists test_fluss_lake_override_nocred
