package minifluss

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

func pbPath(db, t string) *flusspb.PbTablePath {
	return &flusspb.PbTablePath{DatabaseName: proto.String(db), TableName: proto.String(t)}
}

// DDL and catalog reads through the coordinator, reads also through a tablet server.
func TestDDLOverRPC(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 2, DatalakeFormat: "paimon"})
	co := dial(t, c.BootstrapAddr())
	if code := co.call(apiCreateDatabase, &flusspb.CreateDatabaseRequest{DatabaseName: proto.String("d"), IgnoreIfExists: proto.Bool(false)}, &flusspb.CreateDatabaseResponse{}); code != 0 {
		t.Fatalf("create db: %d", code)
	}
	if code := co.call(apiCreateDatabase, &flusspb.CreateDatabaseRequest{DatabaseName: proto.String("d"), IgnoreIfExists: proto.Bool(false)}, &flusspb.CreateDatabaseResponse{}); code != codeDatabaseAlreadyExist {
		t.Fatalf("create db twice: %d", code)
	}
	js := `{"version":1,"schema":{"version":1,"columns":[{"name":"id","data_type":{"type":"BIGINT"}},{"name":"dt","data_type":{"type":"STRING"}},{"name":"v","data_type":{"type":"DECIMAL","precision":20,"scale":2}}],"primary_key":["id","dt"]},"comment":"c","partition_key":["dt"],"bucket_count":4,"properties":{"table.datalake.enabled":"true"},"custom_properties":{"k":"v"}}`
	if code := co.call(apiCreateTable, &flusspb.CreateTableRequest{TablePath: pbPath("d", "t"), TableJson: []byte(js), IgnoreIfExists: proto.Bool(false)}, &flusspb.CreateTableResponse{}); code != 0 {
		t.Fatalf("create table: %d", code)
	}
	if code := co.call(apiCreatePartition, &flusspb.CreatePartitionRequest{TablePath: pbPath("d", "t"), IgnoreIfNotExists: proto.Bool(false),
		PartitionSpec: &flusspb.PbPartitionSpec{PartitionKeyValues: []*flusspb.PbKeyValue{{Key: proto.String("dt"), Value: proto.String("2024")}}}}, &flusspb.CreatePartitionResponse{}); code != 0 {
		t.Fatalf("create partition: %d", code)
	}
	if code := co.call(apiCreatePartition, &flusspb.CreatePartitionRequest{TablePath: pbPath("d", "t"), IgnoreIfNotExists: proto.Bool(false),
		PartitionSpec: &flusspb.PbPartitionSpec{PartitionKeyValues: []*flusspb.PbKeyValue{{Key: proto.String("dt"), Value: proto.String("__x")}}}}, &flusspb.CreatePartitionResponse{}); code != codePartitionSpecInvalid {
		t.Fatalf("reserved partition value: %d", code)
	}
	ts := dial(t, c.ServerAddr(1, "CLIENT"))
	var ti flusspb.GetTableInfoResponse
	if code := ts.call(apiGetTableInfo, &flusspb.GetTableInfoRequest{TablePath: pbPath("d", "t")}, &ti); code != 0 {
		t.Fatalf("table info from a tablet server: %d", code)
	}
	var d struct {
		Schema struct {
			Columns []struct {
				Name     string          `json:"name"`
				DataType json.RawMessage `json:"data_type"`
				ID       int             `json:"id"`
			} `json:"columns"`
			HighestFieldID int `json:"highest_field_id"`
		} `json:"schema"`
		BucketKey  []string          `json:"bucket_key"`
		Properties map[string]string `json:"properties"`
		Custom     map[string]string `json:"custom_properties"`
	}
	if err := json.Unmarshal(ti.GetTableJson(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.BucketKey) != 1 || d.BucketKey[0] != "id" || d.Properties["table.kv.format-version"] != "2" || d.Properties["table.datalake.format"] != "paimon" ||
		d.Properties["table.kv.standby-replica.enabled"] != "true" || d.Custom["k"] != "v" || d.Schema.HighestFieldID != 2 || d.Schema.Columns[2].ID != 2 ||
		string(d.Schema.Columns[0].DataType) != `{"type":"BIGINT","nullable":false}` {
		t.Fatalf("table json: %s", ti.GetTableJson())
	}
	var lt flusspb.ListTablesResponse
	if code := ts.call(apiListTables, &flusspb.ListTablesRequest{DatabaseName: proto.String("d")}, &lt); code != 0 || len(lt.GetTableName()) != 1 {
		t.Fatalf("list tables: %d %v", code, lt.GetTableName())
	}
	var ex flusspb.TableExistsResponse
	ts.call(apiTableExists, &flusspb.TableExistsRequest{TablePath: pbPath("d", "nope")}, &ex)
	if ex.GetExists() {
		t.Fatal("nope exists")
	}
	var sc flusspb.GetTableSchemaResponse
	if code := ts.call(apiGetTableSchema, &flusspb.GetTableSchemaRequest{TablePath: pbPath("d", "t"), SchemaId: proto.Int32(7)}, &sc); code != codeSchemaNotExist {
		t.Fatalf("unknown schema id: %d", code)
	}
	var ld flusspb.ListDatabasesResponse
	ts.call(apiListDatabases, &flusspb.ListDatabasesRequest{IncludeSummary: proto.Bool(true)}, &ld)
	if len(ld.GetDatabaseName()) != 0 || len(ld.GetDatabaseSummary()) != 1 || ld.GetDatabaseSummary()[0].GetTableCount() != 1 {
		t.Fatalf("summaries: %v", &ld)
	}
	// a tablet server does not serve DDL: no answer; the coordinator does
	ts.send(apiDropTable, 0, &flusspb.DropTableRequest{TablePath: pbPath("d", "t"), IgnoreIfNotExists: proto.Bool(false)})
	if code := co.call(apiDropDatabase, &flusspb.DropDatabaseRequest{DatabaseName: proto.String("d"), IgnoreIfNotExists: proto.Bool(false), Cascade: proto.Bool(false)}, &flusspb.DropDatabaseResponse{}); code != codeDatabaseNotEmpty {
		t.Fatalf("drop non-empty db: %d", code)
	}
	if code := co.call(apiDropTable, &flusspb.DropTableRequest{TablePath: pbPath("d", "t"), IgnoreIfNotExists: proto.Bool(false)}, &flusspb.DropTableResponse{}); code != 0 {
		t.Fatalf("drop table: %d", code)
	}
	if code := co.call(apiGetTableInfo, &flusspb.GetTableInfoRequest{TablePath: pbPath("d", "t")}, &ti); code != codeTableNotExist {
		t.Fatalf("dropped table: %d", code)
	}
}

func TestDelayedFetchWakesOnAppend(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	info := logTable(t, c, "wait", nil)
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	id := cn.send(apiFetchLog, 0, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), MinBytes: proto.Int32(1), MaxWaitMs: proto.Int32(20_000),
		TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(0), MaxFetchBytes: proto.Int32(1 << 20)}}}}})
	// the fetch is parked; a ListOffsets on the same connection overtakes it
	lo := cn.send(apiListOffsets, 0, &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(1), TableId: proto.Int64(info.ID), BucketId: []int32{0}})
	if _, rid, _ := cn.recv(); rid != lo {
		t.Fatalf("first response %d, want the ListOffsets %d", rid, lo)
	}
	if err := c.Append(context.Background(), "r", "wait", [][]any{{1}}); err != nil {
		t.Fatal(err)
	}
	_, rid, body := cn.recv()
	var fr flusspb.FetchLogResponse
	if err := proto.Unmarshal(body, &fr); err != nil || rid != id || len(fr.GetTablesResp()[0].GetBucketsResp()[0].GetRecords()) == 0 {
		t.Fatalf("woken fetch: id %d err %v", rid, err)
	}
}

func TestCutLastBatch(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	info := logTable(t, c, "cut", nil)
	for i := 0; i < 3; i++ {
		c.Append(context.Background(), "r", "cut", [][]any{{i}})
	}
	whole := fetchAt(t, c, info, 0).GetRecords()
	c.CutLastBatchOnce(info.ID, -1, 0)
	torn := fetchAt(t, c, info, 0).GetRecords()
	if len(torn) >= len(whole) || string(torn) != string(whole[:len(torn)]) {
		t.Fatalf("torn %d bytes of %d", len(torn), len(whole))
	}
	if _, err := splitBatches(torn); err == nil {
		t.Fatal("torn tail not torn")
	}
	if again := fetchAt(t, c, info, 0).GetRecords(); len(again) != len(whole) {
		t.Fatal("cut applied twice")
	}
}

func TestKvSnapshotsLimitScanPrefix(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 2})
	ctx := context.Background()
	c.CreateDatabase(ctx, "s")
	info, err := c.CreateTable(ctx, TableSpec{Database: "s", Name: "t", Buckets: 1, PrimaryKey: []string{"a", "b"}, BucketKeys: []string{"a"},
		Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.Int()}, {Name: "v", Type: typemap.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	c.Upsert(ctx, "s", "t", [][]any{{1, 1, "x"}, {1, 2, "y"}, {2, 1, "z"}})
	co := dial(t, c.BootstrapAddr())
	var ks flusspb.GetLatestKvSnapshotsResponse
	co.call(apiGetLatestKvSnapshots, &flusspb.GetLatestKvSnapshotsRequest{TablePath: pbPath("s", "t")}, &ks)
	if len(ks.GetLatestSnapshots()) != 1 || ks.GetLatestSnapshots()[0].SnapshotId != nil {
		t.Fatalf("before snapshot: %v", &ks)
	}
	if err := c.SnapshotKv(ctx, "s", "t", ""); err != nil {
		t.Fatal(err)
	}
	co.call(apiGetLatestKvSnapshots, &flusspb.GetLatestKvSnapshotsRequest{TablePath: pbPath("s", "t")}, &ks)
	s0 := ks.GetLatestSnapshots()[0]
	if s0.GetSnapshotId() != 1 || s0.GetLogOffset() != 3 {
		t.Fatalf("snapshot: %v", s0)
	}
	var md flusspb.GetKvSnapshotMetadataResponse
	if code := co.call(apiGetKvSnapshotMetadata, &flusspb.GetKvSnapshotMetadataRequest{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0), SnapshotId: proto.Int64(1)}, &md); code != 0 || md.GetLogOffset() != 3 || md.GetSnapshotFiles()[0].GetLocalFileName() != "_METADATA" {
		t.Fatalf("snapshot metadata: %d %v", code, &md)
	}
	if code := co.call(apiGetKvSnapshotMetadata, &flusspb.GetKvSnapshotMetadataRequest{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0), SnapshotId: proto.Int64(9)}, &md); code != codeKvSnapshotNotExist {
		t.Fatalf("missing snapshot: %d", code)
	}
	leader, _ := c.Leader("s", "t", "", 0)
	ts := dial(t, c.ServerAddr(leader, "CLIENT"))
	var ls flusspb.LimitScanResponse
	ts.call(apiLimitScan, &flusspb.LimitScanRequest{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0), Limit: proto.Int32(2)}, &ls)
	if ls.GetIsLogTable() || len(decodeValueBatch(t, ls.GetRecords())) != 2 {
		t.Fatalf("limit scan: %v", &ls)
	}
	// bucket key (a) differs from the PK (a, b): PK bytes are compacted, a's bytes are a prefix
	var pr flusspb.PrefixLookupResponse
	ts.call(apiPrefixLookup, &flusspb.PrefixLookupRequest{TableId: proto.Int64(info.ID), BucketsReq: []*flusspb.PbPrefixLookupReqForBucket{{BucketId: proto.Int32(0), Keys: [][]byte{{1}, {2}, {3}}}}}, &pr)
	vl := pr.GetBucketsResp()[0].GetValueLists()
	if len(vl) != 3 || len(vl[0].GetValues()) != 2 || len(vl[1].GetValues()) != 1 || len(vl[2].GetValues()) != 0 {
		t.Fatalf("prefix lookup: %v", vl)
	}
	// a scan opened before the leader moves fails with NOT_LEADER on its next page
	var sr flusspb.ScanKvResponse
	ts.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1)}, &sr)
	if !sr.GetHasMoreResults() {
		t.Fatal("expected more pages")
	}
	c.MoveLeader(ctx, "s", "t", "", 0, 1-leader)
	var next flusspb.ScanKvResponse
	ts.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: sr.GetScannerId(), CallSeqId: proto.Int32(1), BatchSizeBytes: proto.Int32(1)}, &next)
	if next.GetErrorCode() != codeNotLeaderOrFollower {
		t.Fatalf("scan after leader move: %d", next.GetErrorCode())
	}
	// limit and early close on the new leader
	nl := dial(t, c.ServerAddr(1-leader, "CLIENT"))
	nl.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0), Limit: proto.Int64(1)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1 << 20)}, &sr)
	if sr.GetHasMoreResults() || len(decodeValueBatch(t, sr.GetRecords())) != 1 {
		t.Fatalf("limit 1: %v", &sr)
	}
	nl.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1)}, &sr)
	var cl flusspb.ScanKvResponse
	nl.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: sr.GetScannerId(), CloseScanner: proto.Bool(true)}, &cl)
	if cl.GetErrorCode() != 0 || cl.GetHasMoreResults() {
		t.Fatalf("close: %v", &cl)
	}
}

func TestStatisticsColumnsGiveV1AndFirstRow(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	info := logTable(t, c, "v1", map[string]string{"table.statistics.columns": "id"})
	c.Append(ctx, "r", "v1", [][]any{{1}, {2}})
	blob := fetchAt(t, c, info, 0).GetRecords()
	if blob[12] != 1 {
		t.Fatalf("magic %d, want V1", blob[12])
	}
	rows, _ := decodeAll(t, blob, []typemap.Column{{Name: "id", Type: typemap.BigInt()}}, true)
	if len(rows) != 2 {
		t.Fatalf("V1 rows %v", rows)
	}
	c.CreateDatabase(ctx, "fr")
	if _, err := c.CreateTable(ctx, TableSpec{Database: "fr", Name: "t", Buckets: 1, PrimaryKey: []string{"id"},
		Properties: map[string]string{"table.merge-engine": "first_row"}, Columns: []Column{{Name: "id", Type: typemap.Int()}, {Name: "v", Type: typemap.Int()}}}); err != nil {
		t.Fatal(err)
	}
	c.Upsert(ctx, "fr", "t", [][]any{{1, 1}})
	c.Upsert(ctx, "fr", "t", [][]any{{1, 2}})
	c.Delete(ctx, "fr", "t", [][]any{{1}})
	if off, _ := c.Offsets("fr", "t", "", 0); off.HighWatermark != 3 { // +I, then two empty batches
		t.Fatalf("first_row changelog end %d", off.HighWatermark)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "fr", Name: "agg", Buckets: 1, PrimaryKey: []string{"id"},
		Properties: map[string]string{"table.merge-engine": "aggregation"}, Columns: []Column{{Name: "id", Type: typemap.Int()}}}); err == nil {
		t.Fatal("aggregation merge engine accepted")
	}
}

// Close does not wait for parked fetches to time out.
func TestCloseWakesParkedFetch(t *testing.T) {
	c, err := Start(context.Background(), Config{DataDir: t.TempDir(), TabletServers: 1})
	if err != nil {
		t.Fatal(err)
	}
	info := logTable(t, c, "park", nil)
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	cn.send(apiFetchLog, 0, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), MinBytes: proto.Int32(1), MaxWaitMs: proto.Int32(30_000),
		TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(0), MaxFetchBytes: proto.Int32(1 << 20)}}}}})
	// make sure the request is parked before closing
	lo := cn.send(apiListOffsets, 0, &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(1), TableId: proto.Int64(info.ID), BucketId: []int32{0}})
	if _, rid, _ := cn.recv(); rid != lo {
		t.Fatalf("got %d", rid)
	}
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the parked fetch")
	}
}
