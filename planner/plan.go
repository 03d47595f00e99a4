package planner

import (
	"context"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	cice "github.com/inlet-db/inlet/catalog/iceberg"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Request is one scan of one table, as the FE bound it.
type Request struct {
	QueryID string
	ScanID  int32
	// Columns is the projection: indexes into the target's Columns, in
	// output order; nil means all columns.
	Columns []int
	// Predicates are WHERE conjuncts on this table. They are hints: the
	// planner prunes partitions and lake files with them and ships them to
	// the BE as filters, but never drops a row that could match.
	Predicates []catalog.Predicate
	// OrPredicates are WHERE conjuncts that are disjunctions across
	// columns; they reach only the Fluss log fetches (log_filter_or).
	OrPredicates [][]catalog.Predicate
	// Vars are the session variables in force (lower-case names, SET_VAR
	// applied): fluss_union_read_mode, enable_jni_heap_admission,
	// max_file_scanners_concurrency, force_jni_scanner, batch_size,
	// time_zone, file_split_size.
	Vars map[string]string
	// Limit is >= 0 only when the FE decided a row cap on the whole scan is
	// safe; -1 means none.
	Limit int64
	// TopN, when set, is ORDER BY … LIMIT over the scan that every range
	// may apply to its own rows (the FE still sorts the union); like
	// Limit it is set only when the predicates are the whole WHERE.
	TopN *inletpb.RangeTopN
	// Pruned narrows struct columns by output position (nested column
	// pruning): the BE returns only those fields, and EXPLAIN shows the
	// pruned type.
	Pruned map[int]arrow.DataType
	// TimeTravel pins the lake snapshot (FOR VERSION/TIME AS OF) of a
	// Paimon catalog table or tbl$lake; nil reads the current state. Any
	// other read refuses it.
	TimeTravel *catalog.TimeTravel
}

// Result is a planned scan.
type Result struct {
	// Fragment holds every range of the scan; the dispatcher splits it by
	// Range.affinity.
	Fragment *inletpb.Fragment
	// Node is the EXPLAIN node name ("VPluginDrivenScanNode",
	// "VPAIMON_SCAN_NODE").
	Node string
	// Lines are the EXPLAIN lines under the node header; Verbose the extra
	// lines of EXPLAIN VERBOSE. Neither ever holds a secret.
	Lines   []string
	Verbose []string
	// Counts are the numbers behind the flussScan / paimonNativeReadSplits
	// lines.
	Counts Counts
	// RowsExact says Rows is the scan's exact row count, known from the
	// manifests without reading a file: a lake scan with no predicate whose
	// splits all read raw (no merge by key) and whose deletion vectors all
	// carry their cardinality, as Paimon's mergedRowCountAvailable asks.
	// A count(*) over such a scan needs no BE (Doris's count pushdown).
	RowsExact bool
	Rows      int64
}

// Counts are the plan's counters, as EXPLAIN prints them.
type Counts struct {
	// ReadMode is "default" or "log" (tbl$log); "lake" for tbl$lake and
	// Paimon catalog tables, which print no flussScan line.
	ReadMode string
	// UnionRead is true when the plan reads the lake half or starts from
	// the lake boundary ($log).
	UnionRead            bool
	LakeSplits           int
	SuppressedLakeSplits int
	LogRanges            int
	PKRanges             int
	PKTailRanges         int
	// Mode is the union-read mode in effect, with "(session)" when it came
	// from the session variable or SET_VAR.
	Mode string
	// Degraded is the auto fallback's reason (key-type, partition-type,
	// tail-truncated, tail-too-large), or "".
	Degraded string
	// NativeSplits of TotalSplits lake splits read without a merge
	// (paimonNativeReadSplits=N/M).
	NativeSplits, TotalSplits int
	// SelectedPartitions of TotalPartitions survive partition pruning
	// (partition=N/M).
	SelectedPartitions, TotalPartitions int
}

// Plan plans a read of t; ok is false when t is not a Fluss or Paimon
// catalog table. Planning reads metadata only (offsets, snapshot ids,
// manifests), so EXPLAIN may call it.
func Plan(ctx context.Context, t catalog.Table, req Request) (res *Result, ok bool, err error) {
	switch tt := t.(type) {
	case fluss.Targeted:
		st := tt.ScanTarget()
		if st == nil {
			return nil, false, nil
		}
		res, err := planFluss(ctx, st, req)
		return capped(res, req), true, err
	case cice.Targeted:
		it := tt.IcebergTarget()
		if it == nil {
			return nil, false, nil
		}
		res, err := planIcebergTable(ctx, it, req)
		return capped(res, req), true, err
	case paimon.Targeted:
		pt := tt.PaimonTarget()
		if pt == nil {
			return nil, false, nil
		}
		res, err := planPaimonTable(ctx, pt, req)
		return capped(res, req), true, err
	}
	return nil, false, nil
}

// Plannable reports whether Plan reads t: a Fluss or Paimon catalog table
// (or view of one), whose scans run as fragments on the BEs.
func Plannable(t catalog.Table) bool {
	switch t.(type) {
	case fluss.Targeted, paimon.Targeted, cice.Targeted:
		return true
	}
	return false
}
