# Doris's test_fluss_partition_types, statement for statement
# (test_fluss_partition_types.groovy a01cc893; expected rows from
# test_fluss_partition_types.out).
#
# Known difference, deliberate (the spec): Doris's newest .out maps the
# BINARY partition column p_bin to varbinary(2) whatever
# enable.mapping.varbinary says, prints it 0x0102 and names the partition
# p_bin=0x0102. The Doris 5.0 Fluss Catalog page this engine follows maps
# BINARY to string by default and says the partition value is the hex text
# of the bytes: p_bin is text, its value and its partition name are 0102
# (so hex(p_bin) is the hex of that text, 30313032), and under
# enable.mapping.varbinary = true the column is refused as unreadable, as
# the page says. Those blocks carry Inlet's (spec) rows, with Doris's
# quoted beside them.
# Printing: BOOLEAN prints 1/0 where the .out has true/false.

-- statement drop
drop catalog if exists test_fluss_partition_types
-- statement create
create catalog test_fluss_partition_types properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS}
)
-- statement switch
switch test_fluss_partition_types
-- statement use
use fluss_test
-- statement scanner_v2
set enable_file_scanner_v2 = true

# Doris: p_bin varbinary(2) (see above).
-- query desc_part_types
desc part_types
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
p_str	text	Yes	true	\N	
p_char	char(2)	Yes	true	\N	
p_bool	boolean	Yes	true	\N	
p_tiny	tinyint	Yes	true	\N	
p_small	smallint	Yes	true	\N	
p_int	int	Yes	true	\N	
p_big	bigint	Yes	true	\N	
p_date	date	Yes	true	\N	
p_bin	text	Yes	true	\N	

# Doris: ...p_date=2026-01-01/p_bin=0x0102 (see above).
-- query part_names
show partitions from part_types
-- result sorted
p_str=cn/p_char=c1/p_bool=true/p_tiny=1/p_small=10/p_int=100/p_big=1000/p_date=2026-01-01/p_bin=0102
p_str=us/p_char=c2/p_bool=false/p_tiny=2/p_small=20/p_int=200/p_big=2000/p_date=2026-01-02/p_bin=0304

# Doris: 1 pt1 cn c1 true 1 10 100 1000 2026-01-01 0x0102 0102 (see above).
-- query part_rows
select id, name, p_str, p_char, p_bool, p_tiny, p_small, p_int, p_big, p_date,
       p_bin, hex(p_bin) as p_bin_hex
from part_types
-- result sorted
1	pt1	cn	c1	1	1	10	100	1000	2026-01-01	0102	30313032
2	pt2	us	c2	0	2	20	200	2000	2026-01-02	0304	30333034

-- query prunes_p_str
select * from part_types where p_str = 'cn'
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_char
select * from part_types where p_char = 'c1'
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_bool
select * from part_types where p_bool = true
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_tiny
select * from part_types where p_tiny = 1
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_small
select * from part_types where p_small = 10
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_int
select * from part_types where p_int = 100
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_big
select * from part_types where p_big = 1000
-- explain
contains partition=1/2
logRanges>=1
-- query prunes_p_date
select * from part_types where p_date = '2026-01-01'
-- explain
contains partition=1/2
logRanges>=1

-- query pruned_str
select id, name from part_types where p_str = 'cn'
-- result sorted
1	pt1
-- query pruned_int
select id, name from part_types where p_int = 200
-- result sorted
2	pt2
-- query pruned_date
select id, name from part_types where p_date = '2026-01-02'
-- result sorted
2	pt2
-- query pruned_bool
select id, name from part_types where p_bool = false
-- result sorted
2	pt2
-- query pruned_tiny
select id, name from part_types where p_tiny = 2
-- result sorted
2	pt2

-- query pruned_multi
select id, name from part_types where p_str = 'cn' and p_int = 100 and p_bool = true
-- result sorted
1	pt1

-- query empty_plan
select * from part_types where p_str = 'cn' and p_int = 200
-- explain
contains partition=0/2

-- query pruned_impossible
select count(*) from part_types where p_str = 'cn' and p_int = 200
-- result sorted
0

-- query pruned_absent
select count(*) from part_types where p_int = 999
-- result sorted
0

-- query part_ts_refused
select * from part_ts
-- error its partition column 'p_ts' has fluss type TIMESTAMP(3)

-- query part_ts_partitions_refused
show partitions from part_ts
-- error cannot be read back

-- query desc_part_ts
desc part_ts
-- result
id	int	Yes	true	\N	
name	text	Yes	true	\N	
p_ts	datetime(3)	Yes	true	\N	

-- statement drop_vb
drop catalog if exists test_fluss_partition_types_vb
-- statement create_vb
create catalog test_fluss_partition_types_vb properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "enable.mapping.varbinary" = "true"
)
# Doris: 1 0102 / 2 0304 (it ignores the property; see above). The spec
# refuses a BINARY partition column that is to be read as varbinary.
-- query binary_property_ignored
select id, hex(p_bin) from test_fluss_partition_types_vb.fluss_test.part_types order by id
-- error 'p_bin' has fluss type BINARY(2)

-- statement drop_union
drop catalog if exists test_fluss_partition_types_union
-- statement create_union
create catalog test_fluss_partition_types_union properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}" ${LAKE_PROPS},
    "fluss.union_read.mode" = "required"
)
-- statement drop_off
drop catalog if exists test_fluss_partition_types_off
-- statement create_off
create catalog test_fluss_partition_types_off properties (
    "type" = "fluss",
    "fluss.bootstrap.servers" = "${BOOTSTRAP}",
    "fluss.union_read.mode" = "disabled"
)
-- statement switch_union
switch test_fluss_partition_types_union
-- statement use_union
use fluss_test
-- statement scanner_v2_union
set enable_file_scanner_v2 = true

-- query int_part_plan
select * from lake_part_int
-- explain
contains unionRead=yes
lakeSplits>=1
logRanges=1

-- query lake_part_int
select id, name, p_int from lake_part_int
-- result sorted
1	li1a	1
2	li1b	1
3	li2a	2
4	li1c	1

-- query tail_plan
select * from lake_part_int where p_int = 1
-- explain
contains partition=1/2
logRanges=1

-- query lake_part_int_tail
select id, name from lake_part_int where p_int = 1
-- result sorted
1	li1a
2	li1b
4	li1c

-- query tiered_plan
select * from lake_part_int where p_int = 2
-- explain
logRanges=0

-- query lake_part_int_tiered
select id, name from lake_part_int where p_int = 2
-- result sorted
3	li2a

-- catalog test_fluss_partition_types_union
-- query union_int_rows
select id, name, p_int from ${ctl}.fluss_test.lake_part_int order by id
-- result
1	li1a	1
2	li1b	1
3	li2a	2
4	li1c	1
-- same-as test_fluss_partition_types_off

-- query pk_part_int_required
select * from lake_pk_part_int
-- error cannot be read as its lake plus its change log

-- statement switch_auto
switch test_fluss_partition_types
-- statement use_auto
use fluss_test
-- statement scanner_v2_auto
set enable_file_scanner_v2 = true

-- query degraded_plan
select * from lake_pk_part_int
-- explain
contains unionRead=no
contains degraded=partition-type
lakeSplits=0
pkRanges>=1

-- query lake_pk_part_int
select id, name, p_int from lake_pk_part_int
-- result sorted
1	pi1a-hot	1
2	pi1b	1
3	pi2a	2
4	pi2b	2

-- query lake_pk_part_int_pruned
select id, name from lake_pk_part_int where p_int = 1
-- result sorted
1	pi1a-hot
2	pi1b

-- statement switch_internal
switch internal
-- statement cleanup
drop catalog if exists test_fluss_partition_types
-- statement cleanup_vb
drop catalog if exists test_fluss_partition_types_vb
-- statement cleanup_union
drop catalog if exists test_fluss_partition_types_union
-- statement cleanup_off
drop catalog if exists test_fluss_partition_types_off
