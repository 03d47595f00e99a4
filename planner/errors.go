package planner

import (
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/lake/paimon"
)

// Planner error kinds. Every error Plan returns wraps one of these and, where
// it fits, a catalog kind (catalog.ErrUnsupported, catalog.ErrInvalidProperty,
// catalog.ErrNotFound), so the FE maps it to a wire code with errors.Is. The
// texts the product spec quotes are built here and nowhere else.
var (
	// ErrNoLakeSnapshot: a read that needs the lake found no readable lake
	// snapshot (required mode, or tbl$log).
	ErrNoLakeSnapshot = errors.New("no readable lake snapshot")
	// ErrUnionRead: required mode cannot read the table as lake plus log.
	ErrUnionRead = errors.New("union read not possible")
	// ErrLogExpired: the log after the lake snapshot of a log table (or
	// tbl$log) has been deleted by the TTL.
	ErrLogExpired = errors.New("log tail expired")
	// ErrInconsistent: the lake and the Fluss metadata disagree in a way that
	// would read rows twice or lose them.
	ErrInconsistent = errors.New("lake and fluss metadata disagree")
)

// planError is a message with its kinds.
type planError struct {
	kinds []error
	msg   string
}

func (e *planError) Error() string   { return e.msg }
func (e *planError) Unwrap() []error { return e.kinds }

func newErr(msg string, kinds ...error) error { return &planError{kinds: kinds, msg: msg} }

// modeSourceText names where the mode in force came from, for messages that
// tell the user which knob to turn.
func modeSourceText(session bool) string {
	if session {
		return "session variable '" + varUnionMode + "'"
	}
	return "catalog property 'fluss.union_read.mode'"
}

func errBadSessionMode(v string) error {
	return newErr(fmt.Sprintf("Invalid value '%s' for session variable '%s': expected one of auto, required, disabled, or '' to follow the catalog", v, varUnionMode),
		catalog.ErrInvalidProperty)
}

func errBadCatalogMode(v string) error {
	return newErr(fmt.Sprintf("Invalid value '%s' for catalog property 'fluss.union_read.mode': expected one of auto, required, disabled", v),
		catalog.ErrInvalidProperty)
}

func errNoSnapshotRequired(table string, session bool) error {
	return newErr(fmt.Sprintf("Table '%s' has no readable lake snapshot yet, and union read mode 'required' (%s) forbids falling back to a fluss-only read. Wait for the tiering service to commit, or set the mode to auto or disabled",
		table, modeSourceText(session)), ErrNoLakeSnapshot, catalog.ErrUnsupported)
}

func errLogNoSnapshot(table, name string) error {
	return newErr(fmt.Sprintf("Table '%s' has no readable lake snapshot yet, so '$log' has no point to start from: nothing has been tiered and the whole table is still in the log. Query '%s' itself, or wait for the tiering service to commit",
		table, name), ErrNoLakeSnapshot, catalog.ErrUnsupported)
}

func errLogOnPK(table, name string) error {
	return newErr(fmt.Sprintf("Table '%s' has a primary key, so '%s$log' cannot be read: the log after the lake snapshot is a change stream that updates and deletes keys the lake already holds, not a set of rows. Query '%s' itself",
		table, name, name), catalog.ErrUnsupported)
}

func errLogNotLake(table, name string) error {
	return newErr(fmt.Sprintf("Table '%s' is not tiered into a lake (table.datalake.enabled), so it has no '$log' part. Query '%s' itself", table, name),
		catalog.ErrUnsupported)
}

func errLakeNotLake(table, name string) error {
	return newErr(fmt.Sprintf("Table '%s' is not tiered into a lake (table.datalake.enabled), so it has no '$lake' part. Query '%s' itself", table, name),
		catalog.ErrUnsupported)
}

// errKeyMerge is required mode refusing a key-type or partition-type table.
func errKeyMerge(table, why string, session bool) error {
	return newErr(fmt.Sprintf("Table '%s' cannot be read as its lake plus its change log: %s. Reading it from fluss alone still returns every row, so set %s to auto or disabled",
		table, why, modeSourceText(session)), ErrUnionRead, catalog.ErrUnsupported)
}

func errTailTruncated(table, where string, session bool) error {
	return newErr(fmt.Sprintf("Table '%s' cannot be read as its lake plus its log: %s. Fluss has already deleted part of the log the lake snapshot stops before, and a primary-key table's log cannot be re-read from the lake. Set %s to auto or disabled to read the table from fluss alone, which still returns every row",
		table, where, modeSourceText(session)), ErrUnionRead, catalog.ErrUnsupported)
}

func errTailTooLarge(table, why string, session bool) error {
	return newErr(fmt.Sprintf("Table '%s' cannot be read as its lake plus its log: %s. Set %s to auto or disabled to read the table from fluss alone, wait for tiering to move the tail into the lake, or raise the limit",
		table, why, modeSourceText(session)), ErrUnionRead, catalog.ErrUnsupported)
}

func errLogTailExpired(table, where string) error {
	return newErr(fmt.Sprintf("Part of the log tail has expired: table '%s', %s. A log table's rows before that offset are in neither the lake snapshot nor the log; wait for Fluss to publish a newer readable lake snapshot",
		table, where), ErrLogExpired, client.ErrLogExpired)
}

func errLakeFormat(table, format string) error {
	return newErr(fmt.Sprintf("Cannot read table '%s': its table.datalake.format is '%s', and only 'paimon' and 'iceberg' are supported", table, format),
		catalog.ErrUnsupported)
}

func errWarehouseDisagree(table string, cause error) error {
	return newErr(fmt.Sprintf("Fluss reports a readable lake snapshot for '%s' but its lake table does not exist: the lake warehouse and the fluss cluster disagree; check 'fluss.lake.paimon.warehouse' and the table's table.datalake.* settings (%v)",
		table, cause), ErrInconsistent, catalog.ErrNotFound)
}

func errNothingTiered(table string, cause error) error {
	return newErr(fmt.Sprintf("Table '%s$lake': nothing has been tiered: its lake table cannot be found with the current lake settings; check that 'fluss.lake.paimon.warehouse' points to the warehouse the fluss cluster writes to (%v)",
		table, cause), catalog.ErrNotFound)
}

func errUnmatchedPartition(table, part string) error {
	return newErr(fmt.Sprintf("Table '%s': lake partition '%s' cannot be matched safely to a live fluss partition, because its partition columns are not STRING and the two sides may write their values differently. Set the union read mode to disabled to read only the data in Fluss",
		table, part), ErrInconsistent, catalog.ErrUnsupported)
}

func errAmbiguousPartition(table, part string) error {
	return newErr(fmt.Sprintf("Table '%s': lake partition '%s' holds rows tiered from two fluss partitions of that name (one dropped, one created again), so its rows cannot be matched to one fluss partition. Set the union read mode to disabled to read only the data in Fluss",
		table, part), ErrInconsistent, catalog.ErrUnsupported)
}

func errSplitBucketRange(table string, bucket, count int32) error {
	return newErr(fmt.Sprintf("The lake table of fluss table '%s' has a split in bucket %d, but the fluss table has only %d buckets. The two are not bucketed alike, so their rows cannot be matched by bucket",
		table, bucket, count), ErrInconsistent)
}

func errIcebergLayout(table, file, partition string) error {
	return newErr(fmt.Sprintf("The Iceberg lake table of fluss table '%s' has data file %s in partition '%s', which is not laid out as Fluss tiers (identity partition keys, then bucket(key, N) or identity(__bucket)), so its rows cannot be matched to a fluss bucket",
		table, file, partition), ErrInconsistent)
}

func errSplitNoOffset(table, where string) error {
	return newErr(fmt.Sprintf("The lake table of fluss table '%s' holds data for %s, but fluss records no tiering offset for that bucket. Their metadata disagrees; reading them as one would return the rows of that bucket twice",
		table, where), ErrInconsistent)
}

func errUnsupportedColumn(table, column string) error {
	return newErr(fmt.Sprintf("Table '%s': column '%s' has type UNSUPPORTED and cannot be read", table, column), catalog.ErrUnsupported)
}

func errBadColumn(table string, idx, n int) error {
	return newErr(fmt.Sprintf("Table '%s': projected column %d is outside the table's %d columns", table, idx, n), catalog.ErrInvalidProperty)
}

func errLakeColumn(table, column string) error {
	return newErr(fmt.Sprintf("Column '%s' of fluss table '%s' does not exist in its lake table, so the two cannot be read as one", column, table),
		ErrInconsistent)
}

// errTravelColumn: a time-travel read names a column the snapshot's schema
// does not have (the table's columns are those of its latest schema).
func errTravelColumn(table, column string, tt *catalog.TimeTravel, plan *paimon.Plan) error {
	snap, schema := int64(0), int64(0)
	if plan.Snapshot != nil {
		snap = plan.Snapshot.ID
	}
	if plan.Schema != nil {
		schema = plan.Schema.ID
	}
	return newErr(fmt.Sprintf("Column '%s' of table '%s' does not exist at %s (snapshot %d, written with schema %d): select only the columns that snapshot has",
		column, table, tt, snap, schema), catalog.ErrNotFound)
}
