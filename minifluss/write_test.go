package minifluss

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

func fetchAll(t *testing.T, c *Cluster, tableID int64, part *int64, bucket int32, proj []int32) []byte {
	t.Helper()
	c.mu.Lock()
	tb := c.cat.tableByID(tableID)
	ls, _, _ := tb.leadersFor(part)
	leader := ls[bucket].Leader
	c.mu.Unlock()
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	var fr flusspb.FetchLogResponse
	req := &flusspb.PbFetchLogReqForTable{TableId: proto.Int64(tableID), ProjectionPushdownEnabled: proto.Bool(proj != nil), ProjectedFields: proj,
		BucketsReq: []*flusspb.PbFetchLogReqForBucket{{PartitionId: part, BucketId: proto.Int32(bucket), FetchOffset: proto.Int64(0), MaxFetchBytes: proto.Int32(64 << 20)}}}
	if code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(64 << 20), TablesReq: []*flusspb.PbFetchLogReqForTable{req}}, &fr); code != 0 {
		t.Fatalf("fetch: error %d", code)
	}
	r := fr.GetTablesResp()[0].GetBucketsResp()[0]
	if r.GetErrorCode() != 0 {
		t.Fatalf("fetch: %v", r.GetErrorMessage())
	}
	return r.GetRecords()
}

// decodeAll decodes every batch of a FetchLog blob with record's decoder.
func decodeAll(t *testing.T, blob []byte, cols []typemap.Column, crc bool) (rows [][]any, cts []record.ChangeType) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec, err := record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	it := record.ReadBatches(blob, record.DecodeOptions{SkipCRC: !crc})
	for it.Next() {
		rec, ct, err := dec.Decode(it.Batch())
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			continue
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var row []any
			for j := 0; j < int(rec.NumCols()); j++ {
				row = append(row, rec.Column(j).GetOneForMarshal(i))
			}
			rows = append(rows, row)
			cts = append(cts, ct.At(i))
		}
		rec.Release()
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	return rows, cts
}

func TestAppendFetchArrow(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 2})
	ctx := context.Background()
	c.CreateDatabase(ctx, "db")
	for _, comp := range []string{"NONE", "ZSTD"} {
		name := "logs_" + comp
		info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: name, Buckets: 1,
			Columns:    []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "amt", Type: typemap.Decimal(10, 2)}},
			Properties: map[string]string{"table.log.arrow.compression.type": comp}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Append(ctx, "db", name, [][]any{{1, "a", "1.50"}, {2, nil, nil}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Append(ctx, "db", name, [][]any{{3, "c", 7}}); err != nil {
			t.Fatal(err)
		}
		cols := []typemap.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "amt", Type: typemap.Decimal(10, 2)}}
		rows, cts := decodeAll(t, fetchAll(t, c, info.ID, nil, 0, nil), cols, true)
		if len(rows) != 3 || cts[0] != record.AppendOnly || rows[2][0] != int64(3) || rows[0][1] != "a" || rows[1][1] != nil {
			t.Fatalf("%s: rows %v cts %v", comp, rows, cts)
		}
	}
}
