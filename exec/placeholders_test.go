package exec

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestWithPlaceholders: batches without the unread columns come back in
// the full schema, the read columns' values in their places (by hand) and
// each unread column of the batch's length, the NULL array reused as
// batches grow and shrink; a source of the wrong width is a clear error;
// SentSchema leaves the filter-only fields out and ignores bad positions.
func TestWithPlaceholders(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	full := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	sent := SentSchema(full, []int32{1, 2, 7, -1})
	if got := sent.String(); !strings.Contains(got, "a: type=int64") || !strings.Contains(got, "b: type=utf8") || sent.NumFields() != 2 {
		t.Fatalf("SentSchema: %s", got)
	}
	if SentSchema(full, nil) != full {
		t.Fatal("SentSchema without filter-only columns is not the schema itself")
	}
	batch := func(n int) arrow.RecordBatch {
		ab := array.NewInt64Builder(mem)
		bb := array.NewStringBuilder(mem)
		for i := range n {
			ab.Append(int64(i))
			bb.Append(strings.Repeat("x", i))
		}
		a, b := ab.NewArray(), bb.NewArray()
		ab.Release()
		bb.Release()
		defer a.Release()
		defer b.Release()
		return array.NewRecordBatch(sent, []arrow.Array{a, b}, int64(n))
	}
	var in []arrow.RecordBatch
	for _, n := range []int{3, 7, 2} {
		in = append(in, batch(n))
	}
	rr, err := array.NewRecordReader(sent, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range in {
		b.Release()
	}
	r, err := WithPlaceholders(rr, full, []bool{false, true, true, false}, mem)
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	for r.Next() {
		b := r.RecordBatch()
		if !b.Schema().Equal(full) {
			t.Fatalf("batch schema %s", b.Schema())
		}
		n := int(b.NumRows())
		lens = append(lens, n)
		for c := 0; c < 4; c++ {
			if b.Column(c).Len() != n {
				t.Errorf("column %d has %d rows of %d", c, b.Column(c).Len(), n)
			}
		}
		if v := b.Column(0).(*array.Int64).Value(n - 1); v != int64(n-1) {
			t.Errorf("a[%d] = %d", n-1, v)
		}
		if v := b.Column(3).(*array.String).Value(n - 1); v != strings.Repeat("x", n-1) {
			t.Errorf("b[%d] = %q", n-1, v)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if len(lens) != 3 || lens[0] != 3 || lens[1] != 7 || lens[2] != 2 {
		t.Errorf("batch lengths %v, want [3 7 2]", lens)
	}

	rr, err = array.NewRecordReader(full, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WithPlaceholders(rr, full, []bool{false, true, true, false}, mem); err == nil || !strings.Contains(err.Error(), "2 of 4 columns read, but the source returns 4") {
		t.Fatalf("error %v, want one naming the widths", err)
	}
}
