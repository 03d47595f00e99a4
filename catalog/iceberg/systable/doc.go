// Package systable serves the metadata tables of an Iceberg table
// (tbl$snapshots, with Doris's and Iceberg's columns) for both catalogs
// that read Iceberg: the Iceberg catalog's tables and the Iceberg lake half
// of Fluss tables.
//
// What must stay true: the rows are the snapshots of the metadata file the
// table is opened at when the scan runs, by commit time; committed_at is
// wall-clock time in the session zone.
package systable
