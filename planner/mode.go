package planner

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// Session variables the planner reads (lower-case, as Request.Vars holds
// them).
const (
	varUnionMode     = "fluss_union_read_mode"
	varHeapAdmission = "enable_jni_heap_admission"
	varConcurrency   = "max_file_scanners_concurrency"
	varForceJNI      = "force_jni_scanner"
	varBatchSize     = "batch_size"
	varTimeZone      = "time_zone"
	varFileSplitSize = "file_split_size"
	varParallelTasks = "parallel_pipeline_task_num"
	// varLogFilter (default on) sends the pushable filter conjuncts of LOG
	// and PK_TAIL reads to the tablet servers (FetchLog filter_predicate).
	varLogFilter = "fluss_log_filter_pushdown"
	// varLimitPush (default on) lets the BEs apply a LIMIT after the pushed
	// filters and a per-range Top-N (capped).
	varLimitPush = "fluss_limit_pushdown"
	// varTailPieces caps the LOG ranges one bucket's log tail is cut
	// into (tailPieces); unset, maxTailPieces.
	varTailPieces = "fluss_log_tail_pieces"
)

// defaultFileSplitSize cuts lake files when file_split_size is 0 (auto).
const defaultFileSplitSize = 64 << 20

// unionMode is the union-read mode in force and where it came from.
type unionMode struct {
	mode    string // fluss.ModeAuto, ModeRequired, ModeDisabled
	session bool   // from fluss_union_read_mode (SET or SET_VAR)
}

func (m unionMode) String() string {
	if m.session {
		return m.mode + "(session)"
	}
	return m.mode
}

func (m unionMode) required() bool { return m.mode == fluss.ModeRequired }

// resolveMode applies the session variable over the catalog property; a
// blank session value hands the choice back to the catalog.
func resolveMode(catalogMode string, vars map[string]string) (unionMode, error) {
	if v, ok := vars[varUnionMode]; ok && strings.TrimSpace(v) != "" {
		m, ok := parseMode(v)
		if !ok {
			return unionMode{}, errBadSessionMode(v)
		}
		return unionMode{mode: m, session: true}, nil
	}
	if strings.TrimSpace(catalogMode) == "" {
		return unionMode{mode: fluss.ModeAuto}, nil
	}
	m, ok := parseMode(catalogMode)
	if !ok {
		return unionMode{}, errBadCatalogMode(catalogMode)
	}
	return unionMode{mode: m}, nil
}

func parseMode(v string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case fluss.ModeAuto:
		return fluss.ModeAuto, true
	case fluss.ModeRequired:
		return fluss.ModeRequired, true
	case fluss.ModeDisabled:
		return fluss.ModeDisabled, true
	}
	return "", false
}

// scanOptions reads the execution knobs from the session variables; values
// that do not parse leave the BE's defaults (the FE validated them when
// they were set).
func scanOptions(vars map[string]string) *inletpb.ScanOptions {
	o := &inletpb.ScanOptions{
		HeapAdmission:    boolVar(vars[varHeapAdmission]),
		ForceMergeReader: boolVar(vars[varForceJNI]),
		TimeZone:         vars[varTimeZone],
		// Off only when set to false: an unset variable keeps the default.
		LogFilterPushdownOff: strings.TrimSpace(vars[varLogFilter]) != "" && !boolVar(vars[varLogFilter]),
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(vars[varConcurrency]), 10, 32); err == nil && n > 0 {
		o.MaxConcurrency = int32(n)
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(vars[varBatchSize]), 10, 32); err == nil && n > 0 {
		o.BatchSize = int32(n)
	}
	return o
}

func boolVar(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// minSplits is paimon.ScanOptions.MinSplits for the session when
// file_split_size is auto: twice the scanners a BE runs
// (parallel_pipeline_task_num, 0 = this process's cores, as a BE beside
// the FE has), so that a table of one or two large files is shared by
// every scanner: the tiered orders of TPC-H SF 1 (one 44 MB file) was one
// slice read by one scanner while the other idled (Q12 through Fluss
// 174 -> 166 ms, Q4 135 -> 118, Q21 486 -> 450; cutting into 16 instead
// cost 4-8 % more CPU for no wall time). None when file_split_size is set
// or files are not cut.
func minSplits(vars map[string]string) int {
	if boolVar(vars[varForceJNI]) {
		return 0
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(vars[varFileSplitSize]), 10, 64); err == nil && n > 0 {
		return 0
	}
	n := runtime.GOMAXPROCS(0)
	if v, err := strconv.Atoi(strings.TrimSpace(vars[varParallelTasks])); err == nil && v > 0 {
		n = v
	}
	return 2 * n
}

// fileSplitSize is the byte size lake Parquet/ORC files of raw splits are
// cut into so that several scanners share a large file (file_split_size; 0
// or unset means 64 MB). force_jni_scanner reads every split through the
// merge reader, which needs whole files: no cutting then.
func fileSplitSize(vars map[string]string) int64 {
	if boolVar(vars[varForceJNI]) {
		return 0
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(vars[varFileSplitSize]), 10, 64); err == nil && n > 0 {
		return n
	}
	return defaultFileSplitSize
}
