package minifluss

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// Rows land in the bucket the §4.6 rules give, for plain and Paimon-format
// tables, and partitions are created from row values.
func TestRoutingAndPartitions(t *testing.T) {
	for _, lake := range []string{"", "paimon"} {
		t.Run("lake="+lake, func(t *testing.T) {
			c := startCluster(t, Config{TabletServers: 3, DatalakeFormat: lake})
			ctx := context.Background()
			c.CreateDatabase(ctx, "p")
			info, err := c.CreateTable(ctx, TableSpec{Database: "p", Name: "t", Buckets: 4, PrimaryKey: []string{"id", "dt"}, PartitionKeys: []string{"dt"},
				Columns: []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "dt", Type: typemap.String()}, {Name: "v", Type: typemap.Int()}}})
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			for i := 0; i < 40; i++ {
				rows = append(rows, []any{i, []string{"2024-01-01", "2024-01-02"}[i%2], i})
			}
			if err := c.Upsert(ctx, "p", "t", rows); err != nil {
				t.Fatal(err)
			}
			d, err := record.ParseTableDescriptor(info.JSON)
			if err != nil {
				t.Fatal(err)
			}
			keys, err := record.NewTableKeys(d)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]map[int32]int{}
			for _, r := range rows {
				b, err := keys.Bucket([]any{int64(r[0].(int)), r[1], int32(r[2].(int))})
				if err != nil {
					t.Fatal(err)
				}
				if want[r[1].(string)] == nil {
					want[r[1].(string)] = map[int32]int{}
				}
				want[r[1].(string)][b]++
			}
			for part, bs := range want {
				for b := int32(0); b < 4; b++ {
					off, err := c.Offsets("p", "t", part, b)
					if err != nil {
						t.Fatal(err)
					}
					if off.HighWatermark != int64(bs[b]) {
						t.Errorf("partition %s bucket %d: %d changelog records, want %d", part, b, off.HighWatermark, bs[b])
					}
				}
			}
			// metadata by partition name and id, and ListPartitionInfos
			cn := dial(t, c.BootstrapAddr())
			var lp flusspb.ListPartitionInfosResponse
			if code := cn.call(apiListPartitionInfos, &flusspb.ListPartitionInfosRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String("p"), TableName: proto.String("t")}}, &lp); code != 0 || len(lp.GetPartitionsInfo()) != 2 {
				t.Fatalf("partitions: %d %v", code, lp.GetPartitionsInfo())
			}
			pid := lp.GetPartitionsInfo()[1].GetPartitionId()
			var md flusspb.MetadataResponse
			if code := cn.call(apiGetMetadata, &flusspb.MetadataRequest{TablePath: []*flusspb.PbTablePath{{DatabaseName: proto.String("p"), TableName: proto.String("t")}},
				PartitionsPath: []*flusspb.PbPhysicalTablePath{{DatabaseName: proto.String("p"), TableName: proto.String("t"), PartitionName: proto.String("2024-01-01")}},
				PartitionsId:   []int64{pid}}, &md); code != 0 {
				t.Fatalf("metadata: %d", code)
			}
			if len(md.GetTabletServers()) != 3 || len(md.GetTableMetadata()[0].GetBucketMetadata()) != 0 || len(md.GetPartitionMetadata()) != 2 || len(md.GetPartitionMetadata()[1].GetBucketMetadata()) != 4 {
				t.Fatalf("metadata shape: %v", &md)
			}
			if code := cn.call(apiGetMetadata, &flusspb.MetadataRequest{TablePath: []*flusspb.PbTablePath{{DatabaseName: proto.String("p"), TableName: proto.String("t")}}, PartitionsId: []int64{9999}}, &md); code != codePartitionNotExists {
				t.Fatalf("unknown partition id: code %d, want 36", code)
			}
		})
	}
}

// FetchLog projection pushdown returns only the projected columns (CRC stale),
// and rejects bad projections with error 34.
func TestFetchProjection(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	c.CreateDatabase(ctx, "pj")
	cols := []typemap.Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.String()}, {Name: "c", Type: typemap.Double()}}
	info, err := c.CreateTable(ctx, TableSpec{Database: "pj", Name: "t", Buckets: 1,
		Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.String()}, {Name: "c", Type: typemap.Double()}}})
	if err != nil {
		t.Fatal(err)
	}
	c.Append(ctx, "pj", "t", [][]any{{1, "x", 1.5}, {2, "y", 2.5}})
	blob := fetchAll(t, c, info.ID, nil, 0, []int32{0, 2})
	rows, _ := decodeAll(t, blob, []typemap.Column{cols[0], cols[2]}, false)
	if len(rows) != 2 || len(rows[0]) != 2 || rows[1][0] != int32(2) || rows[1][1] != 2.5 {
		t.Fatalf("projected rows %v", rows)
	}
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	for _, proj := range [][]int32{{}, {2, 0}, {5}} {
		var fr flusspb.FetchLogResponse
		cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20),
			TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(true), ProjectedFields: proj,
				BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(0), MaxFetchBytes: proto.Int32(1 << 20)}}}}}, &fr)
		if code := fr.GetTablesResp()[0].GetBucketsResp()[0].GetErrorCode(); code != codeInvalidColumnProj {
			t.Errorf("projection %v: code %d, want 34", proj, code)
		}
	}
}
