package paimon

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestStructChildNullParent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cb := array.NewInt32Builder(mem)
	cb.AppendValues([]int32{1, 2, 0, 4}, []bool{true, true, false, true})
	child := cb.NewArray()
	cb.Release()
	defer child.Release()
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(1)
	valid.Bytes()[0] = 0b1101 // row 1 NULL; its child slot holds 2
	defer valid.Release()
	arr, err := array.NewStructArrayWithNulls([]arrow.Array{child}, []string{"a"}, valid, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	sl := array.NewSlice(arr, 1, 4) // offsets must carry through
	defer sl.Release()
	for _, tc := range []struct {
		in   arrow.Array
		want string
	}{{arr, "[1 (null) (null) 4]"}, {sl, "[(null) (null) 4]"}} {
		c := structChild(tc.in, []int{0}, mem)
		if got := c.String(); got != tc.want {
			t.Fatalf("got %s want %s", got, tc.want)
		}
		c.Release()
	}
}
