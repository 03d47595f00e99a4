package minifluss

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/typemap"
)

// ourIceRows reads snapshot snap of db.tbl with lake/iceberg only (the
// reference reader, iceberg-go's scanner, reads no ORC); rows as
// iceRender renders them, sorted, and the plan.
func ourIceRows(t *testing.T, ctx context.Context, wh, tbl string, snap int64) ([]string, *iceberg.Plan) {
	t.Helper()
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
		rd, err := plan.Open(ctx, &plan.Splits[i], mem, iceberg.ReadOptions{BatchSize: 5})
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				got = append(got, iceRender(rec, r, int(rec.NumCols())))
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	mem.AssertSize(t, 0)
	slices.Sort(got)
	return got, plan
}

// theirIceRows reads snapshot snap of db.tbl with iceberg-go's own
// scanner, rendered as ourIceRows renders lake/iceberg's batches (a time
// column, microseconds there, as the engine's milliseconds).
func theirIceRows(t *testing.T, ctx context.Context, wh, tbl string, snap int64) []string {
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
	defer at.Release()
	var out []string
	tr := array.NewTableReader(at, 0)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		cols := make([]arrow.Array, rec.NumCols())
		fields := make([]arrow.Field, rec.NumCols())
		for i := range cols {
			cols[i], fields[i] = rec.Column(i), rec.Schema().Field(i)
			if tm, ok := cols[i].(*array.Time64); ok {
				b := array.NewTime32Builder(memory.NewGoAllocator(), &arrow.Time32Type{Unit: arrow.Millisecond})
				for r := 0; r < tm.Len(); r++ {
					if tm.IsNull(r) {
						b.AppendNull()
					} else {
						b.Append(arrow.Time32(int64(tm.Value(r)) / 1000))
					}
				}
				cols[i] = b.NewArray()
				defer cols[i].Release()
				b.Release()
				fields[i].Type = cols[i].DataType()
			}
		}
		norm := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
		for r := 0; r < int(norm.NumRows()); r++ {
			out = append(out, iceRender(norm, r, int(norm.NumCols())))
		}
		norm.Release()
	}
	slices.Sort(out)
	return out
}

// withoutTimestamp drops the last column (__timestamp, the commit time
// of each table's own records) and sorts.
func withoutTimestamp(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[:strings.LastIndexByte(r, '|')]
	}
	slices.Sort(out)
	return out
}

// TestTierIcebergORC tiers the same writes into twin tables, one with
// 'iceberg.write.format.default' = 'orc' and one Parquet, over two
// rounds (a log table with every tiered type, NULLs and pre-epoch
// values; a partitioned primary-key table with updates and deletes, i.e.
// ORC equality delete files). The Parquet twin is read by iceberg-go's own
// scanner and by lake/iceberg (iceLakeRows fails unless they agree); the
// ORC twin, read by lake/iceberg through lake/orc, must give the same rows,
// system columns __bucket and __offset included.
func TestTierIcebergORC(t *testing.T) {
	ctx := context.Background()
	c, wh := iceCluster(t)
	logCols := []Column{
		{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "amt", Type: typemap.Decimal(10, 2)},
		{Name: "tiny", Type: typemap.TinyInt()}, {Name: "f", Type: typemap.Float()}, {Name: "dbl", Type: typemap.Double()},
		{Name: "ok", Type: typemap.Boolean()}, {Name: "d", Type: typemap.Date()}, {Name: "tm", Type: typemap.Time(3)},
		{Name: "ts", Type: typemap.Timestamp(6)}, {Name: "ltz", Type: typemap.TimestampLTZ(3)}, {Name: "by", Type: typemap.Bytes()},
		{Name: "arr", Type: typemap.Array(typemap.Int())}, {Name: "m", Type: typemap.Map(typemap.String(), typemap.BigInt())},
		{Name: "r", Type: typemap.Row(typemap.NewField("x", typemap.Int()), typemap.NewField("y", typemap.String()))},
	}
	pkCols := []Column{{Name: "k", Type: typemap.Int().NotNull()}, {Name: "v", Type: typemap.String()}, {Name: "dt", Type: typemap.String().NotNull()}}
	formats := map[string]string{"orc": "_orc", "parquet": "_pq"}
	for format, suffix := range formats {
		props := map[string]string{"table.datalake.enabled": "true"}
		if format == "orc" {
			props["iceberg.write.format.default"] = "orc"
		}
		if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "lg" + suffix, Buckets: 3, BucketKeys: []string{"id"}, Columns: logCols, Properties: props}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateTable(ctx, TableSpec{Database: "db", Name: "pk" + suffix, Buckets: 2, PrimaryKey: []string{"k", "dt"}, PartitionKeys: []string{"dt"},
			BucketKeys: []string{"k"}, Columns: pkCols, Properties: props}); err != nil {
			t.Fatal(err)
		}
		for _, dt := range []string{"x", "y"} {
			if _, err := c.CreatePartition(ctx, "db", "pk"+suffix, map[string]string{"dt": dt}); err != nil {
				t.Fatal(err)
			}
		}
	}
	logRow := func(i int) []any {
		nul := func(x any, m int) any {
			if (i+m)%5 == 0 {
				return nil
			}
			return x
		}
		year := 1890 + (i*7)%140 // 1890 .. 2029
		return []any{int64(i), nul(fmt.Sprintf("n%d-é", i), 1), nul(fmt.Sprintf("%d.%02d", i-50, i%100), 2), nul(int8(i%200-100), 3),
			nul(float32(i)/4-9, 4), nul(float64(i)*1e-3-2.5, 0), nul(i%2 == 0, 1),
			nul(fmt.Sprintf("%04d-%02d-%02d", year, 1+i%12, 1+i%28), 2), nul(fmt.Sprintf("%02d:%02d:%02d.%03d", i%24, i%60, (i*7)%60, i%1000), 3),
			nul(fmt.Sprintf("%04d-06-15 23:59:59.%06d", year, i*1013%1_000_000), 4), nul(fmt.Sprintf("%04d-03-04T05:06:07.%03dZ", year, i%1000), 0),
			nul(string([]byte{0, byte(i), 7}[:i%4%3]), 1), nul([]any{int32(i), nil, int32(-i)}[:i%4%3+1], 2),
			nul(map[string]any{"k": int64(i)}, 3), nul([]any{int32(i), fmt.Sprint("y", i)}, 4)}
	}
	appendLog := func(from, to int) {
		var rows [][]any
		for i := from; i < to; i++ {
			rows = append(rows, logRow(i))
		}
		for _, suffix := range formats {
			if err := c.Append(ctx, "db", "lg"+suffix, rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	upsert := func(from, to int, tag string) {
		var rows [][]any
		for k := from; k < to; k++ {
			rows = append(rows, []any{int32(k), fmt.Sprintf("%s%d", tag, k), []string{"x", "y"}[k%2]})
		}
		for _, suffix := range formats {
			if err := c.Upsert(ctx, "db", "pk"+suffix, rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := func(keys ...int) {
		var ks [][]any
		for _, k := range keys {
			ks = append(ks, []any{int32(k), []string{"x", "y"}[k%2]})
		}
		for _, suffix := range formats {
			if err := c.Delete(ctx, "db", "pk"+suffix, ks); err != nil {
				t.Fatal(err)
			}
		}
	}
	tier := func() {
		t.Helper()
		for _, tbl := range []string{"lg", "pk"} {
			for _, suffix := range formats {
				if _, err := c.TierLake(ctx, "db", tbl+suffix); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	check := func(stage string, wantEqDeletes bool) {
		t.Helper()
		for _, tbl := range []string{"lg", "pk"} {
			pq, code := lakeSnapshotRPC(t, c, tbl+"_pq", true)
			oc, code2 := lakeSnapshotRPC(t, c, tbl+"_orc", true)
			if code != 0 || code2 != 0 {
				t.Fatalf("%s %s: lake snapshot codes %d %d", stage, tbl, code, code2)
			}
			want := theirIceRows(t, ctx, wh, tbl+"_pq", pq.GetSnapshotId())
			if ours, _ := ourIceRows(t, ctx, wh, tbl+"_pq", pq.GetSnapshotId()); !slices.Equal(ours, want) {
				t.Fatalf("%s %s: lake/iceberg reads the Parquet twin differently from iceberg-go\nours   %q\ntheirs %q", stage, tbl, ours, want)
			}
			got, plan := ourIceRows(t, ctx, wh, tbl+"_orc", oc.GetSnapshotId())
			if g, w := withoutTimestamp(got), withoutTimestamp(want); !slices.Equal(g, w) {
				t.Fatalf("%s %s: ORC lake (%d rows) differs from the Parquet lake (%d rows)\norc %q\npq  %q", stage, tbl, len(g), len(w), g, w)
			}
			eq := 0
			for _, sp := range plan.Splits {
				if sp.Format != "ORC" || !strings.HasSuffix(sp.Path, ".orc") {
					t.Fatalf("%s %s: split %s of format %q", stage, tbl, sp.Path, sp.Format)
				}
				for _, d := range sp.EqDeletes {
					if d.Format != "ORC" {
						t.Fatalf("%s %s: equality delete file %s of format %q", stage, tbl, d.Path, d.Format)
					}
					eq++
				}
			}
			if tbl == "pk" && (eq > 0) != wantEqDeletes {
				t.Fatalf("%s: %d equality delete files applied, want some: %v", stage, eq, wantEqDeletes)
			}
			if len(got) == 0 {
				t.Fatalf("%s %s: empty lake", stage, tbl)
			}
			bounded := map[string][]string{"lg": {"id", "name", "amt", "tiny", "f", "dbl", "ok", "d", "tm", "ts", "ltz", "r.x", "r.y", "__bucket", "__offset"},
				"pk": {"k", "v", "dt", "__bucket", "__offset"}}
			checkORCMetrics(t, ctx, wh, tbl, pq.GetSnapshotId(), oc.GetSnapshotId(), bounded[tbl])
		}
	}
	appendLog(0, 40)
	upsert(0, 20, "a")
	del(3)
	tier()
	check("round 1", false)
	appendLog(40, 70)
	upsert(5, 12, "b")
	del(4, 8)
	tier()
	check("round 2", true)
	// The bounds prune: id > 45 keeps round 2's files (ids 40..69) and
	// drops round 1's (ids 0..39), in the ORC twin as in the Parquet one.
	splits := map[string]int{}
	for _, suffix := range formats {
		tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "lg"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		all, err := tbl.Plan(ctx, iceberg.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := tbl.Plan(ctx, iceberg.ScanOptions{Predicate: paimon.Gt("id", int64(45))})
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Pruned || len(plan.Splits) >= len(all.Splits) {
			t.Fatalf("lg%s: id > 45 keeps %d of %d files (pruned %v)", suffix, len(plan.Splits), len(all.Splits), plan.Pruned)
		}
		for _, sp := range plan.Splits {
			if sp.Records == 0 {
				t.Fatalf("lg%s: empty split %s", suffix, sp.Path)
			}
		}
		splits[suffix] = len(plan.Splits)
		t.Logf("lg%s: id > 45 plans %d of %d files", suffix, len(plan.Splits), len(all.Splits))
	}
	if splits["_orc"] != splits["_pq"] {
		t.Fatalf("id > 45 keeps %d ORC files, %d Parquet files", splits["_orc"], splits["_pq"])
	}
}
