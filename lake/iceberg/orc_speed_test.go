package iceberg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/orc"
)

// TestORCScanSpeed (only with INLET_ICEBERG_ORC_SPEED=<rows>) times a full
// scan of an ORC data file through lake/iceberg (id matching, int→long
// promotion of one column, Arrow conversion) against lake/orc's
// RecordReader alone on the same file. It prints figures and asserts
// nothing about them, the machine being shared.
func TestORCScanSpeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("INLET_ICEBERG_ORC_SPEED"))
	if n <= 0 {
		t.Skip("set INLET_ICEBERG_ORC_SPEED=<rows> to measure")
	}
	ctx := context.Background()
	wh := t.TempDir()
	sc := ice.NewSchema(0,
		ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64},
		ice.NestedField{ID: 2, Name: "amount", Type: ice.DecimalTypeOf(10, 2)},
		ice.NestedField{ID: 3, Name: "customer", Type: ice.PrimitiveTypes.String},
		ice.NestedField{ID: 4, Name: "qty", Type: ice.PrimitiveTypes.Int64}) // an ORC int in the file
	loc, err := icebergtest.Create(ctx, wh, "db", "t", sc)
	if err != nil {
		t.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(loc, "data", "big.orc")
	fsc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(1)},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true, Metadata: meta(2)},
		{Name: "customer", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(3)},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta(4)},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	w, err := orc.NewWriter(f, fsc, orc.WriterOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += 1 << 16 {
		b := array.NewRecordBuilder(mem, fsc)
		for i := lo; i < min(n, lo+1<<16); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 125))
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("c%03d", i%17))
			b.Field(3).(*array.Int32Builder).Append(int32(i % 50))
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
	if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.OrcFile, int64(n), st.Size()); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	best := func(f func() int64) (time.Duration, int64) {
		var b time.Duration
		var rows int64
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			rows = f()
			if d := time.Since(t0); i == 0 || d < b {
				b = d
			}
		}
		return b, rows
	}
	ours, rows := best(func() int64 {
		var rows int64
		for i := range plan.Splits {
			rd, err := plan.Open(ctx, &plan.Splits[i], mem, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				rows += rd.RecordBatch().NumRows()
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
		}
		return rows
	})
	raw, rawRows := best(func() int64 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		of, err := orc.Open(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		rr, err := of.NewRecordReader(ctx, orc.ReadOptions{Mem: mem, TimestampUnit: orc.Microseconds})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var rows int64
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		return rows
	})
	if rows != int64(n) || rawRows != int64(n) {
		t.Fatalf("rows %d / %d, want %d", rows, rawRows, n)
	}
	t.Logf("%d rows, 4 columns, %d file: lake/iceberg %v (%.1f M rows/s), lake/orc alone %v (%.1f M rows/s)",
		n, len(plan.Splits), ours, float64(n)/ours.Seconds()/1e6, raw, float64(n)/raw.Seconds()/1e6)
}
