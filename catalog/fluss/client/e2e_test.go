package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// These tests run the client against the minifluss emulator over real TCP.

func startEmulator(t *testing.T, cfg minifluss.Config) *minifluss.Cluster {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	c, err := minifluss.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func emuClient(t *testing.T, c *minifluss.Cluster, opts ...Option) *Client {
	t.Helper()
	cfg, err := ConfigFromProperties(map[string]string{PropBootstrapServers: c.BootstrapAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return newTestClient(t, cfg, opts...)
}

func mustCreate(t *testing.T, c *minifluss.Cluster, spec minifluss.TableSpec) minifluss.TableInfo {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, spec.Database); err != nil && !errors.Is(err, ErrDatabaseNotExist) {
		var fe *minifluss.Error
		if !errors.As(err, &fe) || fe.Code != 6 {
			t.Fatal(err)
		}
	}
	info, err := c.CreateTable(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// readAll drains a log reader into (id, name, change type) triples.
func readAll(t *testing.T, lr *LogReader) (ids []int64, names []string, cts []record.ChangeType) {
	t.Helper()
	for lr.Next() {
		rec := lr.RecordBatch()
		idCol := rec.Column(0).(*array.Int64)
		for i := 0; i < idCol.Len(); i++ {
			ids = append(ids, idCol.Value(i))
		}
		if rec.NumCols() > 1 {
			if s, ok := rec.Column(1).(*array.String); ok {
				for i := 0; i < s.Len(); i++ {
					names = append(names, s.Value(i))
				}
			}
		}
		cts = append(cts, lr.ChangeTypes()...)
		if len(lr.ChangeTypes()) != int(rec.NumRows()) {
			t.Fatalf("%d change types for %d rows", len(lr.ChangeTypes()), rec.NumRows())
		}
	}
	return ids, names, cts
}

func seq(lo, hi int64) []int64 {
	var out []int64
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func TestE2ECatalogRPCs(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 2})
	ctx := context.Background()
	mustCreate(t, emu, minifluss.TableSpec{Database: "db", Name: "logs", Buckets: 3, Comment: "a log table",
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String(), Comment: "who"}}})
	mustCreate(t, emu, minifluss.TableSpec{Database: "db", Name: "pk", Buckets: 2, PrimaryKey: []string{"id", "dt"}, PartitionKeys: []string{"dt"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.Int().NotNull()}, {Name: "dt", Type: typemap.String().NotNull()}, {Name: "v", Type: typemap.Double()}}})
	if _, err := emu.CreatePartition(ctx, "db", "pk", map[string]string{"dt": "2025"}); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)

	dbs, err := cl.ListDatabases(ctx)
	if err != nil || !slices.Contains(dbs, "db") {
		t.Fatalf("databases %v %v", dbs, err)
	}
	if ok, err := cl.DatabaseExists(ctx, "db"); err != nil || !ok {
		t.Fatalf("db exists: %v %v", ok, err)
	}
	if ok, err := cl.DatabaseExists(ctx, "nope"); err != nil || ok {
		t.Fatalf("nope exists: %v %v", ok, err)
	}
	tables, err := cl.ListTables(ctx, "db")
	slices.Sort(tables)
	if err != nil || !slices.Equal(tables, []string{"logs", "pk"}) {
		t.Fatalf("tables %v %v", tables, err)
	}
	if _, err := cl.ListTables(ctx, "nope"); !errors.Is(err, ErrDatabaseNotExist) {
		t.Fatalf("list tables of missing db: %v", err)
	}
	if ok, err := cl.TableExists(ctx, TablePath{"db", "logs"}); err != nil || !ok {
		t.Fatalf("table exists: %v %v", ok, err)
	}
	info, err := cl.GetTableInfo(ctx, TablePath{"db", "pk"})
	if err != nil {
		t.Fatal(err)
	}
	d := info.Descriptor
	if !d.HasPrimaryKey() || d.BucketCount() != 2 || !slices.Equal(d.PartitionKeys, []string{"dt"}) ||
		!slices.Equal(d.BucketKeys(), []string{"id"}) || len(d.Schema.Columns) != 3 {
		t.Fatalf("descriptor %+v", d)
	}
	li, err := cl.GetTableInfo(ctx, TablePath{"db", "logs"})
	if err != nil {
		t.Fatal(err)
	}
	if li.Descriptor.Comment != "a log table" || li.Descriptor.Schema.Columns[1].Comment != "who" {
		t.Fatalf("comments lost: %+v", li.Descriptor)
	}
	if _, err := cl.GetTableInfo(ctx, TablePath{"db", "nope"}); !errors.Is(err, ErrTableNotExist) {
		t.Fatalf("missing table: %v", err)
	}
	parts, err := cl.ListPartitionInfos(ctx, TablePath{"db", "pk"})
	if err != nil || len(parts) != 1 || parts[0].Name() != "2025" {
		t.Fatalf("partitions %+v %v", parts, err)
	}
	md, err := cl.GetMetadata(ctx, []TablePath{{"db", "logs"}})
	if err != nil || md.Coordinator == nil || len(md.Tablets) != 2 || len(md.Tables) != 1 || len(md.Tables[0].Buckets) != 3 {
		t.Fatalf("metadata %+v %v", md, err)
	}
	for _, b := range md.Tables[0].Buckets {
		if b.LeaderID < 0 || b.LeaderID > 1 {
			t.Fatalf("bucket %d leader %d", b.Bucket, b.LeaderID)
		}
	}
	if _, err := cl.ListOffsets(ctx, TablePath{"db", "pk"}, nil, Latest()); !errors.Is(err, ErrPartitionNotExist) || !strings.Contains(err.Error(), "partitioned") {
		t.Fatalf("offsets of a partitioned table without partition: %v", err)
	}
	buckets, err := cl.Buckets(ctx, TablePath{"db", "pk"}, &parts[0].ID)
	if err != nil || !slices.Equal(buckets, []int32{0, 1}) {
		t.Fatalf("partition buckets %v %v", buckets, err)
	}
	if _, err := cl.LatestLakeSnapshot(ctx, TablePath{"db", "logs"}); !errors.Is(err, ErrLakeSnapshotNotExist) {
		t.Fatalf("lake snapshot of non-lake table: %v", err)
	}
	if _, err := cl.ListPartitionInfos(ctx, TablePath{"db", "logs"}); !errors.Is(err, ErrTableNotPartitioned) {
		t.Fatalf("partitions of a non-partitioned table: %v", err)
	}
	if _, err := cl.LatestKvSnapshots(ctx, TablePath{"db", "logs"}, nil); !errors.Is(err, ErrNonPrimaryKeyTable) {
		t.Fatalf("kv snapshots of a log table: %v", err)
	}
	if _, err := li.PKRange(nil, 0, -1); !errors.Is(err, ErrNonPrimaryKeyTable) {
		t.Fatalf("PKRange of a log table: %v", err)
	}
	lrg, err := li.LogRange(nil, 2, 0, 10)
	if err != nil || lrg.Format != record.LogFormatArrow || len(lrg.Columns) != 2 || lrg.Bucket.Bucket != 2 || lrg.SchemaID != li.SchemaID {
		t.Fatalf("LogRange %+v %v", lrg, err)
	}
	pr, err := info.PKRange(&parts[0].ID, 1, 5)
	if err != nil || !slices.Equal(pr.PrimaryKey, []int{0, 1}) || *pr.Bucket.PartitionID != parts[0].ID || pr.Stop != 5 {
		t.Fatalf("PKRange %+v %v", pr, err)
	}
}

func logSpec(name string, buckets int, props map[string]string) minifluss.TableSpec {
	return minifluss.TableSpec{Database: "db", Name: name, Buckets: buckets, Properties: props,
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "score", Type: typemap.Double()}}}
}

// appendBatches writes n batches of size rows each to bucket 0, ids counting from 0.
func appendBatches(t *testing.T, emu *minifluss.Cluster, table string, n, size int) {
	t.Helper()
	id := 0
	for b := 0; b < n; b++ {
		var rows [][]any
		for r := 0; r < size; r++ {
			rows = append(rows, []any{int64(id), fmt.Sprintf("n%d", id), float64(id) / 2})
			id++
		}
		if err := emu.AppendToBucket(context.Background(), "db", table, 0, rows); err != nil {
			t.Fatal(err)
		}
	}
}

func tableColumns(t *testing.T, cl *Client, name string) (*TableInfo, []typemap.Column, record.LogFormat) {
	t.Helper()
	info, err := cl.GetTableInfo(context.Background(), TablePath{"db", name})
	if err != nil {
		t.Fatal(err)
	}
	f, err := info.Descriptor.LogFormat()
	if err != nil {
		t.Fatal(err)
	}
	return info, info.Descriptor.Schema.TypeColumns(), f
}

func TestE2EOffsetsStatsAndLogReader(t *testing.T) {
	for _, format := range []string{"ARROW", "COMPACTED", "INDEXED"} {
		t.Run(format, func(t *testing.T) {
			emu := startEmulator(t, minifluss.Config{TabletServers: 2})
			ctx := context.Background()
			mustCreate(t, emu, logSpec("t", 2, map[string]string{"table.log.format": format}))
			appendBatches(t, emu, "t", 5, 4) // offsets 0..19 in bucket 0, batches of 4
			cl := emuClient(t, emu)
			path := TablePath{"db", "t"}
			latest, err := cl.ListOffsets(ctx, path, nil, Latest())
			if err != nil || latest[0] != 20 || latest[1] != 0 {
				t.Fatalf("latest %v %v", latest, err)
			}
			earliest, err := cl.ListOffsets(ctx, path, nil, Earliest())
			if err != nil || earliest[0] != 0 {
				t.Fatalf("earliest %v %v", earliest, err)
			}
			if _, err := cl.ListOffsets(ctx, path, nil, AtTimestamp(time.Now().Add(time.Hour).UnixMilli())); err == nil {
				t.Fatal("future timestamp accepted")
			}
			stats, err := cl.GetTableStats(ctx, path, nil)
			if err != nil || len(stats) != 2 || stats[0].RowCount != 20 || !stats[0].HasRowCount {
				t.Fatalf("stats %+v %v", stats, err)
			}

			info, cols, f := tableColumns(t, cl, "t")
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b0 := TableBucket{Table: path, TableID: info.TableID, Bucket: 0}
			cases := []struct {
				name        string
				start, stop int64
				proj        []int
				local       bool
				maxBytes    int32
			}{
				{name: "whole", start: 0, stop: 20},
				{name: "mid batch start and stop", start: 5, stop: 14},
				{name: "one row", start: 7, stop: 8},
				{name: "empty range", start: 9, stop: 9},
				{name: "projection reordered, pushed down", start: 2, stop: 19, proj: []int{2, 0}},
				{name: "projection reordered, local", start: 2, stop: 19, proj: []int{2, 0}, local: true},
				{name: "tiny fetches truncate batches", start: 1, stop: 20, maxBytes: 64},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.maxBytes > 0 {
						cfg := cl.Config()
						cfg.FetchMaxBucketBytes, cfg.FetchMaxBytes = tc.maxBytes, tc.maxBytes
						cl = newTestClient(t, cfg)
					}
					lr, err := cl.NewLogReader(ctx, LogRange{Bucket: b0, Start: tc.start, Stop: tc.stop, Columns: cols, Format: f, Projection: tc.proj, LocalProjection: tc.local}, mem)
					if err != nil {
						t.Fatal(err)
					}
					defer lr.Release()
					var ids []int64
					for lr.Next() {
						rec := lr.RecordBatch()
						idx := 0
						if tc.proj != nil {
							idx = 1
							if rec.NumCols() != 2 || rec.Schema().Field(0).Name != "score" {
								t.Fatalf("projected schema %v", rec.Schema())
							}
							sc := rec.Column(0).(*array.Float64)
							for i := 0; i < sc.Len(); i++ {
								if sc.Value(i)*2 != float64(rec.Column(1).(*array.Int64).Value(i)) {
									t.Fatalf("score/id mismatch at row %d", i)
								}
							}
						}
						c := rec.Column(idx).(*array.Int64)
						for i := 0; i < c.Len(); i++ {
							ids = append(ids, c.Value(i))
						}
						for _, ct := range lr.ChangeTypes() {
							if ct != record.AppendOnly {
								t.Fatalf("change type %v in a log table", ct)
							}
						}
					}
					if err := lr.Err(); err != nil {
						t.Fatal(err)
					}
					if want := seq(tc.start, tc.stop); !slices.Equal(ids, want) {
						t.Fatalf("ids %v, want %v", ids, want)
					}
					if tc.maxBytes > 0 && lr.Fetches < 3 {
						t.Errorf("only %d fetches with %d-byte limit", lr.Fetches, tc.maxBytes)
					}
				})
			}
		})
	}
}

func TestE2ELogReaderRemoteSegments(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("arch", 1, nil))
	appendBatches(t, emu, "arch", 6, 3) // offsets 0..17
	if err := emu.ArchiveSegments(ctx, "db", "arch", "", 0, 9); err != nil {
		t.Fatal(err)
	}
	if err := emu.ArchiveSegments(ctx, "db", "arch", "", 0, 12); err != nil {
		t.Fatal(err)
	}
	path := TablePath{"db", "arch"}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	t.Run("no file system", func(t *testing.T) {
		cl := emuClient(t, emu)
		info, cols, f := tableColumns(t, cl, "arch")
		lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.TableID}, Start: 0, Stop: 18, Columns: cols, Format: f}, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Release()
		for lr.Next() {
		}
		if !errors.Is(lr.Err(), ErrUnsupported) {
			t.Fatalf("err = %v", lr.Err())
		}
	})
	t.Run("local dir", func(t *testing.T) {
		cl := emuClient(t, emu, WithFS(fileio.Local{}))
		info, cols, f := tableColumns(t, cl, "arch")
		for _, r := range [][2]int64{{0, 18}, {4, 16}, {10, 11}, {13, 18}} {
			lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.TableID}, Start: r[0], Stop: r[1], Columns: cols, Format: f, Projection: []int{0, 1}, LocalProjection: true}, mem)
			if err != nil {
				t.Fatal(err)
			}
			ids, names, _ := readAll(t, lr)
			if err := lr.Err(); err != nil {
				t.Fatalf("%v: %v", r, err)
			}
			if !slices.Equal(ids, seq(r[0], r[1])) || len(names) != len(ids) || (len(ids) > 0 && names[0] != fmt.Sprintf("n%d", r[0])) {
				t.Fatalf("%v: ids %v names %v", r, ids, names)
			}
			if r[0] < 12 && lr.RemoteSegments == 0 {
				t.Errorf("%v: no remote segment read", r)
			}
			lr.Release()
		}
	})
}

// TestE2ELogReaderExpiredTiered: a lake table whose early log is only in the
// lake: FetchLog answers empty records without error; the reader must stop
// with ErrLogExpired, not spin.
func TestE2ELogReaderExpiredTiered(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1, DatalakeFormat: "paimon"})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("lk", 1, map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"}))
	appendBatches(t, emu, "lk", 4, 2) // 0..7
	if err := emu.SetLakeSnapshot(ctx, "db", "lk", 5, nil, []minifluss.LakeBucketOffset{{Bucket: 0, LogOffset: 4}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.ArchiveSegments(ctx, "db", "lk", "", 0, 4); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu, WithFS(fileio.Local{}))
	path := TablePath{"db", "lk"}
	snap, err := cl.LatestLakeSnapshot(ctx, path)
	if err != nil || snap.SnapshotID != 5 {
		t.Fatalf("lake snapshot %+v %v", snap, err)
	}
	if off, ok := snap.LogOffset(nil, 0); !ok || off != 4 {
		t.Fatalf("tiered offset %d %v", off, ok)
	}
	info, cols, f := tableColumns(t, cl, "lk")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.TableID}, Start: 1, Stop: 8, Columns: cols, Format: f}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Release()
	ids, _, _ := readAll(t, lr)
	if !errors.Is(lr.Err(), ErrLogExpired) || len(ids) != 0 {
		t.Fatalf("ids %v err %v, want ErrLogExpired", ids, lr.Err())
	}
	if lr.Fetches > maxNoProgress {
		t.Fatalf("%d fetches: the reader spun", lr.Fetches)
	}
	// The tail after the lake snapshot reads fine.
	lr2, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.TableID}, Start: 4, Stop: 8, Columns: cols, Format: f}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr2.Release()
	if ids, _, _ := readAll(t, lr2); lr2.Err() != nil || !slices.Equal(ids, seq(4, 8)) {
		t.Fatalf("tail %v %v", ids, lr2.Err())
	}
}

func TestE2EExpiredLogOutOfRange(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("ttl", 1, nil))
	appendBatches(t, emu, "ttl", 4, 2)
	if err := emu.ExpireLog(ctx, "db", "ttl", "", 0, 4); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)
	path := TablePath{"db", "ttl"}
	if e, err := cl.ListOffsets(ctx, path, nil, Earliest()); err != nil || e[0] != 4 {
		t.Fatalf("earliest %v %v", e, err)
	}
	info, cols, f := tableColumns(t, cl, "ttl")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: path, TableID: info.TableID}, Start: 0, Stop: 8, Columns: cols, Format: f}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Release()
	readAll(t, lr)
	var fe *Error
	if !errors.Is(lr.Err(), ErrLogExpired) || !errors.As(lr.Err(), &fe) || fe.Code != 19 {
		t.Fatalf("err = %v, want ErrLogExpired wrapping code 19", lr.Err())
	}
}

// TestE2ELeaderMove: after the emulator moves a bucket's leader, the client's
// cached leader answers NOT_LEADER and the client follows the new metadata.
func TestE2ELeaderMove(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 3})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("mv", 1, nil))
	appendBatches(t, emu, "mv", 2, 2)
	cl := emuClient(t, emu)
	path := TablePath{"db", "mv"}
	if l, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil || l[0] != 4 {
		t.Fatalf("latest %v %v", l, err)
	}
	old, _ := emu.Leader("db", "mv", "", 0)
	if err := emu.MoveLeader(ctx, "db", "mv", "", 0, (old+1)%3); err != nil {
		t.Fatal(err)
	}
	if l, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil || l[0] != 4 {
		t.Fatalf("after leader move: %v %v", l, err)
	}
}

func TestE2ESASL(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1, Listeners: []minifluss.Listener{{Name: "CLIENT", SASL: true}},
		Users: map[string]string{"bob": "pw-bob-123"}})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("s", 1, nil))
	appendBatches(t, emu, "s", 1, 2)
	for _, tc := range []struct {
		pw   string
		good bool
	}{{"pw-bob-123", true}, {"nope-456", false}} {
		cfg, err := ConfigFromProperties(map[string]string{PropBootstrapServers: emu.BootstrapAddr(), PropSecurityProtocol: "sasl",
			PropSaslMechanism: "PLAIN", PropSaslUsername: "bob", PropSaslPassword: tc.pw})
		if err != nil {
			t.Fatal(err)
		}
		cl := newTestClient(t, cfg)
		_, err = cl.ListDatabases(ctx)
		if tc.good != (err == nil) {
			t.Fatalf("password good=%v: err %v", tc.good, err)
		}
		if tc.good { // data RPCs on the tablet server authenticate too
			if l, err := cl.ListOffsets(ctx, TablePath{"db", "s"}, nil, Latest()); err != nil || l[0] != 2 {
				t.Fatalf("offsets over SASL: %v %v", l, err)
			}
		}
		if !tc.good && (!errors.Is(err, ErrAuthentication) || strings.Contains(err.Error(), tc.pw)) {
			t.Fatalf("bad password error %v", err)
		}
	}
}

// TestE2ELakeSnapshotPartitionNames: GetLakeSnapshot's partition names
// reach the client beside the partition ids, for a partition Fluss has
// dropped too (the emulator keeps the names its snapshot was tiered with).
func TestE2ELakeSnapshotPartitionNames(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1, DatalakeFormat: "paimon"})
	ctx := context.Background()
	spec := logSpec("lkp", 1, map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"})
	spec.Columns = append(spec.Columns, minifluss.Column{Name: "dt", Type: typemap.String()})
	spec.PartitionKeys = []string{"dt"}
	mustCreate(t, emu, spec)
	ids := map[string]int64{}
	for _, dt := range []string{"2024-01-01", "2024-01-02"} {
		id, err := emu.CreatePartition(ctx, "db", "lkp", map[string]string{"dt": dt})
		if err != nil {
			t.Fatal(err)
		}
		ids[dt] = id
	}
	if err := emu.SetLakeSnapshot(ctx, "db", "lkp", 3, nil, []minifluss.LakeBucketOffset{
		{PartitionName: "2024-01-01", Bucket: 0, LogOffset: 0}, {PartitionName: "2024-01-02", Bucket: 0, LogOffset: 0}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.DropPartition(ctx, "db", "lkp", map[string]string{"dt": "2024-01-02"}); err != nil {
		t.Fatal(err)
	}
	cl := emuClient(t, emu)
	snap, err := cl.LatestLakeSnapshot(ctx, TablePath{"db", "lkp"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, b := range snap.Buckets {
		if b.PartitionID == nil {
			t.Fatalf("bucket without partition id: %+v", b)
		}
		got[b.PartitionName] = *b.PartitionID
	}
	if !maps.Equal(got, ids) {
		t.Fatalf("lake snapshot partitions %v, want %v", got, ids)
	}
}

// TestE2ELogReaderFirstFetchBytes: a reader given a small first fetch
// reads the same rows, fetches little when stopped after its first batch,
// and grows its fetches so a full read takes few of them.
func TestE2ELogReaderFirstFetchBytes(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	ctx := context.Background()
	mustCreate(t, emu, logSpec("ff", 1, nil))
	appendBatches(t, emu, "ff", 200, 50) // 10 000 rows in 200 batches
	cl := emuClient(t, emu)
	info, cols, f := tableColumns(t, cl, "ff")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	open := func(first int32) *LogReader {
		lr, err := cl.NewLogReader(ctx, LogRange{Bucket: TableBucket{Table: TablePath{"db", "ff"}, TableID: info.TableID}, Start: 0, Stop: 10000,
			Columns: cols, Format: f, FirstFetchBytes: first}, mem)
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	full := open(0)
	ids, _, _ := readAll(t, full)
	fullBytes, fullFetches := full.BytesFetched, full.Fetches
	full.Release()
	slow := open(4 << 10)
	slowIDs, _, _ := readAll(t, slow)
	if !slices.Equal(ids, seq(0, 10000)) || !slices.Equal(slowIDs, ids) {
		t.Fatalf("rows differ: %d vs %d", len(ids), len(slowIDs))
	}
	if slow.BytesFetched != fullBytes || slow.Fetches > fullFetches+10 {
		t.Errorf("slow start: %d bytes in %d fetches; at full size %d bytes in %d", slow.BytesFetched, slow.Fetches, fullBytes, fullFetches)
	}
	slow.Release()
	first := open(4 << 10)
	if !first.Next() {
		t.Fatal(first.Err())
	}
	if first.BytesFetched*10 > fullBytes {
		t.Errorf("stopped after the first batch, yet fetched %d of %d bytes", first.BytesFetched, fullBytes)
	}
	first.Release()
}
