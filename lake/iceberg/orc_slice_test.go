package iceberg

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestSlicedORC: an ORC data file of many stripes, planned with
// FileSplitSize cut into slices that each read the stripes whose middle
// byte they hold: every id comes back once, several slices return rows,
// the file's row count is still checked against its record_count, and
// the stripe statistics still prune (id >= 19000 reads the last stripes
// only, every row of them once).
func TestSlicedORC(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	sc := ice.NewSchema(0, ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64},
		ice.NestedField{ID: 2, Name: "s", Type: ice.PrimitiveTypes.String})
	loc, err := icebergtest.Create(ctx, wh, "db", "t", sc)
	if err != nil {
		t.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(loc, "data", "striped.orc")
	fsc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(1)},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(2)},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	w, err := orc.NewWriter(f, fsc, orc.WriterOptions{Mem: mem, StripeSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	for lo := 0; lo < n; lo += 1000 {
		b := array.NewRecordBuilder(mem, fsc)
		for i := lo; i < lo+1000; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", i%13))
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.OrcFile, n, st.Size()); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{0, st.Size() / 5, st.Size() / 17} {
		plan, err := tbl.Plan(ctx, ScanOptions{FileSplitSize: size})
		if err != nil {
			t.Fatal(err)
		}
		if size > 0 && len(plan.Splits) < 4 {
			t.Fatalf("size %d: %d splits of a %d-byte file", size, len(plan.Splits), st.Size())
		}
		var ids []int64
		withRows := 0
		for i := range plan.Splits {
			b, err := EncodeSplit(&plan.Splits[i])
			if err != nil {
				t.Fatal(err)
			}
			sp, err := DecodeSplit(b)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := plan.Open(ctx, sp, mem, ReadOptions{Columns: []string{"id"}})
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for rd.Next() {
				ids = append(ids, rd.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
				k += int(rd.RecordBatch().NumRows())
			}
			if err := rd.Err(); err != nil {
				t.Fatalf("size %d split %d: %v", size, i, err)
			}
			rd.Release()
			if k > 0 {
				withRows++
			}
		}
		slices.Sort(ids)
		if len(ids) != n || ids[0] != 0 || ids[n-1] != n-1 || slices.Compact(ids)[n-1] != n-1 {
			t.Fatalf("size %d: %d ids, want 0..%d once each", size, len(ids), n-1)
		}
		if size > 0 && withRows < 3 {
			t.Errorf("size %d: rows from %d slices", size, withRows)
		}
	}
	plan, err := tbl.Plan(ctx, ScanOptions{FileSplitSize: st.Size() / 5, Predicate: paimon.Ge("id", int64(19000))})
	if err != nil {
		t.Fatal(err)
	}
	var read, high int64
	for i := range plan.Splits {
		rd, err := plan.Open(ctx, &plan.Splits[i], mem, ReadOptions{Columns: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			for _, v := range rd.RecordBatch().Column(0).(*array.Int64).Int64Values() {
				read++
				if v >= 19000 {
					high++
				}
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	if high != 1000 || read >= n/2 {
		t.Errorf("id >= 19000 over slices: %d matching of %d read, want 1000 of fewer than %d", high, read, n/2)
	}
}
