// Package dispatch is the FE side of FE↔BE: it sends a planned fragment's
// ranges to the BEs (over Arrow Flight, or to an executor in this process
// through the same Backend interface), merges their streams into one
// exec.StatsReader, and sums their counters.
//
// What must stay true:
//
//  1. Placement. Ranges go to the live BEs by rendezvous hashing of
//     Range.affinity over the BE names, so every range of one (partition,
//     bucket) — its lake splits and its tail — runs on one BE, and the
//     choice is stable while the set of BEs is. A BE that is down when the
//     query starts (expired registration, recently failed, connection
//     refused) is skipped: its ranges go to the next BE.
//  2. One stream. Run returns one stream whose schema is the fragment's
//     output_schema (known before the first batch). The merge buffers at
//     most Config.Buffer batches (plus the hold of rule 4), so a slow
//     consumer slows the BEs down. A LIMIT (Fragment.limit >= 0) caps the
//     union of all BEs' rows. Cancelling ctx, reaching the limit or
//     releasing the stream cancels every BE's gRPC stream, and the BE stops
//     its readers; Release returns only after every BE stream was released.
//  3. Exactness when a BE dies mid-query. Every batch a BE sends holds rows
//     of one range and names it (inletpb.FlightMeta); a range's completion
//     is its own message carrying the range's row count, checked against
//     the rows received. The FE counts, per range, the rows it passed on.
//     When a stream breaks below the application (BE crash, dropped
//     connection, a stream that ends without its last message), the BE's
//     unfinished ranges are re-run on another live BE, and the re-run
//     skips, per range, as many leading rows as were already passed on. The
//     rule is chosen over holding every range's rows until it completes
//     because it keeps buffering bounded (a lake split can be millions of
//     rows). It is valid only for ranges whose output is the same rows in
//     the same order every time: LOG (offset order), PK_TAIL (first-seen
//     order of a fixed offset interval), LAKE and LAKE_SUPPRESS (a pinned
//     snapshot's files in a fixed order; suppression by a fixed tail),
//     with the fragment's row-wise filters on top. LIMIT keeps it valid:
//     a stopped range has still sent a prefix of its output.
//  4. PK_FULL is not repeatable: SCAN_KV reads the live state at whatever
//     offset it starts from and the changelog after it, so a re-run yields
//     the same rows in another order. Its batches are therefore held until
//     the range completes, up to Config.HoldBytes per query; past that the
//     range streams, and if its BE then dies the query fails with
//     ErrBackendLost rather than risk a row twice or a row lost. A BE whose
//     stream ends cleanly with a range unfinished stopped at the LIMIT: the
//     rows held for that range are passed on.
//  5. Errors. A BE reports failures as an inletpb.ScanError code in the
//     gRPC status details; the FE maps codes to the sentinels of errors.go
//     (BackendError, errors.Is) and never parses text. An in-process
//     Backend's errors get their code from Config.Classify. Only a broken
//     stream is retried; a BE's own error fails the query. A wrong cluster
//     secret is ErrAuth. The secret never appears in an error or log.
//  6. Memory. Batches decoded from a Flight stream are charged to the
//     statement's account (exec/memlimit.Charge) from the moment the pump
//     has them (channel, pump, held back) until the last reference to
//     their buffers is released, by the consumer or an operator that held
//     them (a build side), or until they are dropped (window.go): their
//     bodies are gRPC's memory, which the allocator never sees.
//
// Concurrency: a Dispatcher, a Registry and a FlightBackend are shared and
// safe for concurrent use; a stream returned by Run or Execute belongs to
// one goroutine.
package dispatch
