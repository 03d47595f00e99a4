package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

func pkSpec(name string, buckets int) minifluss.TableSpec {
	return minifluss.TableSpec{Database: "db", Name: name, Buckets: buckets, PrimaryKey: []string{"id"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "name", Type: typemap.String()}, {Name: "v", Type: typemap.BigInt()}}}
}

// pkRangeOf builds a PKRange for bucket b of a table from its descriptor.
func pkRangeOf(t *testing.T, cl *Client, name string, bucket int32) PKRange {
	t.Helper()
	info, err := cl.GetTableInfo(context.Background(), TablePath{"db", name})
	if err != nil {
		t.Fatal(err)
	}
	r, err := info.PKRange(nil, bucket, -1)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readPK(t *testing.T, cl *Client, r PKRange) map[int32]string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pr, err := cl.NewPKReader(context.Background(), r, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release()
	got := map[int32]string{}
	for pr.Next() {
		rec := pr.RecordBatch()
		ids, names := rec.Column(0).(*array.Int32), rec.Column(1).(*array.String)
		for i := 0; i < ids.Len(); i++ {
			if _, dup := got[ids.Value(i)]; dup {
				t.Fatalf("key %d twice", ids.Value(i))
			}
			got[ids.Value(i)] = names.Value(i)
		}
	}
	if err := pr.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestE2EPKReaderAndKvRPCs(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 2})
	ctx := context.Background()
	mustCreate(t, emu, pkSpec("pk", 1))
	var rows [][]any
	for i := 0; i < 50; i++ {
		rows = append(rows, []any{int32(i), fmt.Sprintf("a%d", i), int64(i)})
	}
	if err := emu.Upsert(ctx, "db", "pk", rows); err != nil {
		t.Fatal(err)
	}
	if err := emu.Upsert(ctx, "db", "pk", [][]any{{int32(3), "b3", int64(3)}, {int32(60), "b60", int64(60)}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.Delete(ctx, "db", "pk", [][]any{{int32(4)}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.Delete(ctx, "db", "pk", [][]any{{int32(999)}}); err != nil { // no such key: an empty batch
		t.Fatal(err)
	}
	cfg, _ := ConfigFromProperties(map[string]string{PropBootstrapServers: emu.BootstrapAddr(), PropScanKvBatchBytes: "256"})
	cl := newTestClient(t, cfg)
	want := map[int32]string{}
	for i := 0; i < 50; i++ {
		want[int32(i)] = fmt.Sprintf("a%d", i)
	}
	want[3], want[60] = "b3", "b60"
	delete(want, 4)

	r := pkRangeOf(t, cl, "pk", 0)
	got := readPK(t, cl, r)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("state:\n got %v\nwant %v", got, want)
	}

	// The changelog the reader would replay, read directly: +I..., -U/+U, -D and an empty batch.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	hw, err := cl.BucketOffset(ctx, r.Bucket, Latest())
	if err != nil {
		t.Fatal(err)
	}
	lr, err := cl.NewLogReader(ctx, LogRange{Bucket: r.Bucket, Start: 0, Stop: hw, Columns: r.Columns, Format: r.LogFormat}, mem)
	if err != nil {
		t.Fatal(err)
	}
	var cts []record.ChangeType
	for lr.Next() {
		cts = append(cts, lr.ChangeTypes()...)
	}
	lr.Release()
	if lr.Err() != nil {
		t.Fatal(lr.Err())
	}
	if len(cts) != 50+3+1 || cts[50] != record.UpdateBefore || cts[51] != record.UpdateAfter || cts[52] != record.Insert || cts[53] != record.Delete {
		t.Fatalf("changelog change types %v", cts[48:])
	}
	if hw != 55 {
		t.Fatalf("high watermark %d, want 55 (the empty batch for the missing key consumes one offset)", hw)
	}

	// LIMIT_SCAN on a PK table: one value batch.
	ls, err := cl.LimitScan(ctx, r.Bucket, 5)
	if err != nil || ls.IsLogTable {
		t.Fatalf("limit scan %+v %v", ls, err)
	}
	vals, err := record.DecodeValueBatch(ls.Records)
	if err != nil || len(vals) != 5 {
		t.Fatalf("limit scan values %d %v", len(vals), err)
	}

	// KV snapshots.
	snaps, err := cl.LatestKvSnapshots(ctx, r.Bucket.Table, nil)
	if err != nil || len(snaps.Buckets) != 1 || snaps.Buckets[0].HasSnapshot {
		t.Fatalf("before snapshot: %+v %v", snaps, err)
	}
	if err := emu.SnapshotKv(ctx, "db", "pk", ""); err != nil {
		t.Fatal(err)
	}
	snaps, err = cl.LatestKvSnapshots(ctx, r.Bucket.Table, nil)
	if err != nil || !snaps.Buckets[0].HasSnapshot || snaps.Buckets[0].LogOffset != 55 || snaps.TableID != r.Bucket.TableID {
		t.Fatalf("after snapshot: %+v %v", snaps, err)
	}
	md, err := cl.GetKvSnapshotMetadata(ctx, snaps.TableID, nil, 0, snaps.Buckets[0].SnapshotID)
	if err != nil || md.LogOffset != 55 || len(md.Files) == 0 {
		t.Fatalf("snapshot metadata %+v %v", md, err)
	}
	if _, err := cl.GetKvSnapshotMetadata(ctx, snaps.TableID, nil, 0, 12345); err == nil || !strings.Contains(err.Error(), "12345") {
		t.Fatalf("missing snapshot: %v", err)
	}

	stats, err := cl.GetTableStats(ctx, r.Bucket.Table, nil)
	if err != nil || stats[0].RowCount != int64(len(want)) {
		t.Fatalf("stats %+v %v", stats, err)
	}
}

func TestE2EPKReaderPartitioned(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 3})
	ctx := context.Background()
	spec := minifluss.TableSpec{Database: "db", Name: "pp", Buckets: 3, PrimaryKey: []string{"id", "dt"}, PartitionKeys: []string{"dt"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "name", Type: typemap.String()}, {Name: "dt", Type: typemap.String().NotNull()}}}
	mustCreate(t, emu, spec)
	var rows [][]any
	for i := 0; i < 40; i++ {
		rows = append(rows, []any{int32(i), fmt.Sprintf("x%d", i), []string{"a", "b"}[i%2]})
	}
	if err := emu.Upsert(ctx, "db", "pp", rows); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)
	path := TablePath{"db", "pp"}
	parts, err := cl.ListPartitionInfos(ctx, path)
	if err != nil || len(parts) != 2 {
		t.Fatalf("partitions %+v %v", parts, err)
	}
	total := map[string]int{}
	for _, p := range parts {
		snaps, err := cl.LatestKvSnapshots(ctx, path, &p.ID)
		if err != nil || len(snaps.Buckets) != 3 || snaps.PartitionID == nil || *snaps.PartitionID != p.ID {
			t.Fatalf("kv snapshots of %s: %+v %v", p.Name(), snaps, err)
		}
		offs, err := cl.ListOffsets(ctx, path, &p.ID, Latest())
		if err != nil || len(offs) != 3 {
			t.Fatalf("offsets of %s: %v %v", p.Name(), offs, err)
		}
		for b := int32(0); b < 3; b++ {
			r := pkRangeOf(t, cl, "pp", b)
			r.Bucket.PartitionID = &p.ID
			for id, name := range readPK(t, cl, r) {
				if name != fmt.Sprintf("x%d", id) || []string{"a", "b"}[id%2] != p.Name() {
					t.Fatalf("partition %s bucket %d: row %d %q", p.Name(), b, id, name)
				}
				total[p.Name()]++
			}
		}
	}
	if total["a"] != 20 || total["b"] != 20 {
		t.Fatalf("rows per partition %v", total)
	}
}

func TestE2ERemoteManifestsTokenLimitScanLog(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	info := mustCreate(t, emu, logSpec("lg", 1, nil))
	appendBatches(t, emu, "lg", 4, 2)
	if err := emu.ArchiveSegments(ctx, "db", "lg", "", 0, 4); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu, WithFS(fileio.Local{}))
	ms, err := cl.ListRemoteLogManifests(ctx, info.ID, nil)
	if err != nil || len(ms) != 1 || ms[0].EndOffset != 4 || ms[0].Bucket != 0 || ms[0].Path == "" {
		t.Fatalf("manifests %+v %v", ms, err)
	}
	if _, err := fileio.ReadAll(ctx, fileio.Local{}, ms[0].Path); err != nil {
		t.Fatalf("manifest file: %v", err)
	}
	tok, err := cl.GetFileSystemSecurityToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := tok.String(); len(tok.Token) > 0 && strings.Contains(s, string(tok.Token)) {
		t.Fatalf("token printed: %s", s)
	}
	b := TableBucket{Table: TablePath{"db", "lg"}, TableID: info.ID}
	ls, err := cl.LimitScan(ctx, b, 3)
	if err != nil || !ls.IsLogTable {
		t.Fatalf("limit scan %+v %v", ls, err)
	}
	var ids []int64
	it := record.ReadBatches(ls.Records, record.DecodeOptions{})
	for it.Next() {
		h := it.Batch().Header
		for i := int64(0); i < int64(h.RecordCount); i++ {
			ids = append(ids, h.BaseOffset+i)
		}
	}
	if it.Err() != nil || len(ids) < 3 || !slices.Contains(ids, 7) {
		t.Fatalf("limit scan offsets %v %v", ids, it.Err())
	}
}

func TestE2ELookup(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 2})
	ctx := context.Background()
	info := mustCreate(t, emu, pkSpec("lk", 1))
	if err := emu.Upsert(ctx, "db", "lk", [][]any{{int32(1), "one", int64(10)}, {int32(2), "two", int64(20)}}); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)
	keyTypes := []typemap.DataType{typemap.Int().NotNull()}
	var keys [][]byte
	for _, k := range []int32{2, 999} {
		kb, err := record.EncodeCompactedKey(nil, keyTypes, []any{k})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, kb)
	}
	vals, err := cl.Lookup(ctx, TableBucket{Table: TablePath{"db", "lk"}, TableID: info.ID}, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2 || vals[1] != nil || vals[0] == nil {
		t.Fatalf("values %v", vals)
	}
	_, row, err := record.DecodeKvValue(vals[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := record.DecodeCompactedRow(row, []typemap.DataType{typemap.Int().NotNull(), typemap.String(), typemap.BigInt()})
	if err != nil || got[1] != "two" {
		t.Fatalf("row %v %v", got, err)
	}
}
