package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDetachFrom: of what a filter returns for a raw batch, detachFrom
// copies the values of exactly the string columns still sharing the raw batch's buffers
// that are read above (need), and the values stay equal.
func TestDetachFrom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	for i := range 10 {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%4 == 1 {
			rb.Field(1).AppendNull()
			rb.Field(2).AppendNull()
			continue
		}
		rb.Field(1).(*array.StringBuilder).Append(string(rune('a' + i)))
		rb.Field(2).(*array.BinaryBuilder).Append([]byte{byte(i)})
	}
	raw := rb.NewRecordBatch()
	rb.Release()
	defer raw.Release()
	env := &Env{Mem: mem}
	cases := []struct {
		name   string
		out    func() arrow.RecordBatch // what the filter returned
		need   []int
		copied []bool // per column: a copy, not raw's buffers
	}{
		{"every row kept", func() arrow.RecordBatch { raw.Retain(); return raw }, nil, []bool{false, true, true}},
		{"every row kept, s filter-only", func() arrow.RecordBatch { raw.Retain(); return raw }, []int{0, 2}, []bool{false, false, true}},
		{"rows gathered", func() arrow.RecordBatch {
			g, err := gatherRows(t.Context(), env, raw, []int64{0, 2, 5, 9}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, nil, []bool{true, true, true}},
		{"gathered, s filter-only (sliced)", func() arrow.RecordBatch {
			g, err := gatherRows(t.Context(), env, raw, []int64{1, 2, 3}, []int{0, 2})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, []int{0, 2}, []bool{true, false, true}},
		{"sliced by hand, read", func() arrow.RecordBatch { return raw.NewSlice(2, 7) }, nil, []bool{false, true, true}},
	}
	for _, c := range cases {
		out := c.out()
		want := c.out()
		got, err := detachFrom(mem, raw, out, c.need)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range int(got.NumCols()) {
			// The values buffer: offsets and validity may stay shared.
			shares := got.Column(i).Data().Buffers()[len(got.Column(i).Data().Buffers())-1] == raw.Column(i).Data().Buffers()[len(raw.Column(i).Data().Buffers())-1]
			if i > 0 && shares == c.copied[i] {
				t.Errorf("%s: column %d shares raw's values %v, want copied %v", c.name, i, shares, c.copied[i])
			}
			if !array.Equal(got.Column(i), want.Column(i)) {
				t.Errorf("%s: column %d = %v, want %v", c.name, i, got.Column(i), want.Column(i))
			}
		}
		got.Release()
		want.Release()
	}
}
