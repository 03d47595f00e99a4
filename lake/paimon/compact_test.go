package paimon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCompactArray checks the late filter's compaction against the
// definition (row j of the result is row idx[j] of the input, value and
// NULL-ness) for every gather path: sparse and dense selections (the
// dense ones copy runs), 4-, 8- and 16-byte rows, strings and binary,
// with and without NULLs, on a sliced input (non-zero offset).
func TestCompactArray(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 3000
	rng := rand.New(rand.NewPCG(1, 2))
	build := func(typ string, nulls bool) arrow.Array {
		var b array.Builder
		switch typ {
		case "int32":
			b = array.NewInt32Builder(mem)
		case "int64":
			b = array.NewInt64Builder(mem)
		case "decimal":
			b = array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 30, Scale: 2})
		case "string":
			b = array.NewStringBuilder(mem)
		case "binary":
			b = array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		}
		defer b.Release()
		for i := 0; i < n+7; i++ {
			if nulls && i%5 == 3 {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.Int32Builder:
				bb.Append(int32(i * 3))
			case *array.Int64Builder:
				bb.Append(int64(i) << 33)
			case *array.Decimal128Builder:
				bb.Append(decimal128.New(int64(i), uint64(i)*7))
			case *array.StringBuilder:
				bb.Append(fmt.Sprintf("s%d%s", i, string(make([]byte, i%4))))
			case *array.BinaryBuilder:
				if i%9 == 0 {
					bb.Append(nil) // empty, not NULL
				} else {
					bb.Append([]byte{byte(i), byte(i >> 8)})
				}
			}
		}
		full := b.NewArray()
		defer full.Release()
		return array.NewSlice(full, 7, n+7)
	}
	for _, typ := range []string{"int32", "int64", "decimal", "string", "binary"} {
		for _, nulls := range []bool{false, true} {
			for _, keep := range []float64{0, 0.05, 0.5, 0.95, 0.999, 1} {
				t.Run(fmt.Sprintf("%s/nulls=%v/keep=%g", typ, nulls, keep), func(t *testing.T) {
					a := build(typ, nulls)
					defer a.Release()
					sel := make([]bool, n)
					var idx []int32
					for i := range sel {
						if rng.Float64() < keep {
							sel[i] = true
							idx = append(idx, int32(i))
						}
					}
					// gmem stands for the scan's pool: a sparse
					// result must not hold a full-length buffer of it.
					gmem := memory.NewCheckedAllocator(mem)
					got, err := compactArray(context.Background(), a, sel, idx, mem, gmem)
					if err != nil {
						t.Fatal(err)
					}
					defer got.Release()
					if 4*len(idx) <= n && gmem.CurrentAlloc() != 0 {
						t.Errorf("%d of %d rows kept: %d bytes from the pool", len(idx), n, gmem.CurrentAlloc())
					}
					if got.Len() != len(idx) {
						t.Fatalf("%d rows, want %d", got.Len(), len(idx))
					}
					for j, i := range idx {
						if got.IsNull(j) != a.IsNull(int(i)) || got.ValueStr(j) != a.ValueStr(int(i)) {
							t.Fatalf("row %d: %q (null %v), want row %d's %q (null %v)", j, got.ValueStr(j), got.IsNull(j), i, a.ValueStr(int(i)), a.IsNull(int(i)))
						}
					}
					if want := countNulls(a, idx); got.NullN() != want {
						t.Fatalf("%d NULLs, want %d", got.NullN(), want)
					}
				})
			}
		}
	}
}

func countNulls(a arrow.Array, idx []int32) int {
	k := 0
	for _, i := range idx {
		if a.IsNull(int(i)) {
			k++
		}
	}
	return k
}
