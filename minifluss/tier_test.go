package minifluss

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

func lakeCluster(t *testing.T, lc LakeConfig) (*Cluster, string) {
	t.Helper()
	if lc.Warehouse == "" {
		lc.Warehouse = t.TempDir()
	}
	c := startCluster(t, Config{DatalakeFormat: "paimon", Lake: lc, TabletServers: 2})
	if err := c.CreateDatabase(context.Background(), "db"); err != nil {
		t.Fatal(err)
	}
	return c, lc.Warehouse
}

// lakeSnapshotRPC asks the coordinator over TCP.
func lakeSnapshotRPC(t *testing.T, c *Cluster, tbl string, readable bool) (*flusspb.GetLakeSnapshotResponse, int32) {
	return lakeSnapshotRPCIn(t, c, "db", tbl, readable)
}

func lakeSnapshotRPCIn(t *testing.T, c *Cluster, db, tbl string, readable bool) (*flusspb.GetLakeSnapshotResponse, int32) {
	t.Helper()
	var resp flusspb.GetLakeSnapshotResponse
	req := &flusspb.GetLakeSnapshotRequest{TablePath: pbPath(db, tbl)}
	if readable {
		req.Readable = proto.Bool(true)
	}
	code := dial(t, c.BootstrapAddr()).call(apiGetLakeSnapshot, req, &resp)
	return &resp, code
}

type logRow struct {
	row string
	ct  record.ChangeType
	off int64
}

// fetchTail reads a bucket's log from off to the high watermark over TCP
// from the bucket leader and decodes it.
func fetchTail(t *testing.T, c *Cluster, info TableInfo, partName string, partID *int64, bucket int32, off int64) []logRow {
	t.Helper()
	leader, err := c.Leader(info.Database, info.Name, partName, bucket)
	if err != nil {
		t.Fatal(err)
	}
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	c.mu.Lock()
	tb := c.cat.tableByID(info.ID)
	cols := tb.columns()
	c.mu.Unlock()
	dec, err := record.NewArrowDecoder(cols, memory.NewGoAllocator(), record.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var out []logRow
	for {
		var resp flusspb.FetchLogResponse
		req := &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20), TablesReq: []*flusspb.PbFetchLogReqForTable{{
			TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
			BucketsReq: []*flusspb.PbFetchLogReqForBucket{{PartitionId: partID, BucketId: proto.Int32(bucket), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(1 << 20)}}}}}
		if code := cn.call(apiFetchLog, req, &resp); code != 0 {
			t.Fatalf("fetch: error %d", code)
		}
		br := resp.TablesResp[0].BucketsResp[0]
		if br.ErrorCode != nil && br.GetErrorCode() != 0 {
			t.Fatalf("fetch bucket %d at %d: %d %s", bucket, off, br.GetErrorCode(), br.GetErrorMessage())
		}
		if len(br.Records) == 0 {
			if off != br.GetHighWatermark() {
				t.Fatalf("fetch at %d returned nothing below the high watermark %d", off, br.GetHighWatermark())
			}
			return out
		}
		it := record.ReadBatches(br.Records, record.DecodeOptions{})
		for it.Next() {
			lb := it.Batch()
			next := lb.Header.BaseOffset + int64(lb.Header.LastOffsetDelta) + 1
			if lb.Header.RecordCount > 0 {
				rec, cts, err := dec.Decode(lb)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < int(rec.NumRows()); i++ {
					o := lb.Header.BaseOffset + int64(i)
					if o < off {
						continue
					}
					row, err := record.RecordRow(rec, record.Types(cols), i)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, logRow{fmt.Sprint(row), cts.At(i), o})
				}
				rec.Release()
			}
			off = next
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
	}
}

// lakeRowsByBucket reads a lake snapshot with lake/paimon, per split
// (merge-on-read where needed), keeping only the table columns.
func lakeRowsByBucket(t *testing.T, ctx context.Context, warehouse, tbl string, snapshot int64, ncols int) (map[string][]string, bool) {
	return lakeRowsIn(t, ctx, warehouse, "db", tbl, snapshot, ncols)
}

func lakeRowsIn(t *testing.T, ctx context.Context, warehouse, db, tbl string, snapshot int64, ncols int) (map[string][]string, bool) {
	t.Helper()
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, warehouse, db, tbl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pt.Plan(ctx, paimon.ScanOptions{SnapshotID: snapshot})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	raw := true
	for i := range p.Splits {
		s := &p.Splits[i]
		raw = raw && s.RawConvertible
		rr, err := p.Open(ctx, s, memory.NewGoAllocator(), paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%s%d", s.PartitionPath, s.Bucket)
		for rr.Next() {
			rec := rr.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				out[k] = append(out[k], fmt.Sprint(paimon.JSONRow(rec, r)[:ncols]))
			}
		}
		if rr.Err() != nil {
			t.Fatal(rr.Err())
		}
		rr.Release()
	}
	return out, raw
}

func sortedJoin(xs []string) string {
	xs = append([]string(nil), xs...)
	sort.Strings(xs)
	return strings.Join(xs, "\n")
}

func TestTierLogTablesUnionEqualsHistory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
		bucket bool // bucket key (else bucket-unaware lake table)
	}{{"bucketed", false, true}, {"unaware", false, false}, {"legacy", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c, wh := lakeCluster(t, LakeConfig{LegacySystemColumns: tc.legacy, Options: map[string]string{"s3.endpoint": "http://x", "s3.secret-key": "hidden"}})
			spec := TableSpec{Database: "db", Name: "lg", Buckets: 3, Columns: []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}},
				Properties: map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"}}
			if tc.bucket {
				spec.BucketKeys = []string{"id"}
			}
			info, err := c.CreateTable(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(info.JSON), `"table.datalake.paimon.s3.endpoint":"http://x"`) || strings.Contains(string(info.JSON), "hidden") ||
				!strings.Contains(string(info.JSON), `"table.datalake.paimon.warehouse"`) {
				t.Fatalf("table properties: %s", info.JSON)
			}
			// Never tiered: the lake table exists and reads empty; no lake snapshot yet.
			if rows, _ := lakeRowsByBucket(t, ctx, wh, "lg", 0, 2); len(rows) != 0 {
				t.Fatalf("untiered lake has rows %v", rows)
			}
			if _, code := lakeSnapshotRPC(t, c, "lg", true); code != codeLakeSnapshotNotExist {
				t.Fatalf("GetLakeSnapshot before tiering: code %d", code)
			}
			var history []string
			add := func(from, n int) {
				var rows [][]any
				for i := from; i < from+n; i++ {
					var name any = fmt.Sprintf("n%d", i)
					if i%7 == 0 {
						name = nil
					}
					rows = append(rows, []any{int64(i), name})
					history = append(history, fmt.Sprint([]any{int64(i), name}))
				}
				if err := c.Append(ctx, "db", "lg", rows); err != nil {
					t.Fatal(err)
				}
			}
			add(0, 40)
			add(40, 30)
			r1, err := c.TierLake(ctx, "db", "lg")
			if err != nil {
				t.Fatal(err)
			}
			if r1.Rows != 70 || r1.SnapshotID != 1 {
				t.Fatalf("round 1: %+v", r1)
			}
			add(70, 25)
			c.HoldLakeReadable(true)
			r2, err := c.TierLake(ctx, "db", "lg")
			if err != nil {
				t.Fatal(err)
			}
			c.HoldLakeReadable(false)
			add(95, 10)
			latest, _ := lakeSnapshotRPC(t, c, "lg", false)
			readable, code := lakeSnapshotRPC(t, c, "lg", true)
			if code != 0 || latest.GetSnapshotId() != r2.SnapshotID || readable.GetSnapshotId() != r1.SnapshotID {
				t.Fatalf("latest %d readable %d (code %d), want %d / %d", latest.GetSnapshotId(), readable.GetSnapshotId(), code, r2.SnapshotID, r1.SnapshotID)
			}
			// Union over the READABLE snapshot: lake rows plus the log from
			// its offsets give every row exactly once.
			lake, _ := lakeRowsByBucket(t, ctx, wh, "lg", readable.GetSnapshotId(), 2)
			var union []string
			for _, rs := range lake {
				union = append(union, rs...)
			}
			var lakeTotal int
			for _, bs := range readable.BucketSnapshots {
				tail := fetchTail(t, c, info, "", nil, bs.GetBucketId(), bs.GetLogOffset())
				for _, r := range tail {
					union = append(union, r.row)
				}
				lakeTotal += int(bs.GetLogOffset())
			}
			if len(readable.BucketSnapshots) != 3 {
				t.Fatalf("readable snapshot has %d buckets", len(readable.BucketSnapshots))
			}
			if got, want := sortedJoin(union), sortedJoin(history); got != want {
				t.Fatalf("lake ∪ log differs from history: %d vs %d rows", len(union), len(history))
			}
			// Per bucket, the lake of a bucketed table holds exactly that bucket's tiered rows.
			if tc.bucket {
				for _, bs := range readable.BucketSnapshots {
					if n := len(lake[fmt.Sprint(bs.GetBucketId())]); int64(n) != bs.GetLogOffset() {
						t.Fatalf("bucket %d: %d lake rows, tiered offset %d", bs.GetBucketId(), n, bs.GetLogOffset())
					}
				}
			} else if len(lake) > 1 || len(lake["0"]) != lakeTotal {
				t.Fatalf("bucket-unaware lake must be bucket-0 only: %d buckets, %d rows", len(lake), len(lake["0"]))
			}
			if tc.legacy {
				checkLegacyColumns(t, ctx, wh, c)
			}
			// Expired log below the tiered offsets: the log tail alone plus the lake still gives everything.
			if err := c.ExpireTieredLog(ctx, "db", "lg"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.TierLake(ctx, "db", "lg"); err != nil {
				t.Fatal(err)
			}
			final, _ := lakeSnapshotRPC(t, c, "lg", true)
			lake, _ = lakeRowsByBucket(t, ctx, wh, "lg", final.GetSnapshotId(), 2)
			var all []string
			for _, rs := range lake {
				all = append(all, rs...)
			}
			if sortedJoin(all) != sortedJoin(history) {
				t.Fatalf("after the last round the lake holds %d rows, want %d", len(all), len(history))
			}
		})
	}
}

func checkLegacyColumns(t *testing.T, ctx context.Context, wh string, c *Cluster) {
	t.Helper()
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "lg")
	if err != nil {
		t.Fatal(err)
	}
	p, err := pt.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, f := range p.Schema.Fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "id,name,__bucket,__offset,__timestamp" {
		t.Fatalf("legacy lake columns %v", names)
	}
	seen := map[string]bool{}
	for i := range p.Splits {
		rr, err := p.Open(ctx, &p.Splits[i], memory.NewGoAllocator(), paimon.ReadOptions{Columns: []string{"__bucket", "__offset", "__timestamp"}})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				row := paimon.JSONRow(rec, r)
				k := fmt.Sprint(row[0], "/", row[1])
				if seen[k] || row[2] == nil || row[0] != int32(p.Splits[i].Bucket) {
					t.Fatalf("legacy columns %v in bucket %d (duplicate %v)", row, p.Splits[i].Bucket, seen[k])
				}
				seen[k] = true
			}
		}
		rr.Release()
	}
}

func TestTierPKTableMergesToKvState(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk", Buckets: 3, PrimaryKey: []string{"k"},
		Columns:    []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	up := func(from, to int, tag string) {
		var rows [][]any
		for k := from; k < to; k++ {
			rows = append(rows, []any{int32(k), fmt.Sprintf("%s%d", tag, k)})
		}
		if err := c.Upsert(ctx, "db", "pk", rows); err != nil {
			t.Fatal(err)
		}
	}
	del := func(keys ...int) {
		var ks [][]any
		for _, k := range keys {
			ks = append(ks, []any{int32(k)})
		}
		if err := c.Delete(ctx, "db", "pk", ks); err != nil {
			t.Fatal(err)
		}
	}
	up(0, 50, "a")
	up(10, 20, "b")
	del(3, 4)
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	up(15, 30, "c")
	del(5, 16)
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	// Tail after the last round: updates, a delete, new keys, a re-insert.
	up(40, 60, "d")
	del(6, 45)
	up(3, 4, "e")
	check := func(stage string, wantRaw bool) {
		t.Helper()
		snap, code := lakeSnapshotRPC(t, c, "pk", true)
		if code != 0 {
			t.Fatalf("%s: lake snapshot code %d", stage, code)
		}
		lake, raw := lakeRowsByBucket(t, ctx, wh, "pk", snap.GetSnapshotId(), 2)
		if raw != wantRaw {
			t.Fatalf("%s: raw-convertible %v, want %v", stage, raw, wantRaw)
		}
		state := map[string]string{} // key -> row
		for b, rows := range lake {
			for _, r := range rows {
				k := strings.Fields(strings.Trim(r, "[]"))[0]
				if _, dup := state[k]; dup {
					t.Fatalf("%s: key %s twice in the lake (bucket %s)", stage, k, b)
				}
				state[k] = r
			}
		}
		for _, bs := range snap.BucketSnapshots {
			for _, lr := range fetchTail(t, c, info, "", nil, bs.GetBucketId(), bs.GetLogOffset()) {
				k := strings.Fields(strings.Trim(lr.row, "[]"))[0]
				switch lr.ct {
				case record.Delete:
					delete(state, k)
				case record.UpdateBefore:
				default:
					state[k] = lr.row
				}
			}
		}
		var got []string
		for _, r := range state {
			got = append(got, r)
		}
		var want []string
		c.mu.Lock()
		tb := c.cat.tableByID(info.ID)
		for b := int32(0); b < 3; b++ {
			bd, err := c.bucketLocked(tb, nil, b)
			if err != nil {
				c.mu.Unlock()
				t.Fatal(err)
			}
			for _, e := range bd.kv.sorted() {
				_, row, err := record.DecodeKvValue(e.value)
				if err == nil {
					var vals []any
					vals, err = tb.decodeKvRow(row)
					want = append(want, fmt.Sprint(vals))
				}
				if err != nil {
					c.mu.Unlock()
					t.Fatal(err)
				}
			}
		}
		c.mu.Unlock()
		if sortedJoin(got) != sortedJoin(want) {
			t.Fatalf("%s: lake ⊕ log (%d keys) differs from the KV state (%d keys):\n%s\nwant\n%s", stage, len(got), len(want), sortedJoin(got), sortedJoin(want))
		}
	}
	check("level-0 merge-on-read", false)
	// Write-only tiering piles up level-0 files: several per bucket.
	w := c.lake.writers[info.ID]
	if n := len(w.LiveFiles()); n < 4 {
		t.Fatalf("expected level-0 files from 2 rounds over 3 buckets, got %d", n)
	}
	if _, err := c.CompactLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	check("after compaction", true)
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	check("after a third round", false)
}

func TestTierControlsAndPartitions(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	sc, err := ParseScenario(`
CREATE TABLE db.lp (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('bucket.num' = '2', 'bucket.key' = 'id', 'table.datalake.enabled' = 'true');
INSERT INTO db.lp VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b');
TIER db.lp;
ALTER TABLE db.lp DROP PARTITION (dt = 'a');
INSERT INTO db.lp VALUES (5, 'b'), (6, 'c');
TIER;
FREEZE TIERING;
INSERT INTO db.lp VALUES (7, 'c');
LAKE OPTIONS ('s3.endpoint' = 'http://other', 's3.access-key' = 'secret-ak');
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "lp"); err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Fatalf("tier while frozen: %v", err)
	}
	snap, code := lakeSnapshotRPC(t, c, "lp", true)
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	names := map[string]bool{}
	for _, b := range snap.BucketSnapshots {
		names[b.GetPartitionName()] = true
		if b.PartitionId == nil {
			t.Fatalf("bucket without partition id: %v", b)
		}
	}
	if !names["a"] || !names["b"] || !names["c"] || len(snap.BucketSnapshots) != 6 {
		t.Fatalf("lake snapshot partitions %v (%d buckets); the dropped partition a must stay", names, len(snap.BucketSnapshots))
	}
	lake, _ := lakeRowsByBucket(t, ctx, wh, "lp", snap.GetSnapshotId(), 2)
	var n int
	for _, rs := range lake {
		n += len(rs)
	}
	if n != 6 {
		t.Fatalf("lake rows %d, want 6 (row 7 came after the freeze)", n)
	}
	ti, _ := c.Table("db", "lp")
	if !strings.Contains(string(ti.JSON), "http://other") || strings.Contains(string(ti.JSON), "secret-ak") {
		t.Fatalf("lake options not rewritten: %s", ti.JSON)
	}
	if _, err := ParseScenario("LAKE FOO;"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad lake statement: %v", err)
	}
}
