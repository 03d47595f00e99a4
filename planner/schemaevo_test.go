package planner_test

import (
	"context"
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	cpaimon "github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/planner"
)

// TestPlanAfterAddColumn: after ALTER TABLE ADD COLUMN the readable lake
// snapshot predates the column. A union read plans it with the lake's
// latest schema (files map by field id, the column reads NULL); a time
// travel to it has that snapshot's columns only.
func TestPlanAfterAddColumn(t *testing.T) {
	e := testEnv(t)
	ctx := context.Background()
	sc, err := minifluss.ParseScenario(`CREATE DATABASE pevo;
CREATE TABLE pevo.t (id INT, s STRING) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO pevo.t VALUES (1, 'a');
UNFREEZE TIERING;
TIER pevo.t;
FREEZE TIERING;
ALTER TABLE pevo.t ADD COLUMN n BIGINT;
INSERT INTO pevo.t VALUES (2, 'b', 20);`)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(ctx, e.cluster); err != nil {
		t.Fatal(err)
	}
	st := e.targetIn(t, "pevo", "t", fluss.ReadDefault, fluss.Options{UnionMode: fluss.ModeRequired}, "")
	if len(st.Columns) != 3 {
		t.Fatalf("columns %v", st.Columns)
	}
	res, _, err := planner.Plan(ctx, &testTable{st: st}, planner.Request{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	checkFragment(t, res)
	lt := res.Fragment.Lake
	if lt == nil || lt.SchemaId != 1 || lt.SnapshotId != 1 {
		t.Fatalf("lake table %+v, want snapshot 1 read with schema-1", lt)
	}
	// $lake FOR VERSION AS OF 1: the columns of schema-0.
	lk := e.targetIn(t, "pevo", "t", fluss.ReadLake, fluss.Options{}, "")
	res, _, err = planner.Plan(ctx, &testTable{st: lk}, planner.Request{Limit: -1, Columns: []int{1, 0},
		TimeTravel: &catalog.TimeTravel{SnapshotID: 1, Text: "FOR VERSION AS OF 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if lt := res.Fragment.Lake; lt.SchemaId != 0 || len(res.Fragment.Projection) != 2 || res.Fragment.Projection[0] != 1 {
		t.Fatalf("time travel: lake %+v projection %v", lt, res.Fragment.Projection)
	}
	// Column 2 (n) does not exist at snapshot 1.
	if _, _, err := planner.Plan(ctx, &testTable{st: lk}, planner.Request{Limit: -1, Columns: []int{2},
		TimeTravel: &catalog.TimeTravel{SnapshotID: 1, Text: "FOR VERSION AS OF 1"}}); err == nil {
		t.Fatal("column n planned at a snapshot before it existed")
	}
	// The same lake table read as a Paimon catalog table: a time travel
	// has the columns of its snapshot's schema (what SchemaAsOf gave the
	// binder), and the column added later is not one of them.
	lake, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, e.warehouse, "pevo", "t")
	if err != nil {
		t.Fatal(err)
	}
	pt := &paimonTable{&cpaimon.ScanTarget{Catalog: "p", Database: "pevo", Table: "t", Lake: lake, FS: fileio.Local{}, TablePath: lake.Path(), Columns: st.Columns}}
	v1 := &catalog.TimeTravel{SnapshotID: 1, Text: "FOR VERSION AS OF 1"}
	res, _, err = planner.Plan(ctx, pt, planner.Request{Limit: -1, Columns: []int{1, 0}, TimeTravel: v1})
	if err != nil {
		t.Fatal(err)
	}
	if lt := res.Fragment.Lake; lt.SchemaId != 0 || len(res.Fragment.Projection) != 2 || res.Fragment.Projection[0] != 1 {
		t.Fatalf("paimon time travel: lake %+v projection %v", lt, res.Fragment.Projection)
	}
	if _, _, err = planner.Plan(ctx, pt, planner.Request{Limit: -1, Columns: []int{0, 2}, TimeTravel: v1}); err == nil {
		t.Error("paimon table time travel planned column n at a snapshot before it existed")
	}
	// Without time travel $lake reads the latest schema.
	res, _, err = planner.Plan(ctx, &testTable{st: lk}, planner.Request{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if lt := res.Fragment.Lake; lt.SchemaId != 1 || len(res.Fragment.Projection) != 3 {
		t.Fatalf("$lake: lake %+v projection %v", lt, res.Fragment.Projection)
	}
}
