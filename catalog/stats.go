package catalog

import "context"

// RowCounter is a Table that knows its row count from table-level statistics
// without scanning (Fluss reports row counts per bucket, nothing per column).
// RowCount returns -1 when the count is unknown; statistics are best effort,
// so an implementation reports unknown rather than failing when its source
// cannot answer. The count is a hint for planning and SHOW output, never a
// query result.
type RowCounter interface {
	RowCount(ctx context.Context) (int64, error)
}
