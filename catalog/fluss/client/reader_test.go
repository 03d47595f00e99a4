package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
	"google.golang.org/protobuf/proto"
)

// fakeBucket is one bucket's log and KV state served by a frameServer that
// plays both coordinator and (as node 1) tablet server. Its FETCH_LOG cuts
// the answer inside the third batch, so every read exercises truncation.
type fakeBucket struct {
	t       *testing.T
	path    TablePath
	tableID int64
	batches [][]byte // log batches, offsets assigned in order
	hw      int64
	// SCAN_KV: value batches served page by page, and the scan's log offset.
	pages     [][]byte
	scanLog   int64
	fetches   int
	scanCalls int
	closes    int
	schemas   map[int32][]typemap.Column // GET_TABLE_SCHEMA answers
	schemaRPC int
	mu        sync.Mutex
}

var fakeCols = []typemap.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "name", Type: typemap.String()}}

func (fb *fakeBucket) addBatch(rows [][]any, cts []record.ChangeType) {
	fb.t.Helper()
	fb.addBatchSchema(rows, cts, 1, fakeCols)
}

func (fb *fakeBucket) addBatchSchema(rows [][]any, cts []record.ChangeType, schemaID int16, cols []typemap.Column) {
	fb.t.Helper()
	b, err := record.AppendRowLogBatch(nil, record.BatchParams{BaseOffset: fb.hw, SchemaID: schemaID, WriterID: -1, BatchSequence: -1},
		record.RowCompacted, record.Types(cols), rows, cts)
	if err != nil {
		fb.t.Fatal(err)
	}
	fb.batches = append(fb.batches, b)
	if len(rows) == 0 {
		fb.hw++
	} else {
		fb.hw += int64(len(rows))
	}
}

func (fb *fakeBucket) addPage(rows [][]any) {
	fb.t.Helper()
	var recs []record.ValueRecord
	for _, r := range rows {
		row, err := record.EncodeCompactedRow(nil, record.Types(fakeCols), r)
		if err != nil {
			fb.t.Fatal(err)
		}
		recs = append(recs, record.ValueRecord{SchemaID: 1, Row: row})
	}
	fb.pages = append(fb.pages, record.AppendValueBatch(nil, recs))
}

func (fb *fakeBucket) serve(srv *frameServer) func(c *srvConn, req srvReq) {
	return func(c *srvConn, req srvReq) {
		fb.mu.Lock()
		defer fb.mu.Unlock()
		switch req.key {
		case flussapi.GetMetadata:
			c.ok(req.id, metadataResponse(srv, map[int32]*frameServer{1: srv}, tablePB(fb.path, fb.tableID, map[int32]int32{0: 1})))
		case flussapi.GetTableSchema:
			var r flusspb.GetTableSchemaRequest
			_ = proto.Unmarshal(req.body, &r)
			fb.schemaRPC++ // fb.mu is held by the handler
			cols, ok := fb.schemas[r.GetSchemaId()]
			if !ok {
				c.fail(req.id, flussapi.SchemaNotExist, fmt.Sprintf("schema %d", r.GetSchemaId()))
				return
			}
			sch := &record.Schema{}
			for i, col := range cols {
				sch.Columns = append(sch.Columns, record.TableColumn{Name: col.Name, Type: col.Type, ID: int32(i)})
			}
			sch.HighestFieldID = int32(len(cols) - 1)
			js, err := record.MarshalSchema(sch)
			if err != nil {
				fb.t.Error(err)
			}
			c.ok(req.id, &flusspb.GetTableSchemaResponse{SchemaId: proto.Int32(r.GetSchemaId()), SchemaJson: js})
		case flussapi.ListOffsets:
			c.ok(req.id, &flusspb.ListOffsetsResponse{BucketsResp: []*flusspb.PbListOffsetsRespForBucket{{BucketId: proto.Int32(0), Offset: proto.Int64(fb.hw)}}})
		case flussapi.FetchLog:
			fb.fetches++
			var r flusspb.FetchLogRequest
			_ = proto.Unmarshal(req.body, &r)
			off := r.GetTablesReq()[0].GetBucketsReq()[0].GetFetchOffset()
			var out []byte
			n := 0
			for _, b := range fb.batches {
				lb, err := record.DecodeLogBatch(b, record.DecodeOptions{})
				if err != nil {
					fb.t.Error(err)
				}
				if lb.Header.NextOffset() <= off {
					continue
				}
				if n == 2 {
					out = append(out, b[:len(b)/2]...) // a cut-short third batch
					break
				}
				out = append(out, b...)
				n++
			}
			c.ok(req.id, &flusspb.FetchLogResponse{TablesResp: []*flusspb.PbFetchLogRespForTable{{TableId: proto.Int64(fb.tableID),
				BucketsResp: []*flusspb.PbFetchLogRespForBucket{{BucketId: proto.Int32(0), HighWatermark: proto.Int64(fb.hw), Records: out}}}}})
		case flussapi.ScanKv:
			fb.scanCalls++
			var r flusspb.ScanKvRequest
			_ = proto.Unmarshal(req.body, &r)
			seq := int(r.GetCallSeqId())
			resp := &flusspb.ScanKvResponse{ScannerId: []byte("sc1"), HasMoreResults: proto.Bool(seq+1 < len(fb.pages))}
			if seq == 0 {
				resp.LogOffset = proto.Int64(fb.scanLog)
			}
			if r.GetCloseScanner() {
				fb.closes++
				resp.HasMoreResults = proto.Bool(false)
			} else if seq < len(fb.pages) {
				resp.Records = fb.pages[seq]
			}
			c.ok(req.id, resp)
		default:
			c.fail(req.id, flussapi.UnsupportedVersion, "not in this fake")
		}
	}
}

func newFakeBucket(t *testing.T) (*fakeBucket, *Client) {
	fb := &fakeBucket{t: t, path: TablePath{"db", "t"}, tableID: 7}
	srv := newFrameServer(t, nil, flussapi.GetMetadata, flussapi.ListOffsets, flussapi.FetchLog, flussapi.ScanKv, flussapi.GetTableSchema)
	srv.handle = fb.serve(srv)
	return fb, newTestClient(t, testConfig(srv.addr()))
}

func rowsOf(ids ...int) [][]any {
	var out [][]any
	for _, id := range ids {
		out = append(out, []any{int32(id), fmt.Sprintf("v%d", id)})
	}
	return out
}

// TestLogReaderTrimTruncateEmpty: batches that start before Start are
// trimmed, a 0-record batch is skipped (it still consumes an offset), the
// cut-short batch at the end of every answer is fetched again, and rows at
// or after Stop are dropped.
func TestLogReaderTrimTruncateEmpty(t *testing.T) {
	fb, cl := newFakeBucket(t)
	fb.addBatch(rowsOf(0, 1, 2, 3), nil) // offsets 0-3
	fb.addBatch(nil, nil)                // offset 4, empty
	fb.addBatch(rowsOf(5, 6, 7), nil)    // 5-7
	fb.addBatch(rowsOf(8, 9, 10, 11), nil)
	fb.addBatch(rowsOf(12), nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := TableBucket{Table: fb.path, TableID: fb.tableID, Bucket: 0}
	for _, r := range [][2]int64{{0, 13}, {2, 10}, {4, 5}, {4, 6}, {3, 12}, {12, 13}} {
		lr, err := cl.NewLogReader(context.Background(), LogRange{Bucket: b, Start: r[0], Stop: r[1], Columns: fakeCols, Format: record.LogFormatCompacted}, mem)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for lr.Next() {
			c := lr.RecordBatch().Column(0).(*array.Int32)
			for i := 0; i < c.Len(); i++ {
				ids = append(ids, int64(c.Value(i)))
			}
		}
		if lr.Err() != nil {
			t.Fatalf("%v: %v", r, lr.Err())
		}
		var want []int64
		for i := r[0]; i < r[1]; i++ {
			if i != 4 {
				want = append(want, i)
			}
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("%v: got %v want %v", r, ids, want)
		}
		lr.Release()
	}
	if fb.fetches < 6 {
		t.Fatalf("only %d fetches: truncation was not exercised", fb.fetches)
	}
}

// TestPKReaderMerge: SCAN_KV state at log offset L merged with the
// changelog [L, stop): +I adds, +U replaces, -D removes, -U is ignored,
// a key deleted then re-inserted comes back with its last value.
func TestPKReaderMerge(t *testing.T) {
	fb, cl := newFakeBucket(t)
	// Changelog before the scan's log offset: must not be read.
	fb.addBatch(rowsOf(100), []record.ChangeType{record.Insert}) // offset 0
	fb.scanLog = 1
	fb.addPage(rowsOf(1, 2, 3))
	fb.addPage(rowsOf(4, 5))
	fb.addPage(rowsOf(6))
	// The changelog from offset 1.
	fb.addBatch([][]any{{int32(2), "v2"}, {int32(2), "new2"}}, []record.ChangeType{record.UpdateBefore, record.UpdateAfter}) // 1-2
	fb.addBatch(rowsOf(4), []record.ChangeType{record.Delete})                                                               // 3
	fb.addBatch(nil, nil)                                                                                                    // 4: delete of a missing key
	fb.addBatch([][]any{{int32(7), "v7"}, {int32(6), "v6"}}, []record.ChangeType{record.Insert, record.Delete})              // 5-6
	fb.addBatch([][]any{{int32(6), "back6"}, {int32(8), "v8"}}, []record.ChangeType{record.Insert, record.Insert})           // 7-8
	fb.addBatch([][]any{{int32(8), "v8"}}, []record.ChangeType{record.Delete})                                               // 9: beyond stop
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pr, err := cl.NewPKReader(context.Background(), PKRange{
		Bucket: TableBucket{Table: fb.path, TableID: fb.tableID, Bucket: 0}, Columns: fakeCols, SchemaID: 1, PrimaryKey: []int{0},
		KvFormat: record.KvFormatCompacted, LogFormat: record.LogFormatCompacted, Stop: 9, Projection: []int{1, 0},
	}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release()
	got := map[int32]string{}
	var order []int32
	for pr.Next() {
		rec := pr.RecordBatch()
		if rec.Schema().Field(0).Name != "name" {
			t.Fatalf("projection not applied: %v", rec.Schema())
		}
		names, ids := rec.Column(0).(*array.String), rec.Column(1).(*array.Int32)
		for i := 0; i < ids.Len(); i++ {
			if _, dup := got[ids.Value(i)]; dup {
				t.Fatalf("key %d emitted twice", ids.Value(i))
			}
			got[ids.Value(i)] = names.Value(i)
			order = append(order, ids.Value(i))
		}
	}
	if pr.Err() != nil {
		t.Fatal(pr.Err())
	}
	want := map[int32]string{1: "v1", 2: "new2", 3: "v3", 5: "v5", 6: "back6", 7: "v7", 8: "v8"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("state %v\n want %v", got, want)
	}
	// Snapshot rows first (in scan order), then the changelog's survivors.
	if !slices.Equal(order, []int32{1, 3, 5, 2, 7, 6, 8}) {
		t.Fatalf("order %v", order)
	}
	if pr.LogOffset() != 1 || pr.StopOffset() != 9 || pr.Suppressed != 3 {
		t.Fatalf("log offset %d stop %d suppressed %d", pr.LogOffset(), pr.StopOffset(), pr.Suppressed)
	}
}

// TestPKReaderStopDefaultsToLatest: Stop < 0 takes the high watermark.
func TestPKReaderStopDefaultsToLatest(t *testing.T) {
	fb, cl := newFakeBucket(t)
	fb.scanLog = 0
	fb.addPage(rowsOf(1))
	fb.addBatch(rowsOf(1), []record.ChangeType{record.Delete})
	fb.addBatch(rowsOf(2), []record.ChangeType{record.Insert})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pr, err := cl.NewPKReader(context.Background(), PKRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Columns: fakeCols,
		PrimaryKey: []int{0}, KvFormat: record.KvFormatCompacted, LogFormat: record.LogFormatCompacted, Stop: -1}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release()
	var ids []int32
	for pr.Next() {
		c := pr.RecordBatch().Column(0).(*array.Int32)
		for i := 0; i < c.Len(); i++ {
			ids = append(ids, c.Value(i))
		}
	}
	if pr.Err() != nil || !slices.Equal(ids, []int32{2}) || pr.StopOffset() != 2 {
		t.Fatalf("ids %v stop %d err %v", ids, pr.StopOffset(), pr.Err())
	}
}

// TestPKReaderReleaseClosesScanner: abandoning a read mid-scan tells the
// server to drop its scanner session.
func TestPKReaderReleaseClosesScanner(t *testing.T) {
	fb, cl := newFakeBucket(t)
	fb.addPage(rowsOf(1, 2))
	fb.addPage(rowsOf(3))
	fb.addPage(rowsOf(4))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pr, err := cl.NewPKReader(context.Background(), PKRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Columns: fakeCols,
		PrimaryKey: []int{0}, KvFormat: record.KvFormatCompacted, LogFormat: record.LogFormatCompacted, Stop: 0}, mem)
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Next() || pr.RecordBatch().NumRows() != 2 {
		t.Fatalf("first batch: %v", pr.Err())
	}
	pr.Release()
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if fb.closes != 1 {
		t.Fatalf("close_scanner sent %d times", fb.closes)
	}
}

// TestLogReaderOlderSchema: batches written before a column was appended
// are decoded with their own schema (fetched by id) and padded with NULLs.
func TestLogReaderOlderSchema(t *testing.T) {
	fb, cl := newFakeBucket(t)
	cols2 := append(slices.Clone(fakeCols), typemap.Column{Name: "extra", Type: typemap.BigInt()})
	fb.schemas = map[int32][]typemap.Column{1: fakeCols, 2: cols2}
	fb.addBatch(rowsOf(0, 1), nil)                                                                // schema 1
	fb.addBatchSchema([][]any{{int32(2), "v2", int64(20)}, {int32(3), "v3", nil}}, nil, 2, cols2) // schema 2
	fb.addBatch(rowsOf(4), nil)                                                                   // schema 1 again
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lr, err := cl.NewLogReader(context.Background(), LogRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Start: 1, Stop: 5,
		Columns: cols2, SchemaID: 2, Format: record.LogFormatCompacted, Projection: []int{2, 0}}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Release()
	var got []string
	for lr.Next() {
		rec := lr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, rec.Column(0).ValueStr(i)+"/"+rec.Column(1).ValueStr(i))
		}
	}
	if lr.Err() != nil {
		t.Fatal(lr.Err())
	}
	if want := []string{"(null)/1", "20/2", "(null)/3", "(null)/4"}; !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	// Schema 1 was fetched once, for both of its batches (cached by id).
	fb.mu.Lock()
	calls := fb.schemaRPC
	fb.mu.Unlock()
	if calls != 1 {
		t.Errorf("GET_TABLE_SCHEMA sent %d times, want 1", calls)
	}
	// A batch whose schema is not a prefix of the read's schema is refused
	// (as from a new client: the cache would answer the first schema 1).
	fb.schemas[1] = []typemap.Column{{Name: "other", Type: typemap.Int().NotNull()}, {Name: "name", Type: typemap.String()}}
	cl.schemaMu.Lock()
	cl.schemas = nil
	cl.schemaMu.Unlock()
	lr2, err := cl.NewLogReader(context.Background(), LogRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Start: 0, Stop: 5,
		Columns: cols2, SchemaID: 2, Format: record.LogFormatCompacted}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr2.Release()
	for lr2.Next() {
	}
	if !errors.Is(lr2.Err(), ErrUnsupported) {
		t.Fatalf("err = %v", lr2.Err())
	}
}

// TestPKReaderOlderSchemaValues: KV values written with an older schema id
// are decoded with that schema and padded with NULLs.
func TestPKReaderOlderSchemaValues(t *testing.T) {
	fb, cl := newFakeBucket(t)
	cols2 := append(slices.Clone(fakeCols), typemap.Column{Name: "extra", Type: typemap.BigInt()})
	fb.schemas = map[int32][]typemap.Column{1: fakeCols, 2: cols2}
	fb.addPage(rowsOf(1, 2)) // schema 1 values
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pr, err := cl.NewPKReader(context.Background(), PKRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Columns: cols2, SchemaID: 2,
		PrimaryKey: []int{0}, KvFormat: record.KvFormatCompacted, LogFormat: record.LogFormatCompacted, Stop: 0}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release()
	var got []string
	for pr.Next() {
		rec := pr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, rec.Column(0).ValueStr(i)+"/"+rec.Column(2).ValueStr(i))
		}
	}
	if pr.Err() != nil || !slices.Equal(got, []string{"1/(null)", "2/(null)"}) {
		t.Fatalf("got %v err %v", got, pr.Err())
	}
}

// TestReadersStopOnCancel: a cancelled query stops its readers with the
// context's error, and Release frees what they held.
func TestReadersStopOnCancel(t *testing.T) {
	fb, cl := newFakeBucket(t)
	fb.addBatch(rowsOf(0, 1), nil)
	fb.addBatch(rowsOf(2, 3), nil)
	fb.addBatch(rowsOf(4, 5), nil)
	fb.addBatch(rowsOf(6, 7), nil)
	fb.addPage(rowsOf(1))
	fb.addPage(rowsOf(2))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Start: 0, Stop: 8, Columns: fakeCols, Format: record.LogFormatCompacted}, mem)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := cl.NewPKReader(ctx, PKRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Columns: fakeCols, PrimaryKey: []int{0},
		KvFormat: record.KvFormatCompacted, LogFormat: record.LogFormatCompacted, Stop: 0}, mem)
	if err != nil {
		t.Fatal(err)
	}
	if !lr.Next() || !pr.Next() {
		t.Fatalf("first batches: %v %v", lr.Err(), pr.Err())
	}
	cancel()
	for lr.Next() {
	}
	for pr.Next() {
	}
	if !errors.Is(lr.Err(), context.Canceled) || !errors.Is(pr.Err(), context.Canceled) {
		t.Fatalf("errors after cancel: %v / %v", lr.Err(), pr.Err())
	}
	lr.Release()
	pr.Release()
}

// TestLogReaderStopBeyondHighWatermark: asking for offsets the log does not
// have yet is an error naming both, not a wait or a loop.
func TestLogReaderStopBeyondHighWatermark(t *testing.T) {
	fb, cl := newFakeBucket(t)
	fb.addBatch(rowsOf(0, 1), nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lr, err := cl.NewLogReader(context.Background(), LogRange{Bucket: TableBucket{Table: fb.path, TableID: fb.tableID}, Start: 0, Stop: 5, Columns: fakeCols, Format: record.LogFormatCompacted}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Release()
	n := 0
	for lr.Next() {
		n += int(lr.RecordBatch().NumRows())
	}
	if n != 2 || !errors.Is(lr.Err(), ErrOffsetOutOfRange) || !strings.Contains(lr.Err().Error(), "high watermark 2") {
		t.Fatalf("rows %d err %v", n, lr.Err())
	}
}

// The readers are array.RecordReaders.
var (
	_ array.RecordReader = (*LogReader)(nil)
	_ array.RecordReader = (*PKReader)(nil)
)
