package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/inlet-db/inlet/catalog/fluss"
	cice "github.com/inlet-db/inlet/catalog/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// A Fluss table tiered with datalake.format=iceberg has its lake half in
// an Iceberg table (fluss-lake-iceberg's layout: the Fluss columns, then
// __bucket, __offset, __timestamp; partitioned by the partition keys, then
// by bucket). Its splits are data files with their delete files applied;
// each is bound to its Fluss (partition, bucket) by its partition values,
// and read by the BE's Iceberg reader, LAKE or LAKE_SUPPRESS as for Paimon.

// planIcebergLake plans the Iceberg lake half on the pinned snapshot.
func (p *flussPlan) planIcebergLake(ctx context.Context, lake *fluss.Lake) error {
	t := lake.Iceberg
	fields, err := t.Fields()
	if err != nil {
		return fmt.Errorf("planner: table %s: lake schema: %w", p.name, err)
	}
	pred := lakePredicate(p.req.Predicates, fields)
	split, minN := fileSplitSize(p.req.Vars), minSplits(p.req.Vars)
	plan, err := t.Plan(ctx, iceberg.ScanOptions{SnapshotID: p.snap.SnapshotID, Predicate: pred, FileSplitSize: split, MinSplits: minN})
	if err != nil && pred != nil {
		// Pushing is an optimisation: a predicate iceberg-go refuses is dropped.
		pred = nil
		plan, err = t.Plan(ctx, iceberg.ScanOptions{SnapshotID: p.snap.SnapshotID, FileSplitSize: split, MinSplits: minN})
	}
	if err != nil {
		return fmt.Errorf("planner: table %s: plan lake snapshot %d: %w", p.name, p.snap.SnapshotID, err)
	}
	p.icePlan = plan
	have := map[string]bool{}
	for _, f := range fields {
		have[f.Name] = true
	}
	for _, i := range p.widthColumns() {
		if name := p.st.Columns[i].Name; !have[name] {
			return errLakeColumn(p.name, name)
		}
	}
	p.frag.Lake, err = icebergLakeTable(t, lake.StorageOptions, plan.SnapshotID, pred)
	return err
}

func icebergLakeTable(t *iceberg.Table, storage map[string]string, snapshot int64, pred any) (*inletpb.LakeTable, error) {
	opts := map[string]string{iceberg.FormatOption: iceberg.FormatName}
	if d := t.Dir(); d != "" {
		opts[iceberg.DirOption] = d
	}
	lt := &inletpb.LakeTable{TablePath: t.MetadataLocation(), StorageOptions: maps.Clone(storage), SnapshotId: snapshot, Options: opts}
	if pred != nil {
		b, err := json.Marshal(pred)
		if err != nil {
			return nil, fmt.Errorf("planner: lake predicate: %w", err)
		}
		lt.Predicate = b
	}
	return lt, nil
}

// icebergSplits lists the planned data files with their Fluss place.
func (p *flussPlan) icebergSplits() ([]lakeSplit, error) {
	out := make([]lakeSplit, 0, len(p.icePlan.Splits))
	for i := range p.icePlan.Splits {
		sp := &p.icePlan.Splits[i]
		if !sp.FlussLayoutOK || len(sp.FlussPartition) != len(p.st.PartitionKeys) {
			return nil, errIcebergLayout(p.name, sp.Path, sp.Partition)
		}
		ls := lakeSplit{bucket: sp.FlussBucket, path: sp.Partition, size: sp.FileBytes(), rng: func() (*inletpb.Range, error) {
			b, err := iceberg.EncodeSplit(sp)
			if err != nil {
				return nil, fmt.Errorf("planner: encode lake split %s: %w", sp.Path, err)
			}
			return &inletpb.Range{Type: inletpb.RangeType_LAKE, Bucket: sp.FlussBucket, LakeSplit: b, Native: true, KvSnapshotId: -1}, nil
		}}
		if len(p.st.PartitionKeys) > 0 {
			ls.texts = sp.FlussPartition
			ls.path = sp.Partition + "/"
		}
		out = append(out, ls)
	}
	return out, nil
}

// icebergLine is the EXPLAIN line of an Iceberg lake half.
func (p *flussPlan) icebergLine() string {
	data, pos, eq := p.icePlan.FileCounts()
	return fmt.Sprintf("lakeFormat=iceberg, formatVersion=%d, snapshot=%s, dataFiles=%d, positionDeleteFiles=%d, equalityDeleteFiles=%d",
		p.icePlan.Table.FormatVersion(), strconv.FormatInt(p.icePlan.SnapshotID, 10), data, pos, eq)
}

// planIcebergLakeView plans tbl$lake of a table on an Iceberg lake: the
// Iceberg table at Fluss's readable snapshot (its latest state when Fluss
// has none), or the snapshot a time-travel clause names.
func (p *flussPlan) planIcebergLakeView(ctx context.Context, lake *fluss.Lake, snapID int64) (*Result, error) {
	t := &cice.ScanTarget{Catalog: p.st.Catalog, Database: p.st.Path.Database, Table: p.st.Path.Table + "$lake", Lake: lake.Iceberg,
		StorageOptions: lake.StorageOptions, Columns: p.st.Columns}
	return planIcebergTableAt(ctx, t, p.req, snapID)
}
