package unionread

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// wideBatch builds n rows of many column types; with nulls, every column
// has NULLs at rows where (row+col)%5 == 0.
func wideBatch(t *testing.T, mem memory.Allocator, n int, nulls bool, seed uint64) arrow.RecordBatch {
	t.Helper()
	fields := []arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8}, {Name: "i16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32}, {Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8}, {Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32}, {Name: "f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "d32", Type: arrow.FixedWidthTypes.Date32}, {Name: "d64", Type: arrow.FixedWidthTypes.Date64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}}, {Name: "t32", Type: arrow.FixedWidthTypes.Time32ms},
		{Name: "t64", Type: arrow.FixedWidthTypes.Time64us}, {Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 3}},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean}, {Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}},
		{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "ls", Type: arrow.BinaryTypes.LargeString},
		{Name: "bin", Type: arrow.BinaryTypes.Binary}, {Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})},
	}
	for i := range fields {
		fields[i].Nullable = true
	}
	rb := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer rb.Release()
	r := rand.New(rand.NewPCG(seed, 7))
	for row := 0; row < n; row++ {
		v := r.Int64N(1 << 40)
		for c, fb := range rb.Fields() {
			if nulls && (row+c)%5 == 0 {
				fb.AppendNull()
				continue
			}
			switch b := fb.(type) {
			case *array.Int8Builder:
				b.Append(int8(v))
			case *array.Int16Builder:
				b.Append(int16(v))
			case *array.Int32Builder:
				b.Append(int32(v))
			case *array.Int64Builder:
				b.Append(v - 1<<39)
			case *array.Uint8Builder:
				b.Append(uint8(v))
			case *array.Uint64Builder:
				b.Append(uint64(v) << 20)
			case *array.Float32Builder:
				b.Append(float32(v) / 7)
			case *array.Float64Builder:
				b.Append(float64(v) / 3)
			case *array.Date32Builder:
				b.Append(arrow.Date32(v % 100000))
			case *array.Date64Builder:
				b.Append(arrow.Date64(v))
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(v))
			case *array.Time32Builder:
				b.Append(arrow.Time32(v % 86400000))
			case *array.Time64Builder:
				b.Append(arrow.Time64(v % 86400000000))
			case *array.Decimal128Builder:
				b.Append(decimal128.FromI64(v - 1<<39))
			case *array.BooleanBuilder:
				b.Append(v%3 == 0)
			case *array.FixedSizeBinaryBuilder:
				b.Append([]byte{byte(v), byte(v >> 8), byte(v >> 16)})
			case *array.StringBuilder:
				b.Append(fmt.Sprintf("s%d", v%(int64(row)+1)))
			case *array.LargeStringBuilder:
				b.Append(fmt.Sprintf("large-%d", v))
			case *array.BinaryBuilder:
				b.Append(bytes.Repeat([]byte{byte(v)}, int(v%4)))
			case *array.ListBuilder:
				b.Append(true)
				b.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(v), int32(row)}, nil)
			case *array.StructBuilder:
				b.Append(true)
				b.FieldBuilder(0).(*array.Int32Builder).Append(int32(row))
			default:
				t.Fatalf("no value for %T", fb)
			}
		}
	}
	return rb.NewRecordBatch()
}

// AppendAll must lay out exactly the bytes Append gives row by row, for
// every fixed-width key type, on whole and sliced batches; a key column
// with NULLs or of variable width has no stride.
func TestAppendAllMatchesAppend(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := wideBatch(t, mem, 300, false, 1)
	defer rec.Release()
	sl := rec.NewSlice(17, 250)
	defer sl.Release()
	fixedCols := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	cases := [][]int{{3}, {2}, {8}, {13}, {14}, {15}, {3, 8}, fixedCols}
	for _, b := range []arrow.RecordBatch{rec, sl} {
		for _, cols := range cases {
			enc := NewKeyEncoder(cols)
			if err := enc.Bind(b); err != nil {
				t.Fatal(err)
			}
			w := enc.Stride()
			if w == 0 {
				t.Fatalf("columns %v: no stride", cols)
			}
			all := enc.AppendAll([]byte("prefix"), int(b.NumRows()))
			if string(all[:6]) != "prefix" || len(all) != 6+w*int(b.NumRows()) {
				t.Fatalf("columns %v: %d bytes for stride %d", cols, len(all), w)
			}
			for i := 0; i < int(b.NumRows()); i++ {
				if row := enc.Append(nil, i); !bytes.Equal(row, all[6+i*w:6+(i+1)*w]) {
					t.Fatalf("columns %v row %d: AppendAll %x, Append %x", cols, i, all[6+i*w:6+(i+1)*w], row)
				}
			}
		}
	}
	withNulls := wideBatch(t, mem, 20, true, 2)
	defer withNulls.Release()
	for _, c := range []struct {
		b    arrow.RecordBatch
		cols []int
	}{{withNulls, []int{3}}, {rec, []int{3, 16}}, {rec, []int{18}}} {
		enc := NewKeyEncoder(c.cols)
		if err := enc.Bind(c.b); err != nil {
			t.Fatal(err)
		}
		if enc.Stride() != 0 {
			t.Fatalf("columns %v: stride %d, want 0", c.cols, enc.Stride())
		}
	}
}

// selectRuns must return what Arrow's filter kernel returns for the same
// mask, for every column type (nested ones go through the kernel), with and
// without NULLs, on sliced input, for any pattern of kept rows.
func TestSelectRunsMatchesFilterKernel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 257
	r := rand.New(rand.NewPCG(3, 4))
	patterns := map[string]func(i int) bool{
		"first dropped":  func(i int) bool { return i != 0 },
		"last dropped":   func(i int) bool { return i != n-1 },
		"alternating":    func(i int) bool { return i%2 == 0 },
		"one kept":       func(i int) bool { return i == 100 },
		"scattered 1%":   func(int) bool { return r.IntN(100) != 0 },
		"scattered 50%":  func(int) bool { return r.IntN(2) == 0 },
		"runs of eleven": func(i int) bool { return (i/11)%2 == 1 },
	}
	for _, nulls := range []bool{false, true} {
		full := wideBatch(t, mem, n+9, nulls, 5)
		rec := full.NewSlice(9, n+9)
		full.Release()
		for name, p := range patterns {
			t.Run(fmt.Sprintf("nulls=%v/%s", nulls, name), func(t *testing.T) {
				keep := make([]bool, n)
				kept := 0
				for i := range keep {
					keep[i] = p(i)
					if keep[i] {
						kept++
					}
				}
				got, err := selectRuns(context.Background(), rec, keep, runs(nil, keep), kept, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				mb := array.NewBooleanBuilder(mem)
				mb.AppendValues(keep, nil)
				mask := mb.NewBooleanArray()
				mb.Release()
				defer mask.Release()
				want, err := compute.FilterRecordBatch(compute.WithAllocator(context.Background(), mem), rec, mask, compute.DefaultFilterOptions())
				if err != nil {
					t.Fatal(err)
				}
				defer want.Release()
				if got.NumRows() != int64(kept) {
					t.Fatalf("%d rows, want %d", got.NumRows(), kept)
				}
				for c := 0; c < int(rec.NumCols()); c++ {
					if !array.Equal(got.Column(c), want.Column(c)) {
						t.Fatalf("column %s differs:\n got %v\nwant %v", rec.ColumnName(c), got.Column(c), want.Column(c))
					}
					if got.Column(c).NullN() != want.Column(c).NullN() {
						t.Fatalf("column %s: %d nulls, want %d", rec.ColumnName(c), got.Column(c).NullN(), want.Column(c).NullN())
					}
				}
			})
		}
		rec.Release()
	}
}

// A composite fixed-width key (the column-wise path) and a key with a
// string column (the row-wise path) drop exactly the rows whose key the
// tail holds, as a map of the key values says.
func TestSuppressorFixedAndVariableKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lake := wideBatch(t, mem, 2000, false, 9)
	defer lake.Release()
	for _, keyCols := range [][]int{{2, 8}, {3}, {3, 16}} {
		t.Run(fmt.Sprint(keyCols), func(t *testing.T) {
			text := func(rec arrow.RecordBatch, i int) string {
				s := ""
				for _, c := range keyCols {
					s += rec.Column(c).ValueStr(i) + "|"
				}
				return s
			}
			// The tail: every 7th lake row's key, plus keys no lake row has.
			tailRows := lake.NewSlice(0, 0)
			defer tailRows.Release()
			want := map[string]bool{}
			tk := NewTailKeys("t", keyCols, 0)
			for i := 0; i < int(lake.NumRows()); i += 7 {
				row := lake.NewSlice(int64(i), int64(i+1))
				want[text(row, 0)] = true
				if err := tk.Add(row); err != nil {
					t.Fatal(err)
				}
				row.Release()
			}
			other := wideBatch(t, mem, 50, false, 99)
			if err := tk.Add(other); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 50; i++ {
				want[text(other, i)] = true
			}
			other.Release()
			s := NewSuppressor(tk.Set(), keyCols, mem)
			defer s.Release()
			out, dropped, err := s.Apply(context.Background(), lake)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			var keptText []string
			wantDropped := 0
			for i := 0; i < int(lake.NumRows()); i++ {
				if want[text(lake, i)] {
					wantDropped++
				} else {
					keptText = append(keptText, text(lake, i)+lake.Column(17).ValueStr(i))
				}
			}
			if dropped != wantDropped || int(out.NumRows()) != len(keptText) {
				t.Fatalf("dropped %d kept %d, want %d and %d", dropped, out.NumRows(), wantDropped, len(keptText))
			}
			for i, k := range keptText {
				if got := text(out, i) + out.Column(17).ValueStr(i); got != k {
					t.Fatalf("kept row %d is %s, want %s", i, got, k)
				}
			}
		})
	}
}
