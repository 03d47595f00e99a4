package paimon

import (
	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

// ScanTarget is the contract between this catalog and the planner: what a
// Paimon catalog table hands the planner so it can plan LAKE ranges.
type ScanTarget struct {
	// Catalog, Database and Table name the table for EXPLAIN and errors.
	Catalog, Database, Table string
	// Lake is the opened Paimon table; FS reads its warehouse.
	Lake *lake.Table
	FS   fileio.FS
	// TablePath is the table directory (warehouse/db.db/table).
	TablePath string
	// StorageOptions configure fileio on the BE (s3.endpoint,
	// s3.access_key, ...). May hold secrets.
	StorageOptions map[string]string
	// Columns are the engine columns in the lake schema's order.
	Columns []catalog.Column
	// PartitionKeys are the partition column names in key order.
	PartitionKeys []string
}

// Targeted is implemented by this catalog's tables.
type Targeted interface {
	PaimonTarget() *ScanTarget
}
