package minifluss

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// Everything over the wire: CreateDatabase/CreateTable on the coordinator,
// Metadata for the leader, ProduceLog of a client-encoded ZSTD Arrow batch,
// FetchLog, and the bytes decoded by record.
func TestWireCreateProduceFetch(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 3})
	co := dial(t, c.BootstrapAddr())
	co.call(apiCreateDatabase, &flusspb.CreateDatabaseRequest{DatabaseName: proto.String("w"), IgnoreIfExists: proto.Bool(true)}, &flusspb.CreateDatabaseResponse{})
	js := `{"version":1,"schema":{"version":1,"columns":[{"name":"id","data_type":{"type":"BIGINT"}},{"name":"s","data_type":{"type":"STRING"}}]},"partition_key":[],"bucket_key":["id"],"bucket_count":3,"properties":{},"custom_properties":{}}`
	if code := co.call(apiCreateTable, &flusspb.CreateTableRequest{TablePath: pbPath("w", "t"), TableJson: []byte(js), IgnoreIfExists: proto.Bool(false)}, &flusspb.CreateTableResponse{}); code != 0 {
		t.Fatalf("create: %d", code)
	}
	var md flusspb.MetadataResponse
	if code := co.call(apiGetMetadata, &flusspb.MetadataRequest{TablePath: []*flusspb.PbTablePath{pbPath("w", "t")}}, &md); code != 0 {
		t.Fatalf("metadata: %d", code)
	}
	tm := md.GetTableMetadata()[0]
	leader := tm.GetBucketMetadata()[2].GetLeaderId()
	var addr string
	for _, n := range md.GetTabletServers() {
		if n.GetNodeId() == leader {
			addr = c.cfg.Host + ":" + itoa(n.GetPort())
		}
	}
	cols := []typemap.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "s", Type: typemap.String()}}
	schema, _ := typemap.ArrowSchema(cols)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 20, 30}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"x", "", "z"}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	enc, err := record.NewArrowEncoder(record.CompressionZstd, 0)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := enc.AppendBatch(nil, record.BatchParams{Magic: record.MagicV0, SchemaID: int16(tm.GetSchemaId()), WriterID: -1, BatchSequence: -1}, rec, nil)
	enc.Close()
	if err != nil {
		t.Fatal(err)
	}
	ts := dial(t, addr)
	var pr flusspb.ProduceLogResponse
	ts.call(apiProduceLog, &flusspb.ProduceLogRequest{Acks: proto.Int32(-1), TableId: tm.TableId, TimeoutMs: proto.Int32(1000),
		BucketsReq: []*flusspb.PbProduceLogReqForBucket{{BucketId: proto.Int32(2), Records: batch}}}, &pr)
	if b := pr.GetBucketsResp()[0]; b.GetErrorCode() != 0 || b.GetBaseOffset() != 0 {
		t.Fatalf("produce: %v", b)
	}
	// a non-leader refuses the same bucket
	other := dial(t, c.ServerAddr((leader+1)%3, "CLIENT"))
	other.call(apiProduceLog, &flusspb.ProduceLogRequest{Acks: proto.Int32(-1), TableId: tm.TableId, TimeoutMs: proto.Int32(1000),
		BucketsReq: []*flusspb.PbProduceLogReqForBucket{{BucketId: proto.Int32(2), Records: batch}}}, &pr)
	if pr.GetBucketsResp()[0].GetErrorCode() != codeNotLeaderOrFollower {
		t.Fatalf("non-leader produce: %v", pr.GetBucketsResp()[0])
	}
	rows, cts := decodeAll(t, fetchAll(t, c, tm.GetTableId(), nil, 2, nil), cols, true)
	if len(rows) != 3 || rows[1][1] != nil || rows[2][0] != int64(30) || cts[0] != record.AppendOnly {
		t.Fatalf("rows %v cts %v", rows, cts)
	}
}
