// Package paimon is the read-only Paimon catalog (type=paimon) over a
// filesystem-metastore warehouse on a local path or S3: databases
// (<name>.db directories), tables, partitions and types of plain Paimon
// tables. Reads are planned by the planner into LAKE ranges from a table's
// PaimonTarget and executed by a BE; this package only describes tables.
//
// What must stay true:
//   - Validation and Open do no I/O; every listing reads the warehouse, so
//     the catalog is always current. The one cache, column statistics from
//     manifests (lakestats), is keyed by table path and snapshot id, which
//     name immutable files. Check (CREATE and
//     ALTER CATALOG only) stats a local warehouse; s3 stays lazy.
//   - Column types follow the Fluss catalog's rules (text for strings and,
//     by default, binary; datetime(≤6) as Arrow microseconds; TIME
//     UNSUPPORTED), so a Fluss lake table describes the same through either
//     catalog.
//   - Storage settings (s3.endpoint, s3.access_key / s3.access-key, ...)
//     are handed to the BE under the engine names only (StorageOptions) and
//     never appear in errors.
//
// Concurrency: Catalog, Database and Table are safe for concurrent use.
package paimon
