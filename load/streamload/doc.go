// Package streamload is Doris's Stream Load HTTP API for Inlet's internal
// tables: `PUT /api/{db}/{table}/_stream_load` with the load's options in
// HTTP headers and the rows in the body (CSV or JSON), answered with
// Doris's JSON result.
//
// Two legs, as in Doris. The FE leg (FE) authenticates the user, checks that
// the user holds LOAD_PRIV on the table and that it exists, and answers 307
// with the address of a BE HTTP listener carrying the same path and query;
// it never reads the body (so a client sending `Expect: 100-continue`
// uploads nothing to the FE). The BE leg (BE) authenticates again (a client
// may load at a BE directly), decodes the body as it arrives into Arrow
// batches of the table's schema and hands them, as one stream, to the
// table's catalog.Loader. Decoding runs one batch ahead of the Loader in
// its own goroutine; a plain CSV body (no enclose, no where, every column
// loaded as is) is cut into chunks at row boundaries and decoded on every
// core, the batches handed on in body order (parallel.go). Source values are text: a column loaded as is parses
// straight into its builder (convert.go); derived columns and where are
// bound by fe/bind over the text columns and evaluated by exec/expr.
//
// Where the tables live decides what Tables a BE uses. The BE inside the
// FE process opens the internal catalog directly (CatalogTables). A BE in
// its own process (cmd/be) has no catalog: RemoteTables asks the FE's
// internal endpoints (remote.go, guarded by the cluster secret) for the
// schema, with the user's credentials, which the FE checks again, and
// streams its decoded batches to the FE as Arrow IPC; the FE loads them,
// and commits only if the BE's end-of-stream trailer says every batch
// arrived. Decoding, the CPU-heavy part, stays on the BE; the FE does what
// it must, the durable commit of its own table files.
//
// What must stay true:
//   - A load is all or nothing: every rejection that fails the load (a bad
//     header, a body over the size limit, a malformed document, filtered
//     rows over max_filter_ratio, a cancelled request) surfaces as the
//     error of the record stream given to Load, so the table never shows
//     part of it. Filtered rows inside the ratio are dropped from the
//     stream before Load sees them.
//   - Nothing reads the body before authentication and the table and
//     privilege checks pass.
//   - The body streams: memory is bounded by the batch size (rows and
//     bytes), the chunks in flight (a few per core) and the error log's
//     cap, never by the body.
//   - Parallel decoding changes nothing a client sees: rows, counters,
//     error-log row numbers and order are the serial path's.
//   - Every rejected row is counted once, in NumberFilteredRows (bad format,
//     conversion failure in strict mode, NULL into NOT NULL) or
//     NumberUnselectedRows (the where predicate), and
//     NumberTotalRows = loaded + filtered + unselected.
//   - Decoders never panic on any input (FuzzCSV, FuzzJSON).
//   - Passwords never enter an answer, an error or a log line.
//
// Concurrency: FE and BE handlers are shared by all requests; one Load is
// one goroutine's.
package streamload
