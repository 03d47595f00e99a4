package exec

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDecimalSumLanes checks SUM over DECIMAL, whose values add in int64
// lanes, against sums in big.Int: values near the int64 limits (so lanes
// overflow and flush), values beyond int64, NULLs, several groups and one
// group, and partial states merged.
func TestDecimalSumLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	typ := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	cases := []struct {
		name   string
		groups int
		gen    func() decimal128.Num
	}{
		{"small", 3, func() decimal128.Num { return decimal128.FromI64(rng.Int63n(2_000_000) - 1_000_000) }},
		{"near int64 max", 2, func() decimal128.Num { return decimal128.FromI64(math.MaxInt64 - rng.Int63n(1000)) }},
		{"near int64 min", 2, func() decimal128.Num { return decimal128.FromI64(math.MinInt64 + rng.Int63n(1000)) }},
		{"mixed widths", 4, func() decimal128.Num {
			v := decimal128.FromI64(rng.Int63() - rng.Int63())
			if rng.Intn(5) == 0 {
				v = v.Mul(decimal128.FromI64(1 << 40)) // beyond int64
			}
			return v
		}},
		{"one group", 1, func() decimal128.Num { return decimal128.FromI64(rng.Int63()) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const rows = 5000
			b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
			defer b.Release()
			gids := make([]uint32, rows)
			want := make([]*big.Int, tc.groups)
			for g := range want {
				want[g] = new(big.Int)
			}
			for i := 0; i < rows; i++ {
				gids[i] = uint32(rng.Intn(tc.groups))
				if i%11 == 5 {
					b.AppendNull()
					continue
				}
				v := tc.gen()
				b.Append(v)
				want[gids[i]].Add(want[gids[i]], v.BigInt())
			}
			arr := b.NewDecimal128Array()
			defer arr.Release()
			check := func(what string, got arrow.Array) {
				t.Helper()
				defer got.Release()
				d := got.(*array.Decimal128)
				for g := range want {
					if d.Value(g).BigInt().Cmp(want[g]) != 0 {
						t.Fatalf("%s group %d: %s, want %s", what, g, d.Value(g).BigInt(), want[g])
					}
				}
			}
			// Row by row in batches of 1000, as an operator feeds it.
			a := &decSumAcc{typ: typ}
			a.grow(tc.groups)
			for lo := 0; lo < rows; lo += 1000 {
				sl := array.NewSlice(arr, int64(lo), int64(lo+1000))
				a.update(gids[lo:lo+1000], sl, 1000)
				sl.Release()
			}
			if a.overflowed() {
				t.Fatal("overflow reported")
			}
			check("update", a.result(memory.DefaultAllocator, tc.groups))
			// The partial states merged into a fresh accumulator.
			st := a.states(memory.DefaultAllocator, tc.groups)
			m := &decSumAcc{typ: typ}
			m.grow(tc.groups)
			ids := make([]uint32, tc.groups)
			for g := range ids {
				ids[g] = uint32(g)
			}
			m.merge(ids, st)
			releaseArrays(st)
			check("merge", m.result(memory.DefaultAllocator, tc.groups))
			if tc.groups == 1 {
				f := &decSumAcc{typ: typ}
				f.grow(1)
				f.foldSel(arr, nil, rows)
				check("fold", f.result(memory.DefaultAllocator, 1))
			}
		})
	}
	// A sum past 38 digits is still an overflow.
	a := &decSumAcc{typ: typ}
	a.grow(1)
	big37, _ := decimal128.FromString("99999999999999999999999999999999999999", 38, 0)
	b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
	b.AppendValues([]decimal128.Num{big37, decimal128.FromI64(5)}, nil)
	arr := b.NewArray()
	b.Release()
	a.update([]uint32{0, 0}, arr, 2)
	arr.Release()
	if !a.overflowed() {
		t.Fatal("sum past DECIMAL(38) not reported")
	}
}
