package exec

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// selectTrue keeps exactly the rows whose mask value is TRUE (not FALSE,
// not NULL), for masks with and without NULLs, sliced at every offset,
// with and without a row map; the reference is a plain per-row loop.
func TestSelectTrueMatchesRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 1000} {
		for _, nulls := range []bool{false, true} {
			b := array.NewBooleanBuilder(mem)
			for i := 0; i < n; i++ {
				if nulls && rng.IntN(5) == 0 {
					b.AppendNull()
					continue
				}
				b.Append(rng.IntN(3) == 0)
			}
			full := b.NewBooleanArray()
			b.Release()
			for off := 0; off <= min(n, 17); off++ {
				mask := array.NewSlice(full, int64(off), int64(n)).(*array.Boolean)
				rows := make([]int64, mask.Len())
				for i := range rows {
					rows[i] = int64(1000 + 3*i)
				}
				for _, rm := range [][]int64{nil, rows} {
					var want []int64
					for i := 0; i < mask.Len(); i++ {
						if mask.IsValid(i) && mask.Value(i) {
							if rm != nil {
								want = append(want, rm[i])
							} else {
								want = append(want, int64(i))
							}
						}
					}
					if got := selectTrue(mask, rm); !slices.Equal(got, want) {
						t.Fatalf("n=%d nulls=%v off=%d rows=%v: got %v, want %v", n, nulls, off, rm != nil, got, want)
					}
				}
				mask.Release()
			}
			full.Release()
		}
	}
}
