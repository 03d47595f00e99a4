package paimon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// splitRow is the generator of TestRowSplitSlices: row i's values, derived
// here and checked against what each slice returns.
func splitRow(i int64) (s string, sNull bool, v float64, vNull bool) {
	return fmt.Sprintf("name-%d", i%37), i%11 == 4, float64(i) / 4, i%7 == 2
}

// TestRowSplitSlices: a file of three row groups (two large, many small
// pages; one small) read as slice k of n for n = 1..7: every row comes
// back exactly once, in file order, at the position the reader reports,
// with its values and NULLs; the large groups are shared by rows among
// slices (SplitParts) and, with two slices, neither takes under a
// quarter of the rows; reads of no column count the same rows; a
// predicate pruning a group by statistics drops it from every slice.
func TestRowSplitSlices(t *testing.T) {
	ctx := context.Background()
	defer paimon.SetMinSplitGroup(1, 100)()
	groups := []int64{20000, 300, 15000}
	var total int64
	for _, g := range groups {
		total += g
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"0"})},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2"})},
	}, nil)
	path := filepath.Join(t.TempDir(), "f.parquet")
	{
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDataPageSize(4096),
			parquet.WithMaxRowGroupLength(1<<30), parquet.WithBatchSize(512))
		w, err := pqarrow.NewFileWriter(sch, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			t.Fatal(err)
		}
		var lo int64
		for _, g := range groups {
			b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
			for i := lo; i < lo+g; i++ {
				s, sn, v, vn := splitRow(i)
				b.Field(0).(*array.Int64Builder).Append(i)
				if sn {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.StringBuilder).Append(s)
				}
				if vn {
					b.Field(2).AppendNull()
				} else {
					b.Field(2).(*array.Float64Builder).Append(v)
				}
			}
			rec := b.NewRecordBatch()
			b.Release()
			if err := w.WriteBuffered(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			w.NewBufferedRowGroup()
			lo += g
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	fields := []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "BIGINT")},
		{ID: 1, Name: "s", Type: mustType(t, "STRING")},
		{ID: 2, Name: "v", Type: mustType(t, "DOUBLE")},
	}
	for _, c := range []struct {
		name string
		want []paimon.DataField
		pred *paimon.Predicate
	}{
		{"id,s,v", fields, nil},
		{"v,s", []paimon.DataField{fields[2], fields[1]}, nil},
		{"s", fields[1:2], nil},
		{"none", nil, nil},
		{"id pruned", fields[:1], paimon.Ge("id", int64(20300))},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			for n := int32(1); n <= 7; n++ {
				before := paimon.SplitParts()
				next := int64(0) // the row the next slice's first batch must start at
				if c.pred != nil {
					next = 20300
				}
				bufs := &paimon.ScanBuffers{}
				var perSlice []int64
				for k := int32(0); k < n; k++ {
					var sl *paimon.FileSlice
					if n > 1 {
						sl = &paimon.FileSlice{Index: k, Count: n}
					}
					r, err := paimon.OpenDataFile(ctx, mem, paimon.DataFileRead{FS: fileio.Local{}, Path: path, Size: st.Size(),
						FileFields: fields, Want: c.want, Predicate: c.pred, BatchSize: 1000, Buffers: bufs, Slice: sl})
					if err != nil {
						t.Fatal(err)
					}
					var got int64
					for {
						rec, pos, err := r.Next()
						if err != nil {
							t.Fatalf("n %d slice %d: %v", n, k, err)
						}
						if rec == nil {
							break
						}
						if pos != next {
							t.Fatalf("n %d slice %d: batch at position %d, want %d", n, k, pos, next)
						}
						for ci, f := range c.want {
							col := rec.Column(ci)
							for i := 0; i < int(rec.NumRows()); i++ {
								row := pos + int64(i)
								s, sn, v, vn := splitRow(row)
								switch f.Name {
								case "id":
									if col.(*array.Int64).Value(i) != row {
										t.Fatalf("n %d slice %d row %d: id %d", n, k, row, col.(*array.Int64).Value(i))
									}
								case "s":
									if col.IsNull(i) != sn || (!sn && col.(*array.String).Value(i) != s) {
										t.Fatalf("n %d slice %d row %d: s %v", n, k, row, col.ValueStr(i))
									}
								case "v":
									if col.IsNull(i) != vn || (!vn && col.(*array.Float64).Value(i) != v) {
										t.Fatalf("n %d slice %d row %d: v %v", n, k, row, col.ValueStr(i))
									}
								}
							}
						}
						next += rec.NumRows()
						got += rec.NumRows()
						rec.Release()
					}
					r.Close()
					perSlice = append(perSlice, got)
				}
				bufs.Release()
				if next != total {
					t.Fatalf("n %d: rows end at %d, want %d", n, next, total)
				}
				if n > 1 && (c.pred == nil || n >= 3) && paimon.SplitParts() == before {
					t.Errorf("n %d: no row group was split by rows", n)
				}
				if n == 2 && c.pred == nil && (perSlice[0] < total/4 || perSlice[1] < total/4) {
					t.Errorf("two slices read %v rows of %d", perSlice, total)
				}
			}
		})
	}
}
