// Package scan is the BE side of a query: it executes the ranges of a
// fragment (lake, log, primary-key and tail ranges), applies pushed filters
// next to the readers, and streams Arrow batches and counters back to the
// FE. A BE knows ranges, not tables.
//
// Executor.Execute returns a RangeStream: up to ScanOptions.max_concurrency
// range readers run at once (errgroup with a limit) and hand batches over
// one channel. Each batch holds rows of one range; a range is reported done
// after its last batch, so a transport can re-run unfinished ranges
// elsewhere.
//
// What must stay true:
//
//  1. Every batch has exactly the fragment's output schema, less its
//     filter_only columns (read for the filters, never sent): each range
//     reads the same column layout (projection ∪ filter columns ∪ key
//     columns), cast to one engine type per column, so lake and log halves
//     agree before keys are compared, filters run and the output is cut. A
//     Paimon lake range asks its reader only for the columns something
//     besides the filters the reader applies exactly reads; the others
//     hold placeholders in its layout that nothing reads (fragExec.lakeSkip).
//  2. A LAKE_SUPPRESS row is emitted only if its key (canonical bytes of the
//     cast key columns, package unionread) is absent from its bucket's tail;
//     the tail's key set is read once per (query, table, partition, bucket,
//     start, stop) on this BE and dropped when the query's last fragment
//     ends. PK_TAIL emits each surviving key once. Filters run after
//     replay and suppression, never before.
//  3. A retry never repeats a row: log reads resume at the next undelivered
//     offset (for a piece of a cut tail, Range.log_tail_*, a batch
//     boundary, so it still owns the same batches); a PK_FULL read restarts only while none of its rows reached
//     the stream; otherwise the error is returned.
//  4. LIMIT caps the fragment's rows in total (after filters: the FE sets
//     it under a WHERE only when the filters are the whole WHERE); reaching
//     it, cancelling ctx or releasing the stream stops every reader, and
//     every batch in flight is released (tests check the allocator returns
//     to zero). A range Top-N (Fragment.range_top_n, topn.go) makes each
//     range send only its first n rows in the keys' order, once it is read;
//     a key-ordered lake split (Range.key_ordered: one key-sorted file or a
//     merge by key) of a union read whose Top-N is its single integer key
//     ascending stops reading at n rows (FlussRangesStoppedEarly), the
//     order checked on every row it read. Fragment.log_filter_or only
//     joins the log fetch filter (rule 9); rows are never filtered by it.
//  5. Heavy readers (declared_bytes > 0) wait for heap admission only when
//     the fragment asks for it; admission changes timing, never results.
//  6. A fragment naming a negative column (record.ChangelogWireColumn) is a
//     tbl$changelog read: LOG ranges only; each row's _change_type,
//     _log_offset (its batch's first offset plus its place) and
//     _commit_timestamp (its batch's) are built next to the reader, before
//     filters run. With ScanOptions.binlog the records are folded first
//     (scan/binlog.go: one pending -U at most, carried across batches) and
//     -4/-5 are the before/after STRUCT images.
//  7. Counters are registered only for the range kinds actually read; times
//     are in nanoseconds. FlussJniConnectionsOpened is the growth of the
//     shared pool's opened-connection count while the fragment ran (other
//     queries on the BE may add to it).
//  8. Client options (which may hold secrets) are never logged or put in
//     errors; clients are shared per distinct option set.
//  9. Unless ScanOptions.log_filter_pushdown_off, LOG and PK_TAIL reads send
//     the filters the tablet server can test against batch statistics
//     (client.TableInfo.LogFilter: exact literal conversions only) as
//     FetchLog's filter_predicate. The server may then leave out whole
//     batches; the reader skips the offset gaps and filters still run on
//     every row, so results are the same with pushdown on and off.
//     FlussLogBytesFetched and FlussLogBatchesSkipped show the effect.
package scan
