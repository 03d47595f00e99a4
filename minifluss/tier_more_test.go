package minifluss

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/typemap"
)

// TestTierIntoS3Warehouse tiers into an s3:// warehouse served by an
// in-process S3 over real HTTP; credentials reach the lake but never the
// table properties.
func TestTierIntoS3Warehouse(t *testing.T) {
	ctx := context.Background()
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	opts := map[string]string{"s3.endpoint": srv.URL, "s3.access-key": "AKIA-test", "s3.secret-key": "very-secret", "s3.path.style.access": "true"}
	c := startCluster(t, Config{DatalakeFormat: "paimon", TabletServers: 1, Lake: LakeConfig{Warehouse: "s3://lake/wh", Options: opts}})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk", Buckets: 2, PrimaryKey: []string{"k"},
		Columns:    []Column{{Name: "k", Type: typemap.BigInt().NotNull()}, {Name: "v", Type: typemap.String()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	js := string(info.JSON)
	if strings.Contains(js, "very-secret") || strings.Contains(js, "AKIA-test") || !strings.Contains(js, `"table.datalake.paimon.warehouse":"s3://lake/wh"`) {
		t.Fatalf("table JSON: %s", js)
	}
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, []any{int64(i), fmt.Sprint("v", i)})
	}
	if err := c.Upsert(ctx, "db", "pk", rows); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "db", "pk", [][]any{{int64(5)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	fs, err := fileio.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := paimon.OpenTableInWarehouse(ctx, fs, "s3://lake/wh", "db", "pk")
	if err != nil {
		t.Fatal(err)
	}
	p, err := pt.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range p.Splits {
		rr, err := p.Open(ctx, &p.Splits[i], nil, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			n += int(rr.RecordBatch().NumRows())
		}
		rr.Release()
	}
	if n != 99 {
		t.Fatalf("lake rows in S3: %d, want 99", n)
	}
}

// TestPeriodicTieringFollowsFreshness drives the periodic loop with a fake
// clock: a table is tiered once its freshness has passed, not before.
func TestPeriodicTieringFollowsFreshness(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := startCluster(t, Config{DatalakeFormat: "paimon", TabletServers: 1, Now: clock,
		Lake: LakeConfig{Warehouse: t.TempDir(), Periodic: true, PeriodicCheck: 5 * time.Millisecond}})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "lg", Buckets: 1, Columns: []Column{{Name: "id", Type: typemap.BigInt()}},
		Properties: map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"}}); err != nil {
		t.Fatal(err)
	}
	// Let the first round happen (no round yet counts as due).
	waitLake := func(min int64) int64 {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			c.mu.Lock()
			tb, _ := c.cat.lookup("db", "lg")
			var off int64 = -1
			if tb.Lake != nil && len(tb.Lake.Offsets) == 1 {
				off = tb.Lake.Offsets[0].LogOffset
			}
			c.mu.Unlock()
			if off >= min {
				return off
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("periodic tiering did not reach offset %d", min)
		return 0
	}
	// An empty table is not tiered (Fluss commits nothing for it); the
	// first row makes the first round due at once.
	time.Sleep(30 * time.Millisecond)
	c.mu.Lock()
	if tb, _ := c.cat.lookup("db", "lg"); tb.Lake != nil {
		t.Errorf("an empty table got a lake snapshot: %+v", tb.Lake)
	}
	c.mu.Unlock()
	if err := c.Append(ctx, "db", "lg", [][]any{{int64(0)}}); err != nil {
		t.Fatal(err)
	}
	waitLake(1)
	if err := c.Append(ctx, "db", "lg", [][]any{{int64(1)}, {int64(2)}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // several checks; freshness not yet passed
	c.mu.Lock()
	tb, _ := c.cat.lookup("db", "lg")
	before := tb.Lake.Offsets[0].LogOffset
	c.mu.Unlock()
	if before != 1 {
		t.Fatalf("tiered before the freshness interval passed: offset %d", before)
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	if off := waitLake(2); off != 3 {
		t.Fatalf("tiered offset %d, want 3", off)
	}
}

func TestFreshnessParsing(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "3min": 3 * time.Minute, "1 h": time.Hour, "500ms": 500 * time.Millisecond, "": 0, "x": 0} {
		if got := parseFreshness(in); got != want {
			t.Errorf("parseFreshness(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestHoldReadableThenCompact: with the readable snapshot held, latest moves
// on while readable keeps the old id and offsets; a compaction publishes a
// readable snapshot again, with the latest offsets.
func TestHoldReadableThenCompact(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	for _, name := range []string{"lg", "fresh"} {
		if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: name, Buckets: 1, Columns: []Column{{Name: "id", Type: typemap.BigInt()}},
			Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
			t.Fatal(err)
		}
	}
	app := func(ids ...int64) {
		var rows [][]any
		for _, id := range ids {
			rows = append(rows, []any{id})
		}
		if err := c.Append(ctx, "db", "lg", rows); err != nil {
			t.Fatal(err)
		}
	}
	app(1, 2, 3)
	if _, err := c.TierLake(ctx, "db", "lg"); err != nil {
		t.Fatal(err)
	}
	c.HoldLakeReadable(true)
	app(4, 5)
	if _, err := c.TierLake(ctx, "db", "lg"); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(ctx, "db", "fresh", [][]any{{int64(9)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "fresh"); err != nil {
		t.Fatal(err)
	}
	if _, code := lakeSnapshotRPC(t, c, "fresh", true); code != codeLakeSnapshotNotExist {
		t.Fatalf("held table without an earlier readable snapshot: code %d", code)
	}
	if s, code := lakeSnapshotRPC(t, c, "fresh", false); code != 0 || s.GetSnapshotId() != 1 {
		t.Fatalf("latest of the held table: %v code %d", s, code)
	}
	r, _ := lakeSnapshotRPC(t, c, "lg", true)
	l, _ := lakeSnapshotRPC(t, c, "lg", false)
	if r.GetSnapshotId() != 1 || r.BucketSnapshots[0].GetLogOffset() != 3 || l.GetSnapshotId() != 2 || l.BucketSnapshots[0].GetLogOffset() != 5 {
		t.Fatalf("readable %d@%d, latest %d@%d", r.GetSnapshotId(), r.BucketSnapshots[0].GetLogOffset(), l.GetSnapshotId(), l.BucketSnapshots[0].GetLogOffset())
	}
	c.HoldLakeReadable(false)
	id, err := c.CompactLake(ctx, "db", "lg")
	if err != nil {
		t.Fatal(err)
	}
	r, _ = lakeSnapshotRPC(t, c, "lg", true)
	if r.GetSnapshotId() != id || id != 3 || r.BucketSnapshots[0].GetLogOffset() != 5 {
		t.Fatalf("after compaction readable %d@%d (compaction snapshot %d)", r.GetSnapshotId(), r.BucketSnapshots[0].GetLogOffset(), id)
	}
	rows, raw := lakeRowsByBucket(t, ctx, wh, "lg", id, 1)
	if len(rows["0"]) != 5 || !raw {
		t.Fatalf("compacted lake: %v raw %v", rows, raw)
	}
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "lg")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := pt.Snapshot(ctx, id)
	if err != nil || snap.CommitKind != "COMPACT" || snap.CommitUser != "__fluss_lake_tiering" || !strings.HasSuffix(snap.Properties["fluss-offsets"], ".offsets") {
		t.Fatalf("compaction snapshot %+v (%v)", snap, err)
	}
}

// TestDeletionVectorTableReadableAfterCompaction: a PK table with
// paimon.deletion-vectors.enabled has no readable snapshot until the lake
// is compacted (its level-0 files are invisible to batch reads).
func TestDeletionVectorTableReadableAfterCompaction(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "dv", Buckets: 2, PrimaryKey: []string{"k"},
		Columns:          []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}},
		Properties:       map[string]string{"table.datalake.enabled": "true"},
		CustomProperties: map[string]string{"paimon.deletion-vectors.enabled": "true"}}); err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for k := 0; k < 20; k++ {
		rows = append(rows, []any{int32(k), fmt.Sprint("v", k)})
	}
	if err := c.Upsert(ctx, "db", "dv", rows); err != nil {
		t.Fatal(err)
	}
	if err := c.Upsert(ctx, "db", "dv", [][]any{{int32(3), "new"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "db", "dv", [][]any{{int32(4)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "dv"); err != nil {
		t.Fatal(err)
	}
	if _, code := lakeSnapshotRPC(t, c, "dv", true); code != codeLakeSnapshotNotExist {
		t.Fatalf("DV table before compaction: readable code %d", code)
	}
	if got, _ := lakeRowsByBucket(t, ctx, wh, "dv", 0, 2); len(got) != 0 {
		t.Fatalf("level-0 files of a DV table must be invisible to batch reads, got %v", got)
	}
	id, err := c.CompactLake(ctx, "db", "dv")
	if err != nil {
		t.Fatal(err)
	}
	r, code := lakeSnapshotRPC(t, c, "dv", true)
	if code != 0 || r.GetSnapshotId() != id {
		t.Fatalf("after compaction: readable %d code %d, want %d", r.GetSnapshotId(), code, id)
	}
	got, raw := lakeRowsByBucket(t, ctx, wh, "dv", id, 2)
	var all []string
	for _, rs := range got {
		all = append(all, rs...)
	}
	j := sortedJoin(all)
	if len(all) != 19 || !raw || !strings.Contains(j, "[3 new]") || strings.Contains(j, "[4 ") {
		t.Fatalf("compacted DV table (raw %v): %s", raw, j)
	}
}

// TestTieringContinuesAfterRestart: a restarted cluster reopens the lake
// tables it tiered before (writer state loaded from the latest snapshot) and
// continues offsets and sequence numbers.
func TestTieringContinuesAfterRestart(t *testing.T) {
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
	if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Upsert(ctx, "db", "pk", [][]any{{int32(1), "a2"}, {int32(3), "c"}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.TierLake(ctx, "db", "pk")
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID != 2 || res.Rows != 3 { // -U/+U for key 1, +I for key 3
		t.Fatalf("second round after restart: %+v", res)
	}
	got, _ := lakeRowsByBucket(t, ctx, wh, "pk", 0, 2)
	if j := sortedJoin(got["0"]); j != "[1 a2]\n[2 b]\n[3 c]" {
		t.Fatalf("lake after restart:\n%s", j)
	}
	files := c.lake.writers[func() int64 { i, _ := c.Table("db", "pk"); return i.ID }()].LiveFiles()
	if len(files) != 2 || files[1].File.MinSequenceNumber <= files[0].File.MaxSequenceNumber {
		t.Fatalf("sequence numbers do not continue: %+v / %+v", files[0].File, files[1].File)
	}
}

// TestTierNestedPK covers the row-at-a-time PK path (nested columns).
func TestTierNestedPK(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "np", Buckets: 2, PrimaryKey: []string{"k"},
		Columns:    []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "arr", Type: typemap.Array(typemap.Int())}},
		Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		var rows [][]any
		for k := 0; k < 10; k++ {
			rows = append(rows, []any{int32(k), []any{int32(k), int32(round)}})
		}
		if err := c.Upsert(ctx, "db", "np", rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, "db", "np", [][]any{{int32(0)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "np"); err != nil {
		t.Fatal(err)
	}
	got, _ := lakeRowsByBucket(t, ctx, wh, "np", 0, 2)
	var all []string
	for _, rs := range got {
		all = append(all, rs...)
	}
	j := sortedJoin(all)
	if len(all) != 9 || !strings.Contains(j, "[5 [5 1]]") || strings.Contains(j, "[0 ") {
		t.Fatalf("nested PK lake rows:\n%s", j)
	}
}

// TestTierRowLogFormats tiers INDEXED and COMPACTED logs (row decoders).
func TestTierRowLogFormats(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	for _, f := range []string{"INDEXED", "COMPACTED"} {
		name := "t_" + strings.ToLower(f)
		if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: name, Buckets: 2, BucketKeys: []string{"id"},
			Columns:    []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "ts", Type: typemap.Timestamp(6)}, {Name: "d", Type: typemap.Decimal(20, 3)}},
			Properties: map[string]string{"table.datalake.enabled": "true", "table.log.format": f}}); err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		for i := 0; i < 30; i++ {
			rows = append(rows, []any{int64(i), fmt.Sprintf("2026-01-02 03:04:05.%06d", i), fmt.Sprintf("%d.125", i)})
		}
		if err := c.Append(ctx, "db", name, rows); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TierLake(ctx, "db", name); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, _ := lakeRowsByBucket(t, ctx, wh, name, 0, 3)
		var all []string
		for _, rs := range got {
			all = append(all, rs...)
		}
		j := sortedJoin(all)
		if len(all) != 30 || !strings.Contains(j, "[7 2026-01-02 03:04:05.000007 7.125]") {
			t.Fatalf("%s lake rows:\n%s", f, j)
		}
	}
}

// TestTierCreatesMissingLakeTable: a lake-enabled table created while the
// cluster had no lake gets its Paimon table at its first tiering round.
func TestTierCreatesMissingLakeTable(t *testing.T) {
	ctx := context.Background()
	dir, wh := t.TempDir(), t.TempDir()
	c, err := Start(ctx, Config{DataDir: dir, DatalakeFormat: "paimon", TabletServers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "lg", Buckets: 1, Columns: []Column{{Name: "id", Type: typemap.BigInt()}},
		Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(ctx, "db", "lg", [][]any{{int64(1)}, {int64(2)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "lg"); err == nil {
		t.Fatal("tiering without a lake must fail")
	}
	c.Close()
	c, err = Start(ctx, Config{DataDir: dir, DatalakeFormat: "paimon", TabletServers: 1, Lake: LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.TierLake(ctx, "db", "lg"); err != nil {
		t.Fatal(err)
	}
	if got, _ := lakeRowsByBucket(t, ctx, wh, "lg", 0, 1); len(got["0"]) != 2 {
		t.Fatalf("lake rows %v", got)
	}
	if info, _ := c.Table("db", "lg"); !strings.Contains(string(info.JSON), "table.datalake.paimon.warehouse") {
		t.Fatalf("lake properties missing: %s", info.JSON)
	}
}

// TestTieringConcurrentWithDDLAndWrites: rounds run while tables are
// created, written and frozen/unfrozen from other goroutines (lock order
// round → cluster → switches); run it with -race.
func TestTieringConcurrentWithDDLAndWrites(t *testing.T) {
	ctx := context.Background()
	c, _ := lakeCluster(t, LakeConfig{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := c.TierAll(ctx); err != nil && !strings.Contains(err.Error(), "frozen") {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 8; i++ {
		name := fmt.Sprint("t", i)
		if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: name, Buckets: 2, Columns: []Column{{Name: "id", Type: typemap.BigInt()}},
			Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Append(ctx, "db", name, [][]any{{int64(i)}, {int64(i + 100)}}); err != nil {
			t.Fatal(err)
		}
		c.FreezeTiering(i%3 == 1)
		if err := c.SetLakeOptions(map[string]string{"round": fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	c.FreezeTiering(false)
	close(stop)
	wg.Wait()
	if err := c.TierAll(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		s, code := lakeSnapshotRPC(t, c, fmt.Sprint("t", i), true)
		var sum int64
		for _, b := range s.BucketSnapshots {
			sum += b.GetLogOffset()
		}
		if code != 0 || sum != 2 {
			t.Fatalf("t%d: code %d, tiered %d records", i, code, sum)
		}
	}
}
