package unionread

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkKeySetMemory reports the bytes a tail key set holds per key for
// BIGINT keys (1 null byte + 8 value bytes each).
//
//	go test ./unionread -run '^$' -bench KeySet
func BenchmarkKeySetMemory(b *testing.B) {
	const n = 1 << 20
	for it := 0; it < b.N; it++ {
		s := NewKeySet()
		var k [9]byte
		k[0] = 1
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint64(k[1:], uint64(i))
			s.Insert(k[:])
		}
		b.ReportMetric(float64(s.MemoryBytes())/float64(n), "bytes/key")
	}
}

// BenchmarkSuppress: the per-row cost of suppressing an 8192-row lake batch
// (BIGINT key, a string and a double column) against a tail holding 1% of
// the keys, as in the benchmark table.
//
//	go test ./unionread -run '^$' -bench Suppress
func BenchmarkSuppress(b *testing.B) {
	mem := memory.NewGoAllocator()
	const n = 8192
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	for i := 0; i < n; i++ {
		ib.Append(int64(i))
		sb.Append(fmt.Sprintf("name-%d", i))
		fb.Append(float64(i) / 3)
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
	rec := array.NewRecordBatch(schema, cols, n)
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	tb := array.NewInt64Builder(mem)
	for i := 0; i < 100*n; i += 100 { // 1% of these keys, the rest of a 100x larger key space
		tb.Append(int64(i))
	}
	ta := tb.NewArray()
	tr := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{ta}, int64(ta.Len()))
	ta.Release()
	tk := NewTailKeys("bench", []int{0}, 0)
	if err := tk.Add(tr); err != nil {
		b.Fatal(err)
	}
	tr.Release()
	s := NewSuppressor(tk.Set(), []int{0}, mem)
	defer s.Release()
	ctx := context.Background()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		out, dropped, err := s.Apply(ctx, rec)
		if err != nil || dropped != n/100+1 {
			b.Fatalf("dropped %d: %v", dropped, err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/lake-row")
}
