// Package client is the Go Fluss 1.0 wire client: framed TCP connections with
// ApiVersions negotiation and SASL PLAIN, a pool keyed by client
// configuration, cluster metadata and bucket leaders, the read-only RPCs
// (catalog, offsets, FETCH_LOG, lake and KV snapshots, SCAN_KV, LIMIT_SCAN,
// table stats, security tokens, remote-log manifests), and bounded readers
// that turn a bucket's log or primary-key state into Arrow record batches.
//
// Concurrency: a Client and a Pool are shared and safe for concurrent use;
// many requests are pipelined on one connection and answers are matched by
// request id in whatever order they arrive. A KvScan or a reader belongs to
// one goroutine.
//
// Entry points:
//
//	New(cfg, WithPool, WithLogger, WithFS) *Client   no I/O until the first call
//	ConfigFromProperties(props)                      Fluss client property names
//	NewPool(log); Pool.Stats()                        shared connections, counters
//	ListDatabases / DatabaseExists / GetDatabaseInfo / ListTables / TableExists
//	GetTableInfo (descriptor JSON decoded by catalog/fluss/record) / GetTableSchema
//	ListPartitionInfos / GetMetadata / Buckets
//	ListOffsets / ListBucketOffsets / BucketOffset (Earliest, Latest, AtTimestamp)
//	FetchLog / LimitScan / Lookup / OpenKvScan (SCAN_KV) / GetTableStats
//	LatestLakeSnapshot / ReadableLakeSnapshot / LakeSnapshotByID
//	LatestKvSnapshots / GetKvSnapshotMetadata / ListKvSnapshots
//	GetFileSystemSecurityToken / ListRemoteLogManifests
//	TableInfo.LogRange / TableInfo.PKRange   ranges from a table's descriptor
//	NewLogReader(ctx, LogRange, mem)  bounded [start, stop) of one bucket
//	NewPKReader(ctx, PKRange, mem)    live rows of one primary-key bucket
//
// What must stay true:
//
//  1. Frame headers are big-endian and laid out as drawn in frame.go; a
//     response's length is checked against Config.MaxFrameSize before its
//     body is allocated; a SERVER_FAILURE frame (type 2) carries no request
//     id and ends the connection.
//  2. No request is sent with an API key the server did not advertise in
//     ApiVersions; the version used is min(client max, server max).
//  3. A server-reported failure is an *Error{Code, Message}; errors.Is maps
//     it to this package's sentinel kinds (ErrNotLeader, ErrTableNotExist,
//     ...). Every error names the API, server, table or bucket it concerns.
//  4. Secrets (SASL password, security-token bytes) never appear in errors,
//     logs or String output.
//  5. Bucket requests go to the bucket's leader (grouped per leader where
//     the RPC takes several buckets); a not-leader answer or an unreachable
//     leader reloads metadata and retries a bounded number of times. Only
//     idempotent reads are retried on a broken connection; SCAN_KV
//     continuations never are.
//  6. Pooled connections are keyed by the digest of the whole Config and
//     closed after Config.IdleTimeout (60 s by default) without use.
//  7. No package-level state: config, logger, pool and file system are
//     passed in.
//  8. Readers deliver each offset of [start, stop) at most once and in
//     order; they never spin: a fetch round that makes no progress is
//     retried a bounded number of times, and "below the local log start,
//     no records, no remote segments" (data tiered to the lake) ends the
//     read with ErrLogExpired.
//  9. The PK reader's result is the state at the changelog offset it
//     reports (StopOffset): SCAN_KV rows whose key the changelog
//     [LogOffset, StopOffset) touched are replaced by the changelog's last
//     word for that key (+I/+U/+A upsert, -D delete, -U ignored).
//  10. Schema evolution: a log batch or KV value of another schema id than
//     the read's is decoded with its own schema (GET_TABLE_SCHEMA, cached
//     per table id and schema id) and mapped onto the read's columns by
//     column id, never by position: NULL where it lacks a column, newer
//     columns dropped; a changed name or type is ErrUnsupported.
package client
