# Doris's test_fluss_review_boundaries, statement for statement
# (test_fluss_review_boundaries.groovy 788e815f; expected rows from
# test_fluss_review_boundaries.out).
#
# Known difference of the fixture: Doris's lake_pk_ltz (from an init.sql
# revision not in the stored copies this was written from) holds rows named
# first-instant / second-instant at two UTC instants that print alike in
# America/New_York. The emulator's lake_pk_ltz (regression/testdata/
# extra.scenario) holds z1 (updated to z1-hot by the tail) and z2; the rows
# below are derived from it. The statements and errors are Doris's.

-- statement drop
drop catalog if exists test_fluss_review_boundaries
-- statement create
create catalog test_fluss_review_boundaries properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement drop_tz
drop catalog if exists test_fluss_review_boundaries_tz
-- statement create_tz
create catalog test_fluss_review_boundaries_tz properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "enable.mapping.timestamp_tz" = "true",
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_review_boundaries
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true
-- statement time_zone
set time_zone = 'America/New_York'

-- query comma_partition
select id from log_comma_part
-- error partition column 'region,code' contains a comma

-- statement session_required
set fluss_union_read_mode = 'required'
-- query ltz_required
select name from lake_pk_ltz
-- error DATETIMEV2
-- statement session_unset
set fluss_union_read_mode = ''

# Doris: first-instant, second-instant (see above).
-- query ltz_fluss_fallback
select name from lake_pk_ltz order by name
-- result sorted
z1-hot
z2

# Doris: first-instant, second-instant (see above).
-- query ltz_instant_union
select name from test_fluss_review_boundaries_tz.fluss_test.lake_pk_ltz order by name
-- result sorted
z1-hot
z2

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog if exists test_fluss_review_boundaries
-- statement cleanup_tz
drop catalog if exists test_fluss_review_boundaries_tz
