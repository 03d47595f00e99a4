package minifluss

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/typemap"
)

func iceCluster(t *testing.T) (*Cluster, string) {
	t.Helper()
	wh := t.TempDir()
	c := startCluster(t, Config{DatalakeFormat: "iceberg", Lake: LakeConfig{Warehouse: wh}, TabletServers: 2})
	if err := c.CreateDatabase(context.Background(), "db"); err != nil {
		t.Fatal(err)
	}
	return c, wh
}

// iceRender renders row r of rec as a|b|c with timestamps in microseconds,
// so two readers' Arrow types (units, zones) compare by value.
func iceRender(rec arrow.RecordBatch, r int, ncols int) string {
	parts := make([]string, ncols)
	for c := range parts {
		col := rec.Column(c)
		switch a := col.(type) {
		case *array.Timestamp:
			if a.IsNull(r) {
				parts[c] = "NULL"
				continue
			}
			v := int64(a.Value(r))
			switch a.DataType().(*arrow.TimestampType).Unit {
			case arrow.Millisecond:
				v *= 1000
			case arrow.Nanosecond:
				v /= 1000
			case arrow.Second:
				v *= 1e6
			}
			parts[c] = strconv.FormatInt(v, 10)
		default:
			parts[c] = col.ValueStr(r)
		}
	}
	return strings.Join(parts, "|")
}

// iceLakeRows reads snapshot snap of db.tbl twice, with iceberg-go's own
// scanner and with lake/iceberg, fails unless both give the same rows, and
// returns them sorted (every column, system columns last).
func iceLakeRows(t *testing.T, ctx context.Context, wh, tbl string, snap int64) []string {
	t.Helper()
	cat, err := hadoop.NewCatalog("check", wh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	theirs, err := cat.LoadTable(ctx, icetable.Identifier{"db", tbl})
	if err != nil {
		t.Fatal(err)
	}
	at, err := theirs.Scan(icetable.WithSnapshotID(snap)).ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ncols := int(at.NumCols())
	var want []string
	tr := array.NewTableReader(at, 0)
	for tr.Next() {
		rec := tr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			want = append(want, iceRender(rec, r, ncols))
		}
	}
	tr.Release()
	at.Release()
	ours, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", tbl))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ours.Plan(ctx, iceberg.ScanOptions{SnapshotID: snap})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	var got []string
	for i := range plan.Splits {
		rd, err := plan.Open(ctx, &plan.Splits[i], mem, iceberg.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			if int(rec.NumCols()) != ncols {
				t.Fatalf("lake/iceberg reads %d columns, iceberg-go %d", rec.NumCols(), ncols)
			}
			for r := 0; r < int(rec.NumRows()); r++ {
				got = append(got, iceRender(rec, r, ncols))
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	mem.AssertSize(t, 0)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("snapshot %d of %s: lake/iceberg %d rows, iceberg-go %d\nours %q\ntheirs %q", snap, tbl, len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
	}
	return got
}

// checkIceOffsets checks the system columns of lake rows (user columns
// first, then __bucket|__offset|__timestamp): per bucket the offsets are
// exactly 0..end-1 of the lake snapshot (log tables keep every record).
func checkIceOffsets(t *testing.T, rows []string, ends map[int32]int64) {
	t.Helper()
	seen := map[int32][]int64{}
	for _, r := range rows {
		f := strings.Split(r, "|")
		b, _ := strconv.Atoi(f[len(f)-3])
		o, _ := strconv.ParseInt(f[len(f)-2], 10, 64)
		seen[int32(b)] = append(seen[int32(b)], o)
	}
	for b, end := range ends {
		offs := seen[b]
		slices.Sort(offs)
		if int64(len(offs)) != end || (end > 0 && (offs[0] != 0 || offs[len(offs)-1] != end-1)) {
			t.Fatalf("bucket %d: lake offsets %v, want 0..%d", b, offs, end-1)
		}
		delete(seen, b)
	}
	if len(seen) > 0 {
		t.Fatalf("lake rows of buckets outside the snapshot: %v", seen)
	}
}

func userCols(rows []string, n int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(strings.Split(r, "|")[:n], "|")
	}
	slices.Sort(out)
	return out
}

func TestTierIcebergLogTables(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bucket   bool // bucket key id (else identity(__bucket))
		wantSpec string
	}{{"bucketed", true, "id_bucket=bucket[3](1)"}, {"unaware", false, "__bucket=identity(3)"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c, wh := iceCluster(t)
			spec := TableSpec{Database: "db", Name: "lg", Buckets: 3, Columns: []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()},
				{Name: "ts", Type: typemap.TimestampLTZ(3)}, {Name: "tiny", Type: typemap.TinyInt()}},
				Properties: map[string]string{"table.datalake.enabled": "true", "iceberg.write.parquet.compression-codec": "zstd"}}
			if tc.bucket {
				spec.BucketKeys = []string{"id"}
			}
			info, err := c.CreateTable(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"table.datalake.iceberg.type":"hadoop"`, `"table.datalake.iceberg.warehouse":"` + wh} {
				if !strings.Contains(string(info.JSON), want) {
					t.Fatalf("table properties lack %s: %s", want, info.JSON)
				}
			}
			cat, err := hadoop.NewCatalog("check", wh, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			it, err := cat.LoadTable(ctx, icetable.Identifier{"db", "lg"})
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, f := range it.Schema().Fields() {
				fields = append(fields, fmt.Sprintf("%d:%s:%s:%v", f.ID, f.Name, f.Type, f.Required))
			}
			if got := strings.Join(fields, " "); got != "1:id:long:false 2:name:string:false 3:ts:timestamptz:false 4:tiny:int:false 5:__bucket:int:true 6:__offset:long:true 7:__timestamp:timestamptz:true" {
				t.Fatalf("lake schema %s", got)
			}
			var pf []string
			sp := it.Spec()
			for _, f := range sp.Fields() {
				pf = append(pf, fmt.Sprintf("%s=%s(%d)", f.Name, f.Transform, f.SourceID()))
			}
			if tc.bucket {
				tc.wantSpec = "id_bucket=bucket[3](1)"
			} else {
				tc.wantSpec = "__bucket=identity(5)"
			}
			if got := strings.Join(pf, ","); got != tc.wantSpec {
				t.Fatalf("partition spec %s, want %s", got, tc.wantSpec)
			}
			var sortIDs []int
			so := it.SortOrder()
			for _, f := range so.Fields() {
				sortIDs = append(sortIDs, f.SourceID())
			}
			if !slices.Equal(sortIDs, []int{6}) {
				t.Fatalf("sort order %v, want __offset", so)
			}
			if it.Properties()["write.parquet.compression-codec"] != "zstd" || it.Properties()["fluss.table.datalake.enabled"] != "true" {
				t.Fatalf("lake table properties %v", it.Properties())
			}
			var history []string
			add := func(from, n int) {
				var rows [][]any
				for i := from; i < from+n; i++ {
					var name any = fmt.Sprintf("n%d", i)
					if i%7 == 0 {
						name = nil
					}
					ts := record.Timestamp{Millis: 1_700_000_000_000 + int64(i)*1001}
					rows = append(rows, []any{int64(i), name, ts, int8(i % 100)})
					nm := "(null)"
					if name != nil {
						nm = name.(string)
					}
					history = append(history, fmt.Sprintf("%d|%s|%d|%d", i, nm, ts.Millis*1000, i%100))
				}
				if err := c.Append(ctx, "db", "lg", rows); err != nil {
					t.Fatal(err)
				}
			}
			lakeState := func(stage string, wantRows int) ([]string, map[int32]int64) {
				t.Helper()
				snap, code := lakeSnapshotRPC(t, c, "lg", true)
				if code != 0 {
					t.Fatalf("%s: GetLakeSnapshot code %d", stage, code)
				}
				ends := map[int32]int64{}
				for _, b := range snap.BucketSnapshots {
					ends[b.GetBucketId()] = b.GetLogOffset()
				}
				rows := iceLakeRows(t, ctx, wh, "lg", snap.GetSnapshotId())
				if len(rows) != wantRows {
					t.Fatalf("%s: %d lake rows, want %d", stage, len(rows), wantRows)
				}
				checkIceOffsets(t, rows, ends)
				tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "lg"))
				if err != nil {
					t.Fatal(err)
				}
				s, offs, ok := tbl.FlussTiered()
				if !ok || s.ID != snap.GetSnapshotId() || !strings.HasSuffix(offs, ".offsets") {
					t.Fatalf("%s: Fluss-tiered snapshot %+v %q, GetLakeSnapshot %d", stage, s, offs, snap.GetSnapshotId())
				}
				return rows, ends
			}
			if _, code := lakeSnapshotRPC(t, c, "lg", true); code != codeLakeSnapshotNotExist {
				t.Fatalf("GetLakeSnapshot before tiering: code %d", code)
			}
			add(0, 40)
			add(40, 30)
			r1, err := c.TierLake(ctx, "db", "lg")
			if err != nil {
				t.Fatal(err)
			}
			if r1.Rows != 70 || r1.Files < 1 {
				t.Fatalf("round 1: %+v", r1)
			}
			rows, _ := lakeState("round 1", 70)
			if got, want := userCols(rows, 4), userCols(history, 4); !slices.Equal(got, want) {
				t.Fatalf("round 1 lake rows differ from the history:\n%q\nwant\n%q", got[:5], want[:5])
			}
			add(70, 25)
			if r2, err := c.TierLake(ctx, "db", "lg"); err != nil || r2.Rows != 25 {
				t.Fatalf("round 2: %+v %v", r2, err)
			}
			// An empty round commits nothing.
			before, _ := lakeSnapshotRPC(t, c, "lg", true)
			if r3, err := c.TierLake(ctx, "db", "lg"); err != nil || r3.Rows != 0 || r3.SnapshotID != before.GetSnapshotId() {
				t.Fatalf("empty round: %+v %v", r3, err)
			}
			add(95, 12) // the log tail
			rows, ends := lakeState("round 2", 95)
			var tail []string
			for b, end := range ends {
				for _, lr := range fetchTail(t, c, info, "", nil, b, end) {
					tail = append(tail, strings.Fields(strings.Trim(lr.row, "[]"))[0])
				}
			}
			slices.Sort(tail)
			var wantTail []string
			for i := 95; i < 107; i++ {
				wantTail = append(wantTail, strconv.Itoa(i))
			}
			slices.Sort(wantTail)
			if !slices.Equal(tail, wantTail) {
				t.Fatalf("log tail after the lake: %v, want ids 95..106", tail)
			}
			if got, want := userCols(rows, 4), userCols(history[:95], 4); !slices.Equal(got, want) {
				t.Fatalf("round 2 lake rows differ from the history")
			}
			// DuckDB reads the data files of the last snapshot on its own.
			duck, err := duckrun.Start(ctx, 1)
			if err != nil {
				fixtures.Unavailable(t, "DuckDB: %v", err)
			}
			defer duck.Close()
			tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "lg"))
			if err != nil {
				t.Fatal(err)
			}
			plan, err := tbl.Plan(ctx, iceberg.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, sp := range plan.Splits {
				if len(sp.PosDeletes)+len(sp.EqDeletes) > 0 {
					t.Fatalf("log table split with deletes: %+v", sp)
				}
				paths = append(paths, "'"+sp.Path+"'")
			}
			_, res, err := duck.Run(fmt.Sprintf(`SELECT id::VARCHAR || '|' || coalesce(name, '(null)') || '|' || epoch_us(ts)::VARCHAR || '|' || tiny::VARCHAR || '|' ||
				__bucket::VARCHAR || '|' || __offset::VARCHAR || '|' || epoch_us(__timestamp)::VARCHAR FROM read_parquet([%s])`, strings.Join(paths, ",")))
			if err != nil {
				t.Fatal(err)
			}
			var theirs []string
			for _, r := range res {
				theirs = append(theirs, *r[0])
			}
			slices.Sort(theirs)
			ours := rows
			if !slices.Equal(theirs, ours) {
				t.Fatalf("DuckDB read_parquet %d rows, ours %d:\n%q\n%q", len(theirs), len(ours), theirs[:min(3, len(theirs))], ours[:min(3, len(ours))])
			}
		})
	}
}

// TestTierIcebergPKTable: a partitioned PK table on an Iceberg lake. After
// each round the lake (read by iceberg-go and lake/iceberg alike) merged
// with the log tail by key equals the KV state, and the lake alone equals
// a model of the upserts and deletes up to the tiered offsets; later
// rounds write equality delete files. A small chunk cap makes a round
// commit more than once.
func TestTierIcebergPKTable(t *testing.T) {
	for _, chunk := range []int{pkChunkKeys, 7} {
		t.Run(fmt.Sprint("chunk", chunk), func(t *testing.T) {
			old := icebergPKChunkKeys
			icebergPKChunkKeys = chunk
			defer func() { icebergPKChunkKeys = old }()
			ctx := context.Background()
			c, wh := iceCluster(t)
			info, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk", Buckets: 3, PrimaryKey: []string{"k", "dt"}, PartitionKeys: []string{"dt"},
				BucketKeys: []string{"k"},
				Columns:    []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}, {Name: "dt", Type: typemap.String().NotNull()}},
				Properties: map[string]string{"table.datalake.enabled": "true"}})
			if err != nil {
				t.Fatal(err)
			}
			parts := map[string]int64{}
			for _, dt := range []string{"x", "y"} {
				id, err := c.CreatePartition(ctx, "db", "pk", map[string]string{"dt": dt})
				if err != nil {
					t.Fatal(err)
				}
				parts[dt] = id
			}
			model := map[string]string{} // k|dt -> k|v|dt, the Fluss state
			var lakeModel map[string]string
			up := func(from, to int, tag string) {
				var rows [][]any
				for k := from; k < to; k++ {
					dt := []string{"x", "y"}[k%2]
					v := fmt.Sprintf("%s%d", tag, k)
					rows = append(rows, []any{int32(k), v, dt})
					model[fmt.Sprintf("%d|%s", k, dt)] = fmt.Sprintf("%d|%s|%s", k, v, dt)
				}
				if err := c.Upsert(ctx, "db", "pk", rows); err != nil {
					t.Fatal(err)
				}
			}
			del := func(keys ...int) {
				var ks [][]any
				for _, k := range keys {
					dt := []string{"x", "y"}[k%2]
					ks = append(ks, []any{int32(k), dt})
					delete(model, fmt.Sprintf("%d|%s", k, dt))
				}
				if err := c.Delete(ctx, "db", "pk", ks); err != nil {
					t.Fatal(err)
				}
			}
			tier := func() {
				t.Helper()
				if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
					t.Fatal(err)
				}
				lakeModel = maps_clone(model)
			}
			check := func(stage string, wantEq bool) {
				t.Helper()
				snap, code := lakeSnapshotRPC(t, c, "pk", true)
				if code != 0 {
					t.Fatalf("%s: lake snapshot code %d", stage, code)
				}
				rows := iceLakeRows(t, ctx, wh, "pk", snap.GetSnapshotId())
				state := map[string]string{}
				for _, r := range rows {
					f := strings.Split(r, "|")
					k := f[0] + "|" + f[2]
					if _, dup := state[k]; dup {
						t.Fatalf("%s: key %s twice in the lake", stage, k)
					}
					state[k] = strings.Join(f[:3], "|")
				}
				if got, want := sortedJoin(mapValues(state)), sortedJoin(mapValues(lakeModel)); got != want {
					t.Fatalf("%s: lake differs from the model at the tiered offsets:\n%s\nwant\n%s", stage, got, want)
				}
				for _, bs := range snap.BucketSnapshots {
					for _, lr := range fetchTail(t, c, info, bs.GetPartitionName(), bs.PartitionId, bs.GetBucketId(), bs.GetLogOffset()) {
						f := strings.Fields(strings.Trim(lr.row, "[]"))
						k := f[0] + "|" + f[len(f)-1]
						switch lr.ct {
						case record.Delete:
							delete(state, k)
						case record.UpdateBefore:
						default:
							state[k] = strings.Join(f, "|")
						}
					}
				}
				if got, want := sortedJoin(mapValues(state)), sortedJoin(mapValues(model)); got != want {
					t.Fatalf("%s: lake ⊕ log differs from the model:\n%s\nwant\n%s", stage, got, want)
				}
				tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "pk"))
				if err != nil {
					t.Fatal(err)
				}
				plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: snap.GetSnapshotId()})
				if err != nil {
					t.Fatal(err)
				}
				eq := 0
				for i, sp := range plan.Splits {
					// Fluss buckets an Iceberg-lake key with Iceberg's bucket
					// function: the file's bucket partition is its rows' bucket.
					rd, err := plan.Open(ctx, &plan.Splits[i], memory.NewGoAllocator(), iceberg.ReadOptions{Columns: []string{"__bucket"}})
					if err != nil {
						t.Fatal(err)
					}
					for rd.Next() {
						b := rd.RecordBatch().Column(0).(*array.Int32)
						for r := 0; r < b.Len(); r++ {
							if !strings.Contains(sp.Partition, fmt.Sprintf("k_bucket=%d", b.Value(r))) {
								t.Fatalf("%s: row of bucket %d in file of partition %s", stage, b.Value(r), sp.Partition)
							}
						}
					}
					if err := rd.Err(); err != nil {
						t.Fatal(err)
					}
					rd.Release()
					eq += len(sp.EqDeletes)
					if len(sp.PosDeletes) > 0 {
						t.Fatalf("%s: position deletes in %s", stage, sp.Path)
					}
					for _, d := range sp.EqDeletes {
						if !slices.Equal(d.EqualityIDs, []int{1, 3}) {
							t.Fatalf("%s: equality ids %v, want the primary key [1 3]", stage, d.EqualityIDs)
						}
					}
				}
				// With a small cap, later chunks of round 1 delete keys
				// earlier chunks committed.
				if (eq > 0) != (wantEq || chunk < pkChunkKeys) {
					t.Fatalf("%s: %d equality delete files applied", stage, eq)
				}
			}
			up(0, 50, "a")
			up(10, 20, "b")
			del(3, 4)
			tier()
			check("round 1", false)
			up(15, 30, "c")
			del(5, 16)
			tier()
			check("round 2", true)
			// Keys inserted and deleted within one round only.
			up(100, 103, "t")
			del(100, 101, 102)
			tier()
			check("round 3 (folded away)", true)
			up(40, 60, "d")
			del(6, 45)
			up(3, 4, "e")
			check("tail", true)
		})
	}
}

func maps_clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestIcebergLakeRefusals: table layouts Fluss's Iceberg catalog refuses.
func TestIcebergLakeRefusals(t *testing.T) {
	ctx := context.Background()
	c, _ := iceCluster(t)
	lake := map[string]string{"table.datalake.enabled": "true"}
	for _, tc := range []struct {
		name string
		spec TableSpec
		want string
	}{
		{"two bucket keys", TableSpec{Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.Int()}}, BucketKeys: []string{"a", "b"}},
			"Only one bucket key is supported for Iceberg"},
		{"int partition", TableSpec{Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "p", Type: typemap.Int()}}, PartitionKeys: []string{"p"}},
			"Partition key only support string type for iceberg currently. Column `p` is not string type."},
		{"nanosecond timestamp", TableSpec{Columns: []Column{{Name: "a", Type: typemap.Int()}, {Name: "ts", Type: typemap.TimestampLTZ(9)}}},
			"finer than Iceberg's microseconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Database, tc.spec.Name, tc.spec.Buckets, tc.spec.Properties = "db", strings.ReplaceAll(tc.name, " ", "_"), 2, lake
			_, err := c.CreateTable(ctx, tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("create: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTierIcebergNested tiers ARRAY, MAP and ROW columns (nested in each
// other, with leaves Iceberg widens) into Iceberg: iceberg-go's reader and
// lake/iceberg read the same rows, and the user columns are the inserted
// values (row 2 all NULL).
func TestTierIcebergNested(t *testing.T) {
	ctx := context.Background()
	c, wh := iceCluster(t)
	sc, err := ParseScenario(`CREATE TABLE db.nt (id INT, f_arr ARRAY<INT>, f_map MAP<STRING, INT>, f_row ROW<a INT, b STRING>,
  f_arr_arr ARRAY<ARRAY<TINYINT>>, f_map_row MAP<STRING, ROW<x SMALLINT, s STRING>>, f_row_deep ROW<r_arr ARRAY<INT>, r_map MAP<STRING, INT>, r_row ROW<x INT, y STRING>>)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO db.nt VALUES (1, ARRAY[1, 2, 3], MAP['k1', 1, 'k2', 2], ROW(1, 'nested1'), ARRAY[ARRAY[1, 2], ARRAY[3]], MAP['m', ROW(9, 'z')], ROW(ARRAY[7, 8], MAP['m', 3], ROW(5, 'deep'))),
  (2, NULL, NULL, NULL, NULL, NULL, NULL);
TIER;`)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	cat, err := hadoop.NewCatalog("check", wh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	it, err := cat.LoadTable(ctx, icetable.Identifier{"db", "nt"})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, f := range it.Schema().Fields()[1:7] {
		types = append(types, f.Type.String())
	}
	if got, want := strings.Join(types, " "), "list<int> map<string, int> struct<8: a: optional int, 9: b: optional string> list<list<int>> "+
		"map<string, struct<16: x: optional int, 17: s: optional string>> "+
		"struct<19: r_arr: optional list<int>, 21: r_map: optional map<string, int>, 24: r_row: optional struct<25: x: optional int, 26: y: optional string>>"; got != want {
		t.Fatalf("lake types\n got %s\nwant %s", got, want)
	}
	got := userCols(iceLakeRows(t, ctx, wh, "nt", it.CurrentSnapshot().SnapshotID), 7)
	want := []string{
		// Arrow's JSON rendering (object keys sorted).
		`1|[1,2,3]|[{"key":"k1","value":1},{"key":"k2","value":2}]|{"a":1,"b":"nested1"}|[[1,2],[3]]|[{"key":"m","value":{"s":"z","x":9}}]|` +
			`{"r_arr":[7,8],"r_map":[{"key":"m","value":3}],"r_row":{"x":5,"y":"deep"}}`,
		"2|(null)|(null)|(null)|(null)|(null)|(null)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("lake rows\n got %q\nwant %q", got, want)
	}
}
