package catalog

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RowCounter is a Table that knows its row count from table-level statistics
// without scanning (Fluss reports row counts per bucket, nothing per column).
// RowCount returns -1 when the count is unknown; statistics are best effort,
// so an implementation reports unknown rather than failing when its source
// cannot answer. The count is a hint for planning and SHOW output, never a
// query result.
type RowCounter interface {
	RowCount(ctx context.Context) (int64, error)
}

// ColumnStats are one column's statistics as ANALYZE TABLE computed them.
// NDV is an estimate (a sketch, not an exact count). Min and Max are the
// values as text for SHOW COLUMN STATS; Lo and Hi are the same bounds on a
// number line the optimizer can interpolate on (days for dates,
// microseconds for timestamps, the value for numbers and decimals), valid
// only when Numeric is set.
type ColumnStats struct {
	Count    int64   `json:"count"`
	NDV      int64   `json:"ndv"`
	Nulls    int64   `json:"nulls"`
	DataSize int64   `json:"data_size"`
	Min      string  `json:"min,omitempty"`
	Max      string  `json:"max,omitempty"`
	Numeric  bool    `json:"numeric,omitempty"`
	Lo       float64 `json:"lo,omitempty"`
	Hi       float64 `json:"hi,omitempty"`
}

// TableStats are a table's statistics from its last ANALYZE: the row count
// then, when it ran (Unix milliseconds), and its columns by name.
type TableStats struct {
	Rows      int64                  `json:"rows"`
	UpdatedMS int64                  `json:"updated_ms"`
	Columns   map[string]ColumnStats `json:"columns,omitempty"`
}

// ColumnStatser is a Table with per-column statistics. ColumnStats returns
// nil when none were collected yet (no ANALYZE); like row counts they are
// hints for planning, possibly stale, never a query result.
type ColumnStatser interface {
	ColumnStats(ctx context.Context) (*TableStats, error)
}

// Analyzer is a Table whose statistics ANALYZE TABLE can compute and keep
// (with its metadata, so they survive a restart).
type Analyzer interface {
	Analyze(ctx context.Context, mem memory.Allocator) (*TableStats, error)
}

// StatsKeeper is a Table that ANALYZE TABLE analyses by reading it as a
// query does (a lake table read by BEs, a Fluss table's union read): the FE
// scans the columns, computes their statistics and hands them to
// KeepStats, which keeps them (surviving a restart) for ColumnStats to
// merge with what the table reports otherwise. Columns ts does not name
// keep their earlier statistics. AnalyzeColumns are the columns a full
// ANALYZE reads, by name; a table that cannot be analysed in its current
// form (a change log view) returns an error naming it.
type StatsKeeper interface {
	AnalyzeColumns() ([]string, error)
	KeepStats(ctx context.Context, ts *TableStats) error
}
