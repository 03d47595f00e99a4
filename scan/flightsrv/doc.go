// Package flightsrv is the BE's Arrow Flight service: DoGet takes a ticket
// holding a serialized inletpb.Fragment, runs it on a scan executor and
// streams the batches back to the FE (package dispatch reads them).
//
// What must stay true:
//
//  1. Every call carries the cluster secret (gRPC metadata SecretHeader);
//     it is compared in constant time and a mismatch is Unauthenticated
//     before any work. The one exception is the cluster challenge
//     (DoAction ChallengeAction), whose answer proves the secret without
//     revealing it, and only for this BE's own addresses; and a Flight SQL
//     client's direct ticket (internal/directticket), a fragment the FE
//     signed with the secret until the statement's query_timeout: it is
//     checked before any work, the stream ends at the expiry, and it is a
//     plain Flight stream (schema and batches, no app metadata). The secret and the fragment's client and storage
//     options are never logged or put in an error.
//  2. Stream shape: first the schema (sent at once, so the FE knows the
//     columns before any row), then batches each holding rows of ONE range
//     and naming it in its app metadata (inletpb.FlightMeta.range_id),
//     then, when a range is complete, a batch-less message with
//     range_done and the range's row count, and last a batch-less message
//     with the fragment's counters (FlightMeta.stats). A stream without
//     that last message is incomplete: the FE treats it as a BE failure.
//     Ranges therefore run as one-range fragments on the executor, up to
//     max_concurrency at once (the executor does not tag batches).
//  3. Failures end the stream with a gRPC status whose details hold an
//     inletpb.ScanError (code + message); the FE reads the code, never the
//     text.
//  4. The FE cancelling the stream (query cancelled, killed, LIMIT
//     reached, client gone) cancels the executor's context: readers stop
//     and every batch in flight is released before DoGet returns.
//  5. LIMIT caps the rows this stream sends in total.
//  6. Metrics (Config.Metrics, served as /metrics by cmd/be): fragments,
//     ranges/rows/bytes per range kind, errors per code, auth failures,
//     Fluss connections opened, admission waits, open streams; and the
//     same work under Doris's BE names (doris_be_fragment_requests_total,
//     doris_be_query_scan_rows, …) for dashboards made for Doris.
package flightsrv
