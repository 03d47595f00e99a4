// Package iceberg is the read-only Iceberg catalog (type=iceberg, Doris's
// property names) over a Hadoop catalog warehouse on a local path or S3
// ('iceberg.catalog.type'='hadoop': namespaces are the warehouse's
// directories, tables the directories below them holding metadata/) or an
// Iceberg REST catalog server ('iceberg.catalog.type'='rest', rest.go:
// 'uri', optional 'warehouse', 'iceberg.rest.oauth2.credential' or
// 'iceberg.rest.oauth2.token'; namespaces, tables and each table's current
// metadata location come from the server through iceberg-go's REST client,
// the files are read from storage with the catalog's s3.* settings). Reads
// are planned by the planner into LAKE ranges from a table's IcebergTarget
// and executed by a BE through lake/iceberg; this package only describes
// tables, serves tbl$snapshots, and reports statistics for planning: the
// row count from the current snapshot's summary and column statistics
// from its manifests (lake/iceberg Summarize, estimated by
// catalog/paimon/lakestats as for Paimon tables).
//
// What must stay true:
//   - Validation and Open do no I/O; every listing and table lookup reads
//     the warehouse (the table's current metadata file) or asks the REST
//     server, so the catalog caches nothing but the REST client. Check
//     (CREATE and ALTER CATALOG only) stats a local warehouse or fetches
//     the REST server's configuration.
//   - 'iceberg.catalog.type' values other than hadoop and rest (hms,
//     glue, dlf, jdbc, s3tables) are refused by name at CREATE CATALOG.
//   - REST credentials and tokens never appear in errors (redacted should
//     a server echo them).
//   - Column types follow the Paimon catalog's rules (catalog/paimon
//     EngineColumn over lake/iceberg's field mapping).
//   - Storage settings are handed to the BE under the engine names only
//     and never appear in errors.
//
// Concurrency: Catalog, Database and Table are safe for concurrent use.
package iceberg
