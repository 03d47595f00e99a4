package catalog

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// KeyDeleter is a UNIQUE KEY table that deletes rows by key: every row of r
// (the table's schema; only the key columns matter) removes the row with
// its key, atomically and durably, as one commit. It returns the rows of r.
type KeyDeleter interface {
	DeleteKeys(ctx context.Context, r array.RecordReader) (int64, error)
}

// PredicateDeleter is a table that deletes the rows matching every one of
// preds (a conjunction of simple column-constant predicates, the only form
// Doris accepts on DUPLICATE KEY tables), atomically and durably. Rows
// committed later are not affected.
type PredicateDeleter interface {
	DeleteWhere(ctx context.Context, preds []Predicate) error
}

// UniqueKeyCreator is a TableCreator (database) whose tables implement the
// UNIQUE KEY model: one row per key, the latest load winning. CREATE TABLE
// ... UNIQUE KEY is refused elsewhere, since storing rows as inserted would
// answer wrongly.
type UniqueKeyCreator interface {
	SupportsUniqueKey() bool
}
