package catalog

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Loader is a table that takes labelled, atomic loads (Stream Load, INSERT).
//
// A Load is atomic (all rows visible at once, or none), durable when it
// returns nil (fsynced; survives kill -9), and checks its label atomically
// against committed AND running labels. The record schema given to Load is
// the table's schema (or, with PartialColumns, a subset by name).
type Loader interface {
	Load(ctx context.Context, r array.RecordReader, opts LoadOptions) (LoadResult, error)
}

// LoadOptions tune one Load.
type LoadOptions struct {
	Label string // unique per database; "" = unlabelled
	// PartialColumns (UNIQUE KEY tables only): r carries all key columns plus a subset of
	// the others; columns absent from r keep their current values (new keys get defaults/NULL).
	PartialColumns bool
}

// LoadResult says what a committed Load did.
type LoadResult struct{ TxnID, Rows int64 }

// LabelExistsError: the label is taken; Status is "RUNNING" (a load with it is in flight)
// or "FINISHED" (committed). A failed load frees its label (Doris lets it be reused).
type LabelExistsError struct {
	Label, Status string
	TxnID         int64
}

// Error renders Doris's text, which Stream Load clients (e.g. the Doris
// sinks) match on to tell a replay of a committed load from a failure.
func (e *LabelExistsError) Error() string {
	return fmt.Sprintf("Label [%s] has already been used, relate to txn [%d]", e.Label, e.TxnID)
}
