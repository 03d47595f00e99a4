package minifluss

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
)

func TestScannerExpiryAndLimits(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	info := pkTable(t, c, "exp")
	c.Upsert(context.Background(), "kv", "exp", [][]any{{1, "a"}, {2, "b"}})
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	open := func() *flusspb.ScanKvResponse {
		var r flusspb.ScanKvResponse
		cn.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1)}, &r)
		return &r
	}
	var ids [][]byte
	for i := 0; i < maxScannersPerBucket; i++ {
		r := open()
		if r.GetErrorCode() != 0 {
			t.Fatalf("scanner %d: %v", i, r.GetErrorMessage())
		}
		ids = append(ids, r.GetScannerId())
	}
	if r := open(); r.GetErrorCode() != codeTooManyScanners {
		t.Fatalf("scanner %d: code %d, want 69", maxScannersPerBucket+1, r.GetErrorCode())
	}
	c.SetScannerTTL(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	var r flusspb.ScanKvResponse
	cn.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: ids[0], CallSeqId: proto.Int32(1), BatchSizeBytes: proto.Int32(1)}, &r)
	if r.GetErrorCode() != codeScannerExpired {
		t.Fatalf("idle scanner: code %d, want 66", r.GetErrorCode())
	}
	cn.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: ids[0], CallSeqId: proto.Int32(1), BatchSizeBytes: proto.Int32(1)}, &r)
	if r.GetErrorCode() != codeUnknownScannerID {
		t.Fatalf("expired twice: code %d, want 67", r.GetErrorCode())
	}
	c.SetScannerTTL(0)
	if r := open(); r.GetErrorCode() != 0 {
		t.Fatalf("expired scanners still count: %v", r.GetErrorMessage())
	}
}

func TestRemoteFirstReadPreference(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	info := logTable(t, c, "rf", nil)
	for i := 0; i < 3; i++ {
		c.Append(ctx, "r", "rf", [][]any{{i}})
	}
	// archive the first two batches but keep them readable locally
	if err := c.ArchiveSegments(ctx, "r", "rf", "", 0, 2); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	bd, _ := c.bucketLocked(c.cat.tableByID(info.ID), nil, 0)
	bd.log.meta.LocalStart = 0
	c.mu.Unlock()
	fetch := func(pref int32) *flusspb.PbFetchLogRespForBucket {
		var fr flusspb.FetchLogResponse
		cn := dial(t, c.ServerAddr(0, "CLIENT"))
		cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), ReadPreference: proto.Int32(pref),
			TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
				BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(1), MaxFetchBytes: proto.Int32(1 << 20)}}}}}, &fr)
		return fr.GetTablesResp()[0].GetBucketsResp()[0]
	}
	if r := fetch(0); r.GetRemoteLogFetchInfo() != nil || len(r.GetRecords()) == 0 {
		t.Errorf("LOCAL_FIRST: %v", r)
	}
	if r := fetch(1); r.GetRemoteLogFetchInfo() == nil {
		t.Errorf("REMOTE_FIRST: %v", r)
	}
}
