package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dorisKernelInputs: strings of every length class the hashes branch on (0-3,
// 4-16, 17-128, 129-240, longer), multi-byte text and NULLs; BIGINTs with
// shifts inside and outside 0..63.
func dorisKernelInputs(mem memory.Allocator) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{{Name: "s", Type: StringT()}, {Name: "x", Type: Int64T()}, {Name: "n", Type: Int64T()}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	strs := []any{"", "a", "abc", "abcd", "hello", "héllo wörld", strings.Repeat("x", 17), strings.Repeat("yz", 70), strings.Repeat("q", 241), nil, strings.Repeat("数据", 300)}
	xs := []any{int64(1), int64(-1), int64(-9223372036854775808), int64(12345), nil, int64(7), int64(1 << 40), int64(-5), int64(3), int64(0), int64(99)}
	ns := []any{int64(0), int64(1), int64(63), int64(64), int64(2), nil, int64(-1), int64(3), int64(62), int64(5), int64(100)}
	for i := range strs {
		Appender(b.Field(0))(strs[i])
		Appender(b.Field(1))(xs[i])
		Appender(b.Field(2))(ns[i])
	}
	return b.NewRecordBatch()
}

// TestDorisKernelsMatchRowwise: each typed loop gives exactly what its row
// function gives.
func TestDorisKernelsMatchRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := dorisKernelInputs(mem)
	defer batch.Release()
	c := cols(batch)
	env := &Env{Mem: mem}
	for _, e := range []Expr{
		must(Func("murmur_hash3_32", c["s"])), must(Func("murmur_hash3_64", c["s"])),
		must(Func("xxhash_32", c["s"])), must(Func("xxhash_64", c["s"])),
		must(Func("bit_shift_left", c["x"], c["n"])), must(Func("bit_shift_right", c["x"], c["n"])),
	} {
		f := e.(*rowFunc)
		if f.vec == nil {
			t.Fatalf("%s has no typed loop", e)
		}
		vec, err := f.Eval(env, batch)
		if err != nil {
			t.Fatal(err)
		}
		saved := f.vec
		f.vec = nil
		row, err := f.Eval(env, batch)
		f.vec = saved
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(vec, row) {
			t.Errorf("%s: typed %v, row-wise %v", e, vec, row)
		}
		vec.Release()
		row.Release()
	}
}

func BenchmarkDorisHash(b *testing.B) {
	mem := memory.NewGoAllocator()
	sb := array.NewStringBuilder(mem)
	for i := 0; i < 4096; i++ {
		sb.Append(strings.Repeat("k", i%40) + "value")
	}
	arr := sb.NewArray()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: StringT()}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
	arr.Release()
	defer batch.Release()
	env := &Env{Mem: mem}
	for _, name := range []string{"murmur_hash3_64", "xxhash_64"} {
		f := must(Func(name, Col(0, "s", StringT()))).(*rowFunc)
		for _, mode := range []string{"typed", "rowwise"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				saved := f.vec
				if mode == "rowwise" {
					f.vec = nil
				}
				for i := 0; i < b.N; i++ {
					a, err := f.Eval(env, batch)
					if err != nil {
						b.Fatal(err)
					}
					a.Release()
				}
				f.vec = saved
			})
		}
	}
}
