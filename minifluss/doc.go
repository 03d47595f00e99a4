// Package minifluss is a protocol-faithful emulator of an Apache Fluss 1.0
// cluster, for tests and demos: one coordinator and N tablet servers in one
// process, each on its own loopback port(s), speaking the real Fluss framing
// (shared/spec/fluss-protocol.md §1) and protobuf bodies (proto/flusspb), and
// storing real-format log batches (§3) on disk.
//
// Starting it from a test:
//
//	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir()})
//	if err != nil { t.Fatal(err) }
//	defer c.Close()
//	bootstrap := c.BootstrapAddr() // "127.0.0.1:port" of the coordinator
//	_ = c.CreateDatabase(ctx, "db")
//	info, _ := c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "t",
//		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}}, Buckets: 2})
//
// then point a client at bootstrap. The Go methods drive the cluster
// without the wire; everything they change is visible through it:
//
//   - DDL: CreateDatabase, DropDatabase, CreateTable (TableSpec) or
//     CreateTableJSON (client table JSON), DropTable, CreatePartition,
//     DropPartition; Table, PartitionID, Leader, Offsets describe state.
//   - Writes: Append / AppendToBucket (log tables, Go values), AppendRecord
//     (an Arrow batch), AppendBatches (pre-encoded log batches), Upsert /
//     Delete and UpsertRecord / DeleteRecord (primary-key tables). Rows are
//     one Go value per column (see values.go for the accepted types);
//     partitions come from the row values and are created when missing.
//   - Retention and tiers: ExpireLog (TTL), ArchiveSegments (remote tier in
//     the §6 layout), SnapshotKv, SetLakeSnapshot (the tiering hook; the
//     emulated tiering service itself lives in lake.go and tier*.go),
//     AutoPartition (one round of the auto-partition task).
//   - Faults: MoveLeader, NotLeaderOnce, DelayNext, DropNext,
//     DropConnections, CutLastBatchOnce, SetScannerTTL.
//   - Scenario files (LoadScenario / ParseScenario, Run) script all of the
//     above; README.md describes the language and cmd/minifluss runs them.
//
// What must stay true (the checklist of spec §11):
//
//  1. Roles: ApiVersions on the coordinator answers server_type 1 and only the
//     coordinator's keys; on a tablet server server_type 2 and only its keys.
//     A request for a key the role does not serve gets no response at all.
//  2. Data RPCs are answered only by the bucket leader of the metadata; any
//     other tablet server answers the bucket with NOT_LEADER_OR_FOLLOWER (12).
//  3. The log store assigns base offsets and commit timestamps on append and
//     never rewrites anything the CRC covers; a 0-record batch consumes one
//     offset; reads return whole batches starting at or before the fetch
//     offset; FetchLog's log_start_offset is always 0.
//  4. Offsets below the local log start are served as remote_log_fetch_info
//     (or, for lake-enabled tables whose lake holds them, as empty records
//     without error); below the log start they are error 19.
//  5. ScanKv enforces call_seq_id = previous + 1 from 0, caps pages at the
//     requested (and 10 MB) size but returns at least one record, closes the
//     session on the last page and sends log_offset on the first.
//  6. Restarting Start on the same DataDir serves the same tables and data.
//  7. ALTER TABLE ADD COLUMN (alter.go) keeps every schema id answerable;
//     batches and KV values keep the id they were written with, -U/-D of
//     an older value are rewritten into the current schema, and a lake
//     table's Paimon schema is evolved before the Fluss one.
//  8. ARROW log tables with table.statistics.columns are written as V1
//     batches with the statistics block the 1.0 producer's collector
//     computes (refused on primary-key tables, as Fluss does); a FetchLog
//     with filter_predicate leaves out the batches whose statistics prove
//     no row matches (filter.go, LogSegment.readWithFilter) and never one
//     that may hold a match.
//
// Concurrency: a Cluster is safe for concurrent use; one lock serialises
// state changes and the short critical sections of reads. Each connection
// reads frames in order and runs requests (other than ApiVersions and
// Authenticate) concurrently, so responses can come back out of order. A
// handler panic closes only its connection.
//
// The emulator never imports catalog/fluss/client: client and emulator are
// each checked against Java-written bytes, not against each other.
package minifluss
