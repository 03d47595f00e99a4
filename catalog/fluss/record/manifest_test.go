package record_test

import (
	"math"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

func TestRemoteLogManifestGolden(t *testing.T) {
	var f struct {
		M struct {
			Cases []struct{ JSON string } `json:"cases"`
		} `json:"remote_log_manifests"`
	}
	loadJSON(t, "json_serde.json", &f)
	zero := int64(0)
	want := []record.RemoteLogManifest{
		{Database: "db", Table: "mytable", TableID: 1001, BucketID: 1, Segments: []record.RemoteLogSegment{
			{SegmentID: "a4421366-4a1d-4c3b-a0f8-0be2e77b1368", StartOffset: 0, EndOffset: 9, MaxTimestamp: 1722225103853, SizeInBytes: 2850},
			{SegmentID: "dbfd0ade-23d9-411a-ac05-81e5fe1cabd5", StartOffset: 100023, EndOffset: math.MaxInt64, MaxTimestamp: math.MaxInt64, SizeInBytes: math.MaxInt32},
		}},
		{Database: "db", Table: "myPartitionTable", PartitionName: "20240904", TableID: 1002, PartitionID: &zero, BucketID: 1, Segments: []record.RemoteLogSegment{
			{SegmentID: "6e94fbd1-c056-446e-859c-77345dddcd96", StartOffset: 10, EndOffset: 20, MaxTimestamp: 1722225103853, SizeInBytes: 2850},
			{SegmentID: "22901b01-250f-4114-9b01-1a840dd28f4f", StartOffset: 200023, EndOffset: math.MaxInt64, MaxTimestamp: math.MaxInt64, SizeInBytes: math.MaxInt32},
		}},
	}
	if len(f.M.Cases) != len(want) {
		t.Fatalf("%d cases", len(f.M.Cases))
	}
	for i, c := range f.M.Cases {
		got, err := record.MarshalRemoteLogManifest(&want[i])
		if err != nil || string(got) != c.JSON {
			t.Errorf("case %d: marshal\n got %s\nwant %s", i, got, c.JSON)
		}
		m, err := record.ParseRemoteLogManifest([]byte(c.JSON))
		if err != nil {
			t.Fatal(err)
		}
		again, _ := record.MarshalRemoteLogManifest(m)
		if string(again) != c.JSON {
			t.Errorf("case %d: parse/marshal %s", i, again)
		}
	}
	if record.SegmentFileName(100023) != "00000000000000100023.log" {
		t.Error(record.SegmentFileName(100023))
	}
	for _, bad := range []string{`{}`, `{"version":2,"database":"d","table":"t","table_id":1,"bucket_id":0}`,
		`{"version":1,"database":"d","table":"t","table_id":1,"bucket_id":0,"remote_log_segments":[{"segment_id":"x","start_offset":5,"end_offset":1}]}`} {
		if _, err := record.ParseRemoteLogManifest([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
