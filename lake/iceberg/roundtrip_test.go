package iceberg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/paimon"
)

// rows renders batches as sorted id|customer|amount|day|ts|region lines.
func rows(t *testing.T, recs []arrow.RecordBatch) []string {
	t.Helper()
	var out []string
	for _, rec := range recs {
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				col := rec.Column(c)
				switch a := col.(type) {
				case *array.Date32:
					parts[c] = a.Value(r).ToTime().Format("2006-01-02")
				case *array.Decimal128:
					v := a.Value(r).BigInt().Int64()
					parts[c] = fmt.Sprintf("%d.%02d", v/100, v%100)
				case *array.Timestamp:
					parts[c] = fmt.Sprint(int64(a.Value(r)))
				default:
					parts[c] = col.ValueStr(r)
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	slices.Sort(out)
	return out
}

// want derives the expected rows of ids from the writer's rule, by hand.
func want(ids []int64) []string {
	var out []string
	for _, id := range ids {
		r := icebergtest.Order(id)
		out = append(out, fmt.Sprintf("%d|%s|%d.%02d|%s|%d|%s", id, r.Customer, r.Cents/100, r.Cents%100, r.Day.Format("2006-01-02"), r.TS.UnixMicro(), r.Region))
	}
	slices.Sort(out)
	return out
}

func idRange(from, to int64, drop func(int64) bool) []int64 {
	var out []int64
	for id := from; id <= to; id++ {
		if drop == nil || !drop(id) {
			out = append(out, id)
		}
	}
	return out
}

// TestIcebergGoRoundTrip writes a table with iceberg-go (appends, position
// deletes, an equality delete) and reads every snapshot with this reader,
// with iceberg-go's own reader, and against rows derived by hand.
func TestIcebergGoRoundTrip(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	snaps, err := icebergtest.Orders(ctx, wh, "db")
	if err != nil {
		t.Fatal(err)
	}
	c005 := func(id int64) bool { return id%17 == 5 }
	expect := [][]int64{
		idRange(1, 200, nil),
		idRange(20, 200, nil),
		idRange(20, 200, c005),
		append(idRange(20, 200, c005), idRange(201, 250, nil)...),
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := hadoop.NewCatalog("check", wh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	theirs, err := cat.LoadTable(ctx, icetable.Identifier{"db", "orders"})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range snaps {
		plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: id})
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		var ours []arrow.RecordBatch
		var pos, eq int
		for j := range plan.Splits {
			sp := &plan.Splits[j]
			pos += len(sp.PosDeletes)
			eq += len(sp.EqDeletes)
			b, _ := iceberg.EncodeSplit(sp)
			dec, err := iceberg.DecodeSplit(b)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := plan.Open(ctx, dec, mem, iceberg.ReadOptions{BatchSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				rec := rd.RecordBatch()
				rec.Retain()
				ours = append(ours, rec)
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
		}
		got := rows(t, ours)
		for _, r := range ours {
			r.Release()
		}
		mem.AssertSize(t, 0)
		if w := want(expect[i]); !slices.Equal(got, w) {
			t.Errorf("snapshot %d (%d): %d rows, want %d; first %q", i+1, id, len(got), len(w), got[:min(3, len(got))])
		}
		if (i >= 1) != (pos > 0) || (i >= 2) != (eq > 0) {
			t.Errorf("snapshot %d: %d position and %d equality delete files in the plan", i+1, pos, eq)
		}
		at, err := theirs.Scan(icetable.WithSnapshotID(id)).ToArrowTable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tr := array.NewTableReader(at, 0)
		var theirRecs []arrow.RecordBatch
		for tr.Next() {
			rec := tr.RecordBatch()
			rec.Retain()
			theirRecs = append(theirRecs, rec)
		}
		tr.Release()
		at.Release()
		if theirRows := rows(t, theirRecs); !slices.Equal(got, theirRows) {
			t.Errorf("snapshot %d: ours %d rows, iceberg-go %d", i+1, len(got), len(theirRows))
		}
		for _, r := range theirRecs {
			r.Release()
		}
	}
}

// TestRefusesDeletionVectors: a v3 table whose deletes are deletion
// vectors is refused at planning, naming the table, the data file and
// the Puffin file; its snapshot before the delete still reads.
func TestRefusesDeletionVectors(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	snaps, err := icebergtest.OrdersV3(ctx, wh, "db", "dv")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wh, "db", "dv")
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Plan(ctx, iceberg.ScanOptions{})
	if !errors.Is(err, iceberg.ErrUnsupported) || !strings.Contains(err.Error(), "deletion vector") || !strings.Contains(err.Error(), dir) ||
		!strings.Contains(err.Error(), ".puffin") || !strings.Contains(err.Error(), ".parquet") {
		t.Fatalf("plan of a table with deletion vectors: %v", err)
	}
	t.Log(err)
	plan, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: snaps[0]})
	if err != nil || len(plan.Splits) == 0 {
		t.Fatalf("snapshot before the delete: %v", err)
	}
}

// TestFlussTiered finds the latest snapshot whose summary carries Fluss's
// tiering commit user, past later snapshots of other writers.
func TestFlussTiered(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	if err := icebergtest.Bulk(ctx, wh, "db", "t", 10); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wh, "db", "t")
	open := func() *iceberg.Table {
		tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	if _, _, ok := open().FlussTiered(); ok {
		t.Fatal("a table Fluss never wrote has a tiered snapshot")
	}
	for i, off := range []string{"/remote/offsets-1", "/remote/offsets-2"} {
		props := map[string]string{"commit-user": "__fluss_lake_tiering", "fluss-offsets": off}
		if err := icebergtest.Append(ctx, wh, "db", "t", int64(100+i), int64(100+i), props); err != nil {
			t.Fatal(err)
		}
	}
	if err := icebergtest.Append(ctx, wh, "db", "t", 200, 200, nil); err != nil {
		t.Fatal(err)
	}
	tbl := open()
	s, off, ok := tbl.FlussTiered()
	all := tbl.Snapshots()
	if !ok || off != "/remote/offsets-2" || s.ID != all[len(all)-2].ID {
		t.Fatalf("FlussTiered: %+v %q %v", s, off, ok)
	}
}

// TestRowGroupPruning: a read plan's predicate skips the row groups whose
// statistics exclude it and returns every live row of the others
// (deletes still applied); it never filters rows itself.
func TestRowGroupPruning(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	if _, err := icebergtest.Orders(ctx, wh, "db"); err != nil {
		t.Fatal(err)
	}
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := tbl.Plan(ctx, iceberg.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := func(pred *paimon.Predicate) (n int64) {
		rp, err := tbl.ReadPlan(all.SnapshotID, pred)
		if err != nil {
			t.Fatal(err)
		}
		for i := range all.Splits {
			rd, err := rp.Open(ctx, &all.Splits[i], memory.NewGoAllocator(), iceberg.ReadOptions{Columns: []string{"id"}})
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				n += rd.RecordBatch().NumRows()
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
		}
		return n
	}
	if n := count(nil); n != 220 {
		t.Fatalf("no predicate: %d rows", n)
	}
	// ids 201..250 were appended in their own files: id > 200 keeps
	// exactly those files' row groups, whole; id > 5000 keeps none.
	if n := count(paimon.Gt("id", int64(200))); n != 50 {
		t.Errorf("id > 200: %d rows", n)
	}
	if n := count(paimon.Gt("id", int64(5000))); n != 0 {
		t.Errorf("id > 5000: %d rows", n)
	}
	if n := count(paimon.Gt("id", int64(150))); n != 220 {
		t.Errorf("id > 150 (every row group overlaps): %d rows", n)
	}
}

// TestRefusesAvro: a table listing an Avro data file is refused at
// planning, naming the table and the file; the snapshot before it reads.
func TestRefusesAvro(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	if err := icebergtest.Bulk(ctx, wh, "db", "t", 10); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wh, "db", "t", "data", "added.avro")
	if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.AvroFile, 3, 1024); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wh, "db", "t")
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Plan(ctx, iceberg.ScanOptions{})
	if !errors.Is(err, iceberg.ErrUnsupported) || !strings.Contains(err.Error(), "data file "+path+" is AVRO; only Parquet and ORC files are read") ||
		!strings.Contains(err.Error(), dir) {
		t.Fatalf("plan with an Avro file: %v", err)
	}
	snaps := tbl.Snapshots()
	if _, err := tbl.Plan(ctx, iceberg.ScanOptions{SnapshotID: snaps[0].ID}); err != nil {
		t.Fatalf("snapshot before the ORC file: %v", err)
	}
}
