package minifluss

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// FuzzFrameAndDispatch feeds raw bytes to the frame reader, the request
// header parser and the dispatcher of both roles: whatever arrives, the
// server answers or refuses, it never panics.
func FuzzFrameAndDispatch(f *testing.F) {
	seed := func(api int16, m proto.Message) {
		body, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		frame := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		frame = binary.BigEndian.AppendUint16(frame, uint16(api))
		frame = binary.BigEndian.AppendUint16(frame, 0)
		frame = binary.BigEndian.AppendUint32(frame, 7)
		f.Add(append(frame, body...))
	}
	seed(apiVersions, &flusspb.ApiVersionsRequest{ClientSoftwareName: proto.String("f"), ClientSoftwareVersion: proto.String("1")})
	seed(apiGetMetadata, &flusspb.MetadataRequest{TablePath: []*flusspb.PbTablePath{{DatabaseName: proto.String("fz"), TableName: proto.String("t")}}, PartitionsId: []int64{1}})
	seed(apiCreateTable, &flusspb.CreateTableRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("fz"), TableName: proto.String("n")},
		IgnoreIfExists: proto.Bool(false), TableJson: []byte(`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"}}]},"partition_key":[],"properties":{},"custom_properties":{}}`)})
	seed(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(1), ProjectionPushdownEnabled: proto.Bool(true), ProjectedFields: []int32{0},
		BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(0), MaxFetchBytes: proto.Int32(100)}}}}})
	seed(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(2), BucketId: proto.Int32(0)}, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(10)})
	seed(apiListOffsets, &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(2), TableId: proto.Int64(1), BucketId: []int32{0, 5}, StartTimestamp: proto.Int64(0)})
	kv := loadHex(f, "kv_write_batch_java091.hex")
	seed(apiPutKv, &flusspb.PutKvRequest{Acks: proto.Int32(-1), TimeoutMs: proto.Int32(1), TableId: proto.Int64(2), BucketsReq: []*flusspb.PbPutKvReqForBucket{{BucketId: proto.Int32(0), Records: kv}}})
	seed(apiProduceLog, &flusspb.ProduceLogRequest{Acks: proto.Int32(-1), TimeoutMs: proto.Int32(1), TableId: proto.Int64(1), BucketsReq: []*flusspb.PbProduceLogReqForBucket{{BucketId: proto.Int32(0), Records: loadHex(f, "arrow_v0_batch_java091.hex")}}})
	seed(apiAlterTable, &flusspb.AlterTableRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("fz"), TableName: proto.String("t")}, IgnoreIfNotExists: proto.Bool(false),
		AddColumns: []*flusspb.PbAddColumn{{ColumnName: proto.String("z"), DataTypeJson: []byte(`{"type":"BIGINT"}`), ColumnPositionType: proto.Int32(0)}}})
	seed(apiGetTableSchema, &flusspb.GetTableSchemaRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("fz"), TableName: proto.String("t")}, SchemaId: proto.Int32(1)})
	f.Add([]byte{0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})

	c, err := Start(context.Background(), Config{DataDir: f.TempDir(), TabletServers: 1, MaxFrameBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close() })
	ctx := context.Background()
	c.CreateDatabase(ctx, "fz")
	c.CreateTable(ctx, TableSpec{Database: "fz", Name: "t", Buckets: 1, Columns: []Column{{Name: "a", Type: typemap.Int()}}})
	c.CreateTable(ctx, TableSpec{Database: "fz", Name: "k", Buckets: 1, PrimaryKey: []string{"a"}, Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.String()}}})
	c.Upsert(ctx, "fz", "k", [][]any{{1, "x"}, {2, "y"}})
	c.Append(ctx, "fz", "t", [][]any{{1}, {2}})

	f.Fuzz(func(t *testing.T, raw []byte) {
		frame, err := readFrame(bytes.NewReader(raw), 1<<20)
		if err != nil {
			return
		}
		h, body, err := parseRequest(frame)
		if err != nil {
			return
		}
		for _, s := range c.servers {
			if !serves(s.coordinator, h.APIKey) {
				continue
			}
			a, b := net.Pipe()
			cn := &conn{s: s, l: s.listeners[0], nc: a, authed: true}
			resp, err := cn.dispatch(h, body)
			if err == nil {
				if _, merr := proto.Marshal(resp); merr != nil {
					t.Fatalf("api %d: response does not marshal: %v", h.APIKey, merr)
				}
			}
			a.Close()
			b.Close()
		}
	})
}

func FuzzDecodeKvBatch(f *testing.F) {
	f.Add(loadHex(f, "kv_write_batch_java091.hex"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kb, err := decodeKvBatch(b)
		if err == nil && len(kb.Records) > len(b) {
			t.Fatal("more records than bytes")
		}
	})
}

func FuzzSplitBatches(f *testing.F) {
	f.Add(loadHex(f, "arrow_v0_batch_java091.hex"))
	f.Add(loadHex(f, "compacted_log_batch_java091.hex"))
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, err := splitBatches(b)
		if err != nil {
			return
		}
		n := 0
		for _, h := range hs {
			n += h.size
		}
		if n != len(b) {
			t.Fatalf("batches cover %d of %d bytes", n, len(b))
		}
	})
}

func FuzzScenario(f *testing.F) {
	f.Add("CREATE TABLE a.b (x INT, y ARRAY<MAP<STRING, ROW<p INT>>>, PRIMARY KEY (x)) PARTITIONED BY (x) WITH ('bucket.num'='2');")
	f.Add("INSERT INTO a.b VALUES (1, 'x', ARRAY[1, NULL], MAP['k', -2.5e3], ROW(1, TRUE));")
	f.Add("SET LAKE SNAPSHOT a.b ID 1 READABLE 0 OFFSETS (PARTITION 'p' BUCKET 0 = 5); DELETE FROM a.b WHERE x = 1 OR x = 2;")
	f.Add("ALTER TABLE a.b ADD COLUMN c DECIMAL(10, 2) COMMENT 'x'; ALTER TABLE a.b ADD (d ARRAY<INT>, e STRING);")
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = ParseScenario(src)
	})
}
