package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/minifluss"
)

// lakeNamesScenario: two primary-key tables partitioned by an INT column
// (so a union read falls back to partition-type: Fluss's live partitions
// from Fluss, lake-only ones from the lake). In pn.t partition 2 is
// dropped after tiering (lake-only), and partition 3 is dropped and
// created again with a new row that was never tiered; in pn.t2 the new
// partition 3 is tiered too, so the lake's partition 3 holds rows of two
// Fluss partitions of one name.
const lakeNamesScenario = `CREATE DATABASE pn;
CREATE TABLE pn.t (id INT NOT NULL, v STRING, p INT NOT NULL, PRIMARY KEY (id, p) NOT ENFORCED)
  PARTITIONED BY (p) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
CREATE TABLE pn.t2 (id INT NOT NULL, v STRING, p INT NOT NULL, PRIMARY KEY (id, p) NOT ENFORCED)
  PARTITIONED BY (p) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO pn.t VALUES (1, 'a1', 1), (2, 'b2', 2), (3, 'c3', 3);
INSERT INTO pn.t2 VALUES (1, 'a1', 1), (3, 'c3', 3);
TIER;
ALTER TABLE pn.t DROP PARTITION (p = '2');
ALTER TABLE pn.t DROP PARTITION (p = '3');
ALTER TABLE pn.t2 DROP PARTITION (p = '3');
INSERT INTO pn.t VALUES (4, 'c4-new', 3);
INSERT INTO pn.t2 VALUES (4, 'c4-new', 3);
TIER pn.t2;
FREEZE TIERING;
INSERT INTO pn.t VALUES (1, 'a1-hot', 1)`

// TestFlussLakeSnapshotPartitionNames: lake splits are matched to Fluss
// partitions through the partition names the lake snapshot records
// (GetLakeSnapshot's partition_name, carried by the client), by partition
// id: the lake's rows of a dropped partition 3 stay visible beside the new
// partition 3 of the same name, and a lake partition tiered from two
// partitions of one name is refused rather than guessed. The expected rows
// follow from the scenario by hand.
func TestFlussLakeSnapshotPartitionNames(t *testing.T) {
	sc, err := minifluss.ParseScenario(lakeNamesScenario)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFE(t, sc)
	db := f.db("")
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG pn PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, f.cluster.BootstrapAddr()))
	wantRows(t, db, "SELECT * FROM pn.pn.t ORDER BY id", "1|a1-hot|1", "2|b2|2", "3|c3|3", "4|c4-new|3")
	if e := explainFlussScan(t, db, "SELECT * FROM pn.pn.t"); !strings.Contains(e, "degraded=partition-type") || !strings.Contains(e, "lakeSplits=2") {
		t.Errorf("EXPLAIN: %s; want the partition-type fallback reading two lake-only splits (partitions 2 and the old 3)", e)
	}
	// Partition 3 of the lake mixes the old and the new partition 3.
	wantErr(t, db, "SELECT * FROM pn.pn.t2", 1235, "tiered from two fluss partitions")
	wantRows(t, db, "SELECT /*+ SET_VAR(fluss_union_read_mode='disabled') */ * FROM pn.pn.t2 ORDER BY id", "1|a1|1", "4|c4-new|3")
	// Fluss alone: the live partitions only.
	wantRows(t, db, "SELECT /*+ SET_VAR(fluss_union_read_mode='disabled') */ * FROM pn.pn.t ORDER BY id", "1|a1-hot|1", "4|c4-new|3")
}
