// Package iceberg reads Apache Iceberg tables natively (no JVM): table
// metadata, snapshots, manifest lists and manifests through
// github.com/apache/iceberg-go (its scan planner assigns delete files to
// data files and prunes partitions and files by the manifests' partition
// values and column bounds), the Parquet data and delete files through
// lake/paimon's Parquet path (OpenDataFile: lake/parquetpage's page
// decoder, pqarrow where it cannot, columns matched by field id; in a file
// without ids by the table's name mapping, schema.name-mapping.default,
// whose tables pay one more footer read per file to learn the file's
// names, else by the current schema's names), the ORC ones through
// lake/orc (orcread.go): the format is the manifest entry's file_format,
// never the file name (migrated Hive files are named 000000_0, Impala's
// end in .parq).
//
// ORC files: columns and struct fields are matched by the iceberg.id type
// attribute; a file with no ids (a Hive table migrated in place) is matched
// by the table property schema.name-mapping.default, else by the current
// schema's names (in both, a list's child is "element", a map's "key"
// and "value"). List and map children are matched by position. A
// column the file lacks reads as its identity partition value when the
// data file has one (the split carries them, Split.Identity), else NULL.
// File types are promoted to the table's (int→long, float→double, decimal
// precision widening; time and timestamps to the engine's units) and any
// other difference is refused naming the column. The predicate prunes
// stripes by their statistics (orcprune.go: integer, date, decimal,
// floating point and string columns, NULL counts; never timestamps or
// booleans). An ORC file must hold the manifest's record_count rows.
//
// Parquet files: struct fields are matched by field id too (nested.go): a
// column whose struct layout differs in some schema of the table (fields
// moved, added, dropped) is read in the layout the file's footer gives and
// rebuilt in the current one, a field the file lacks NULL; lake/paimon
// alone matches them by position. In a file without ids (a migrated one)
// the struct fields of such a column, and of every struct column when the
// table has a name mapping (the Hive struct may have changed before the
// migration), are matched through the name mapping's nested fields (every
// name a field had, so a renamed field is found by its old name; the
// current schema's names when the table has no mapping). Tables with no
// such column pay nothing.
//
// Parquet files: a column the file lacks reads as its identity partition
// value too (parquetread.go). lake/paimon reads an absent column as NULL;
// a file that has the column holds the partition value in every row, so a
// batch where the column is all NULL and the partition value is not takes
// the partition value, and a batch mixing NULLs and values there is
// refused as corrupt.
//
// Use: Open (a metadata file) or OpenDir (a Hadoop catalog table
// directory) → Table.Plan(ctx, ScanOptions) → Plan.Splits →
// Plan.Open(ctx, &split, mem, ReadOptions) → array.RecordReader. A reader
// that gets splits from elsewhere opens the same metadata file (OpenIn)
// and builds Table.ReadPlan(snapshot). Table.Summarize folds a snapshot's
// manifest entries (record counts, null counts, bounds) into column
// summaries for the optimizer, reading no data file.
//
// A manifest the manifest list says holds deletes is read as a delete
// manifest even when its own Avro metadata has no "content" key (Impala
// and Hive wrote such files; iceberg-go alone refuses them): the header is
// served with the key added (manifesthdr.go), as Java Iceberg trusts the
// list.
//
// What is read: format v1 and v2 tables (and v3 tables that use none of
// the refused features), any partition spec, one split per data file (a
// Parquet or ORC file cut into slices by ScanOptions.FileSplitSize/MinSplits
// as lake/paimon cuts its files, a large Parquet row group shared by rows,
// an ORC slice reading the stripes whose middle byte it holds:
// TestSlicedPlans, TestSlicedORC),
// position deletes and equality deletes (NULL equals NULL) applied to the
// data files iceberg-go's planner assigns them to, column projection,
// snapshots by id, by time (the latest ancestor of the current snapshot
// committed at or before it) and by branch or tag name.
//
// What is refused, with an error wrapping ErrUnsupported that names the
// table and file or column: deletion vectors (v3 Puffin), Avro data or
// delete files, columns with v3 initial defaults, types with no engine
// counterpart (variant, geometry, geography, unknown), and a struct
// field of a Parquet file without field ids that the name mapping does
// not name, in a column whose struct fields changed in the schema history
// (the struct is read by position in the file's layout, so a field of
// unknown type cannot be skipped). A Parquet batch whose identity partition column mixes
// NULLs and values is refused as corrupt (ErrCorrupt). Row lineage
// columns (_row_id, ...) are never produced.
//
// What must stay true:
//
//  1. A split's rows are its data file's rows minus the positions its
//     position delete files name for exactly that file path, minus the rows
//     whose equality columns equal a row of one of its equality delete
//     files. Paths are compared as the metadata records them.
//  2. The predicate only prunes (partitions, files, row groups, stripes); it never filters rows,
//     and a part that does not translate exactly to an Iceberg expression is
//     left out (AND) or drops the whole filter (OR).
//  3. A table directory whose metadata records another location is read
//     relative to the directory (relocation of every recorded path prefix).
//  4. Bad metadata or files give errors naming the table, never a panic.
//
// Concurrency: a Table and a Plan are immutable and may be shared; each
// RecordReader from Plan.Open belongs to one goroutine.
package iceberg
