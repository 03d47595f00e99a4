// Package paimon reads Apache Paimon tables natively (no JVM): schemas,
// snapshots, Avro and ORC manifests, split planning on a pinned snapshot,
// Parquet, ORC and Avro data files, merge-on-read for primary-key tables
// (deduplicate, first-row, partial-update, aggregation; sequence.field) and
// 32- and 64-bit deletion vectors. Changelog files are never read. It knows nothing about Fluss. It also exports the
// metadata encoders (BinaryRow, manifests, manifest lists, index manifests,
// deletion vectors) a writer needs, next to their decoders.
//
// Use: OpenTable (or OpenTableInWarehouse) → Table.Plan(ctx, ScanOptions) →
// Plan.Splits → Plan.Open(ctx, &split, mem, ReadOptions) → array.RecordReader.
//
// What must stay true:
//
//  1. The live file set of a snapshot is the ADD entries of its base and
//     delta manifest lists minus DELETE entries, matched on the full identity
//     (partition, bucket, level, file name, extra files, embedded index,
//     external path). Level is part of it: a level upgrade deletes and re-adds
//     the same file name.
//  2. A plan reads one snapshot and the schema that snapshot names (or a
//     newer one, ScanOptions.ReadSchemaID); files written under older
//     schemas are mapped to it by field id (missing columns read as NULL,
//     and their statistics are all-NULL for pruning; widened types are
//     cast).
//  3. Splits never mix (partition, bucket). A split is raw-convertible only
//     when its files can be read one by one without changing the answer;
//     otherwise Open merges its files by (key, sequence number) with the
//     table's merge engine, ordering a key's records by sequence.field (if
//     set) then sequence number; a key with one record bypasses the engine
//     (Java's ReducerMergeFunctionWrapper) and retractions never reach the
//     output. For deletion-vector and first-row tables a batch plan drops
//     level-0 files, as Java Paimon does.
//  4. Statistics only prune: partitions always, key statistics always,
//     value statistics (manifest, Parquet row group, ORC stripe) only where
//     the rows they describe are final (append tables, raw reads of
//     deletion-vector/first-row tables), never for merge inputs. The
//     predicate is then applied exactly to every row after merging.
//  5. Flat Parquet columns are decoded by lake/parquetpage when it can read
//     every selected column of a file (types, encodings, codecs); otherwise
//     the whole file goes through pqarrow. Both give the same values
//     (TestPagePathMatchesPqarrow). With a row filter on a raw read, the
//     filter's columns are decoded first and the others materialised only
//     for rows that pass; the reader itself then drops the rows failing the
//     filter or deleted by the file's deletion vector, counting them as the
//     stepper would, and the stepper skips its own filter for such batches:
//     answers and counters are unchanged (TestLateFilterMatchesPqarrow).
//     A raw read keeps its files' page readers (their buffers, charged to
//     the scan's allocator) for the next file, at most 64 of them.
//  6. ScanOptions.FileSplitSize cuts the Parquet/ORC files of raw splits
//     into FileSlices, each its own split. A slice reads the row groups or
//     stripes whose middle byte lies in its share of the real file size
//     (the first and last slices take anything outside), so the slices of
//     a file read each row group exactly once; deletion-vector positions
//     stay positions in the whole file; a merge read refuses a slice
//     (TestSlicedGenerated, TestSlicedFixtures). A Parquet row group of at
//     least 1 MiB, 4096 rows and half a slice that crosses a slice boundary is shared by
//     rows instead (rowsplit.go): each slice takes the rows in proportion
//     to its share of the group's bytes, the bounds moved to page starts
//     of the group's largest column read, and reads only the pages holding
//     them (parquetpage.ScanPages, ResetRows), so a file of one large row
//     group (iceberg-go's, Java writers' 128 MB groups) still spreads over
//     every scanner. Every slice decides alike from the file and the
//     columns read: only files the page decoder reads, or reads of no
//     column, and a remote file only with offset indexes (walking its page
//     headers would be a request each) (TestRowSplitSlices, the
//     parquet-rowsplit case of TestSlicedGenerated).
//  7. Decoders distrust input: every length, count and offset is checked
//     before allocation; bad bytes give an error wrapping ErrCorrupt that
//     names the table and file, never a panic.
//
// Concurrency: a Table and a Plan are immutable and may be shared; every
// RecordReader from Plan.Open belongs to one goroutine. Batches are built
// with the caller's allocator; a batch is valid until the next call to Next.
package paimon
