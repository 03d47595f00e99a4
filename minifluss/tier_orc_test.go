package minifluss

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestTierORCTable: a Fluss table created with 'paimon.file.format'='orc'
// tiers ORC data files (Fluss passes paimon.* properties, prefix stripped,
// to the Paimon table's options). The table has a composite primary key,
// two partitions, three buckets, a column of every type, NULLs and
// instants before 1970. Checked:
//   - the lake table's options and data files say ORC;
//   - after two rounds plus an untiered tail, lake ⊕ log equals the
//     Fluss-only read (the KV state of every bucket), row for row;
//   - a twin table tiered to Parquet from the same writes reads back the
//     same lake rows (the Parquet files are cross-checked against DuckDB
//     in lake/paimon/writer);
//   - the key and a few scalar columns of the final lake equal the test's
//     own record of the writes.
func TestTierORCTable(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	cols := []Column{
		{Name: "p", Type: typemap.String().NotNull()}, {Name: "k1", Type: typemap.Int().NotNull()}, {Name: "k2", Type: typemap.String().NotNull()},
		{Name: "b", Type: typemap.Boolean()}, {Name: "ti", Type: typemap.TinyInt()}, {Name: "si", Type: typemap.SmallInt()},
		{Name: "bi", Type: typemap.BigInt()}, {Name: "f", Type: typemap.Float()}, {Name: "d", Type: typemap.Double()},
		{Name: "s", Type: typemap.String()}, {Name: "ch", Type: typemap.Char(3)}, {Name: "bin", Type: typemap.Binary(2)},
		{Name: "by", Type: typemap.Bytes()}, {Name: "dec", Type: typemap.Decimal(10, 2)}, {Name: "dec38", Type: typemap.Decimal(38, 6)},
		{Name: "dt", Type: typemap.Date()}, {Name: "tm", Type: typemap.Time(3)}, {Name: "ts3", Type: typemap.Timestamp(3)},
		{Name: "ts6", Type: typemap.Timestamp(6)}, {Name: "ts9", Type: typemap.Timestamp(9)}, {Name: "ltz", Type: typemap.TimestampLTZ(6)},
		{Name: "arr", Type: typemap.Array(typemap.Int())}, {Name: "m", Type: typemap.Map(typemap.String(), typemap.BigInt())},
		{Name: "r", Type: typemap.Row(typemap.NewField("x", typemap.Int()), typemap.NewField("y", typemap.String()))},
	}
	const ncols = 24
	tables := map[string]string{"orc": "t_orc", "parquet": "t_pq"}
	infos := map[string]TableInfo{}
	for format, name := range tables {
		props := map[string]string{"table.datalake.enabled": "true"}
		if format == "orc" {
			props["paimon.file.format"] = "orc"
			props["paimon.orc.stripe.size"] = "4096" // several stripes per file
		}
		info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: name, Buckets: 3, PrimaryKey: []string{"p", "k1", "k2"},
			PartitionKeys: []string{"p"}, BucketKeys: []string{"k1"}, Columns: cols, Properties: props})
		if err != nil {
			t.Fatal(err)
		}
		infos[format] = info
	}
	// row builds the values of key (p, k1, k2) in version v; every fifth
	// row is all NULL outside the key, others have NULLs here and there.
	row := func(p string, k1 int, k2 string, v int) []any {
		i := k1*7 + v
		r := []any{p, int32(k1), k2}
		if (k1+v)%5 == 0 {
			for len(r) < ncols {
				r = append(r, nil)
			}
			return r
		}
		nul := func(x any, m int) any {
			if (i+m)%6 == 0 {
				return nil
			}
			return x
		}
		year := 1890 + (i*7)%140 // 1890 .. 2029
		r = append(r,
			nul(i%2 == 0, 1), nul(int8(i%200-100), 2), nul(int16(i*37-3000), 3), nul(int64(i)*-1_000_000_007_000, 4),
			nul(float32(i)/4-9, 5), nul(float64(i)*1e-3-2.5, 0), nul(fmt.Sprintf("s%d-é", i), 1), nul(fmt.Sprintf("c%02d", i%100)[:3], 2),
			nul(string([]byte{byte(i), byte(255 - i)}), 3), nul(string([]byte{0, byte(i), 7}[:i%4%3]), 4),
			nul(fmt.Sprintf("%d.%02d", i-50, i%100), 5), nul(fmt.Sprintf("-%d2345678901234567890123456789.%06d", i, i), 0),
			nul(fmt.Sprintf("%04d-%02d-%02d", year, 1+i%12, 1+i%28), 1), nul(fmt.Sprintf("%02d:%02d:%02d.%03d", i%24, i%60, (i*7)%60, i%1000), 2),
			nul(fmt.Sprintf("%04d-%02d-%02d 01:02:03.%03d", year, 1+i%12, 1+i%28, i%1000), 3),
			nul(fmt.Sprintf("%04d-06-15 23:59:59.%06d", year, i*1013%1_000_000), 4),
			nul(fmt.Sprintf("%04d-12-31 00:00:00.%09d", year, i*1_000_003%1_000_000_000), 5),
			nul(fmt.Sprintf("%04d-03-04T05:06:07.%06dZ", year, i%1_000_000), 0),
			nul([]any{int32(i), nil, int32(-i)}[:i%4%3+1], 1), nul(map[string]any{"k": int64(i)}, 2), nul([]any{int32(i), fmt.Sprint("y", i)}, 3))
		return r
	}
	type key struct {
		p  string
		k1 int
		k2 string
	}
	state := map[key][]any{} // the test's own record of the writes
	var order []key
	upsert := func(v int, keep func(key) bool) {
		var rows [][]any
		for _, p := range []string{"a", "b"} {
			for k1 := 0; k1 < 24; k1++ {
				for _, k2 := range []string{"x", "y"} {
					k := key{p, k1, k2}
					if !keep(k) {
						continue
					}
					r := row(p, k1, k2, v)
					rows = append(rows, r)
					if _, ok := state[k]; !ok {
						order = append(order, k)
					}
					state[k] = r
				}
			}
		}
		for _, name := range tables {
			if err := c.Upsert(ctx, "db", name, rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := func(keep func(key) bool) {
		var keys [][]any
		for _, k := range order {
			if _, live := state[k]; live && keep(k) {
				keys = append(keys, []any{k.p, int32(k.k1), k.k2})
				delete(state, k)
			}
		}
		for _, name := range tables {
			if err := c.Delete(ctx, "db", name, keys); err != nil {
				t.Fatal(err)
			}
		}
	}
	tier := func() {
		for _, name := range tables {
			if _, err := c.TierLake(ctx, "db", name); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	upsert(0, func(key) bool { return true })
	del(func(k key) bool { return k.k1%5 == 1 && k.k2 == "y" })
	tier()
	upsert(1, func(k key) bool { return k.k1%3 == 0 })
	del(func(k key) bool { return k.k1%7 == 2 })
	tier()
	upsert(2, func(k key) bool { return k.k1%4 == 1 }) // untiered tail
	del(func(k key) bool { return k.k1 == 20 })

	// The lake table is an ORC table, and its files are ORC files.
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "t_orc")
	if err != nil {
		t.Fatal(err)
	}
	s, err := pt.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Options["file.format"] != "orc" || s.Options["orc.stripe.size"] != "4096" {
		t.Fatalf("lake table options %v: want file.format=orc and orc.stripe.size from the paimon.* properties", s.Options)
	}
	var nORC int
	filepath.WalkDir(wh, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(p, "t_orc") && strings.HasPrefix(filepath.Base(p), "data-") {
			if !strings.HasSuffix(p, ".orc") {
				t.Errorf("data file %s in the ORC table", p)
			}
			nORC++
		}
		return nil
	})
	if nORC < 6 {
		t.Fatalf("%d ORC data files; two rounds over 2 partitions × 3 buckets write more", nORC)
	}

	partName := map[int64]string{}
	for _, p := range []string{"a", "b"} {
		for _, name := range tables {
			id, err := c.PartitionID("db", name, p)
			if err != nil {
				t.Fatal(err)
			}
			partName[id] = p
		}
	}
	// lake ⊕ log over the readable snapshot, merged by key.
	unionRows := func(format string) []string {
		name := tables[format]
		snap, code := lakeSnapshotRPC(t, c, name, true)
		if code != 0 {
			t.Fatalf("%s: lake snapshot code %d", name, code)
		}
		lake, _ := lakeRowsByBucket(t, ctx, wh, name, snap.GetSnapshotId(), ncols)
		merged := map[string]string{}
		keyOf := func(r string) string { return strings.Join(strings.Fields(strings.Trim(r, "[]"))[:3], " ") }
		for _, rows := range lake {
			for _, r := range rows {
				if _, dup := merged[keyOf(r)]; dup {
					t.Fatalf("%s: key %s twice in the lake", name, keyOf(r))
				}
				merged[keyOf(r)] = r
			}
		}
		for _, bs := range snap.BucketSnapshots {
			pid := bs.PartitionId
			for _, lr := range fetchTailJSON(t, c, infos[format], partName[bs.GetPartitionId()], pid, bs.GetBucketId(), bs.GetLogOffset()) {
				switch lr.ct {
				case record.Delete:
					delete(merged, keyOf(lr.row))
				case record.UpdateBefore:
				default:
					merged[keyOf(lr.row)] = lr.row
				}
			}
		}
		var out []string
		for _, r := range merged {
			out = append(out, r)
		}
		return out
	}
	kvRows := func(format string) []string {
		var out []string
		c.mu.Lock()
		defer c.mu.Unlock()
		tb := c.cat.tableByID(infos[format].ID)
		for id := range tb.Partitions {
			pid := id
			for b := int32(0); b < 3; b++ {
				bd, err := c.bucketLocked(tb, &pid, b)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range bd.kv.sorted() {
					_, row, err := record.DecodeKvValue(e.value)
					if err != nil {
						t.Fatal(err)
					}
					vals, err := tb.decodeKvRow(row)
					if err != nil {
						t.Fatal(err)
					}
					// Rendered through Arrow as the lake rows are.
					rec, err := tb.buildRecord(memory.NewGoAllocator(), [][]any{vals})
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, fmt.Sprint(paimon.JSONRow(rec, 0)))
					rec.Release()
				}
			}
		}
		return out
	}
	union, kv := unionRows("orc"), kvRows("orc")
	if len(kv) != len(state) {
		t.Fatalf("KV state has %d keys, the test wrote %d live keys", len(kv), len(state))
	}
	if sortedJoin(union) != sortedJoin(kv) {
		t.Fatalf("ORC lake ⊕ log (%d rows) differs from the Fluss-only read (%d rows):\n%s\nwant\n%s", len(union), len(kv), sortedJoin(union), sortedJoin(kv))
	}

	// Tier the tail: the whole table is in the lake; compare with the
	// Parquet twin and with the test's record.
	tier()
	// Compaction reads the ORC files and writes ORC files again.
	if _, err := c.CompactLake(ctx, "db", "t_orc"); err != nil {
		t.Fatal(err)
	}
	orcLake, raw := lakeRowsByBucket(t, ctx, wh, "t_orc", 0, ncols)
	if !raw {
		t.Errorf("after compaction the ORC lake still needs merge-on-read")
	}
	pqLake, _ := lakeRowsByBucket(t, ctx, wh, "t_pq", 0, ncols)
	var orcAll, pqAll []string
	for _, rs := range orcLake {
		orcAll = append(orcAll, rs...)
	}
	for _, rs := range pqLake {
		pqAll = append(pqAll, rs...)
	}
	if sortedJoin(orcAll) != sortedJoin(pqAll) {
		t.Fatalf("ORC lake differs from the Parquet twin:\n%s\nparquet\n%s", sortedJoin(orcAll), sortedJoin(pqAll))
	}
	if sortedJoin(orcAll) != sortedJoin(kvRows("orc")) {
		t.Fatalf("final ORC lake differs from the Fluss-only read")
	}
	// Key, BOOLEAN, BIGINT, DOUBLE and STRING columns of every live key
	// from the test's own record of the writes (the first ten cells carry
	// no spaces).
	var got, want []string
	for _, r := range orcAll {
		got = append(got, strings.Join(strings.Fields(strings.Trim(r, "[]"))[:10], " "))
	}
	for k, r := range state {
		cell := func(i int) string { return fmt.Sprint(r[i]) }
		want = append(want, fmt.Sprintf("%s %d %s %s %s %s %s %s %s %s", k.p, k.k1, k.k2, cell(3), cell(4), cell(5), cell(6), cell(7), cell(8), cell(9)))
	}
	if sortedJoin(got) != sortedJoin(want) {
		t.Fatalf("lake rows (first ten columns):\n%s\nwant\n%s", sortedJoin(got), sortedJoin(want))
	}
}

// fetchTailJSON is fetchTail with rows rendered as lake rows are
// (paimon.JSONRow of the decoded Arrow batch), so lake and log rows of
// every type compare as strings.
func fetchTailJSON(t *testing.T, c *Cluster, info TableInfo, partName string, partID *int64, bucket int32, off int64) []logRow {
	t.Helper()
	leader, err := c.Leader(info.Database, info.Name, partName, bucket)
	if err != nil {
		t.Fatal(err)
	}
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	c.mu.Lock()
	cols := c.cat.tableByID(info.ID).columns()
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
					if o := lb.Header.BaseOffset + int64(i); o >= off {
						out = append(out, logRow{fmt.Sprint(paimon.JSONRow(rec, i)), cts.At(i), o})
					}
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

// TestPaimonOptionsFlussSetsItself: paimon.* properties naming an option
// Fluss derives (bucket, bucket-key, path, partition.legacy-name) are
// refused at CREATE TABLE with Fluss's InvalidConfigException text; others
// pass through with the prefix stripped.
func TestPaimonOptionsFlussSetsItself(t *testing.T) {
	ctx := context.Background()
	c, wh := lakeCluster(t, LakeConfig{})
	cols := []Column{{Name: "id", Type: typemap.BigInt()}}
	for _, k := range []string{"paimon.bucket", "paimon.bucket-key", "paimon.path", "paimon.partition.legacy-name", "bucket"} {
		_, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "bad", Buckets: 2, BucketKeys: []string{"id"}, Columns: cols,
			Properties: map[string]string{"table.datalake.enabled": "true", k: "7"}})
		want := "The Paimon option " + k + " will be set automatically by Fluss and should not be set manually."
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", k, err, want)
		}
	}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "ok", Buckets: 2, BucketKeys: []string{"id"}, Columns: cols,
		Properties: map[string]string{"table.datalake.enabled": "true", "paimon.file.compression": "zlib", "paimon.file.format": "orc"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(ctx, "db", "ok", [][]any{{int64(1)}, {nil}, {int64(-3)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TierLake(ctx, "db", "ok"); err != nil {
		t.Fatal(err)
	}
	pt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, wh, "db", "ok")
	if err != nil {
		t.Fatal(err)
	}
	s, err := pt.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Options["file.compression"] != "zlib" || s.Options["bucket"] != "2" || s.Options["fluss.table.datalake.enabled"] != "true" {
		t.Fatalf("lake options %v", s.Options)
	}
	got, _ := lakeRowsByBucket(t, ctx, wh, "ok", 0, 1)
	var all []string
	for _, rs := range got {
		all = append(all, rs...)
	}
	if sortedJoin(all) != sortedJoin([]string{"[1]", "[<nil>]", "[-3]"}) {
		t.Fatalf("lake rows %v", all)
	}
}
