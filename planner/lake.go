package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// isNothingTiered reports whether opening a lake table failed because the
// table is not there (as opposed to the storage being unreachable).
func isNothingTiered(err error) bool {
	return errors.Is(err, fluss.ErrNothingTiered) || errors.Is(err, paimon.ErrNotFound) || errors.Is(err, iceberg.ErrNotFound) ||
		errors.Is(err, catalog.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}

// planLake opens the lake table and plans it on the pinned snapshot with
// the pushed predicate. Neither LIMIT nor COUNT reaches the lake half.
func (p *flussPlan) planLake(ctx context.Context) error {
	if p.st.OpenLake == nil {
		return fmt.Errorf("planner: table %s: the catalog cannot open its lake table", p.name)
	}
	lake, err := p.st.OpenLake(ctx)
	if err != nil {
		if isNothingTiered(err) {
			return errWarehouseDisagree(p.name, err)
		}
		return fmt.Errorf("planner: table %s: open lake table: %w", p.name, err)
	}
	p.lake = lake
	if lake.Iceberg != nil {
		return p.planIcebergLake(ctx, lake)
	}
	plan, pred, applied, err := planLakeTable(ctx, lake.Table, p.snap.SnapshotID, p.req.Predicates, true, fileSplitSize(p.req.Vars), minSplits(p.req.Vars))
	if err != nil {
		return fmt.Errorf("planner: table %s: plan lake snapshot %d: %w", p.name, p.snap.SnapshotID, err)
	}
	p.lakePlan, p.lakePred = plan, pred
	p.frag.Filters = lakeFiltersFor(p.req.Predicates, p.st.Columns, applied)
	for _, i := range p.widthColumns() {
		name := p.st.Columns[i].Name
		if _, ok := plan.Schema.Field(name); !ok {
			return errLakeColumn(p.name, name)
		}
	}
	p.frag.Lake, err = lakeTable(lake.TablePath, lake.StorageOptions, plan, pred)
	return err
}

// planLakeTable plans a Paimon table at snapshotID (0: latest) with the
// predicates that are safe to push. A predicate Paimon refuses is dropped
// rather than failing the query: pushing it is an optimisation. latest
// reads the snapshot with the table's latest schema (a Fluss table read
// after ALTER TABLE ADD COLUMN: the lake table was evolved at once, but
// the readable snapshot may predate it); files of older schemas map by
// field id and read the added columns as NULL.
//
// applied[i] says preds[i] is a leaf of the predicate returned (nil when
// none is): the lake readers apply it exactly to every row.
func planLakeTable(ctx context.Context, t *paimon.Table, snapshotID int64, preds []catalog.Predicate, latest bool, splitSize int64, minSplits int) (plan *paimon.Plan, pred *paimon.Predicate, applied []bool, err error) {
	var readSchema *int64
	if len(preds) > 0 || latest {
		schema, err := t.LatestSchema(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(preds) > 0 {
			pred, applied = lakePredicateOf(preds, schema.Fields)
		}
		if latest {
			readSchema = &schema.ID
		}
	}
	plan, err = t.Plan(ctx, paimon.ScanOptions{SnapshotID: snapshotID, Predicate: pred, ReadSchemaID: readSchema, FileSplitSize: splitSize, MinSplits: minSplits})
	if err != nil && pred != nil {
		pred, applied = nil, nil
		plan, err = t.Plan(ctx, paimon.ScanOptions{SnapshotID: snapshotID, ReadSchemaID: readSchema, FileSplitSize: splitSize, MinSplits: minSplits})
	}
	return plan, pred, applied, err
}

func lakeTable(path string, storage map[string]string, plan *paimon.Plan, pred *paimon.Predicate) (*inletpb.LakeTable, error) {
	lt := &inletpb.LakeTable{TablePath: path, StorageOptions: maps.Clone(storage)}
	if plan.Snapshot != nil {
		lt.SnapshotId = plan.Snapshot.ID
	}
	if plan.Schema != nil {
		lt.SchemaId = plan.Schema.ID
	}
	if pred != nil {
		b, err := json.Marshal(pred)
		if err != nil {
			return nil, fmt.Errorf("planner: lake predicate: %w", err)
		}
		lt.Predicate = b
	}
	return lt, nil
}

// bindMode says how lake splits of a union relate to the Fluss half.
type bindMode int

const (
	// bindPlain: a log table; every split is read as is.
	bindPlain bindMode = iota
	// bindSuppress: a PK union; splits of live partitions are filtered by
	// their own bucket's tail.
	bindSuppress
	// bindLakeOnly: a PK table read from Fluss; only splits of partitions
	// Fluss no longer has are read from the lake.
	bindLakeOnly
	// bindLakeOnlyTyped: the same for non-STRING partitions (degraded
	// partition-type).
	bindLakeOnlyTyped
)

// lakeSplit is one split of either lake as the binding sees it.
type lakeSplit struct {
	texts  []string // partition values as Fluss names them; nil if unknown
	bucket int32
	path   string // the partition path, for affinity
	size   int64
	rng    func() (*inletpb.Range, error)
}

// lakeSplits lists the splits of the planned lake (Paimon or Iceberg).
func (p *flussPlan) lakeSplits() ([]lakeSplit, error) {
	if p.icePlan != nil {
		return p.icebergSplits()
	}
	partFields := p.lakePlan.Schema.PartitionFields()
	force := p.frag.Options.GetForceMergeReader()
	out := make([]lakeSplit, 0, len(p.lakePlan.Splits))
	for i := range p.lakePlan.Splits {
		sp := &p.lakePlan.Splits[i]
		ls := lakeSplit{bucket: sp.Bucket, path: sp.PartitionPath, size: splitFileSize(sp),
			rng: func() (*inletpb.Range, error) { return p.lakeRange(sp, force) }}
		if len(p.st.PartitionKeys) > 0 {
			if texts, ok := renderPartition(sp.Partition, partFields); ok {
				ls.texts = texts
			}
		}
		out = append(out, ls)
	}
	return out, nil
}

// lakeRanges binds every split of the lake plan to the Fluss state of its
// own (partition, bucket) and emits it.
func (p *flussPlan) lakeRanges(states []*partState, live []*client.PartitionInfo, mode bindMode) error {
	byValues := map[string]*client.PartitionInfo{}
	byID := map[int64]*client.PartitionInfo{}
	for _, pi := range live {
		byValues[strings.Join(specValues(pi), "\x00")] = pi
		byID[pi.ID] = pi
	}
	tiered := p.tieredPartitions()
	selected := map[int64]*partState{}
	for _, s := range states {
		selected[s.id()] = s
	}
	splits, err := p.lakeSplits()
	if err != nil {
		return err
	}
	for i := range splits {
		sp := &splits[i]
		var s *partState // the Fluss state the split belongs to, if read
		liveMatch := false
		texts := sp.texts
		if len(p.st.PartitionKeys) == 0 {
			s = selected[-1]
			liveMatch = true
		} else {
			if texts == nil && mode != bindPlain {
				// Without a sure match the split could be read twice.
				return errUnmatchedPartition(p.name, sp.path)
			}
			if texts != nil {
				if id, named := tiered[strings.Join(texts, "$")]; named {
					// The lake snapshot names the partition these rows
					// were tiered from: live only if Fluss still has that
					// very partition (not one created again under the name).
					if id == ambiguousPartition && mode != bindPlain {
						return errAmbiguousPartition(p.name, sp.path)
					}
					if pi := byID[id]; pi != nil {
						liveMatch = true
						s = selected[pi.ID]
					}
				} else if pi, found := byValues[strings.Join(texts, "\x00")]; found {
					liveMatch = true
					s = selected[pi.ID]
				}
			}
		}
		if liveMatch && s == nil {
			// A live partition pruning dropped: its rows cannot match.
			continue
		}
		if !liveMatch && texts != nil && !partitionMayMatch(p.req.Predicates, p.st.PartitionKeys, p.partKinds, texts) {
			continue
		}
		if liveMatch && (mode == bindLakeOnly || mode == bindLakeOnlyTyped) {
			continue // Fluss reads this partition in full
		}
		r, err := sp.rng()
		if err != nil {
			return err
		}
		p.fileSize += sp.size
		if !liveMatch {
			r.Affinity = "lake/" + sp.path + "b" + strconv.Itoa(int(sp.bucket))
			p.add(r)
			continue
		}
		r.Affinity = affinity(s.id(), sp.bucket)
		if mode == bindSuppress {
			if err := p.bindTail(r, s, sp.bucket); err != nil {
				return err
			}
		}
		p.add(r)
	}
	return nil
}

// ambiguousPartition marks a lake partition name the snapshot records for
// two Fluss partitions (one dropped, one created again under its name):
// the lake's files of that partition mix both.
const ambiguousPartition = -2

// tieredPartitions maps the partition names the lake snapshot records
// (GetLakeSnapshot's partition_name) to the Fluss partition id each was
// tiered from; empty when the server sends no names, and then splits are
// matched to live partitions by their values alone.
func (p *flussPlan) tieredPartitions() map[string]int64 {
	out := map[string]int64{}
	if p.snap == nil {
		return out
	}
	for _, b := range p.snap.Buckets {
		if b.PartitionID == nil || b.PartitionName == "" {
			continue
		}
		if id, seen := out[b.PartitionName]; seen && id != *b.PartitionID {
			out[b.PartitionName] = ambiguousPartition
			continue
		}
		out[b.PartitionName] = *b.PartitionID
	}
	return out
}

// bindTail turns r into LAKE_SUPPRESS when its bucket's log moved past the
// lake; every way the binding could read a row twice is an error.
func (p *flussPlan) bindTail(r *inletpb.Range, s *partState, bucket int32) error {
	if bucket < 0 || bucket >= p.nbkt {
		return errSplitBucketRange(p.name, bucket, p.nbkt)
	}
	end, ok := p.lakeEnd(s, bucket)
	if !ok {
		return errSplitNoOffset(p.name, s.where(bucket))
	}
	stop := s.latest[bucket]
	if end >= stop {
		return nil
	}
	r.Type = inletpb.RangeType_LAKE_SUPPRESS
	r.Tail = &inletpb.Tail{Bucket: bucket, StartOffset: end, StopOffset: stop}
	if s.info != nil {
		r.Tail.HasPartition, r.Tail.PartitionId = true, s.info.ID
	}
	return nil
}

func (p *flussPlan) lakeRange(sp *paimon.Split, force bool) (*inletpb.Range, error) {
	return lakeRangeOf(sp, force, p.width)
}

func lakeRangeOf(sp *paimon.Split, force bool, width int64) (*inletpb.Range, error) {
	b, err := paimon.EncodeSplit(sp)
	if err != nil {
		return nil, fmt.Errorf("planner: encode lake split %s bucket %d: %w", sp.PartitionPath, sp.Bucket, err)
	}
	r := &inletpb.Range{Type: inletpb.RangeType_LAKE, Bucket: sp.Bucket, LakeSplit: b, Native: sp.RawConvertible && !force, KvSnapshotId: -1}
	// A primary-key table's data files are each sorted by key, and a merge
	// emits in key order; several files read one after another are not.
	r.KeyOrdered = len(sp.Files) == 1 || !sp.RawConvertible || force
	if !sp.RawConvertible || force {
		r.DeclaredBytes = sp.RowCount * width
	}
	return r, nil
}

// renderPartition writes lake partition values as Fluss writes partition
// names: strings as they are, integers in decimal, booleans as true/false,
// dates as yyyy-MM-dd; anything else is not renderable.
func renderPartition(vals []any, fields []paimon.DataField) ([]string, bool) {
	if len(vals) != len(fields) {
		return nil, false
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			out[i] = x
			continue
		case nil:
			return nil, false
		}
		switch fields[i].Type.Root {
		case paimon.TinyInt, paimon.SmallInt, paimon.Int, paimon.BigInt:
			n, ok := asInt(v)
			if !ok {
				return nil, false
			}
			out[i] = strconv.FormatInt(n, 10)
		case paimon.Boolean:
			b, ok := v.(bool)
			if !ok {
				return nil, false
			}
			out[i] = strconv.FormatBool(b)
		case paimon.Date:
			n, ok := asInt(v)
			if !ok {
				return nil, false
			}
			out[i] = time.Unix(n*86400, 0).UTC().Format("2006-01-02")
		default:
			return nil, false
		}
	}
	return out, true
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// ---- tbl$lake ------------------------------------------------------------------

// planLakeView plans tbl$lake: the Paimon table at the readable snapshot,
// or at its latest state when Fluss has none (empty before the first
// commit).
func (p *flussPlan) planLakeView(ctx context.Context) (*Result, error) {
	if !p.st.Info.Descriptor.DatalakeEnabled() {
		return nil, errLakeNotLake(p.name, p.st.Path.Table)
	}
	if err := p.checkLakeFormat(); err != nil {
		return nil, err
	}
	var snapID int64
	if p.req.TimeTravel == nil {
		// A time-travel read names its own snapshot in the lake; Fluss's
		// readable snapshot only bounds the current read.
		snap, err := p.meta.ReadableLakeSnapshot(ctx, p.st.Path)
		switch {
		case errors.Is(err, client.ErrLakeSnapshotNotExist):
		case err != nil:
			return nil, fmt.Errorf("planner: table %s: %w", p.name, err)
		default:
			snapID = snap.SnapshotID
		}
	}
	if p.st.OpenLake == nil {
		return nil, fmt.Errorf("planner: table %s: the catalog cannot open its lake table", p.name)
	}
	lake, err := p.st.OpenLake(ctx)
	if err != nil {
		if isNothingTiered(err) {
			return nil, errNothingTiered(p.name, err)
		}
		return nil, fmt.Errorf("planner: table %s: open lake table: %w", p.name, err)
	}
	if lake.Iceberg != nil {
		return p.planIcebergLakeView(ctx, lake, snapID)
	}
	lt := lakeTarget{
		table:    p.name + "$lake",
		display:  p.st.Catalog + "." + p.name + "$lake",
		lake:     lake.Table,
		path:     lake.TablePath,
		storage:  lake.StorageOptions,
		columns:  p.st.Columns,
		partKeys: p.st.PartitionKeys,
		snapshot: snapID,
		travel:   p.req.TimeTravel,
		node:     "VPluginDrivenScanNode",
		connctr:  "paimon",

		latestSchema:  true,
		travelColumns: true,
	}
	return planLakeScan(ctx, lt, p.req)
}
