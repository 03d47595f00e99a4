package minifluss

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

func logTable(t *testing.T, c *Cluster, name string, props map[string]string) TableInfo {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "r"); err != nil && asFluss(err).Code != codeDatabaseAlreadyExist {
		t.Fatal(err)
	}
	info, err := c.CreateTable(ctx, TableSpec{Database: "r", Name: name, Buckets: 1, Properties: props,
		Columns: []Column{{Name: "id", Type: typemap.BigInt()}}})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func fetchAt(t *testing.T, c *Cluster, info TableInfo, off int64) *flusspb.PbFetchLogRespForBucket {
	t.Helper()
	leader, _ := c.Leader(info.Database, info.Name, "", 0)
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	var fr flusspb.FetchLogResponse
	if code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20),
		TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(1 << 20)}}}}}, &fr); code != 0 {
		t.Fatalf("fetch: %d", code)
	}
	return fr.GetTablesResp()[0].GetBucketsResp()[0]
}

func listOffset(t *testing.T, c *Cluster, info TableInfo, typ int32, ts int64) (int64, int32) {
	t.Helper()
	leader, _ := c.Leader(info.Database, info.Name, "", 0)
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	var resp flusspb.ListOffsetsResponse
	req := &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(typ), TableId: proto.Int64(info.ID), BucketId: []int32{0}}
	if typ == 2 {
		req.StartTimestamp = proto.Int64(ts)
	}
	if code := cn.call(apiListOffsets, req, &resp); code != 0 {
		t.Fatalf("list offsets: %d", code)
	}
	b := resp.GetBucketsResp()[0]
	return b.GetOffset(), b.GetErrorCode()
}

func TestArchiveExpireAndTimestamps(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	c := startCluster(t, Config{TabletServers: 1, Now: func() time.Time { return now }})
	ctx := context.Background()
	info := logTable(t, c, "ret", nil)
	for i := 0; i < 5; i++ { // five batches of two rows, commit times 1000000, 1001000, ...
		if err := c.Append(ctx, "r", "ret", [][]any{{2 * i}, {2*i + 1}}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
	}
	if off, _ := listOffset(t, c, info, 2, 1_001_500); off != 4 {
		t.Errorf("timestamp 1001500 -> offset %d, want 4", off)
	}
	if off, _ := listOffset(t, c, info, 2, 1_004_500); off != 10 {
		t.Errorf("timestamp after the last batch -> %d, want LATEST 10", off)
	}
	if _, code := listOffset(t, c, info, 2, now.UnixMilli()+60_000); code != codeInvalidTimestamp {
		t.Errorf("future timestamp: code %d, want 38", code)
	}
	if err := c.ArchiveSegments(ctx, "r", "ret", "", 0, 5); err != nil { // rounds down to 4
		t.Fatal(err)
	}
	off, _ := c.Offsets("r", "ret", "", 0)
	if off.LocalStart != 4 || off.LogStart != 0 {
		t.Fatalf("after archive: %+v", off)
	}
	r := fetchAt(t, c, info, 3)
	info3 := r.GetRemoteLogFetchInfo()
	if r.GetErrorCode() != 0 || info3 == nil || len(r.GetRecords()) != 0 {
		t.Fatalf("fetch below local start: %v", r)
	}
	seg := info3.GetRemoteLogSegments()[0]
	if seg.GetRemoteLogStartOffset() != 0 || seg.GetRemoteLogEndOffset() != 4 {
		t.Fatalf("segment %v", seg)
	}
	file := filepath.Join(info3.GetRemoteLogTabletDir(), seg.GetRemoteLogSegmentId(), "00000000000000000000.log")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("remote segment file per §6.1: %v", err)
	}
	if int32(len(data)) != seg.GetSegmentSizeInBytes() {
		t.Errorf("segment size %d, file %d", seg.GetSegmentSizeInBytes(), len(data))
	}
	// offset 3 is in the second batch: first_start_pos points at it
	if pos := info3.GetFirstStartPos(); pos <= 0 || int(pos) >= len(data) {
		t.Errorf("first_start_pos %d", pos)
	}
	hs, err := splitBatches(data[info3.GetFirstStartPos():])
	if err != nil || hs[0].baseOffset != 2 {
		t.Errorf("batch at first_start_pos: %v %v", hs, err)
	}
	// the manifest is listed by the coordinator
	cn := dial(t, c.BootstrapAddr())
	var mr flusspb.ListRemoteLogManifestsResponse
	if code := cn.call(apiListRemoteLogManifests, &flusspb.ListRemoteLogManifestsRequest{TableId: proto.Int64(info.ID)}, &mr); code != 0 || len(mr.GetManifests()) != 1 {
		t.Fatalf("manifests: %d %v", code, mr.GetManifests())
	}
	raw, err := os.ReadFile(mr.GetManifests()[0].GetRemoteLogManifestPath())
	if err != nil || !strings.Contains(string(raw), `"remote_log_segments":[{"segment_id":"`+seg.GetRemoteLogSegmentId()) {
		t.Fatalf("manifest %s %v", raw, err)
	}
	// local reads still work above the local start
	if r := fetchAt(t, c, info, 4); len(r.GetRecords()) == 0 || r.GetRemoteLogFetchInfo() != nil {
		t.Fatalf("local fetch: %v", r)
	}
	// expire: start moves, earlier offsets are gone
	if err := c.ExpireLog(ctx, "r", "ret", "", 0, 7); err != nil {
		t.Fatal(err)
	}
	if off, _ := listOffset(t, c, info, 0, 0); off != 6 {
		t.Errorf("EARLIEST after expire: %d, want 6 (batch boundary)", off)
	}
	if r := fetchAt(t, c, info, 2); r.GetErrorCode() != codeLogOffsetOutOfRange {
		t.Errorf("expired offset: code %d, want 19", r.GetErrorCode())
	}
	if r := fetchAt(t, c, info, -2); r.GetErrorCode() != 0 || int64(len(r.GetRecords())) == 0 {
		t.Errorf("fetch earliest: %v", r)
	}
	leader, _ := c.Leader("r", "ret", "", 0)
	tc := dial(t, c.ServerAddr(leader, "CLIENT"))
	var st flusspb.GetTableStatsResponse
	tc.call(apiGetTableStats, &flusspb.GetTableStatsRequest{TableId: proto.Int64(info.ID), BucketsReq: []*flusspb.PbTableStatsReqForBucket{{BucketId: proto.Int32(0)}}}, &st)
	if st.GetBucketsResp()[0].GetRowCount() != 4 {
		t.Errorf("row count %v, want 4 retained", st.GetBucketsResp()[0])
	}
}

func TestLakeTieredFetchAndSnapshot(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1, DatalakeFormat: "paimon"})
	ctx := context.Background()
	info := logTable(t, c, "lake", map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"})
	cn := dial(t, c.BootstrapAddr())
	var ls flusspb.GetLakeSnapshotResponse
	if code := cn.call(apiGetLakeSnapshot, &flusspb.GetLakeSnapshotRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("r"), TableName: proto.String("lake")}}, &ls); code != codeLakeSnapshotNotExist {
		t.Fatalf("no snapshot yet: code %d, want 53", code)
	}
	for i := 0; i < 3; i++ {
		if err := c.AppendToBucket(ctx, "r", "lake", 0, [][]any{{i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetLakeSnapshot(ctx, "r", "lake", 11, nil, []LakeBucketOffset{{Bucket: 0, LogOffset: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := c.ArchiveSegments(ctx, "r", "lake", "", 0, 2); err != nil {
		t.Fatal(err)
	}
	if code := cn.call(apiGetLakeSnapshot, &flusspb.GetLakeSnapshotRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("r"), TableName: proto.String("lake")}, Readable: proto.Bool(true)}, &ls); code != 0 {
		t.Fatalf("snapshot: %d", code)
	}
	if ls.GetSnapshotId() != 11 || ls.GetBucketSnapshots()[0].GetLogOffset() != 2 || ls.GetTableId() != info.ID {
		t.Fatalf("snapshot %v", &ls)
	}
	// below the local start but tiered: empty records, no error (spec §2.6)
	var ti flusspb.GetTableInfoResponse
	cn.call(apiGetTableInfo, &flusspb.GetTableInfoRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("r"), TableName: proto.String("lake")}}, &ti)
	var d map[string]any
	if err := json.Unmarshal(ti.GetTableJson(), &d); err != nil {
		t.Fatal(err)
	}
	props := d["properties"].(map[string]any)
	if props["table.datalake.format"] != "paimon" || props["table.replication.factor"] == nil || d["bucket_count"].(float64) != 1 {
		t.Errorf("table json lacks injected properties: %s", ti.GetTableJson())
	}
	if r := fetchAt(t, c, info, 1); r.GetErrorCode() != 0 || len(r.GetRecords()) != 0 || r.GetRemoteLogFetchInfo() != nil {
		t.Errorf("tiered offset below the local start: %v", r)
	}
	if r := fetchAt(t, c, info, 2); len(r.GetRecords()) == 0 {
		t.Errorf("local offset: %v", r)
	}
}

func TestPersistenceAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Start(ctx, Config{DataDir: dir, TabletServers: 2})
	if err != nil {
		t.Fatal(err)
	}
	info := logTable(t, c, "keep", nil)
	c.Append(ctx, "r", "keep", [][]any{{1}, {2}})
	pk := pkTable(t, c, "pkeep")
	c.Upsert(ctx, "kv", "pkeep", [][]any{{1, "a"}, {2, "b"}})
	c.Delete(ctx, "kv", "pkeep", [][]any{{1}})
	c.ArchiveSegments(ctx, "r", "keep", "", 0, 2)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := startCluster(t, Config{DataDir: dir, TabletServers: 2})
	got, err := c2.Table("r", "keep")
	if err != nil || got.ID != info.ID || string(got.JSON) != string(info.JSON) {
		t.Fatalf("table after restart: %+v %v", got, err)
	}
	off, _ := c2.Offsets("r", "keep", "", 0)
	if off.HighWatermark != 2 || off.LocalStart != 2 {
		t.Fatalf("offsets after restart: %+v", off)
	}
	if r := fetchAt(t, c2, info, 0); r.GetRemoteLogFetchInfo() == nil {
		t.Fatalf("remote segment lost: %v", r)
	}
	leader, _ := c2.Leader("kv", "pkeep", "", 0)
	cn := dial(t, c2.ServerAddr(leader, "CLIENT"))
	var sr flusspb.ScanKvResponse
	cn.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(pk.ID), BucketId: proto.Int32(0)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1 << 20)}, &sr)
	if vals := decodeValueBatch(t, sr.GetRecords()); len(vals) != 1 || sr.GetLogOffset() != 3 || sr.GetHasMoreResults() {
		t.Fatalf("kv after restart: %d values, log offset %d", len(vals), sr.GetLogOffset())
	}
	// new writes continue the offsets
	if err := c2.Append(ctx, "r", "keep", [][]any{{3}}); err != nil {
		t.Fatal(err)
	}
	if off, _ := c2.Offsets("r", "keep", "", 0); off.HighWatermark != 3 {
		t.Fatalf("append after restart: %+v", off)
	}
}

// A delayed response comes back after a later one on the same connection.
func TestDelayReordersResponses(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	c.DelayNext(apiListDatabases, 300*time.Millisecond, 1)
	cn := dial(t, c.BootstrapAddr())
	slow := cn.send(apiListDatabases, 0, &flusspb.ListDatabasesRequest{})
	fast := cn.send(apiListDatabases, 0, &flusspb.ListDatabasesRequest{})
	_, first, _ := cn.recv()
	_, second, _ := cn.recv()
	if first != fast || second != slow {
		t.Fatalf("order %d, %d; want %d then %d", first, second, fast, slow)
	}
	c.DropNext(apiListDatabases, 1)
	cn.send(apiListDatabases, 0, &flusspb.ListDatabasesRequest{})
	cn.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := cn.r.ReadByte(); err == nil {
		t.Fatal("dropped request got an answer")
	}
}
