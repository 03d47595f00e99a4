package server

import "testing"

// TestFlussLakePartitions: SHOW PARTITIONS FROM tbl$lake lists what the
// lake holds, lake-only partitions included, while the table itself lists
// Fluss's. From the scenario file by hand: lake_pk_part was tiered with
// 20260101 and 20260102, then got 20260103 in Fluss only and lost 20260102
// in Fluss; lake_part_int was tiered with p_int 1 and 2.
func TestFlussLakePartitions(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	wantRows(t, db, "SHOW PARTITIONS FROM fl_auto.fluss_test.lake_pk_part", "dt=20260101", "dt=20260103")
	wantRows(t, db, "SHOW PARTITIONS FROM fl_auto.fluss_test.`lake_pk_part$lake`", "dt=20260101", "dt=20260102")
	wantRows(t, db, "SHOW PARTITIONS FROM fl_auto.fluss_test.`lake_part$lake`", "dt=20260101", "dt=20260102")
	wantRows(t, db, "SHOW PARTITIONS FROM fl_auto.fluss_test.`lake_part_int$lake`", "p_int=1", "p_int=2")
	if _, err := tryRows(db, "SHOW PARTITIONS FROM fl_auto.fluss_test.`lake_pk$lake`"); err == nil {
		t.Error("SHOW PARTITIONS of an unpartitioned $lake table succeeded")
	}
}
