package writer_test

import (
	"context"
	"encoding/binary"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// TestInt96JavaLayout writes TIMESTAMP(7/9) as Java Paimon does (INT96,
// truncated toward zero, negative nanoseconds-of-day before 1970), with
// DATE before 1970 and wide negative DECIMALs, and checks the file bytes
// and what lake/paimon reads against values derived by hand.
func TestInt96JavaLayout(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := fieldsWithIDs([]paimon.DataField{
		{Name: "id", Type: dt(paimon.Int, false, 0, 0)},
		{Name: "ts9", Type: dt(paimon.Timestamp, true, 9, 0)},
		{Name: "ts7", Type: dt(paimon.Timestamp, true, 7, 0)},
		{Name: "ltz9", Type: dt(paimon.TimestampLTZ, true, 9, 0)},
		{Name: "day", Type: dt(paimon.Date, true, 0, 0)},
		{Name: "dec", Type: dt(paimon.Decimal, true, 38, 2)},
	})
	s := &paimon.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1", "partition.legacy-name": "false"}}
	path := filepath.Join(t.TempDir(), "db.db", "t")
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	// Hand-derived instants. Row 1 is the value: 1899-01-01
	// 00:59:20.001001001 is Julian day 2414657 with nanos-of-day
	// -82839998998999 in Java's layout.
	ts := []time.Time{
		time.Date(1899, 1, 1, 0, 59, 20, 1001001, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC), // 1 ns before the epoch
		time.Date(2024, 2, 29, 12, 34, 56, 123456789, time.UTC),
	}
	ts7 := []time.Time{
		time.Date(1900, 6, 15, 1, 2, 3, 123456700, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999900, time.UTC),
		time.Date(2262, 4, 11, 23, 47, 16, 854775800, time.UTC),
	}
	days := []int32{-25567 /* 1900-01-01 */, -1 /* 1969-12-31 */, 19782 /* 2024-02-29 */}
	decs := []string{"-123456789012345678901234567890123456", "-1", "999999999999999999999999999999999999"} // unscaled, scale 2
	sch, err := paimon.ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	for i := range ts {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(ts[i].UnixNano()))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(ts7[i].UnixNano()))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(ts[i].UnixNano()))
		b.Field(4).(*array.Date32Builder).Append(arrow.Date32(days[i]))
		u, _ := new(big.Int).SetString(decs[i], 10)
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromBigInt(u))
	}
	rec := b.NewRecordBatch()
	b.Release()
	c := w.NewCommit()
	fw, err := c.NewFile(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec, nil); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := fw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dataFile := filepath.Join(path, "bucket-0", w.LiveFiles()[0].File.FileName)

	// The bytes: INT96 in Java's layout.
	f, err := os.Open(dataFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if pt := pf.MetaData().Schema.Column(1).PhysicalType(); pt != parquet.Types.Int96 {
		t.Fatalf("ts9 stored as %s, want INT96", pt)
	}
	cr, err := pf.RowGroup(0).Column(1)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]parquet.Int96, 3)
	defs := make([]int16, 3)
	if _, n, err := cr.(*file.Int96ColumnChunkReader).ReadBatch(3, vals, defs, nil); err != nil || n != 3 {
		t.Fatalf("INT96 read: %d values, %v", n, err)
	}
	cr.Close()
	want96 := [][2]int64{{2414657, -82839998998999}, {2440588, -1}, {2460370, 45296123456789}}
	for i, v := range vals {
		day, nod := int64(binary.LittleEndian.Uint32(v[8:])), int64(binary.LittleEndian.Uint64(v[:8]))
		if day != want96[i][0] || nod != want96[i][1] {
			t.Errorf("row %d INT96: day %d nanos %d, want %d %d", i, day, nod, want96[i][0], want96[i][1])
		}
	}
	// The known failure this reproduces: pqarrow refuses those values.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := pqarrow.ReadTable(ctx, f, nil, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator()); err == nil || !strings.Contains(err.Error(), "INT96") {
		t.Fatalf("pqarrow on the Java layout: %v (expected its INT96 refusal)", err)
	}

	// Our reader, whole table and with predicates on the INT96 columns.
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, probe := range []struct {
		pred *paimon.Predicate
		ids  []int32
	}{
		{nil, []int32{0, 1, 2}},
		{paimon.Eq("ts9", tsValue(ts[0])), []int32{0}},
		{paimon.Lt("ts9", tsValue(time.Unix(0, 0))), []int32{0, 1}},
		{paimon.Eq("ts7", tsValue(ts7[1])), []int32{1}},
		{paimon.Gt("ltz9", tsValue(ts[1])), []int32{2}},
	} {
		p, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: probe.pred})
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for i := range p.Splits {
			rr, err := p.Open(ctx, &p.Splits[i], mem, paimon.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for rr.Next() {
				r := rr.RecordBatch()
				for j := 0; j < int(r.NumRows()); j++ {
					id := r.Column(0).(*array.Int32).Value(j)
					got = append(got, id)
					if g := int64(r.Column(1).(*array.Timestamp).Value(j)); g != ts[id].UnixNano() {
						t.Errorf("row %d ts9 %d, want %d (%s)", id, g, ts[id].UnixNano(), ts[id])
					}
					if g := int64(r.Column(2).(*array.Timestamp).Value(j)); g != ts7[id].UnixNano() {
						t.Errorf("row %d ts7 %d, want %d (%s)", id, g, ts7[id].UnixNano(), ts7[id])
					}
					if g := int64(r.Column(3).(*array.Timestamp).Value(j)); g != ts[id].UnixNano() {
						t.Errorf("row %d ltz9 %d, want %d", id, g, ts[id].UnixNano())
					}
					if g := r.Column(4).(*array.Date32).Value(j); int32(g) != days[id] {
						t.Errorf("row %d day %d, want %d", id, g, days[id])
					}
					if g := r.Column(5).(*array.Decimal128).Value(j).BigInt().String(); g != decs[id] {
						t.Errorf("row %d dec unscaled %s, want %s", id, g, decs[id])
					}
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			rr.Release()
		}
		if len(got) != len(probe.ids) {
			t.Errorf("%v: rows %v, want %v", probe.pred, got, probe.ids)
			continue
		}
		for i := range got {
			if got[i] != probe.ids[i] {
				t.Errorf("%v: rows %v, want %v", probe.pred, got, probe.ids)
			}
		}
	}
}

func tsValue(t time.Time) paimon.TimestampValue {
	ns := t.UnixNano()
	ms := ns / 1e6
	if ns%1e6 < 0 {
		ms--
	}
	return paimon.TimestampValue{Millis: ms, NanoOfMilli: int32(ns - ms*1e6)}
}
