package client

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/flussapi"
)

// TestE2ENotLeaderOnceDuringRead: the leader itself answers NOT_LEADER once
// (a leader election in flight); the reader refreshes and carries on.
func TestE2ENotLeaderOnceDuringRead(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 2})
	ctx := context.Background()
	info := mustCreate(t, emu, logSpec("nl", 1, nil))
	appendBatches(t, emu, "nl", 3, 3)
	cl := emuClient(t, emu)
	_, cols, f := tableColumns(t, cl, "nl")
	emu.NotLeaderOnce(info.ID, -1, 0)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: TablePath{"db", "nl"}, TableID: info.ID}, Start: 0, Stop: 9, Columns: cols, Format: f}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Release()
	ids, _, _ := readAll(t, lr)
	if lr.Err() != nil || !slices.Equal(ids, seq(0, 9)) {
		t.Fatalf("ids %v err %v", ids, lr.Err())
	}
	// The PK scan is also routed through the leader retry.
	pinfo := mustCreate(t, emu, pkSpec("nlpk", 1))
	if err := emu.Upsert(ctx, "db", "nlpk", [][]any{{int32(1), "a", int64(1)}}); err != nil {
		t.Fatal(err)
	}
	emu.NotLeaderOnce(pinfo.ID, -1, 0)
	if got := readPK(t, cl, pkRangeOf(t, cl, "nlpk", 0)); len(got) != 1 || got[1] != "a" {
		t.Fatalf("pk state %v", got)
	}
}

// TestE2EDroppedConnections: the tablet server closes every connection; the
// next request reconnects (counted by the pool).
func TestE2EDroppedConnections(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("dc", 1, nil))
	appendBatches(t, emu, "dc", 1, 2)
	cl := emuClient(t, emu)
	path := TablePath{"db", "dc"}
	if _, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil {
		t.Fatal(err)
	}
	before := cl.PoolStats().Opened
	if n := emu.DropConnections(0); n == 0 {
		t.Fatal("no tablet connection to drop")
	}
	waitFor(t, "the client to notice the closed connection", func() bool { return cl.PoolStats().Open < 2 })
	if l, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil || l[0] != 2 {
		t.Fatalf("after drop: %v %v", l, err)
	}
	if got := cl.PoolStats().Opened; got != before+1 {
		t.Fatalf("opened %d connections, want %d (one reconnect)", got, before+1)
	}
}

// TestE2EReorderedAnswers: the emulator delays the first GET_TABLE_INFO so
// later answers overtake it on the same connection.
func TestE2EReorderedAnswers(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	for _, n := range []string{"r0", "r1", "r2", "r3"} {
		mustCreate(t, emu, logSpec(n, 1, nil))
	}
	cl := emuClient(t, emu)
	if _, err := cl.ListDatabases(ctx); err != nil { // open the connection first
		t.Fatal(err)
	}
	emu.DelayNext(int16(flussapi.GetTableInfo), 150*time.Millisecond, 1)
	var wg sync.WaitGroup
	ids := make([]int64, 4)
	errs := make([]error, 4)
	for i, n := range []string{"r0", "r1", "r2", "r3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ti, err := cl.GetTableInfo(ctx, TablePath{"db", n})
			errs[i] = err
			if err == nil {
				ids[i] = ti.TableID
			}
		}()
	}
	wg.Wait()
	for i, n := range []string{"r0", "r1", "r2", "r3"} {
		want, _ := emu.Table("db", n)
		if errs[i] != nil || ids[i] != want.ID {
			t.Fatalf("%s: id %d err %v, want %d", n, ids[i], errs[i], want.ID)
		}
	}
	if st := cl.PoolStats(); st.Opened != 1 {
		t.Fatalf("pool %+v: all requests should share one connection", st)
	}
}

func TestE2ETimestampOffsetsAndLakeSnapshots(t *testing.T) {
	now := time.UnixMilli(5_000_000)
	var mu sync.Mutex
	emu := startEmulator(t, minifluss.Config{TabletServers: 1, DatalakeFormat: "paimon", Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}})
	ctx := context.Background()
	info := mustCreate(t, emu, logSpec("ts", 1, map[string]string{"table.datalake.enabled": "true"}))
	for i := 0; i < 3; i++ {
		appendBatchesFrom(t, emu, "ts", i*2, 2)
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
	}
	cl := emuClient(t, emu)
	path := TablePath{"db", "ts"}
	offs, err := cl.ListOffsets(ctx, path, nil, AtTimestamp(5_001_000))
	if err != nil || offs[0] != 2 {
		t.Fatalf("offset at 5001000: %v %v, want 2", offs, err)
	}
	readable := int64(7)
	if err := emu.SetLakeSnapshot(ctx, "db", "ts", 9, &readable, []minifluss.LakeBucketOffset{{Bucket: 0, LogOffset: 4}}); err != nil {
		t.Fatal(err)
	}
	latest, err := cl.LatestLakeSnapshot(ctx, path)
	if err != nil || latest.SnapshotID != 9 || latest.TableID != info.ID {
		t.Fatalf("latest %+v %v", latest, err)
	}
	rs, err := cl.ReadableLakeSnapshot(ctx, path)
	if err != nil || rs.SnapshotID != readable {
		t.Fatalf("readable %+v %v", rs, err)
	}
	dbi, err := cl.GetDatabaseInfo(ctx, "db")
	if err != nil || len(dbi.DatabaseJSON) == 0 {
		t.Fatalf("database info %+v %v", dbi, err)
	}
}

// appendBatchesFrom writes one batch of n rows with ids from first.
func appendBatchesFrom(t *testing.T, emu *minifluss.Cluster, table string, first, n int) {
	t.Helper()
	var rows [][]any
	for i := first; i < first+n; i++ {
		rows = append(rows, []any{int64(i), "x", float64(i)})
	}
	if err := emu.AppendToBucket(context.Background(), "db", table, 0, rows); err != nil {
		t.Fatal(err)
	}
}

func TestE2EListKvSnapshots(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	info := mustCreate(t, emu, pkSpec("ks", 1))
	if err := emu.Upsert(ctx, "db", "ks", [][]any{{int32(1), "a", int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.SnapshotKv(ctx, "db", "ks", ""); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)
	ss, err := cl.ListKvSnapshots(ctx, info.ID, nil)
	if err != nil || len(ss) != 1 || !ss[0].HasSnapshot || ss[0].LogOffset != 1 {
		t.Fatalf("kv snapshots %+v %v", ss, err)
	}
}

// TestE2EConcurrentBucketReaders: one shared client, one reader goroutine
// per bucket of a 4-bucket table; every row comes back exactly once.
func TestE2EConcurrentBucketReaders(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 3})
	ctx := context.Background()
	info := mustCreate(t, emu, logSpec("cc", 4, nil))
	const n = 400
	var rows [][]any
	for i := 0; i < n; i++ {
		rows = append(rows, []any{int64(i), "x", float64(i)})
		if len(rows) == 50 {
			if err := emu.Append(ctx, "db", "cc", rows); err != nil {
				t.Fatal(err)
			}
			rows = nil
		}
	}
	cl := emuClient(t, emu)
	path := TablePath{"db", "cc"}
	_, cols, f := tableColumns(t, cl, "cc")
	latest, err := cl.ListOffsets(ctx, path, nil, Latest())
	if err != nil || len(latest) != 4 {
		t.Fatalf("latest %v %v", latest, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for b := int32(0); b < 4; b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.ID, Bucket: b}, Start: 0, Stop: latest[b], Columns: cols, Format: f, Projection: []int{0}}, mem)
			if err != nil {
				errs <- err
				return
			}
			defer lr.Release()
			for lr.Next() {
				c := lr.RecordBatch().Column(0).(*array.Int64)
				mu.Lock()
				for i := 0; i < c.Len(); i++ {
					seen[c.Value(i)]++
				}
				mu.Unlock()
			}
			if lr.Err() != nil {
				errs <- lr.Err()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("%d distinct ids, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("id %d read %d times", id, c)
		}
	}
}
