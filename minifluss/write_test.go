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

// Rows written as Arrow come back the same through the changelog; all the
// scalar and nested types survive the Arrow → row → KV → changelog trip.
func TestUpsertRecordAllTypes(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	c.CreateDatabase(ctx, "a")
	cols := []Column{
		{Name: "id", Type: typemap.Int()}, {Name: "b", Type: typemap.Boolean()}, {Name: "ti", Type: typemap.TinyInt()},
		{Name: "si", Type: typemap.SmallInt()}, {Name: "bi", Type: typemap.BigInt()}, {Name: "f", Type: typemap.Float()},
		{Name: "d", Type: typemap.Double()}, {Name: "s", Type: typemap.String()}, {Name: "ch", Type: typemap.Char(3)},
		{Name: "bin", Type: typemap.Binary(2)}, {Name: "by", Type: typemap.Bytes()}, {Name: "dec", Type: typemap.Decimal(20, 3)},
		{Name: "dt", Type: typemap.Date()}, {Name: "tm", Type: typemap.Time(3)}, {Name: "ts", Type: typemap.Timestamp(6)},
		{Name: "ltz", Type: typemap.TimestampLTZ(3)}, {Name: "arr", Type: typemap.Array(typemap.Int())},
		{Name: "m", Type: typemap.Map(typemap.String(), typemap.BigInt())},
		{Name: "r", Type: typemap.Row(typemap.NewField("x", typemap.Int()), typemap.NewField("y", typemap.String()))},
	}
	info, err := c.CreateTable(ctx, TableSpec{Database: "a", Name: "all", Buckets: 1, PrimaryKey: []string{"id"}, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	in := [][]any{
		{1, true, 1, 2, 3, 1.5, 2.5, "s", "abc", "xy", "by", "12.345", "2024-05-01", "10:30:00.5", "2024-05-01 10:00:00.123456", "2024-05-01T10:00:00.123Z",
			[]any{1, nil, 3}, map[string]any{"k": 7}, []any{9, "nine"}},
		{2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	if err := c.Upsert(ctx, "a", "all", in); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	tb := c.cat.tableByID(info.ID)
	tcols := tb.columns()
	c.mu.Unlock()
	blob := fetchAll(t, c, info.ID, nil, 0, nil)
	mem := memory.NewGoAllocator()
	dec, err := record.NewArrowDecoder(tcols, mem, record.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	it := record.ReadBatches(blob, record.DecodeOptions{})
	if !it.Next() {
		t.Fatal(it.Err())
	}
	rec, _, err := dec.Decode(it.Batch())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	// re-upsert the decoded Arrow batch into a twin table: same KV bytes
	info2, err := c.CreateTable(ctx, TableSpec{Database: "a", Name: "twin", Buckets: 1, PrimaryKey: []string{"id"}, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UpsertRecord(ctx, "a", "twin", rec); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	b1, _ := c.bucketLocked(c.cat.tableByID(info.ID), nil, 0)
	b2, _ := c.bucketLocked(c.cat.tableByID(info2.ID), nil, 0)
	e1, e2 := b1.kv.sorted(), b2.kv.sorted()
	c.mu.Unlock()
	if len(e1) != 2 || len(e2) != 2 {
		t.Fatalf("%d and %d keys", len(e1), len(e2))
	}
	for i := range e1 {
		if string(e1[i].key) != string(e2[i].key) || string(e1[i].value) != string(e2[i].value) {
			t.Errorf("key %d differs after the Arrow round trip:\n% x\n% x", i, e1[i].value, e2[i].value)
		}
	}
	if err := c.DeleteRecord(ctx, "a", "twin", rec); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	n := len(b2.kv.data)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d keys left after DeleteRecord", n)
	}
}

// COMPACTED and INDEXED log formats: append-only log tables and PK changelogs
// come out as row records with the right change types.
func TestRowLogFormats(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	c.CreateDatabase(ctx, "rf")
	types := []typemap.DataType{typemap.Int().NotNull(), typemap.String()}
	for _, f := range []string{"COMPACTED", "INDEXED"} {
		props := map[string]string{"table.log.format": f}
		if f == "INDEXED" {
			props["table.kv.format"] = "INDEXED"
		}
		pk, err := c.CreateTable(ctx, TableSpec{Database: "rf", Name: "pk_" + f, Buckets: 1, PrimaryKey: []string{"id"}, Properties: props,
			Columns: []Column{{Name: "id", Type: typemap.Int()}, {Name: "v", Type: typemap.String()}}})
		if err != nil {
			t.Fatal(err)
		}
		c.Upsert(ctx, "rf", "pk_"+f, [][]any{{1, "a"}})
		c.Upsert(ctx, "rf", "pk_"+f, [][]any{{1, "b"}})
		var cts []record.ChangeType
		var vals []string
		it := record.ReadBatches(fetchAll(t, c, pk.ID, nil, 0, nil), record.DecodeOptions{})
		for it.Next() {
			err := record.ForEachRowRecord(it.Batch(), func(i int, ct record.ChangeType, row []byte) error {
				var r []any
				var err error
				if f == "COMPACTED" {
					r, err = record.DecodeCompactedRow(row, types)
				} else {
					r, err = record.DecodeIndexedRow(row, types)
				}
				if err != nil {
					return err
				}
				cts = append(cts, ct)
				vals = append(vals, r[1].(string))
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		if len(cts) != 3 || cts[0] != record.Insert || cts[1] != record.UpdateBefore || cts[2] != record.UpdateAfter || vals[2] != "b" {
			t.Fatalf("%s changelog: %v %v", f, cts, vals)
		}
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "rf", Name: "bad", Buckets: 1, PrimaryKey: []string{"id"}, Properties: map[string]string{"table.log.format": "INDEXED"},
		Columns: []Column{{Name: "id", Type: typemap.Int()}}}); err == nil {
		t.Fatal("INDEXED log with COMPACTED kv accepted")
	}
}
