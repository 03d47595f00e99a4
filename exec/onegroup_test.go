package exec

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// A batch whose rows all fall in one group is folded in a register; the
// sums, counts and the BIGINT overflow flag must be those of the per-row
// path, worked out by hand here.
func TestOneGroupFold(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ints := func(vs ...int64) *array.Int64 {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewInt64Array()
	}
	for _, tc := range []struct {
		name     string
		gids     []uint32
		vals     []int64
		want     []int64 // per group
		overflow bool
	}{
		{"one group", []uint32{1, 1, 1}, []int64{5, -2, 10}, []int64{0, 13}, false},
		{"two groups", []uint32{0, 1, 0}, []int64{5, -2, 10}, []int64{15, -2}, false},
		{"one group overflows", []uint32{0, 0}, []int64{math.MaxInt64, 1}, nil, true},
		{"one group back in range", []uint32{0, 0, 0}, []int64{math.MaxInt64, -1, 1}, []int64{math.MaxInt64}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &sumAcc[int64]{typ: expr.Int64T()}
			c := &countAcc{star: true}
			a.grow(2)
			c.grow(2)
			arr := ints(tc.vals...)
			defer arr.Release()
			a.update(tc.gids, arr, len(tc.gids))
			c.update(tc.gids, nil, len(tc.gids))
			if a.overflowed() != tc.overflow {
				t.Fatalf("overflow %v, want %v", a.overflowed(), tc.overflow)
			}
			if tc.overflow {
				return
			}
			for g, w := range tc.want {
				if a.s[g] != w {
					t.Errorf("group %d: sum %d, want %d", g, a.s[g], w)
				}
			}
			var n int64
			for _, x := range c.c[:2] {
				n += x
			}
			if n != int64(len(tc.gids)) {
				t.Errorf("counted %d rows, want %d", n, len(tc.gids))
			}
			if tc.name == "one group" && (a.seen[0] || !a.seen[1] || c.c[1] != 3) {
				t.Errorf("seen %v, counts %v", a.seen, c.c)
			}
		})
	}
}
