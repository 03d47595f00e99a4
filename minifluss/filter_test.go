package minifluss

import (
	"context"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
	"google.golang.org/protobuf/proto"
)

// idRange is the filter id >= lo AND id <= hi on field id 0.
func idRange(lo, hi int64) *flusspb.PbPredicate {
	leaf := func(fn record.LeafFunction, v int64) *flusspb.PbPredicate {
		return &flusspb.PbPredicate{Type: proto.Int32(0), Leaf: &flusspb.PbLeafPredicate{Function: proto.Int32(int32(fn)), FieldId: proto.Int32(0),
			Literals: []*flusspb.PbLiteralValue{{LiteralType: proto.Int32(4), IsNull: proto.Bool(false), BigintValue: proto.Int64(v)}}}}
	}
	return &flusspb.PbPredicate{Type: proto.Int32(1), Compound: &flusspb.PbCompoundPredicate{Function: proto.Int32(0),
		Children: []*flusspb.PbPredicate{leaf(record.FnGreaterOrEqual, lo), leaf(record.FnLessOrEqual, hi)}}}
}

func filteredFetch(t *testing.T, c *Cluster, info TableInfo, off int64, maxBytes int32, f *flusspb.PbPredicate, schemaID *int32) (*flusspb.PbFetchLogRespForBucket, int32) {
	t.Helper()
	leader, _ := c.Leader(info.Database, info.Name, "", 0)
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	var fr flusspb.FetchLogResponse
	code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20),
		TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
			FilterPredicate: f, FilterSchemaId: schemaID,
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(maxBytes)}}}}}, &fr)
	if code != 0 {
		return nil, code
	}
	return fr.GetTablesResp()[0].GetBucketsResp()[0], 0
}

// batchBases lists the base offsets of the batches in a records blob.
func batchBases(t *testing.T, blob []byte) []int64 {
	t.Helper()
	var out []int64
	it := record.ReadBatches(blob, record.DecodeOptions{})
	for it.Next() {
		out = append(out, it.Batch().Header.BaseOffset)
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	return out
}

// TestFilteredFetch: ten batches of ten ids each (batch k holds ids
// 10k..10k+9, offsets likewise). A filtered FetchLog returns only the
// batches whose statistics may match and says where scanning ended when
// batches after the last returned one were left out (LogSegment.readWithFilter).
func TestFilteredFetch(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	info := logTable(t, c, "stats", map[string]string{"table.statistics.columns": "id"})
	plain := logTable(t, c, "nostats", nil)
	for k := 0; k < 10; k++ {
		var rows [][]any
		for i := 0; i < 10; i++ {
			rows = append(rows, []any{int64(10*k + i)})
		}
		if err := c.Append(ctx, "r", "stats", rows); err != nil {
			t.Fatal(err)
		}
		if err := c.Append(ctx, "r", "nostats", rows); err != nil {
			t.Fatal(err)
		}
	}
	// The producer side: each batch is V1 with the statistics Fluss's
	// collector computes (min and max id, no NULL).
	all := fetchAt(t, c, info, 0).GetRecords()
	it := record.ReadBatches(all, record.DecodeOptions{})
	k := int64(0)
	for it.Next() {
		lb := it.Batch()
		s, err := record.DecodeStatistics(lb.Statistics, []typemap.DataType{typemap.BigInt()})
		if err != nil {
			t.Fatal(err)
		}
		if lb.Header.Magic != record.MagicV1 || s.Min[0] != 10*k || s.Max[0] != 10*k+9 || s.NullCounts[0] != 0 {
			t.Fatalf("batch %d: magic %d, statistics %+v", k, lb.Header.Magic, s)
		}
		k++
	}
	if k != 10 {
		t.Fatalf("%d batches", k)
	}
	sid := proto.Int32(info.SchemaID)
	skippedBefore := c.FilterSkippedBatches()
	cases := []struct {
		name     string
		off      int64
		lo, hi   int64
		bases    []int64
		filtered int64 // -1: absent
	}{
		{"middle", 0, 35, 52, []int64{30, 40, 50}, 100},
		{"from inside a kept batch", 33, 35, 52, []int64{30, 40, 50}, 100},
		{"through the end", 0, 85, 1000, []int64{80, 90}, -1},
		{"nothing matches", 0, 1000, 2000, nil, 100},
		{"nothing after the offset", 45, 0, 20, nil, 100},
	}
	for _, cs := range cases {
		r, code := filteredFetch(t, c, info, cs.off, 1<<20, idRange(cs.lo, cs.hi), sid)
		if code != 0 || r.ErrorCode != nil {
			t.Fatalf("%s: code %d %v", cs.name, code, r)
		}
		got := batchBases(t, r.GetRecords())
		fe := int64(-1)
		if r.FilteredEndOffset != nil {
			fe = r.GetFilteredEndOffset()
		}
		if len(got) != len(cs.bases) || fe != cs.filtered {
			t.Errorf("%s: bases %v filtered_end %d, want %v %d", cs.name, got, fe, cs.bases, cs.filtered)
		}
		for i := range got {
			if got[i] != cs.bases[i] {
				t.Errorf("%s: bases %v, want %v", cs.name, got, cs.bases)
			}
		}
	}
	if n := c.FilterSkippedBatches() - skippedBefore; n != 7+4+8+10+6 {
		t.Errorf("skipped %d batches", n)
	}
	// A size break ends the answer without filtered_end_offset: the
	// batches not yet scanned may match.
	one := len(all) / 10
	r, _ := filteredFetch(t, c, info, 0, int32(one), idRange(35, 52), sid)
	if got := batchBases(t, r.GetRecords()); len(got) != 1 || got[0] != 30 || r.FilteredEndOffset != nil {
		t.Errorf("size break: %v, filtered_end %v", got, r.FilteredEndOffset)
	}
	// No statistics (V0): every batch comes back.
	r, _ = filteredFetch(t, c, plain, 0, 1<<20, idRange(35, 52), proto.Int32(plain.SchemaID))
	if got := batchBases(t, r.GetRecords()); len(got) != 10 || r.FilteredEndOffset != nil {
		t.Errorf("V0 table: %v, filtered_end %v", got, r.FilteredEndOffset)
	}
	// An unknown field id: the server reads unfiltered.
	bad := idRange(35, 52)
	bad.GetCompound().GetChildren()[0].GetLeaf().FieldId = proto.Int32(9)
	r, _ = filteredFetch(t, c, info, 0, 1<<20, bad, sid)
	if got := batchBases(t, r.GetRecords()); len(got) != 10 {
		t.Errorf("unresolvable filter: %v", got)
	}
	// A filter without filter_schema_id fails the request.
	if _, code := filteredFetch(t, c, info, 0, 1<<20, idRange(35, 52), nil); code == 0 {
		t.Error("filter without schema id accepted")
	}
}

// TestStatisticsColumnsValidated: as Fluss, table.statistics.columns is
// refused on primary-key tables and for unknown or unsupported columns.
func TestStatisticsColumnsValidated(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []TableSpec{
		{Database: "v", Name: "pk", Buckets: 1, PrimaryKey: []string{"id"}, Properties: map[string]string{"table.statistics.columns": "*"},
			Columns: []Column{{Name: "id", Type: typemap.Int().NotNull()}}},
		{Database: "v", Name: "unknown", Buckets: 1, Properties: map[string]string{"table.statistics.columns": "nope"},
			Columns: []Column{{Name: "id", Type: typemap.Int()}}},
		{Database: "v", Name: "bytes", Buckets: 1, Properties: map[string]string{"table.statistics.columns": "b"},
			Columns: []Column{{Name: "b", Type: typemap.Bytes()}}},
	} {
		if _, err := c.CreateTable(ctx, spec); err == nil || asFluss(err).Code != codeInvalidConfig {
			t.Errorf("%s: %v", spec.Name, err)
		}
	}
}
