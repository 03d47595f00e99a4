// Package planner turns a query on a Fluss table (or its $lake / $log /
// $changelog view) or a Paimon catalog table into one inletpb.Fragment of
// scan ranges: lake
// splits (LAKE, LAKE_SUPPRESS), log ranges (LOG), primary-key ranges
// (PK_FULL, PK_TAIL), choosing between the union-read modes auto, required
// and disabled and their fallbacks, and prints the EXPLAIN lines from the
// same fragment the BEs receive, so the counts cannot drift from what runs.
//
// What must stay true:
//
//  1. Read order: the readable lake snapshot before any log offset; per
//     partition, KV snapshots before latest offsets, earliest offsets last;
//     all buckets of one partition at one instant (one ListOffsets call).
//     So a snapshot is never newer than the stop offset it is paired with,
//     and the truncation check can only be stricter, never laxer.
//  2. Every row exactly once: a lake split is bound only to the tail of its
//     own (partition, bucket); a binding that could read a row twice (a
//     bucket number the table lacks, lake data for a bucket Fluss has no
//     tiering offset for, a partition that cannot be matched safely) is an
//     error, never a guess. A log table's tail of 64 Ki records or more
//     is cut into up to 4 LOG ranges (tailPieces) that own the Fluss
//     batches starting in them (Range.log_tail_*), so they are read side
//     by side and still hold every record once.
//  3. Predicates only prune what cannot match (partitions, lake files);
//     anything whose meaning could differ between the engine and Paimon
//     (floats, time zones, CHAR padding, mismatched constant types, NOT IN)
//     is not pushed. LIMIT caps the whole fragment and never one half of a
//     union; no aggregate is pushed. Under a LIMIT with no predicate, a
//     fragment of LOG ranges with known starts keeps only the first ranges
//     whose records reach the limit, the last cut short (capLogRanges):
//     log offsets are dense, so records are rows. A LIMIT under a WHERE,
//     or a per-range Top-N, stays in the fragment only when every
//     predicate became a BE filter and fluss_limit_pushdown is on
//     (capped); a lake split is marked key_ordered only when its rows
//     come in primary-key order (one file, or a merge by key).
//  4. tbl$changelog reads each selected bucket's log as LOG ranges from the
//     startup position (fluss_changelog_startup_mode: earliest, latest,
//     timestamp) to the latest offset read at planning time; WHERE bounds
//     on _log_offset / _commit_timestamp only raise the start (or lower the
//     stop) to offsets no matching row can lie outside of, and a start
//     below the earliest offset Fluss still holds becomes that offset, said
//     in EXPLAIN. Metadata columns travel as negative column numbers.
//     tbl$binlog plans the same ranges (offset bounds widened by one record
//     each side so an update keeps its -U) with ScanOptions.binlog set; no
//     LIMIT cuts its ranges, and only metadata-column filters reach the BE.
//  5. Planning touches metadata only (offsets, snapshot ids, manifests), so
//     EXPLAIN is safe; the texts of the spec's errors are built in
//     errors.go and nowhere else, and never carry a secret.
//  6. Lake splits of a partitioned table are bound to the Fluss partition
//     id the lake snapshot records under the split's partition name
//     (GetLakeSnapshot partition_name); a name recorded for two ids (a
//     partition dropped and created again, both tiered) is an error.
//
// Concurrency: Plan is safe for concurrent use; one call reads the
// partitions of a table with bounded parallelism.
package planner
