package render

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// An empty string renders as a non-nil empty slice even into a nil buffer:
// the wire layer reads nil as NULL.
func TestEmptyValueIsNotNull(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues([]string{"", "x"}, []bool{true, true})
	b.AppendNull()
	a := b.NewArray()
	defer a.Release()
	for i, want := range []struct {
		s  string
		ok bool
	}{{"", true}, {"x", true}, {"", false}} {
		out, ok := AppendValue(nil, a, i)
		if ok != want.ok || string(out) != want.s {
			t.Errorf("row %d: got %q, %v; want %q, %v", i, out, ok, want.s, want.ok)
		}
		if ok && out == nil {
			t.Errorf("row %d: a non-NULL value rendered as a nil slice", i)
		}
	}
}
