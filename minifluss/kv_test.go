package minifluss

import (
	"context"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// decodeValueBatch splits a DefaultValueRecordBatch into its values.
func decodeValueBatch(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if len(b) < 9 || int(binary.LittleEndian.Uint32(b))+4 != len(b) || b[4] != 0 {
		t.Fatalf("bad value batch header % x", b[:min(len(b), 9)])
	}
	n := int(binary.LittleEndian.Uint32(b[5:]))
	var out [][]byte
	pos := 9
	for i := 0; i < n; i++ {
		l := int(binary.LittleEndian.Uint32(b[pos:]))
		out = append(out, b[pos+4:pos+4+l])
		pos += 4 + l
	}
	if pos != len(b) {
		t.Fatalf("value batch: %d trailing bytes", len(b)-pos)
	}
	return out
}

func pkTable(t *testing.T, c *Cluster, name string) TableInfo {
	t.Helper()
	ctx := context.Background()
	c.CreateDatabase(ctx, "kv")
	info, err := c.CreateTable(ctx, TableSpec{Database: "kv", Name: name, Buckets: 1, PrimaryKey: []string{"id"},
		Columns: []Column{{Name: "id", Type: typemap.Int()}, {Name: "v", Type: typemap.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestUpsertChangelogAndScanKvPaging(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 2})
	ctx := context.Background()
	info := pkTable(t, c, "pk")
	var rows [][]any
	for i := 0; i < 50; i++ {
		rows = append(rows, []any{i, "v"})
	}
	if err := c.Upsert(ctx, "kv", "pk", rows); err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, "kv", "pk", [][]any{{3, "new"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "kv", "pk", [][]any{{4}, {1000}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "kv", "pk", [][]any{{2000}}); err != nil {
		t.Fatal(err)
	}
	cols := []typemap.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}}
	got, cts := decodeAll(t, fetchAll(t, c, info.ID, nil, 0, nil), cols, true)
	if len(got) != 53 || cts[0] != record.Insert || cts[50] != record.UpdateBefore || cts[51] != record.UpdateAfter || cts[52] != record.Delete || got[51][1] != "new" {
		t.Fatalf("changelog: %d rows, cts %v", len(got), cts[48:])
	}
	off, _ := c.Offsets("kv", "pk", "", 0)
	if off.HighWatermark != 50+2+1+1 { // the last delete wrote an empty batch that takes one offset
		t.Fatalf("high watermark %d", off.HighWatermark)
	}

	leader, _ := c.Leader("kv", "pk", "", 0)
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	var first flusspb.ScanKvResponse
	if code := cn.call(apiScanKv, &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(info.ID), BucketId: proto.Int32(0)},
		CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(40)}, &first); code != 0 || first.GetErrorCode() != 0 {
		t.Fatalf("open: %d %v", code, first.GetErrorMessage())
	}
	if first.GetLogOffset() != off.HighWatermark || !first.GetHasMoreResults() {
		t.Fatalf("first page: log_offset %d has_more %v", first.GetLogOffset(), first.GetHasMoreResults())
	}
	vals := decodeValueBatch(t, first.GetRecords())
	id := first.GetScannerId()
	// wrong sequence
	var bad flusspb.ScanKvResponse
	cn.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: id, CallSeqId: proto.Int32(5), BatchSizeBytes: proto.Int32(40)}, &bad)
	if bad.GetErrorCode() != codeInvalidScanRequest {
		t.Fatalf("out-of-order call_seq_id: code %d", bad.GetErrorCode())
	}
	pages := 1
	for seq := int32(1); ; seq++ {
		var r flusspb.ScanKvResponse
		cn.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: id, CallSeqId: proto.Int32(seq), BatchSizeBytes: proto.Int32(1)}, &r)
		if r.GetErrorCode() != 0 {
			t.Fatalf("page %d: %v", seq, r.GetErrorMessage())
		}
		if r.LogOffset != nil {
			t.Fatalf("log_offset on a later page")
		}
		page := decodeValueBatch(t, r.GetRecords())
		if len(page) != 1 {
			t.Fatalf("1-byte batch size must still give one record, got %d", len(page))
		}
		vals = append(vals, page...)
		pages++
		if !r.GetHasMoreResults() {
			break
		}
	}
	if len(vals) != 49 || pages < 3 {
		t.Fatalf("scanned %d values in %d pages", len(vals), pages)
	}
	// session closed after the last page
	var gone flusspb.ScanKvResponse
	cn.call(apiScanKv, &flusspb.ScanKvRequest{ScannerId: id, CallSeqId: proto.Int32(100), BatchSizeBytes: proto.Int32(1)}, &gone)
	if gone.GetErrorCode() != codeUnknownScannerID {
		t.Fatalf("closed scanner: code %d", gone.GetErrorCode())
	}
	ids := map[int32]string{}
	for _, v := range vals {
		if sid := binary.LittleEndian.Uint16(v); sid != 1 {
			t.Fatalf("schema id %d", sid)
		}
		row, err := record.DecodeCompactedRow(v[2:], []typemap.DataType{typemap.Int().NotNull(), typemap.String()})
		if err != nil {
			t.Fatal(err)
		}
		ids[row[0].(int32)] = row[1].(string)
	}
	if _, ok := ids[4]; ok || ids[3] != "new" || len(ids) != 49 {
		t.Fatalf("state: %v", ids)
	}
	// Lookup with the CompactedKeyEncoder key of id 3 (a varint).
	var lr flusspb.LookupResponse
	cn.call(apiLookup, &flusspb.LookupRequest{TableId: proto.Int64(info.ID), BucketsReq: []*flusspb.PbLookupReqForBucket{{BucketId: proto.Int32(0), Keys: [][]byte{{3}, {4}}}}}, &lr)
	vs := lr.GetBucketsResp()[0].GetValues()
	if len(vs) != 2 || vs[0].Values == nil || vs[1].Values != nil {
		t.Fatalf("lookup: %v", vs)
	}
}

// The emulator accepts the Java-written KV batch as a PutKv payload.
func TestPutKvJavaBatch(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	c.CreateDatabase(ctx, "kv")
	nested := typemap.Row(typemap.NewField("number", typemap.Int()), typemap.NewField("label", typemap.String()))
	info, err := c.CreateTable(ctx, TableSpec{Database: "kv", Name: "java", Buckets: 1, PrimaryKey: []string{"number"}, SchemaID: 9,
		Columns: []Column{{Name: "number", Type: typemap.Int()}, {Name: "name", Type: typemap.String()},
			{Name: "values", Type: typemap.Array(typemap.Int())}, {Name: "nested", Type: nested}}})
	if err != nil {
		t.Fatal(err)
	}
	batch := loadHex(t, "kv_write_batch_java091.hex")
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	var pr flusspb.PutKvResponse
	if code := cn.call(apiPutKv, &flusspb.PutKvRequest{Acks: proto.Int32(-1), TableId: proto.Int64(info.ID), TimeoutMs: proto.Int32(1000),
		BucketsReq: []*flusspb.PbPutKvReqForBucket{{BucketId: proto.Int32(0), Records: batch}}}, &pr); code != 0 {
		t.Fatalf("put: %d", code)
	}
	if b := pr.GetBucketsResp()[0]; b.GetErrorCode() != 0 || b.GetLogEndOffset() != 1 {
		t.Fatalf("put: %v", b)
	}
	var lr flusspb.LookupResponse
	cn.call(apiLookup, &flusspb.LookupRequest{TableId: proto.Int64(info.ID), BucketsReq: []*flusspb.PbLookupReqForBucket{{BucketId: proto.Int32(0), Keys: [][]byte{{0x2a}, {0x2b}}}}}, &lr)
	vs := lr.GetBucketsResp()[0].GetValues()
	row := loadHex(t, "compacted_row_nested.hex")
	if len(vs) != 2 || string(vs[0].GetValues()[2:]) != string(row) || binary.LittleEndian.Uint16(vs[0].GetValues()) != 9 || vs[1].Values != nil {
		t.Fatalf("lookup after Java PutKv: %v", vs)
	}
	// a corrupted CRC is refused per bucket
	bad := append([]byte(nil), batch...)
	bad[len(bad)-1] ^= 1
	cn.call(apiPutKv, &flusspb.PutKvRequest{Acks: proto.Int32(-1), TableId: proto.Int64(info.ID), TimeoutMs: proto.Int32(1000),
		BucketsReq: []*flusspb.PbPutKvReqForBucket{{BucketId: proto.Int32(0), Records: bad}}}, &pr)
	if pr.GetBucketsResp()[0].GetErrorCode() != codeCorruptRecord {
		t.Fatalf("corrupt batch: %v", pr.GetBucketsResp()[0])
	}
}

// A key written several times in one call produces the changelog of the
// writes in order, each seeing the previous one.
func TestSameKeyTwiceInOneWrite(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	info := pkTable(t, c, "twice")
	if err := c.Upsert(ctx, "kv", "twice", [][]any{{1, "a"}, {1, "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "kv", "twice", [][]any{{1}, {1}}); err != nil {
		t.Fatal(err)
	}
	cols := []typemap.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}}
	rows, cts := decodeAll(t, fetchAll(t, c, info.ID, nil, 0, nil), cols, true)
	want := []record.ChangeType{record.Insert, record.UpdateBefore, record.UpdateAfter, record.Delete}
	if len(cts) != len(want) {
		t.Fatalf("change types %v, want %v", cts, want)
	}
	for i := range want {
		if cts[i] != want[i] {
			t.Fatalf("change types %v, want %v", cts, want)
		}
	}
	if rows[1][1] != "a" || rows[2][1] != "b" || rows[3][1] != "b" {
		t.Fatalf("rows %v", rows)
	}
}
