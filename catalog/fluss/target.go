package fluss

import (
	"context"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/typemap"
)

// This file is the contract between the catalog and the planner: what a
// Fluss table (or its $lake / $log view) hands the planner so it can choose
// ranges without asking the catalog anything else.

// ReadMode says which view of a table a query reads.
type ReadMode int

const (
	// ReadDefault reads the table itself (union read when tiered).
	ReadDefault ReadMode = iota
	// ReadLake reads tbl$lake: the tiered data only.
	ReadLake
	// ReadLog reads tbl$log: the log after the lake snapshot only.
	ReadLog
	// ReadChangelog reads tbl$changelog: every bucket's log as change
	// records, the metadata columns (record.ChangelogColumns) first.
	ReadChangelog
	// ReadBinlog reads tbl$binlog of a primary-key table: the log folded
	// into insert/update/delete rows with before/after images
	// (record.BinlogColumns).
	ReadBinlog
)

// Union-read modes (fluss.union_read.mode, fluss_union_read_mode).
const (
	ModeAuto     = "auto"
	ModeRequired = "required"
	ModeDisabled = "disabled"
)

// Options are the catalog's parsed properties that shape reads.
type Options struct {
	// UnionMode is the catalog's fluss.union_read.mode (auto by default).
	UnionMode string
	// MaxTailRows and MaxTotalTailRows are fluss.union_read.max_tail_rows
	// and fluss.union_read.max_total_tail_rows.
	MaxTailRows      int64
	MaxTotalTailRows int64
	// MapVarbinary and MapTimestampTZ are enable.mapping.varbinary and
	// enable.mapping.timestamp_tz.
	MapVarbinary   bool
	MapTimestampTZ bool
	// ClientOptions are the Fluss client properties: every fluss.* property
	// except the catalog's own and fluss.lake.paimon.*, prefix stripped.
	// They may hold secrets.
	ClientOptions map[string]string
}

// Lake is an opened lake (Paimon) table behind a tiered Fluss table, built
// from the table's datalake.paimon.* properties with the catalog's
// fluss.lake.paimon.* overrides applied key by key.
type Lake struct {
	// Table is the Paimon table; nil when the lake is Iceberg.
	Table *paimon.Table
	// Iceberg is the Iceberg table (datalake.format=iceberg); nil for Paimon.
	Iceberg *iceberg.Table
	// FS reads the warehouse (local or S3, with the translated storage
	// settings).
	FS fileio.FS
	// TablePath is the lake table directory (warehouse/db.db/table for
	// Paimon, warehouse/db/table for Iceberg).
	TablePath string
	// StorageOptions configure fileio for the BE (engine storage names:
	// s3.endpoint, s3.access_key, ...). May hold secrets.
	StorageOptions map[string]string
}

// ScanTarget is everything the planner needs about one Fluss table read.
type ScanTarget struct {
	// Catalog is the catalog's user-visible name (for EXPLAIN and errors).
	Catalog string
	Path    client.TablePath
	// Info is the table as GET_TABLE_INFO returned it (id, schema id,
	// descriptor, JSON, remote data dir).
	Info *client.TableInfo
	// Client is the catalog's shared client.
	Client *client.Client
	// Mode is the view read: the table, tbl$lake or tbl$log.
	Mode ReadMode
	// Columns are the engine columns, in Fluss schema order; FlussColumns
	// the Fluss row type in the same order. A ReadChangelog target's
	// Columns start with the metadata columns (record.ChangelogColumns);
	// its FlussColumns are still the table's alone.
	Columns      []catalog.Column
	FlussColumns []typemap.Column
	// PartitionKeys are the partition column names, in key order.
	PartitionKeys []string
	Options       Options
	// OpenLake opens the lake table. The error wraps ErrNothingTiered when
	// the lake table cannot be found with the current lake settings.
	OpenLake func(ctx context.Context) (*Lake, error)
}

// Targeted is implemented by the catalog's tables: the planner reads a
// table through its ScanTarget.
type Targeted interface {
	ScanTarget() *ScanTarget
}
