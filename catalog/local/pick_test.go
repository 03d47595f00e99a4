package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// pickSchema has a column of every flat type the table formats hold, all
// nullable; nested adds a list column, whose layout the column-wise
// decoder leaves to arrow's reader.
func pickSchema(nested bool) catalog.Schema {
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Uint8,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64, // k: the key, not first so that batches' positions differ from the table's
		arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		&arrow.Decimal128Type{Precision: 15, Scale: 2},
		arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Microsecond},
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString,
		&arrow.FixedSizeBinaryType{ByteWidth: 3},
	}
	if nested {
		types = append(types, arrow.ListOf(arrow.PrimitiveTypes.Int32))
	}
	cols := make([]catalog.Column, len(types))
	for i, ty := range types {
		cols[i] = catalog.Column{Name: fmt.Sprintf("c%d", i), Type: ty, Nullable: true}
	}
	cols[pickKey].Name, cols[pickKey].Key = "k", true
	return catalog.Schema{Columns: cols}
}

const pickKey = 5

// pickBatch builds rows keys[i] with values derived from keys[i] and gen;
// every column is NULL on a different residue of the key.
func pickBatch(t *testing.T, mem memory.Allocator, s catalog.Schema, keys []int64, gen int64) array.RecordReader {
	t.Helper()
	as := s.Arrow()
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for _, k := range keys {
		v := k*7 + gen
		for c, f := range b.Fields() {
			if c != pickKey && (k+int64(c))%5 == 0 {
				f.AppendNull()
				continue
			}
			switch f := f.(type) {
			case *array.Int64Builder:
				if c == pickKey {
					f.Append(k)
				} else {
					f.Append(v)
				}
			case *array.BooleanBuilder:
				f.Append(v%2 == 0)
			case *array.Int8Builder:
				f.Append(int8(v))
			case *array.Int16Builder:
				f.Append(int16(v))
			case *array.Int32Builder:
				f.Append(int32(v))
			case *array.Uint8Builder:
				f.Append(uint8(v))
			case *array.Uint64Builder:
				f.Append(uint64(v) << 40)
			case *array.Float32Builder:
				f.Append(float32(v) / 4)
			case *array.Float64Builder:
				f.Append(float64(v) / 8)
			case *array.Decimal128Builder:
				f.Append(decimal128.FromI64(v * 101))
			case *array.Date32Builder:
				f.Append(arrow.Date32(v))
			case *array.TimestampBuilder:
				f.Append(arrow.Timestamp(v * 1000003))
			case *array.StringBuilder:
				f.Append(strings.Repeat("s", int(v%4)) + fmt.Sprint(v))
			case *array.BinaryBuilder:
				f.Append([]byte(fmt.Sprint("b", v)))
			case *array.LargeStringBuilder:
				f.Append(fmt.Sprint("large", v))
			case *array.FixedSizeBinaryBuilder:
				f.Append([]byte{byte(v), byte(v >> 8), 'x'})
			case *array.ListBuilder:
				f.Append(true)
				vb := f.ValueBuilder().(*array.Int32Builder)
				for j := int64(0); j < v%3; j++ {
					vb.Append(int32(v + j))
				}
			default:
				t.Fatalf("no values for %T", f)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	r, err := array.NewRecordReader(as, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// scanLines reads tb's columns cols (nil: all) as one text line per row,
// sorted.
func scanLines(t *testing.T, tb catalog.Table, mem memory.Allocator, cols []int) []string {
	t.Helper()
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		if cols != nil && int(rec.NumCols()) != len(cols) {
			t.Fatalf("scan of %v: %d columns", cols, rec.NumCols())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			f := make([]string, rec.NumCols())
			for c := range f {
				f[c] = rec.Column(c).ValueStr(i)
			}
			out = append(out, strings.Join(f, "|"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// project picks cols out of the lines of a full scan.
func project(full []string, cols []int) []string {
	out := make([]string, len(full))
	for i, line := range full {
		f := strings.Split(line, "|")
		p := make([]string, len(cols))
		for j, c := range cols {
			p[j] = f[c]
		}
		out[i] = strings.Join(p, "|")
	}
	slices.Sort(out)
	return out
}

// TestScanProjectionEqualsFull: a scan of some columns (decoded column by
// column from mapped files, or projected from whole batches) returns what
// a scan of every column returns for those columns: for 0..N columns of
// every type with NULLs, on DUPLICATE tables after DELETE predicates and
// UNIQUE KEY tables after updates and key deletes, from data files and
// from segments inline in the commit log.
func TestScanProjectionEqualsFull(t *testing.T) {
	for _, keys := range []string{"DUPLICATE", "UNIQUE"} {
		for _, nested := range []bool{false, true} {
			for _, inline := range []int{-1, 0} {
				t.Run(fmt.Sprintf("%s/nested=%v/inline=%d", keys, nested, inline), func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					c, d := openDB(t, t.TempDir(), mem, Options{CompactAt: -1, InlineBytes: inline})
					defer c.Close()
					ctx := context.Background()
					s := pickSchema(nested)
					spec := catalog.TableSpec{Name: "t", Schema: s, KeysType: keys}
					if keys == "UNIQUE" {
						spec.KeyColumns = []string{"k"}
						spec.Distribution = "DISTRIBUTED BY HASH(`k`) BUCKETS 2"
					}
					tb, err := d.(catalog.TableCreator).CreateTable(ctx, spec)
					if err != nil {
						t.Fatal(err)
					}
					var k1, k2 []int64
					for k := int64(0); k < 300; k++ {
						k1 = append(k1, k)
						if k%3 == 0 {
							k2 = append(k2, k) // a second version (UNIQUE: an update)
						}
					}
					for gen, ks := range [][]int64{k1, k2} {
						if _, err := load(t, tb, pickBatch(t, mem, s, ks, int64(gen)), catalog.LoadOptions{}); err != nil {
							t.Fatal(err)
						}
					}
					if keys == "UNIQUE" {
						r := pickBatch(t, mem, s, []int64{4, 6, 299}, 9)
						if _, err := tb.(catalog.KeyDeleter).DeleteKeys(ctx, r); err != nil {
							t.Fatal(err)
						}
						r.Release()
					} else if err := tb.(catalog.PredicateDeleter).DeleteWhere(ctx, []catalog.Predicate{{Column: "c4", Op: "<", Values: []any{int64(100)}}}); err != nil {
						t.Fatal(err)
					}
					// A later load: the DELETE does not apply to it.
					if _, err := load(t, tb, pickBatch(t, mem, s, []int64{1, 6, 500}, 2), catalog.LoadOptions{}); err != nil {
						t.Fatal(err)
					}
					full := scanLines(t, tb, mem, nil)
					if len(full) < 200 {
						t.Fatalf("full scan: %d rows", len(full))
					}
					n := len(s.Columns)
					var projs [][]int
					projs = append(projs, []int{})
					for i := 0; i < n; i++ {
						projs = append(projs, []int{i}, []int{n - 1 - i, i})
						prefix := make([]int, i+1)
						for j := range prefix {
							prefix[j] = j
						}
						projs = append(projs, prefix)
					}
					projs = append(projs, []int{4}, []int{n - 1, 3, 12}, []int{1, 3, 5, 7, 9, 11, 13, 15})
					for _, cols := range projs {
						got := scanLines(t, tb, mem, cols)
						if want := project(full, cols); !slices.Equal(got, want) {
							t.Fatalf("columns %v: %d rows\n%q\nwant %d rows\n%q", cols, len(got), head(got), len(want), head(want))
						}
					}
				})
			}
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }
