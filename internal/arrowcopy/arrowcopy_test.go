package arrowcopy

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestColumn: the copy holds the same values (NULLs, empty strings,
// slices, empty columns, other types) and shares no buffer with the
// original, whose buffers stand for a mapping about to go.
func TestColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "", "ccc", "dddd", "", "ffffff", "g"}, []bool{true, true, false, true, true, true, false})
	strs := sb.NewArray()
	sb.Release()
	defer strs.Release()
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	bb.AppendValues([][]byte{{1}, {2, 3}, nil}, nil)
	bins := bb.NewArray()
	bb.Release()
	defer bins.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1, 2, 3}, []bool{true, false, true})
	ints := ib.NewArray()
	ib.Release()
	defer ints.Release()
	sliced := array.NewSlice(strs, 2, 6)
	defer sliced.Release()
	empty := array.NewSlice(strs, 0, 0)
	defer empty.Release()
	for _, tc := range []struct {
		name string
		in   arrow.Array
	}{{"strings with nulls", strs}, {"binary", bins}, {"int64", ints}, {"slice", sliced}, {"empty", empty}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Column(mem, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if !array.Equal(got, tc.in) {
				t.Fatalf("copy %v, want %v", got, tc.in)
			}
			for _, g := range got.Data().Buffers() {
				for _, o := range tc.in.Data().Buffers() {
					if g != nil && o != nil && g.Len() > 0 && &g.Bytes()[0] == &o.Bytes()[0] {
						t.Fatalf("the copy shares a buffer with the original")
					}
				}
			}
		})
	}
}

func TestAliasesValues(t *testing.T) {
	for _, tc := range []struct {
		dt   arrow.DataType
		want bool
	}{
		{arrow.BinaryTypes.String, true},
		{arrow.BinaryTypes.Binary, true},
		{&arrow.FixedSizeBinaryType{ByteWidth: 4}, true},
		{arrow.ListOf(arrow.BinaryTypes.String), true},
		{arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32}), false},
		{arrow.PrimitiveTypes.Int64, false},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, false},
	} {
		if got := AliasesValues(tc.dt); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.dt, got, tc.want)
		}
	}
}
