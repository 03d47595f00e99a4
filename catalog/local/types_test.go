package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestUniqueKeyEveryType: a UNIQUE KEY over one column of every key type
// Doris allows. Keys that differ in one column only are different rows; a
// second load of the same keys replaces every row; NULL keys are keys.
func TestUniqueKeyEveryType(t *testing.T) {
	keyTypes := []struct {
		typ       arrow.DataType
		base, alt string
	}{
		{arrow.FixedWidthTypes.Boolean, "true", "false"},
		{arrow.PrimitiveTypes.Int8, "-8", "8"},
		{arrow.PrimitiveTypes.Int16, "-16", "16"},
		{arrow.PrimitiveTypes.Int32, "-32", "32"},
		{arrow.PrimitiveTypes.Int64, "-64", "64"},
		{arrow.PrimitiveTypes.Uint64, "18446744073709551615", "1"},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, "12.34", "12.35"},
		{arrow.FixedWidthTypes.Date32, "2024-02-29", "2024-03-01"},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, "2024-01-02 03:04:05.000001", "2024-01-02 03:04:05.000002"},
		{arrow.BinaryTypes.String, "héllo", "hello"},
	}
	var cols []catalog.Column
	var keyNames []string
	for i, k := range keyTypes {
		name := fmt.Sprintf("k%d", i)
		cols = append(cols, catalog.Column{Name: name, Type: k.typ, Key: true, Nullable: true})
		keyNames = append(keyNames, name)
	}
	cols = append(cols,
		catalog.Column{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		catalog.Column{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	)
	schema := catalog.Schema{Columns: cols}
	nk := len(keyTypes)
	// keys[0] is the base; keys[i+1] differs from it in column i only; the
	// last is all NULL.
	var keys [][]string
	base := make([]string, nk)
	for i, k := range keyTypes {
		base[i] = k.base
	}
	keys = append(keys, base)
	for i, k := range keyTypes {
		k2 := slices.Clone(base)
		k2[i] = k.alt
		keys = append(keys, k2)
	}
	nulls := make([]string, nk)
	for i := range nulls {
		nulls[i] = "NULL"
	}
	keys = append(keys, nulls)

	build := func(mem memory.Allocator, v float64, order []int) array.RecordReader {
		s := schema.Arrow()
		b := array.NewRecordBuilder(mem, s)
		defer b.Release()
		for _, ki := range order {
			for c, x := range keys[ki] {
				if x == "NULL" {
					b.Field(c).AppendNull()
				} else if err := b.Field(c).AppendValueFromString(x); err != nil {
					t.Fatal(err)
				}
			}
			b.Field(nk).(*array.Float32Builder).Append(float32(v))
			b.Field(nk + 1).(*array.Float64Builder).Append(v + float64(ki)/100)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		r, _ := array.NewRecordReader(s, []arrow.RecordBatch{rec})
		return r
	}
	for _, buckets := range []int{1, 5} {
		t.Run(fmt.Sprint("buckets=", buckets), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := t.TempDir()
			c, d := openDB(t, dir, mem, Options{CompactAt: 2})
			tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "e", Schema: schema,
				KeysType: "UNIQUE", KeyColumns: keyNames, Distribution: fmt.Sprintf("DISTRIBUTED BY HASH(k0) BUCKETS %d", buckets)})
			if err != nil {
				t.Fatal(err)
			}
			var fwd, rev []int
			for i := range keys {
				fwd = append(fwd, i)
				rev = append([]int{i}, rev...)
			}
			for _, step := range []struct {
				v     float64
				order []int
			}{{1, fwd}, {2, rev}} {
				if _, err := load(t, tb, build(mem, step.v, step.order), catalog.LoadOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			check := func(tb catalog.Table) {
				t.Helper()
				got := scanRows(t, tb, mem)
				if len(got) != len(keys) {
					t.Fatalf("%d rows, want %d: %q", len(got), len(keys), got)
				}
				for _, r := range got {
					// f is the second load's 2 for every key.
					if f := strings.Split(r, "|"); f[nk] != "2" {
						t.Fatalf("row %q is not from the second load", r)
					}
				}
			}
			check(tb)
			waitCompaction(t, c, tb, 2)
			check(tb)
			c.Close()
			c2, d2 := openDB(t, dir, mem, Options{})
			defer c2.Close()
			check(mustTable(t, d2, "e"))
		})
	}
}
