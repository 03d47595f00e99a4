package paimon

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// relabel must accept only the same nesting with relabellable children, and
// keep the values.
func TestRelabelNested(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer lb.Release()
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	lb.AppendNull()
	list := lb.NewArray()
	defer list.Release()

	mb := array.NewMapBuilder(mem, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, false)
	defer mb.Release()
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("k")
	mb.ItemBuilder().(*array.Int64Builder).Append(7)
	m := mb.NewArray()
	defer m.Release()

	renamed := arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	cases := []struct {
		name string
		in   arrow.Array
		dst  arrow.DataType
		ok   bool
	}{
		{"list to renamed list", list, renamed, true},
		{"list to map", list, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), false},
		{"list of other element", list, arrow.ListOf(arrow.BinaryTypes.String), false},
		{"map to map", m, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), true},
		{"map to list", m, renamed, false},
		{"map of other value", m, arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok := relabel(c.in.Data(), c.dst)
			if ok != c.ok {
				t.Fatalf("relabel(%s -> %s) ok = %v, want %v", c.in.DataType(), c.dst, ok, c.ok)
			}
			if !ok {
				return
			}
			defer d.Release()
			got := array.MakeFromData(d)
			defer got.Release()
			if !arrow.TypeEqual(got.DataType(), c.dst) {
				t.Fatalf("type %s, want %s", got.DataType(), c.dst)
			}
			if got.String() != c.in.String() {
				t.Fatalf("values %s, want %s", got, c.in)
			}
		})
	}
}
