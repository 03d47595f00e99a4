package minifluss

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// callErr is call that also returns the error message of an error frame.
func (c *tconn) callErr(api int16, req, resp proto.Message) (int32, string) {
	c.t.Helper()
	id := c.send(api, 0, req)
	typ, rid, body := c.recv()
	if rid != id {
		c.t.Fatalf("response for request %d, want %d", rid, id)
	}
	if typ != 0 {
		var e flusspb.ErrorResponse
		if err := proto.Unmarshal(body, &e); err != nil {
			c.t.Fatal(err)
		}
		return e.GetErrorCode(), e.GetErrorMessage()
	}
	if err := proto.Unmarshal(body, resp); err != nil {
		c.t.Fatalf("decode %T: %v", resp, err)
	}
	return 0, ""
}

// schemaRPC fetches a schema by id (nil: latest) over TCP and returns the
// id and "name:id:type" per column.
func schemaRPC(t *testing.T, cn *tconn, db, tbl string, id *int32) (int32, []string, *record.Schema, int32) {
	t.Helper()
	var resp flusspb.GetTableSchemaResponse
	code, _ := cn.callErr(apiGetTableSchema, &flusspb.GetTableSchemaRequest{TablePath: pbPath(db, tbl), SchemaId: id}, &resp)
	if code != 0 {
		return 0, nil, nil, code
	}
	var raw struct {
		Columns []struct {
			Name string `json:"name"`
			ID   int    `json:"id"`
		} `json:"columns"`
		Highest int `json:"highest_field_id"`
	}
	if err := json.Unmarshal(resp.GetSchemaJson(), &raw); err != nil {
		t.Fatal(err)
	}
	s, err := record.ParseSchema(resp.GetSchemaJson())
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for i, c := range raw.Columns {
		cols = append(cols, fmt.Sprintf("%s:%d:%s", c.Name, c.ID, s.Columns[i].Type))
	}
	cols = append(cols, fmt.Sprintf("highest=%d", raw.Highest))
	return resp.GetSchemaId(), cols, s, 0
}

// fetchBySchema reads a bucket's whole log over TCP and decodes each batch
// with the schema of its own id, fetched by GET_TABLE_SCHEMA: the rows come
// out as written (old rows with fewer values), each tagged with its id.
func fetchBySchema(t *testing.T, c *Cluster, info TableInfo, partName string, partID *int64, bucket int32, proj []int32) ([]string, int32, string) {
	t.Helper()
	leader, err := c.Leader(info.Database, info.Name, partName, bucket)
	if err != nil {
		t.Fatal(err)
	}
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	coord := dial(t, c.BootstrapAddr())
	mem := memory.NewGoAllocator()
	var out []string
	off := int64(0)
	for {
		var resp flusspb.FetchLogResponse
		tr := &flusspb.PbFetchLogReqForTable{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(proj != nil), ProjectedFields: proj,
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{PartitionId: partID, BucketId: proto.Int32(bucket), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(1 << 20)}}}
		if code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), TablesReq: []*flusspb.PbFetchLogReqForTable{tr}}, &resp); code != 0 {
			t.Fatalf("fetch: error %d", code)
		}
		br := resp.TablesResp[0].BucketsResp[0]
		if br.GetErrorCode() != 0 {
			return out, br.GetErrorCode(), br.GetErrorMessage()
		}
		if len(br.Records) == 0 {
			return out, 0, ""
		}
		it := record.ReadBatches(br.Records, record.DecodeOptions{SkipCRC: proj != nil})
		for it.Next() {
			lb := it.Batch()
			off = lb.Header.BaseOffset + int64(lb.Header.LastOffsetDelta) + 1
			if lb.Header.RecordCount == 0 {
				continue
			}
			sid := int32(lb.Header.SchemaID)
			_, _, s, code := schemaRPC(t, coord, info.Database, info.Name, &sid)
			if code != 0 {
				t.Fatalf("schema %d: code %d", sid, code)
			}
			cols := s.TypeColumns()
			if proj != nil {
				var pc []typemap.Column
				for _, p := range proj {
					pc = append(pc, cols[p])
				}
				cols = pc
			}
			lf, _ := record.ParseLogFormat(c.tableLogFormat(info))
			var rows [][]any
			if lf == record.LogFormatArrow {
				dec, err := record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
				if err != nil {
					t.Fatal(err)
				}
				rec, _, err := dec.Decode(lb)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < int(rec.NumRows()); i++ {
					row, err := record.RecordRow(rec, record.Types(cols), i)
					if err != nil {
						t.Fatal(err)
					}
					rows = append(rows, row)
				}
				rec.Release()
				dec.Close()
			} else {
				rf, _ := lf.RowFormat()
				dec, err := record.NewRowDecoder(cols, rf, mem)
				if err != nil {
					t.Fatal(err)
				}
				rec, _, err := dec.DecodeLogBatch(lb)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < int(rec.NumRows()); i++ {
					row, err := record.RecordRow(rec, record.Types(cols), i)
					if err != nil {
						t.Fatal(err)
					}
					rows = append(rows, row)
				}
				rec.Release()
				dec.Release()
			}
			for _, r := range rows {
				out = append(out, fmt.Sprintf("s%d%v", sid, r))
			}
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
	}
}

func (c *Cluster) tableLogFormat(info TableInfo) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cat.tableByID(info.ID).logFormat()
}

// lakeFileSchemaIDs lists the schemaId of every live data file of the
// latest snapshot, sorted.
func lakeFileSchemaIDs(t *testing.T, ctx context.Context, wh, db, tbl string) []int64 {
	t.Helper()
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, db, tbl)
	if err != nil {
		t.Fatal(err)
	}
	id, err := pt.LatestSnapshotID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := pt.Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	live, err := pt.LiveFiles(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, e := range live {
		out = append(out, e.File.SchemaID)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

func TestAlterTableAddColumnLogTables(t *testing.T) {
	for _, variant := range []string{"ARROW", "COMPACTED", "INDEXED", "ARROW-legacy"} {
		format, legacy := strings.TrimSuffix(variant, "-legacy"), strings.HasSuffix(variant, "-legacy")
		t.Run(variant, func(t *testing.T) {
			ctx := context.Background()
			c, wh := lakeCluster(t, LakeConfig{LegacySystemColumns: legacy})
			info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "lg", Buckets: 1, PartitionKeys: []string{"p"},
				Columns:    []Column{{Name: "id", Type: typemap.Int()}, {Name: "s", Type: typemap.String()}, {Name: "p", Type: typemap.String()}},
				Properties: map[string]string{"table.datalake.enabled": "true", "table.log.format": format}})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Append(ctx, "db", "lg", [][]any{{int32(1), "a", "x"}, {int32(2), nil, "y"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.TierLake(ctx, "db", "lg"); err != nil {
				t.Fatal(err)
			}
			if err := c.Append(ctx, "db", "lg", [][]any{{int32(3), "c", "x"}}); err != nil {
				t.Fatal(err)
			}
			info2, err := c.AddColumns(ctx, "db", "lg", []Column{{Name: "n", Type: typemap.BigInt(), Comment: "added"}, {Name: "m", Type: typemap.String()}})
			if err != nil {
				t.Fatal(err)
			}
			if info2.SchemaID != info.SchemaID+1 || info2.SchemaID != 2 {
				t.Fatalf("schema id %d after ALTER, was %d", info2.SchemaID, info.SchemaID)
			}
			if err := c.Append(ctx, "db", "lg", [][]any{{int32(4), "d", "x", int64(40), nil}, {int32(5), "e", "y", nil, "m5"}}); err != nil {
				t.Fatal(err)
			}
			coord := dial(t, c.BootstrapAddr())
			one, two := int32(1), int32(2)
			for _, tc := range []struct {
				id   *int32
				want int32
				cols string
			}{
				{&one, 1, "[id:0:INT s:1:STRING p:2:STRING highest=2]"},
				{&two, 2, "[id:0:INT s:1:STRING p:2:STRING n:3:BIGINT m:4:STRING highest=4]"},
				{nil, 2, "[id:0:INT s:1:STRING p:2:STRING n:3:BIGINT m:4:STRING highest=4]"},
			} {
				id, cols, _, code := schemaRPC(t, coord, "db", "lg", tc.id)
				if code != 0 || id != tc.want || fmt.Sprint(cols) != tc.cols {
					t.Errorf("schema %v: code %d id %d cols %v, want %d %s", tc.id, code, id, cols, tc.want, tc.cols)
				}
			}
			three := int32(3)
			if _, _, _, code := schemaRPC(t, coord, "db", "lg", &three); code != flussapi.SchemaNotExist {
				t.Errorf("schema 3: code %d, want %d", code, flussapi.SchemaNotExist)
			}
			px, err := c.PartitionID("db", "lg", "x")
			if err != nil {
				t.Fatal(err)
			}
			rows, code, msg := fetchBySchema(t, c, info2, "x", &px, 0, nil)
			if want := "[s1[1 a x] s1[3 c x] s2[4 d x 40 <nil>]]"; code != 0 || fmt.Sprint(rows) != want {
				t.Fatalf("partition x log: %v (code %d %s), want %s", rows, code, msg, want)
			}
			if format == "ARROW" {
				// Positions apply to each batch's own schema (spec §3.6).
				if rows, code, _ := fetchBySchema(t, c, info2, "x", &px, 0, []int32{0, 2}); code != 0 || fmt.Sprint(rows) != "[s1[1 x] s1[3 x] s2[4 x]]" {
					t.Errorf("projection [0 2]: %v code %d", rows, code)
				}
				if _, code, msg := fetchBySchema(t, c, info2, "x", &px, 0, []int32{0, 3}); code != flussapi.InvalidColumnProjection || !strings.Contains(msg, "out of bound") {
					t.Errorf("projection [0 3] over schema-1 batches: code %d %q, want 34", code, msg)
				}
			}
			res, err := c.TierLake(ctx, "db", "lg")
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 3 {
				t.Errorf("second round tiered %d rows, want 3", res.Rows)
			}
			pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "lg")
			if err != nil {
				t.Fatal(err)
			}
			s1, err := pt.LatestSchema(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, f := range s1.Fields {
				fields = append(fields, fmt.Sprintf("%s:%d:%s", f.Name, f.ID, f.Description))
			}
			// A legacy table keeps its system columns last (ids 3-5), the
			// added columns go before them with the next ids.
			wantFields, wantHi := "[id:0: s:1: p:2: n:3:added m:4:]", 4
			if legacy {
				wantFields, wantHi = "[id:0: s:1: p:2: n:6:added m:7: __bucket:3: __offset:4: __timestamp:5:]", 7
			}
			if s1.ID != 1 || fmt.Sprint(fields) != wantFields || s1.HighestFieldID != wantHi {
				t.Errorf("lake schema-%d %v highest %d, want %s highest %d", s1.ID, fields, s1.HighestFieldID, wantFields, wantHi)
			}
			if got := lakeFileSchemaIDs(t, ctx, wh, "db", "lg"); fmt.Sprint(got) != "[0 0 1 1]" {
				t.Errorf("data file schema ids %v, want [0 0 1 1] (round 1: x, y; round 2: x, y)", got)
			}
			snap, _ := lakeSnapshotRPC(t, c, "lg", true)
			lake, _ := lakeRowsByBucket(t, ctx, wh, "lg", snap.GetSnapshotId(), 5)
			var all []string
			for _, rs := range lake {
				all = append(all, rs...)
			}
			want := "[1 a x <nil> <nil>]\n[2 <nil> y <nil> <nil>]\n[3 c x <nil> <nil>]\n[4 d x 40 <nil>]\n[5 e y <nil> m5]"
			if got := sortedJoin(all); got != want {
				t.Errorf("lake rows\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestAlterTableAddColumnPKTable(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	_, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk", Buckets: 1, PrimaryKey: []string{"k1", "k2"},
		Columns:    []Column{{Name: "k1", Type: typemap.Int().NotNull()}, {Name: "k2", Type: typemap.String().NotNull()}, {Name: "v", Type: typemap.String()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, "db", "pk", [][]any{{int32(1), "a", "v1"}, {int32(2), "b", "v2"}, {int32(3), "c", nil}, {int32(4), "d", "v4"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	info2, err := c.AddColumns(ctx, "db", "pk", []Column{{Name: "n", Type: typemap.Int()}})
	if err != nil {
		t.Fatal(err)
	}
	// k=2 updated (its -U is the schema-1 value, upgraded), k=3 deleted,
	// k=5 new.
	if err := c.Upsert(ctx, "db", "pk", [][]any{{int32(2), "b", "v2b", int32(20)}, {int32(5), "e", nil, int32(50)}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "db", "pk", [][]any{{int32(3), "c"}}); err != nil {
		t.Fatal(err)
	}
	rows, code, msg := fetchBySchema(t, c, info2, "", nil, 0, nil)
	want := "[s1[1 a v1] s1[2 b v2] s1[3 c <nil>] s1[4 d v4] s2[2 b v2 <nil>] s2[2 b v2b 20] s2[5 e <nil> 50] s2[3 c <nil> <nil>]]"
	if code != 0 || fmt.Sprint(rows) != want {
		t.Fatalf("changelog %v (code %d %s)\nwant %s", rows, code, msg, want)
	}
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	snap, _ := lakeSnapshotRPC(t, c, "pk", true)
	lake, _ := lakeRowsByBucket(t, ctx, wh, "pk", snap.GetSnapshotId(), 4)
	var all []string
	for _, rs := range lake {
		all = append(all, rs...)
	}
	if got, want := sortedJoin(all), "[1 a v1 <nil>]\n[2 b v2b 20]\n[4 d v4 <nil>]\n[5 e <nil> 50]"; got != want {
		t.Errorf("lake state\n%s\nwant\n%s", got, want)
	}
	if got := lakeFileSchemaIDs(t, ctx, wh, "db", "pk"); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("data file schema ids %v, want [0 1]", got)
	}
	if _, err := c.CompactLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	snap, _ = lakeSnapshotRPC(t, c, "pk", true)
	lake, _ = lakeRowsByBucket(t, ctx, wh, "pk", snap.GetSnapshotId(), 4)
	all = all[:0]
	for _, rs := range lake {
		all = append(all, rs...)
	}
	if got, want := sortedJoin(all), "[1 a v1 <nil>]\n[2 b v2b 20]\n[4 d v4 <nil>]\n[5 e <nil> 50]"; got != want {
		t.Errorf("lake state after compaction\n%s\nwant\n%s", got, want)
	}
}

func TestAlterTableRefusals(t *testing.T) {
	ctx := context.Background()
	c := startCluster(t, Config{TabletServers: 1})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "t", Columns: []Column{{Name: "a", Type: typemap.Int()}}}); err != nil {
		t.Fatal(err)
	}
	intJSON, _ := typemap.Int().MarshalJSON()
	nnJSON, _ := typemap.Int().NotNull().MarshalJSON()
	add := func(name string, js []byte, pos int32) []*flusspb.PbAddColumn {
		return []*flusspb.PbAddColumn{{ColumnName: proto.String(name), DataTypeJson: js, ColumnPositionType: proto.Int32(pos)}}
	}
	cn := dial(t, c.BootstrapAddr())
	for _, tc := range []struct {
		name string
		req  *flusspb.AlterTableRequest
		code int32
		msg  string
	}{
		{"exists", &flusspb.AlterTableRequest{AddColumns: add("a", intJSON, 0)}, flussapi.InvalidAlterTable, "Column a already exists."},
		{"not null", &flusspb.AlterTableRequest{AddColumns: add("b", nnJSON, 0)}, flussapi.UnknownServerError, "Column b must be nullable."},
		{"first", &flusspb.AlterTableRequest{AddColumns: add("b", intJSON, 1)}, flussapi.UnknownServerError, "Only support addColumn column at last now."},
		{"drop", &flusspb.AlterTableRequest{DropColumns: []*flusspb.PbDropColumn{{ColumnName: proto.String("a")}}}, flussapi.UnknownServerError, "Not support drop column now."},
		{"rename", &flusspb.AlterTableRequest{RenameColumns: []*flusspb.PbRenameColumn{{OldColumnName: proto.String("a"), NewColumnName: proto.String("b")}}}, flussapi.UnknownServerError, "Not support rename column now."},
		{"modify", &flusspb.AlterTableRequest{ModifyColumns: []*flusspb.PbModifyColumn{{ColumnName: proto.String("a")}}}, flussapi.UnknownServerError, "Not support modify column now."},
		{"system", &flusspb.AlterTableRequest{AddColumns: add("__offset", intJSON, 0)}, flussapi.InvalidTable, "__offset cannot be used as column names"},
	} {
		tc.req.TablePath, tc.req.IgnoreIfNotExists = pbPath("db", "t"), proto.Bool(false)
		code, msg := cn.callErr(apiAlterTable, tc.req, &flusspb.AlterTableResponse{})
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: code %d %q, want %d %q", tc.name, code, msg, tc.code, tc.msg)
		}
	}
	if info, _ := c.Table("db", "t"); info.SchemaID != 1 {
		t.Errorf("refused changes moved the schema id to %d", info.SchemaID)
	}
	// Missing table: an error unless ignore_if_not_exists.
	req := &flusspb.AlterTableRequest{TablePath: pbPath("db", "nope"), IgnoreIfNotExists: proto.Bool(true), AddColumns: add("b", intJSON, 0)}
	if code, msg := cn.callErr(apiAlterTable, req, &flusspb.AlterTableResponse{}); code != 0 {
		t.Errorf("ignore_if_not_exists: %d %s", code, msg)
	}
	req.IgnoreIfNotExists = proto.Bool(false)
	if code, _ := cn.callErr(apiAlterTable, req, &flusspb.AlterTableResponse{}); code != flussapi.TableNotExist {
		t.Errorf("missing table: code %d", code)
	}
}

func TestScenarioAddColumn(t *testing.T) {
	s, err := ParseScenario(`CREATE DATABASE d;
CREATE TABLE d.t (id INT, s STRING) WITH ('bucket.num' = '1');
INSERT INTO d.t VALUES (1, 'a');
ALTER TABLE d.t ADD COLUMN c DECIMAL(10, 2) COMMENT 'price';
ALTER TABLE d.t ADD COLUMN z INT;
ALTER TABLE d.t ADD (x ARRAY<INT>, y STRING);
INSERT INTO d.t VALUES (2, 'b', '1.50', 7, ARRAY[1, 2], NULL);`)
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Config{TabletServers: 1})
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	info, err := c.Table("d", "t")
	if err != nil {
		t.Fatal(err)
	}
	if info.SchemaID != 4 || !strings.Contains(string(info.JSON), `"name":"c","data_type":{"type":"DECIMAL","precision":10,"scale":2},"comment":"price","id":2`) {
		t.Fatalf("schema %d %s", info.SchemaID, info.JSON)
	}
	rows, code, _ := fetchBySchema(t, c, info, "", nil, 0, nil)
	if code != 0 || fmt.Sprint(rows) != "[s1[1 a] s4[2 b {150 0} 7 [1 2] <nil>]]" /* 1.50 as unscaled decimal128 */ {
		t.Fatalf("rows %v code %d", rows, code)
	}
	if _, err := ParseScenario("ALTER TABLE d.t ADD COLUMN c"); err == nil {
		t.Error("ADD COLUMN without a type parsed")
	}
}

// TestAlterTableSurvivesRestart: the schema history is persisted; after a
// restart old schema ids still answer, the -U of a value written before
// the change is upgraded, and tiering decodes batches of both ids.
func TestAlterTableSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir, wh := t.TempDir(), t.TempDir()
	cfg := Config{DataDir: dir, DatalakeFormat: "paimon", TabletServers: 1, Lake: LakeConfig{Warehouse: wh}}
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk", Buckets: 1, PrimaryKey: []string{"k"},
		Columns: []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}}, Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, "db", "pk", [][]any{{int32(1), "a"}, {int32(2), "b"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddColumns(ctx, "db", "pk", []Column{{Name: "n", Type: typemap.SmallInt()}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	one := int32(1)
	if id, cols, _, code := schemaRPC(t, dial(t, c.BootstrapAddr()), "db", "pk", &one); code != 0 || id != 1 || fmt.Sprint(cols) != "[k:0:INT NOT NULL v:1:STRING highest=1]" {
		t.Fatalf("schema 1 after restart: %d %v code %d", id, cols, code)
	}
	if err := c.Upsert(ctx, "db", "pk", [][]any{{int32(1), "a2", int16(7)}}); err != nil {
		t.Fatal(err)
	}
	info, _ := c.Table("db", "pk")
	rows, code, _ := fetchBySchema(t, c, info, "", nil, 0, nil)
	if want := "[s1[1 a] s1[2 b] s2[1 a <nil>] s2[1 a2 7]]"; code != 0 || fmt.Sprint(rows) != want {
		t.Fatalf("changelog %v code %d, want %s", rows, code, want)
	}
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	snap, _ := lakeSnapshotRPC(t, c, "pk", true)
	lake, _ := lakeRowsByBucket(t, ctx, wh, "pk", snap.GetSnapshotId(), 3)
	var all []string
	for _, rs := range lake {
		all = append(all, rs...)
	}
	if got, want := sortedJoin(all), "[1 a2 7]\n[2 b <nil>]"; got != want {
		t.Errorf("lake\n%s\nwant\n%s", got, want)
	}
}

// TestPutKvOlderSchemaID: after ADD COLUMN a writer may still send KV
// batches of an older schema id (KvTablet.validateSchemaId accepts any id up
// to the latest): the values keep their id, the changelog is written in the
// latest schema with the added column NULL; an unknown id is refused.
func TestPutKvOlderSchemaID(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "kv"); err != nil {
		t.Fatal(err)
	}
	nested := typemap.Row(typemap.NewField("number", typemap.Int()), typemap.NewField("label", typemap.String()))
	info, err := c.CreateTable(ctx, TableSpec{Database: "kv", Name: "java", Buckets: 1, PrimaryKey: []string{"number"}, SchemaID: 9,
		Columns: []Column{{Name: "number", Type: typemap.Int()}, {Name: "name", Type: typemap.String()},
			{Name: "values", Type: typemap.Array(typemap.Int())}, {Name: "nested", Type: nested}}})
	if err != nil {
		t.Fatal(err)
	}
	batch := loadHex(t, "kv_write_batch_java091.hex") // schema id 9, Java-written
	cn := dial(t, c.ServerAddr(0, "CLIENT"))
	put := func(b []byte) *flusspb.PbPutKvRespForBucket {
		t.Helper()
		var pr flusspb.PutKvResponse
		if code := cn.call(apiPutKv, &flusspb.PutKvRequest{Acks: proto.Int32(-1), TableId: proto.Int64(info.ID), TimeoutMs: proto.Int32(1000),
			BucketsReq: []*flusspb.PbPutKvReqForBucket{{BucketId: proto.Int32(0), Records: b}}}, &pr); code != 0 {
			t.Fatalf("put: %d", code)
		}
		return pr.GetBucketsResp()[0]
	}
	if r := put(batch); r.GetErrorCode() != 0 {
		t.Fatalf("put before ALTER: %v", r)
	}
	info2, err := c.AddColumns(ctx, "kv", "java", []Column{{Name: "extra", Type: typemap.BigInt()}})
	if err != nil || info2.SchemaID != 10 {
		t.Fatalf("alter: %v %+v", err, info2)
	}
	if r := put(batch); r.GetErrorCode() != 0 {
		t.Fatalf("put of schema 9 after ALTER: %v", r)
	}
	var lr flusspb.LookupResponse
	cn.call(apiLookup, &flusspb.LookupRequest{TableId: proto.Int64(info.ID), BucketsReq: []*flusspb.PbLookupReqForBucket{{BucketId: proto.Int32(0), Keys: [][]byte{{0x2a}}}}}, &lr)
	if vs := lr.GetBucketsResp()[0].GetValues(); len(vs) != 1 || len(vs[0].GetValues()) < 2 || vs[0].GetValues()[0] != 9 {
		t.Fatalf("stored value keeps schema id 9: %v", vs)
	}
	rows, code, msg := fetchBySchema(t, c, info2, "", nil, 0, nil)
	if code != 0 || len(rows) != 3 {
		t.Fatalf("changelog %v (code %d %s)", rows, code, msg)
	}
	// +I in schema 9, then -U/+U of the same row in schema 10, extra NULL.
	first := strings.TrimPrefix(rows[0], "s9[")
	for _, r := range rows[1:] {
		if !strings.HasPrefix(r, "s10[") || r != "s10["+strings.TrimSuffix(first, "]")+" <nil>]" {
			t.Errorf("changelog row %q, want s10 of %q plus NULL", r, rows[0])
		}
	}
	kb, err := decodeKvBatch(batch)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := record.AppendKvBatch(nil, 11, -1, -1, kb.Records)
	if err != nil {
		t.Fatal(err)
	}
	if r := put(bad); r.GetErrorCode() != flussapi.SchemaNotExist || r.GetErrorMessage() != "Invalid schema id: 11, latest schema id: 10" {
		t.Fatalf("schema 11: %v", r)
	}
}

// TestProduceOlderSchemaID: a log batch of an older registered schema id
// is stored as written (readers decode it by its id); an unknown id is
// refused.
func TestProduceOlderSchemaID(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "t", Buckets: 1, Properties: map[string]string{"table.log.format": "COMPACTED"},
		Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.String()}}}); err != nil {
		t.Fatal(err)
	}
	info, err := c.AddColumns(ctx, "db", "t", []Column{{Name: "c", Type: typemap.Int()}})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(id int16) []byte {
		b, err := record.AppendRowLogBatch(nil, record.BatchParams{SchemaID: id, WriterID: -1, BatchSequence: -1}, record.RowCompacted,
			[]typemap.DataType{typemap.Int(), typemap.String()}, [][]any{{int32(7), "old"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, err := c.AppendBatches(ctx, "db", "t", "", 0, batch(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppendBatches(ctx, "db", "t", "", 0, batch(3)); err == nil || !strings.Contains(err.Error(), "schema id 3") {
		t.Fatalf("schema 3: %v", err)
	}
	rows, code, _ := fetchBySchema(t, c, info, "", nil, 0, nil)
	if code != 0 || fmt.Sprint(rows) != "[s1[7 old]]" {
		t.Fatalf("rows %v code %d", rows, code)
	}
}
