# Doris's test_fluss_lake_pk_comma_key, statement for statement
# (test_fluss_lake_pk_comma_key.groovy 61ccbbbc; expected rows from
# test_fluss_lake_pk_comma_key.out). The fixture table follows what the suite
# and its .out show of Doris's init (the init revision that adds it is not
# in the stored copies): key (`region,code`, region, code), two lake rows
# that differ only in `region,code`, a tail that updates key-a.

-- statement drop
drop catalog if exists test_fluss_lake_pk_comma_key
-- statement create
create catalog test_fluss_lake_pk_comma_key properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement switch
switch test_fluss_lake_pk_comma_key
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

-- query plan
select * from lake_pk_comma
-- explain
contains unionRead=yes
suppressedLakeSplits>0
contains pkTailRanges=1

-- query lake_rows
select `region,code`, region, code, name from lake_pk_comma$lake
order by `region,code`
-- result sorted
key-a	same	same	lake-a
key-b	same	same	lake-b

-- query merged_rows
select `region,code`, region, code, name from lake_pk_comma
order by `region,code`
-- result sorted
key-a	same	same	tail-a
key-b	same	same	lake-b

-- statement session_disabled
set fluss_union_read_mode = 'disabled'
-- query fluss_only
select `region,code`, region, code, name from lake_pk_comma
order by `region,code`
-- result sorted
key-a	same	same	tail-a
key-b	same	same	lake-b
-- statement session_unset
set fluss_union_read_mode = ''
