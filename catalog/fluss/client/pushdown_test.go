package client

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
	"google.golang.org/protobuf/proto"
)

// TestArrowProjectionPushdown: for an ARROW table the client sends the
// sorted, de-duplicated column positions, decodes the server's projected
// (ZSTD-compressed) batches whose CRC is stale, and reorders the columns
// locally.
func TestArrowProjectionPushdown(t *testing.T) {
	cols := []typemap.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "name", Type: typemap.String()}, {Name: "score", Type: typemap.Double()}}
	var rows [][]any
	for i := 0; i < 9; i++ {
		rows = append(rows, []any{int32(i), fmt.Sprintf("n%d", i), float64(i) * 1.5})
	}
	mem := memory.NewGoAllocator()
	// encode builds the ARROW batch of rows[from:from+3] restricted to pos.
	encode := func(from int, pos []int32) []byte {
		pc := make([]typemap.Column, len(pos))
		for i, p := range pos {
			pc[i] = cols[p]
		}
		rd, err := record.NewRowDecoder(pc, record.RowCompacted, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		for _, r := range rows[from : from+3] {
			vals := make([]any, len(pos))
			for i, p := range pos {
				vals[i] = r[p]
			}
			if err := rd.AppendValues(vals); err != nil {
				t.Fatal(err)
			}
		}
		rec := rd.NewRecordBatch()
		defer rec.Release()
		enc, err := record.NewArrowEncoder(record.CompressionZstd, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		b, err := enc.AppendBatch(nil, record.BatchParams{BaseOffset: int64(from), SchemaID: 1, WriterID: -1, BatchSequence: -1}, rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(pos) < len(cols) {
			b[21] ^= 0xff // the server does not recompute the CRC of a projected batch
		}
		return b
	}
	path := TablePath{"db", "a"}
	var mu sync.Mutex
	var seen [][]int32
	srv := newFrameServer(t, nil, flussapi.GetMetadata, flussapi.FetchLog)
	srv.handle = func(c *srvConn, req srvReq) {
		switch req.key {
		case flussapi.GetMetadata:
			c.ok(req.id, metadataResponse(srv, map[int32]*frameServer{1: srv}, tablePB(path, 3, map[int32]int32{0: 1})))
		case flussapi.FetchLog:
			var r flusspb.FetchLogRequest
			_ = proto.Unmarshal(req.body, &r)
			tr := r.GetTablesReq()[0]
			pos := []int32{0, 1, 2}
			if tr.GetProjectionPushdownEnabled() {
				pos = tr.GetProjectedFields()
			}
			mu.Lock()
			seen = append(seen, slices.Clone(pos))
			mu.Unlock()
			off := tr.GetBucketsReq()[0].GetFetchOffset()
			var out []byte
			for from := int(off/3) * 3; from < 9; from += 3 {
				out = append(out, encode(from, pos)...)
			}
			c.ok(req.id, &flusspb.FetchLogResponse{TablesResp: []*flusspb.PbFetchLogRespForTable{{TableId: proto.Int64(3),
				BucketsResp: []*flusspb.PbFetchLogRespForBucket{{BucketId: proto.Int32(0), HighWatermark: proto.Int64(9), Records: out}}}}})
		}
	}
	cl := newTestClient(t, testConfig(srv.addr()))
	cmem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer cmem.AssertSize(t, 0)
	b := TableBucket{Table: path, TableID: 3}
	cases := []struct {
		name     string
		proj     []int
		wantPush []int32
	}{
		{"reordered with duplicate", []int{2, 0, 2}, []int32{0, 2}},
		{"single column", []int{1}, []int32{1}},
		{"all columns", nil, []int32{0, 1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			lr, err := cl.NewLogReader(context.Background(), LogRange{Bucket: b, Start: 1, Stop: 8, Columns: cols, Format: record.LogFormatArrow, Projection: tc.proj}, cmem)
			if err != nil {
				t.Fatal(err)
			}
			defer lr.Release()
			var got []string
			for lr.Next() {
				rec := lr.RecordBatch()
				for i := 0; i < int(rec.NumRows()); i++ {
					var parts []string
					for c := 0; c < int(rec.NumCols()); c++ {
						parts = append(parts, rec.Column(c).ValueStr(i))
					}
					got = append(got, fmt.Sprint(parts))
				}
			}
			if lr.Err() != nil {
				t.Fatal(lr.Err())
			}
			proj := tc.proj
			if proj == nil {
				proj = []int{0, 1, 2}
			}
			var want []string
			for i := 1; i < 8; i++ {
				var parts []string
				for _, p := range proj {
					parts = append(parts, fmt.Sprint(rows[i][p]))
				}
				want = append(want, fmt.Sprint(parts))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("rows\n got %v\nwant %v", got, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) == 0 || !slices.Equal(seen[0], tc.wantPush) {
				t.Fatalf("pushed %v, want %v", seen, tc.wantPush)
			}
			if f := lr.Schema().Field(0).Name; f != cols[proj[0]].Name {
				t.Fatalf("first output column %q", f)
			}
		})
	}
}
