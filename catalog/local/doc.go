// Package local is the internal catalog: databases and tables whose rows live
// on the FE's local disk as Arrow IPC segments, committed through a commit
// log and checkpointed into a JSON manifest.
//
// Layout under the catalog directory:
//
//	manifest.json                   checkpoint: databases, tables, schemas,
//	                                live segments, labels, delete predicates,
//	                                ANALYZE statistics
//	data/wal/<gen>.log              commit log: one record per commit since
//	                                the checkpoint; small loads' rows inline
//	data/<table id>/<txn>-<n>.arrow Arrow IPC file format, a load's big segments
//
// What must stay true:
//   - A commit (Load, INSERT, DELETE, compaction) is one log record, CRC-32C
//     checked, appended and fsynced before the call returns; data files it
//     names are fsynced (file and directory) before it is written. So after
//     kill -9 a commit is wholly visible or not at all, and every
//     acknowledged one survives. Concurrent commits share one append and one
//     fsync (group commit).
//   - Open replays the log over the manifest. A torn last record (never
//     acknowledged) is cut off; a damaged earlier record is an ErrCorrupt
//     error naming the log and offset, never silently skipped. Files and
//     logs nothing names are removed at Open.
//   - A load's label is committed in the same record as its rows: a replay
//     of an acknowledged label answers FINISHED and adds nothing, after a
//     restart too. Running labels answer RUNNING; a failed load frees its
//     label. Label history is bounded by count and age.
//   - An overwrite (INSERT OVERWRITE) is one commit whose record drops every
//     earlier segment and delete predicate of the table (Replace) before
//     adding its own: replay repeats it, scans keep their snapshot.
//   - UNIQUE KEY tables merge on read, per bucket: the latest commit (Seq)
//     wins per key, later rows of one load over earlier ones, tombstones hide
//     older rows. Memory is bounded by the keys of the buckets merged at
//     once (the scan's parallelism, see below), not the table.
//     Partial-column loads fill the absent columns from the current row
//     under the table's write lock, so they never lose a concurrent write.
//   - Compaction rewrites a bucket's small segments into one, applying the
//     merge (or the delete predicates), keeps the inputs' highest Seq, and
//     commits only if its inputs are unchanged; replaced files are deleted
//     once no scan can read them.
//   - A missing manifest with table data (or a log) present is an ErrCorrupt
//     error at Open, never an empty catalog: its tables would otherwise all
//     look like orphans and be deleted.
//   - Every segment's size and CRC-32C is recorded; a scan checks both
//     (reading in bounded pieces) before decoding, so a damaged segment is an
//     ErrCorrupt error naming it, never changed values. A data file that
//     passed is not checked again while its identity (device, inode, size,
//     mtime, ctime) is unchanged and it was not changed within 2 s of the
//     check (verified.go): any write to it moves its ctime, so damage
//     written through the file system still fails the next scan.
//   - Data files are mapped read-only and decoded without copying
//     (mapped.go): a batch's buffers point into the mapping, which is
//     unmapped only when the scan's segment reader and every array
//     referencing one of its message bodies are released (a large one on
//     a goroutine of its own, unmap.go, so the query that released it
//     does not wait for the page tables to be torn down). Deleting the
//     file (compaction, overwrite, DROP) does not invalidate a mapping, so
//     a batch kept past its scan or its file reads the same values.
//     Columns whose values alias their buffers (strings, binaries, nested
//     types holding them) are copied to the heap before they leave the
//     scan: Go code keeps such strings past the batch's release. Segments
//     in the commit log and files that cannot be mapped are read with
//     pread, as before. Files are never truncated or rewritten in place
//     while mapped (that would be SIGBUS, not an error). With
//     Options.KeepMapped (the FE sets it) mappings also stay between
//     scans, up to that many bytes (mapcache.go): the cache holds one
//     reference, dropped when the file is swept or its table dropped,
//     oldest first past the bound, and at Close.
//   - A scan of some columns decodes only those of each mapped batch
//     (pick.go), plus the UNIQUE KEY columns a merge compares (its first
//     pass reads nothing else) and the columns DELETE predicates test:
//     straight from the record batch message's buffer list, each buffer
//     checked against the body. Tables with a nested or dictionary column,
//     and pread segments, decode whole batches and project them.
//   - Mapped bytes are not heap: what the query holds of them is charged
//     to its account when the allocator offers ChargeExternal (exec/memlimit
//     does), per message body, from the moment the batch is handed out
//     until its last array is released.
//   - A plain scan opens (maps and checks) up to parallel_pipeline_task_num
//     (else GOMAXPROCS) segments ahead in parallel, a merge scan merges
//     (pass one) as many buckets ahead; both yield in the order a
//     sequential scan would (segments in commit order, buckets in bucket
//     order); releasing or cancelling the scan stops the workers and closes
//     what they opened.
//   - Scans read the segment list as of the moment Scan is called (a
//     snapshot), stream one batch at a time, and allocate from the request's
//     allocator; background compaction uses the catalog's.
//   - Every record batch written carries a zone map (zone.go: per column
//     its NULL count and, for integer, DATE and DECIMAL columns, its
//     bounds) in its segment's fileInfo. A scan skips, before decoding, a
//     batch (a whole segment of a plain scan) where no row can satisfy one
//     of the request's predicates; a merge scan skips only in pass two,
//     after every key was read. A predicate it cannot read exactly skips
//     nothing: a skipped batch never holds a row the WHERE clause keeps.
//   - Names are case-sensitive (lower_case_table_names = 0), as in Doris.
//   - Statistics are hints, never answers: the row count is the segment
//     list's (stored versions, deletes not subtracted); ANALYZE's column
//     statistics (analyze.go) are one full scan's, kept by a checkpoint,
//     stale after later loads until the next ANALYZE, which with
//     Options.AutoAnalyze runs by itself in the background once over a
//     tenth of a table's rows changed (autoanalyze.go).
//
// Concurrency: a Catalog is safe for concurrent use; DDL and the group
// commit are serialized by one mutex, loads write their segments and scans
// read concurrently with them.
package local
