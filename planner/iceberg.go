package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/inlet-db/inlet/catalog"
	cice "github.com/inlet-db/inlet/catalog/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// planIcebergTable plans LAKE ranges over an Iceberg catalog table: one
// per data file of the selected snapshot, each carrying its delete files.
// The predicate prunes files through the manifests; the fragment's
// filters then apply it to every row.
func planIcebergTable(ctx context.Context, t *cice.ScanTarget, req Request) (*Result, error) {
	return planIcebergTableAt(ctx, t, req, 0)
}

// planIcebergTableAt is planIcebergTable on snapshot snapID (0: the
// current one) unless the request travels in time.
func planIcebergTableAt(ctx context.Context, t *cice.ScanTarget, req Request, snapID int64) (*Result, error) {
	name := t.Database + "." + t.Table
	if t.Lake == nil {
		return nil, fmt.Errorf("planner: iceberg table %s: not opened", name)
	}
	if tt := req.TimeTravel; tt != nil {
		id, err := icebergSnapshot(t.Lake, name, tt)
		if err != nil {
			return nil, err
		}
		snapID = id
	}
	proj, err := projection(name, t.Columns, req.Columns)
	if err != nil {
		return nil, err
	}
	fields, err := t.Lake.Fields()
	if err != nil {
		return nil, fmt.Errorf("planner: table %s: %w", name, err)
	}
	pred := lakePredicate(req.Predicates, fields)
	plan, err := t.Lake.Plan(ctx, iceberg.ScanOptions{SnapshotID: snapID, Predicate: pred, FileSplitSize: fileSplitSize(req.Vars), MinSplits: minSplits(req.Vars)})
	if err != nil {
		return nil, fmt.Errorf("planner: table %s: plan lake: %w", name, err)
	}
	lakeProj := make([]int32, len(proj))
	for i, c := range proj {
		lakeProj[i] = int32(c)
	}
	schema, err := outputSchema(t.Columns, proj, req.Pruned)
	if err != nil {
		return nil, err
	}
	opts := map[string]string{iceberg.FormatOption: iceberg.FormatName}
	if d := t.Lake.Dir(); d != "" {
		opts[iceberg.DirOption] = d
	}
	lt := &inletpb.LakeTable{TablePath: t.Lake.MetadataLocation(), StorageOptions: maps.Clone(t.StorageOptions),
		SnapshotId: plan.SnapshotID, Options: opts}
	if pred != nil {
		// Row-group pruning on the BE; the fragment's filters stay exact.
		b, err := json.Marshal(pred)
		if err != nil {
			return nil, fmt.Errorf("planner: lake predicate: %w", err)
		}
		lt.Predicate = b
	}
	sopts := scanOptions(req.Vars)
	frag := &inletpb.Fragment{
		QueryId:      req.QueryID,
		ScanId:       req.ScanID,
		Lake:         lt,
		OutputSchema: schema,
		Projection:   lakeProj,
		Filters:      filtersFor(req.Predicates, t.Columns),
		Limit:        limitOf(req.Limit),
		Options:      sopts,
	}
	c := Counts{ReadMode: "lake"}
	parts := map[string]bool{}
	var fileSize, rows int64
	for i := range plan.Splits {
		sp := &plan.Splits[i]
		b, err := iceberg.EncodeSplit(sp)
		if err != nil {
			return nil, fmt.Errorf("planner: encode lake split %s: %w", sp.Path, err)
		}
		frag.Ranges = append(frag.Ranges, &inletpb.Range{Type: inletpb.RangeType_LAKE, Id: int64(i), LakeSplit: b, Native: true,
			KvSnapshotId: -1, Affinity: "lake/" + sp.Path})
		parts[sp.Partition] = true
		fileSize += sp.FileBytes()
		rows += sp.Records
		c.LakeSplits++
		c.TotalSplits++
		c.NativeSplits++
	}
	dataFiles, posFiles, eqFiles := plan.FileCounts()
	c.SelectedPartitions, c.TotalPartitions = len(parts), len(parts)
	switch {
	case len(t.Lake.PartitionColumns()) == 0:
		c.SelectedPartitions, c.TotalPartitions = 1, 1
	case plan.Pruned:
		// partition=N/M: M counts the partitions of the unpruned plan.
		all, err := t.Lake.Plan(ctx, iceberg.ScanOptions{SnapshotID: plan.SnapshotID})
		if err != nil {
			return nil, fmt.Errorf("planner: table %s: plan lake: %w", name, err)
		}
		total := map[string]bool{}
		for i := range all.Splits {
			total[all.Splits[i].Partition] = true
		}
		c.TotalPartitions = len(total)
	}
	res := &Result{Fragment: frag, Node: "VICEBERG_SCAN_NODE", Counts: c}
	// A count(*) needs no BE when the manifests' record counts are the
	// answer: no filter, no delete file.
	res.Rows, res.RowsExact = rows, len(req.Predicates) == 0 && posFiles == 0 && eqFiles == 0
	res.Lines = append(res.Lines, "TABLE: "+t.Catalog+"."+name, "CONNECTOR: iceberg")
	if req.TimeTravel != nil {
		res.Lines = append(res.Lines, travelLine(req.TimeTravel, plan.SnapshotID))
	}
	res.Lines = append(res.Lines, commonLines(req.Predicates, frag, fileSize, c)...)
	res.Lines = append(res.Lines, fmt.Sprintf("lakeFormat=iceberg, formatVersion=%d, snapshot=%d, dataFiles=%d, positionDeleteFiles=%d, equalityDeleteFiles=%d",
		t.Lake.FormatVersion(), plan.SnapshotID, dataFiles, posFiles, eqFiles))
	res.Lines = append(res.Lines, prunedLines(t.Columns, proj, req.Pruned)...)
	res.Lines = append(res.Lines, "pushdown agg=NONE")
	return res, nil
}

// icebergSnapshot resolves FOR VERSION AS OF (a snapshot id, or a branch or
// tag name) and FOR TIME AS OF on an Iceberg table.
func icebergSnapshot(t *iceberg.Table, name string, tt *catalog.TimeTravel) (int64, error) {
	var s iceberg.Snapshot
	var err error
	switch {
	case tt.HasTime:
		s, err = t.SnapshotAsOf(tt.TimeMillis)
		if errors.Is(err, iceberg.ErrNotFound) {
			return 0, newErr(fmt.Sprintf("Table %s has no snapshot at or before %s (list them in %s$snapshots)", name,
				time.UnixMilli(tt.TimeMillis).UTC().Format("2006-01-02 15:04:05.000 UTC"), baseName(name)), ErrTimeTravel, catalog.ErrNotFound)
		}
	case tt.Tag != "":
		s, err = t.SnapshotByRef(tt.Tag)
		if errors.Is(err, iceberg.ErrNotFound) {
			return 0, newErr(fmt.Sprintf("Table %s has no branch or tag '%s'", name, tt.Tag), ErrTimeTravel, catalog.ErrNotFound)
		}
	default:
		s, err = t.SnapshotByID(tt.SnapshotID)
		if errors.Is(err, iceberg.ErrNotFound) {
			return 0, newErr(fmt.Sprintf("Table %s has no snapshot %d (list them in %s$snapshots)", name, tt.SnapshotID, baseName(name)), ErrTimeTravel, catalog.ErrNotFound)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("planner: table %s: %s: %w", name, tt, err)
	}
	return s.ID, nil
}
