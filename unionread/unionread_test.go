package unionread

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// batch builds a (id, k, v) batch; a nil pointer is NULL.
func batch(mem memory.Allocator, rows ...[3]any) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, kvSchema)
	defer b.Release()
	for _, r := range rows {
		if r[0] == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(r[0].(int)))
		}
		for c := 1; c < 3; c++ {
			if r[c] == nil {
				b.Field(c).AppendNull()
			} else {
				b.Field(c).(*array.StringBuilder).Append(r[c].(string))
			}
		}
	}
	return b.NewRecordBatch()
}

func TestKeySetDistinctAndOrdered(t *testing.T) {
	s := NewKeySet()
	for round := 0; round < 2; round++ {
		for i := 0; i < 5000; i++ {
			id, added, err := s.Insert([]byte(fmt.Sprintf("key-%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			if added != (round == 0) || id != i {
				t.Fatalf("round %d key %d: id %d added %v", round, i, id, added)
			}
		}
	}
	if s.Len() != 5000 || s.Contains([]byte("key-5000")) || !s.Contains([]byte("key-4999")) {
		t.Fatalf("len %d", s.Len())
	}
	if _, _, err := s.Insert(nil); err != nil || !s.Contains([]byte{}) {
		t.Fatal("empty key")
	}
}

// Keys that differ only by NULL-ness, by where one string ends, or by the
// column they sit in must not collide.
func TestKeyEncodingIsExact(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := batch(mem, [3]any{1, "ab", "c"}, [3]any{1, "a", "bc"}, [3]any{nil, "", ""}, [3]any{0, "", ""},
		[3]any{0, nil, ""}, [3]any{0, "", nil}, [3]any{1, "ab", "c"})
	defer rec.Release()
	enc := NewKeyEncoder([]int{0, 1, 2})
	if err := enc.Bind(rec); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i := 0; i < int(rec.NumRows()); i++ {
		k := string(enc.Append(nil, i))
		if j, ok := seen[k]; ok && !(i == 6 && j == 0) {
			t.Fatalf("rows %d and %d encode alike", j, i)
		}
		seen[k] = i
	}
	if len(seen) != 6 {
		t.Fatalf("%d distinct keys, want 6", len(seen))
	}
	// Sliced arrays encode like their unsliced rows.
	sl := rec.NewSlice(1, 3)
	defer sl.Release()
	if err := enc.Bind(sl); err != nil {
		t.Fatal(err)
	}
	enc2 := NewKeyEncoder([]int{0, 1, 2})
	enc2.Bind(rec)
	if string(enc.Append(nil, 0)) != string(enc2.Append(nil, 1)) {
		t.Fatal("slice encodes differently")
	}
}

func TestKeyEncodingTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	db.Append(decimal128.FromI64(-1))
	db.Append(decimal128.FromI64(1))
	d := db.NewArray()
	db.Release()
	defer d.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.AppendNull()
	l := lb.NewArray()
	lb.Release()
	defer l.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "d", Type: d.DataType()}}, nil), []arrow.Array{d}, 2)
	defer rec.Release()
	enc := NewKeyEncoder([]int{0})
	if err := enc.Bind(rec); err != nil {
		t.Fatal(err)
	}
	if string(enc.Append(nil, 0)) == string(enc.Append(nil, 1)) {
		t.Fatal("decimal -1 and 1 collide")
	}
	lr := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: l.DataType()}}, nil), []arrow.Array{l}, 1)
	defer lr.Release()
	if err := enc.Bind(lr); !errors.Is(err, ErrKeyType) || !strings.Contains(err.Error(), `"l"`) {
		t.Fatalf("list key: %v", err)
	}
}

func TestSuppressor(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tail := batch(mem, [3]any{2, "b", nil}, [3]any{nil, "n", nil}, [3]any{9, "z", nil})
	tk := NewTailKeys("t", []int{0, 1}, 10)
	if err := tk.Add(tail); err != nil {
		t.Fatal(err)
	}
	tail.Release()
	lake := batch(mem, [3]any{1, "a", "x"}, [3]any{2, "b", "x"}, [3]any{2, "c", "x"}, [3]any{nil, "n", "x"}, [3]any{3, "n", "x"})
	defer lake.Release()
	s := NewSuppressor(tk.Set(), []int{0, 1}, mem)
	defer s.Release()
	out, dropped, err := s.Apply(context.Background(), lake)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if dropped != 2 || out.NumRows() != 3 {
		t.Fatalf("dropped %d, kept %d", dropped, out.NumRows())
	}
	var got []string
	for i := 0; i < int(out.NumRows()); i++ {
		got = append(got, out.Column(0).ValueStr(i)+out.Column(1).ValueStr(i))
	}
	if strings.Join(got, ",") != "1a,2c,3n" {
		t.Fatalf("kept %v", got)
	}
	if err := NewTailKeys("the tail of b0", []int{0}, 2).Add(lake); !errors.Is(err, ErrTailTooLarge) ||
		!strings.Contains(err.Error(), "fluss.union_read.max_tail_rows") {
		t.Fatalf("ceiling: %v", err)
	}
}

func TestReplayLatestSurvivorsFirstSeenOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := NewReplay("t", kvSchema, []int{0, 1}, 100, mem)
	steps := []struct {
		rows    [][3]any
		retract []bool
	}{
		{[][3]any{{1, "a", "v1"}, {2, "b", "v1"}, {3, "c", "v1"}}, nil},
		{[][3]any{{2, "b", "v1"}, {2, "b", "v2"}, {1, "a", "v1"}}, []bool{true, false, true}}, // -U/+U of 2, -D of 1
		{[][3]any{{4, "d", "v1"}, {3, "c", "v2"}, {nil, "n", "v1"}}, nil},
		{[][3]any{{4, "d", "v1"}, {1, "a", "v3"}}, []bool{true, false}}, // delete 4, re-insert 1
	}
	for _, s := range steps {
		b := batch(mem, s.rows...)
		if err := r.Add(b, s.retract); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	if r.Records() != 11 || r.Keys() != 5 {
		t.Fatalf("records %d keys %d", r.Records(), r.Keys())
	}
	rd, err := r.Reader(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var got []string
	for rd.Next() {
		b := rd.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			got = append(got, b.Column(0).ValueStr(i)+b.Column(2).ValueStr(i))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if want := "1v3,2v2,3v2,(null)v1"; strings.Join(got, ",") != want {
		t.Fatalf("survivors %v, want %s", got, want)
	}
	over := NewReplay("the tail of b1", kvSchema, []int{0}, 2, mem)
	b := batch(mem, [3]any{1, "a", "x"}, [3]any{2, "a", "x"}, [3]any{3, "a", "x"})
	defer b.Release()
	if err := over.Add(b, nil); !errors.Is(err, ErrTailTooLarge) {
		t.Fatalf("ceiling: %v", err)
	}
	over.Release()
}
