# test_fluss_review_boundaries: a partition column named with a comma; a
# TIMESTAMP_LTZ primary key (key-type: required fails, auto falls back,
# enable.mapping.timestamp_tz lets the merge run).

-- statement tz
SET time_zone = 'America/New_York'

-- query comma_partition
SELECT * FROM fluss_auto.fluss_test.log_comma_part
-- error partition column 'region,code' contains a comma

-- query ltz_required
SELECT * FROM fluss_required.fluss_test.lake_pk_ltz
-- error cannot be read as its lake plus its

-- query ltz_auto
SELECT id, ts, name FROM fluss_auto.fluss_test.lake_pk_ltz ORDER BY id
-- result
1	2025-12-31 19:00:00.000	z1-hot
2	2026-01-01 19:00:00.000	z2
-- explain
unionRead=no
degraded=key-type

-- query ltz_timestamptz_merge
SELECT id, name FROM fluss_tz.fluss_test.lake_pk_ltz ORDER BY id
-- result
1	z1-hot
2	z2
-- explain
unionRead=yes
pkTailRanges=1
mode=required

-- statement tz_reset
SET time_zone = 'UTC'
