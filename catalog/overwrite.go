package catalog

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Overwriter is a table that takes INSERT OVERWRITE: the rows of r (the
// table's schema) replace every row of the table in one commit, with the
// guarantees of Loader.Load (atomic, durable, labelled). A reader sees the
// old rows or the new ones, never a mix; r may itself read the table.
type Overwriter interface {
	Overwrite(ctx context.Context, r array.RecordReader, opts LoadOptions) (LoadResult, error)
}
