package planner

import (
	"context"
	"fmt"
	"strconv"

	"github.com/inlet-db/inlet/catalog"
	cpaimon "github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/catalog/paimon/systable"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// lakeTarget is a plain Paimon read: a Paimon catalog table or tbl$lake.
type lakeTarget struct {
	table    string // db.table for messages
	display  string // catalog.db.table for EXPLAIN
	lake     *paimon.Table
	path     string
	storage  map[string]string
	columns  []catalog.Column
	partKeys []string
	snapshot int64 // 0: latest
	// travel, when set, replaces snapshot with the one it names.
	travel  *catalog.TimeTravel
	node    string
	connctr string // CONNECTOR: line, "" for none
	// latestSchema reads the snapshot with the lake table's latest schema
	// (a Fluss $lake read: the Fluss table may have added columns since
	// the snapshot was tiered; its files read them as NULL).
	latestSchema bool
	// travelColumns: a time-travel read has the columns of its snapshot's
	// schema (what fluss.Table.SchemaAsOf gave the binder).
	travelColumns bool
}

func planPaimonTable(ctx context.Context, t *cpaimon.ScanTarget, req Request) (*Result, error) {
	if t.Lake == nil {
		return nil, fmt.Errorf("planner: paimon table %s.%s: not opened", t.Database, t.Table)
	}
	return planLakeScan(ctx, lakeTarget{
		table:    t.Database + "." + t.Table,
		display:  t.Catalog + "." + t.Database + "." + t.Table,
		lake:     t.Lake,
		path:     t.TablePath,
		storage:  t.StorageOptions,
		columns:  t.Columns,
		partKeys: t.PartitionKeys,
		node:     "VPAIMON_SCAN_NODE",
		travel:   req.TimeTravel,
		// the binder took the snapshot's columns (cpaimon.Table.SchemaAsOf)
		travelColumns: true,
	}, req)
}

// planLakeScan plans LAKE ranges only. LIMIT may reach the fragment here:
// there is no second half for it to starve.
func planLakeScan(ctx context.Context, lt lakeTarget, req Request) (*Result, error) {
	var err error
	if lt.travel != nil {
		if lt.snapshot, err = resolveTimeTravel(ctx, lt.lake, lt.table, lt.travel); err != nil {
			return nil, err
		}
		if lt.travelColumns {
			snap, err := lt.lake.Snapshot(ctx, lt.snapshot)
			if err != nil {
				return nil, fmt.Errorf("planner: table %s: snapshot %d: %w", lt.table, lt.snapshot, err)
			}
			ls, err := lt.lake.Schema(ctx, snap.SchemaID)
			if err != nil {
				return nil, fmt.Errorf("planner: table %s: snapshot %d: %w", lt.table, lt.snapshot, err)
			}
			lt.columns = systable.SnapshotColumns(lt.columns, ls)
		}
	}
	proj, err := projection(lt.table, lt.columns, req.Columns)
	if err != nil {
		return nil, err
	}
	plan, pred, applied, err := planLakeTable(ctx, lt.lake, lt.snapshot, req.Predicates, lt.latestSchema && lt.travel == nil, fileSplitSize(req.Vars), minSplits(req.Vars))
	if err != nil {
		return nil, fmt.Errorf("planner: table %s: plan lake: %w", lt.table, err)
	}
	// Projection and filters name columns by their position in the lake
	// schema.
	lakeCols := make([]catalog.Column, len(plan.Schema.Fields))
	for i, f := range plan.Schema.Fields {
		lakeCols[i] = catalog.Column{Name: f.Name}
	}
	lakeProj := make([]int32, len(proj))
	for i, c := range proj {
		idx := catalog.Schema{Columns: lakeCols}.Index(lt.columns[c].Name)
		if idx < 0 && lt.travel != nil {
			// A Paimon table's column added (or renamed) after the snapshot.
			return nil, errTravelColumn(lt.table, lt.columns[c].Name, lt.travel, plan)
		}
		if idx < 0 {
			return nil, errLakeColumn(lt.table, lt.columns[c].Name)
		}
		lakeProj[i] = int32(idx)
	}
	schema, err := outputSchema(lt.columns, proj, req.Pruned)
	if err != nil {
		return nil, err
	}
	lakeTbl, err := lakeTable(lt.path, lt.storage, plan, pred)
	if err != nil {
		return nil, err
	}
	opts := scanOptions(req.Vars)
	frag := &inletpb.Fragment{
		QueryId:      req.QueryID,
		ScanId:       req.ScanID,
		Lake:         lakeTbl,
		OutputSchema: schema,
		Projection:   lakeProj,
		Filters:      lakeFiltersFor(req.Predicates, lakeCols, applied),
		Limit:        limitOf(req.Limit),
		Options:      opts,
	}
	width := rowWidth(lt.columns, proj)
	c := Counts{ReadMode: "lake"}
	parts := map[string]bool{}
	var fileSize int64
	for i := range plan.Splits {
		sp := &plan.Splits[i]
		r, err := lakeRangeOf(sp, opts.ForceMergeReader, width)
		if err != nil {
			return nil, err
		}
		r.Id = int64(i)
		r.Affinity = "lake/" + sp.PartitionPath + "b" + strconv.Itoa(int(sp.Bucket))
		frag.Ranges = append(frag.Ranges, r)
		parts[sp.PartitionPath] = true
		fileSize += splitFileSize(sp)
		c.LakeSplits++
		c.TotalSplits++
		if r.Native {
			c.NativeSplits++
		}
	}
	if len(lt.partKeys) == 0 {
		c.SelectedPartitions, c.TotalPartitions = 1, 1
	} else {
		c.SelectedPartitions, c.TotalPartitions = len(parts), len(parts)
		if pred != nil {
			all, err := lt.lake.Plan(ctx, paimon.ScanOptions{SnapshotID: lakeTbl.SnapshotId})
			if err != nil {
				return nil, fmt.Errorf("planner: table %s: plan lake: %w", lt.table, err)
			}
			total := map[string]bool{}
			for i := range all.Splits {
				total[all.Splits[i].PartitionPath] = true
			}
			c.TotalPartitions = len(total)
		}
	}
	res := &Result{Fragment: frag, Node: lt.node, Counts: c}
	res.Rows, res.RowsExact = exactRows(plan.Splits, pred == nil && len(req.Predicates) == 0 && !opts.ForceMergeReader)
	res.Lines = append(res.Lines, "TABLE: "+lt.display)
	if lt.connctr != "" {
		res.Lines = append(res.Lines, "CONNECTOR: "+lt.connctr)
	}
	if lt.travel != nil {
		res.Lines = append(res.Lines, travelLine(lt.travel, lakeTbl.SnapshotId))
	}
	res.Lines = append(res.Lines, commonLines(req.Predicates, frag, fileSize, c)...)
	res.Lines = append(res.Lines, fmt.Sprintf("paimonNativeReadSplits=%d/%d", c.NativeSplits, c.TotalSplits))
	res.Lines = append(res.Lines, prunedLines(lt.columns, proj, req.Pruned)...)
	res.Lines = append(res.Lines, "pushdown agg=NONE")
	res.Verbose = splitStats(plan.Splits, opts.ForceMergeReader)
	return res, nil
}

// exactRows is the splits' row count when the manifests give it exactly
// (see Result.RowsExact); ok is false otherwise or when !eligible.
func exactRows(splits []paimon.Split, eligible bool) (n int64, ok bool) {
	if !eligible {
		return 0, false
	}
	for i := range splits {
		sp := &splits[i]
		if !sp.RawConvertible {
			return 0, false
		}
		for _, f := range sp.Files {
			if f.DV != nil && f.DV.Cardinality == nil {
				return 0, false
			}
		}
		n += sp.RowCount
	}
	return n, true
}

// splitStats are EXPLAIN VERBOSE's per-split lines: the first three and the
// last when there are more than four.
func splitStats(splits []paimon.Split, force bool) []string {
	if len(splits) == 0 {
		return nil
	}
	line := func(sp *paimon.Split) string {
		typ := "JNI"
		if sp.RawConvertible && !force {
			typ = "NATIVE"
		}
		dv := false
		for _, f := range sp.Files {
			dv = dv || f.DV != nil
		}
		return fmt.Sprintf("  SplitStat [type=%s, rowCount=%d, rawFileConvertable=%t, hasDeletionVector=%t]", typ, sp.RowCount, sp.RawConvertible, dv)
	}
	out := []string{"PaimonSplitStats:"}
	for i := range splits {
		if len(splits) > 4 && i == 3 {
			out = append(out, fmt.Sprintf("  ... other %d splits ...", len(splits)-4))
			out = append(out, line(&splits[len(splits)-1]))
			break
		}
		out = append(out, line(&splits[i]))
	}
	return out
}

// splitFileSize is the bytes of the files sp reads, for EXPLAIN's
// totalFileSize: a slice of a file (file_split_size) counts its share, so
// the slices of one file add up to its size once, as Doris sums split
// lengths, rather than once per slice.
func splitFileSize(sp *paimon.Split) int64 {
	var n int64
	for _, f := range sp.Files {
		size := f.Meta.FileSize
		if s := f.Slice; s != nil && s.Count > 1 && s.Index >= 0 && s.Index < s.Count {
			i, c := int64(s.Index), int64(s.Count)
			size = size*(i+1)/c - size*i/c
		}
		n += size
	}
	return n
}
