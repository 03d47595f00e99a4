// Package writer writes Apache Paimon tables the way Java Paimon (and so
// the Fluss tiering service) writes them: schema JSON, Parquet data files
// through pqarrow or, with file.format=orc, ORC data files through
// lake/orc (orcfile.go: "paimon.id" type attributes, char/varchar lengths,
// file.compression, orc.stripe.size), Avro manifests, manifest lists and index manifests with
// Java's field names and types (lake/paimon's encoders), snapshot JSON, and
// the LATEST hint.
//
// What must stay true:
//
//  1. Commit order: data files, index files, manifests and manifest lists
//     are written first, the snapshot file after them, LATEST last. A crash
//     in between leaves unreferenced files, never a snapshot naming a
//     missing file.
//  2. Sequence numbers of a (partition, bucket) continue from the largest
//     _MAX_SEQUENCE_NUMBER of its live files + 1 (0 for a new bucket), so a
//     later file always wins a merge.
//  3. A primary-key data file holds rows sorted by the trimmed primary key
//     with one row per key (checked while writing); its columns are
//     _KEY_<k>..., _SEQUENCE_NUMBER, _VALUE_KIND, then the table columns.
//  4. Input is streamed: FileWriter takes Arrow batches one at a time and
//     buffers at most one Parquet row group or ORC stripe.
//  5. A snapshot's totalRecordCount is the sum of _ROW_COUNT of its live
//     files; deltaRecordCount is added minus deleted rows of the commit.
//  6. A data file's statistics (_KEY_STATS per key column, _VALUE_STATS per
//     table column, partition stats of a manifest) bound every value
//     written, column by column: readers skip files by them, so a bound
//     that excludes a written value loses rows. Strings may be truncated
//     (the max then bumped) and a bound may be NULL (unknown), never tighter.
//
// Concurrency: a Table and its Commits belong to one goroutine. Two writers
// must not commit to the same table at once (Paimon relies on an external
// lock for that too).
package writer
