// Package fluss is the Fluss catalog: it validates the catalog properties of
// CREATE CATALOG ... PROPERTIES('type'='fluss', ...), maps Fluss databases,
// tables, partitions and types onto the engine's metadata, and exposes the
// `tbl$lake`, `tbl$log` and `tbl$changelog` handles. Wire details stay in catalog/fluss/client.
// Reads are planned by the planner from a table's ScanTarget (target.go) and
// executed by a BE; Table.Scan is never the read path.
//
// What must stay true:
//   - Validation (ParseProperties) does no I/O, and Open does not contact the
//     cluster: a catalog whose cluster is down loads, and each statement on it
//     fails with an error naming the catalog and its bootstrap servers.
//   - Every fluss.* property except the catalog's own (union-read settings)
//     and the fluss.lake.paimon.* / fluss.lake.iceberg.* overrides reaches the client, prefix
//     stripped; the overrides reach only the lake. Secret values (SASL
//     password, lake credentials) never enter an error or a log line.
//   - SHOW TABLES never lists tbl$lake / tbl$log / tbl$snapshots /
//     tbl$changelog; the first three resolve only on a lake-enabled table
//     ("Unknown sys table '<name>'" otherwise), tbl$changelog on every
//     table: Fluss's _change_type, _log_offset, _commit_timestamp
//     (record.ChangelogColumns, NOT NULL) before the table's columns, and
//     no primary key (a key repeats in a changelog). tbl$binlog resolves
//     on primary-key tables only (a log table is refused by name): the
//     same metadata columns, then `before` and `after`, ROWs of all the
//     table's columns (record.BinlogColumns). tbl$lake and tbl$log carry exactly the table's columns and
//     types; tbl$snapshots is the lake table's snapshot list (Paimon's
//     columns, served in the FE by catalog/paimon/systable; Iceberg's on
//     an Iceberg lake, by catalog/iceberg/systable).
//   - Only tbl$lake may be read at an older snapshot (FOR VERSION/TIME AS
//     OF); the table itself and tbl$log refuse it (CanTimeTravel). Such a
//     read has the columns of that snapshot's lake schema (SchemaAsOf,
//     systable.ColumnsAsOf): a snapshot tiered before ALTER TABLE ADD
//     COLUMN has no such column.
//   - Column types come from one mapping (EngineColumn): DESC names, the
//     Arrow type every range is cast to, UNSUPPORTED for TIME.
//   - A partition column whose value does not survive Fluss partition naming
//     (or whose name has a comma) fails SHOW PARTITIONS and every query,
//     naming the column and its Fluss type (CheckReadablePartitions);
//     PartitionName is the one renderer of k1=v1/k2=v2 names. A BINARY/BYTES
//     partition column (string mapping) reads as the hex text Fluss names
//     the partition with, as the spec says; the BE renders it (scan.hexText).
//   - A catalog serves lake tables with one lake configuration, the first it
//     opened; a table reporting different datalake.paimon.* settings fails
//     with "is already serving lake tables with a different paimon
//     configuration". REFRESH clears metadata caches, never that pin.
//   - A lake table that cannot be found fails with an error wrapping
//     ErrNothingTiered ("nothing has been tiered").
//   - A table whose table.datalake.format is iceberg (lake_iceberg.go) has
//     its lake at <warehouse>/<db>/<table> of a Hadoop catalog
//     (table.datalake.iceberg.* with fluss.lake.iceberg.* overrides; any
//     other Iceberg catalog type is refused by name when read), opened
//     afresh for each plan (Lake.Iceberg is pinned to one metadata file);
//     its tbl$snapshots lists the Iceberg table's snapshots and its
//     column statistics come from the Iceberg manifests.
//
// Concurrency: Catalog, Database and Table are shared by all sessions and
// safe for concurrent use.
package fluss
