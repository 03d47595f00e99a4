package exec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestFoldSelNulls: the global folds (SUM as BIGINT and as DOUBLE, COUNT,
// MIN, MAX) over columns with NULLs read the validity bitmap directly, a
// byte at a time where they can. Their results must equal a plain loop
// over Go values written here, bit for bit for DOUBLE sums (the same rows
// added in the same order), for every null pattern, length, slice offset
// (the bitmap then starts inside a byte) and selection.
func TestFoldSelNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 11))
	patterns := map[string]func(i int) bool{
		"none null":   func(int) bool { return true },
		"all null":    func(int) bool { return false },
		"every other": func(i int) bool { return i%2 == 0 },
		"runs of 8":   func(i int) bool { return (i/8)%2 == 0 },
		"runs of 13":  func(i int) bool { return (i/13)%3 != 0 },
		"10% null":    func(int) bool { return rng.IntN(10) != 0 },
		"90% null":    func(int) bool { return rng.IntN(10) == 0 },
	}
	cases := 0
	for name, validAt := range patterns {
		for _, n := range []int{0, 1, 7, 8, 9, 16, 63, 64, 65, 200} {
			for _, off := range []int{0, 1, 3, 7, 8, 9} {
				total := n + off + 3
				ints := make([]int64, total)
				floats := make([]float64, total)
				valid := make([]bool, total)
				for i := range total {
					ints[i] = rng.Int64N(1<<40) - 1<<39
					// Magnitudes far apart: a sum in another order
					// rounds differently.
					floats[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(12)))
					valid[i] = validAt(i)
				}
				ib := array.NewInt64Builder(mem)
				ib.AppendValues(ints, valid)
				iarr := ib.NewArray()
				ib.Release()
				fb := array.NewFloat64Builder(mem)
				fb.AppendValues(floats, valid)
				farr := fb.NewArray()
				fb.Release()
				is := array.NewSlice(iarr, int64(off), int64(off+n))
				fs := array.NewSlice(farr, int64(off), int64(off+n))
				iarr.Release()
				farr.Release()
				var sels [][]int64
				sels = append(sels, nil)
				var some []int64
				for i := range n {
					if rng.IntN(3) != 0 {
						some = append(some, int64(i))
					}
				}
				sels = append(sels, some, []int64{})
				for _, sel := range sels {
					cases++
					rows := sel
					if rows == nil {
						rows = make([]int64, n)
						for i := range rows {
							rows[i] = int64(i)
						}
					}
					// The plain loops.
					var wantI int64
					var wantF float64
					var wantC int64
					var minI, maxI int64
					var minF, maxF float64
					seen := false
					for _, r := range rows {
						k := off + int(r)
						if !valid[k] {
							continue
						}
						wantI += ints[k]
						wantF += floats[k]
						wantC++
						if !seen || ints[k] < minI {
							minI = ints[k]
						}
						if !seen || ints[k] > maxI {
							maxI = ints[k]
						}
						if !seen || floats[k] < minF {
							minF = floats[k]
						}
						if !seen || floats[k] > maxF {
							maxF = floats[k]
						}
						seen = true
					}
					where := func() string {
						return name + ", " + itoa(n) + " rows at offset " + itoa(off) + map[bool]string{true: ", all rows", false: ", " + itoa(len(sel)) + " selected"}[sel == nil]
					}
					si := &sumAcc[int64]{typ: expr.Int64T()}
					si.grow(1)
					if !si.foldSel(is, sel, n) {
						t.Fatalf("%s: BIGINT sum not folded", where())
					}
					if si.s[0] != wantI || si.seen[0] != seen {
						t.Errorf("%s: BIGINT sum %d (seen %v), want %d (%v)", where(), si.s[0], si.seen[0], wantI, seen)
					}
					sf := &sumAcc[float64]{typ: expr.Float64T()}
					sf.grow(1)
					sf.foldSel(fs, sel, n)
					if math.Float64bits(sf.s[0]) != math.Float64bits(wantF) || sf.seen[0] != seen {
						t.Errorf("%s: DOUBLE sum %v (seen %v), want %v (%v)", where(), sf.s[0], sf.seen[0], wantF, seen)
					}
					sfi := &sumAcc[float64]{typ: expr.Float64T()}
					sfi.grow(1)
					sfi.foldSel(is, sel, n)
					var wantFI float64
					for _, r := range rows {
						if valid[off+int(r)] {
							wantFI += float64(ints[off+int(r)])
						}
					}
					if math.Float64bits(sfi.s[0]) != math.Float64bits(wantFI) {
						t.Errorf("%s: DOUBLE sum of BIGINT %v, want %v", where(), sfi.s[0], wantFI)
					}
					c := &countAcc{}
					c.grow(1)
					c.foldSel(is, sel, n)
					if c.c[0] != wantC {
						t.Errorf("%s: count %d, want %d", where(), c.c[0], wantC)
					}
					for _, isMax := range []bool{false, true} {
						mi := mmNum[int64, *array.Int64](isMax, arrow.PrimitiveTypes.Int64).(*minMaxNum[int64])
						mi.grow(1)
						mi.foldSel(is, sel, n)
						mf := mmNum[float64, *array.Float64](isMax, arrow.PrimitiveTypes.Float64).(*minMaxNum[float64])
						mf.grow(1)
						mf.foldSel(fs, sel, n)
						wi, wf := minI, minF
						if isMax {
							wi, wf = maxI, maxF
						}
						if mi.seen[0] != seen || mf.seen[0] != seen || (seen && (mi.v[0] != wi || mf.v[0] != wf)) {
							t.Errorf("%s: max=%v: %d/%v (seen %v/%v), want %d/%v (%v)", where(), isMax, mi.v[0], mf.v[0], mi.seen[0], mf.seen[0], wi, wf, seen)
						}
					}
				}
				is.Release()
				fs.Release()
			}
		}
	}
	if cases < 1000 {
		t.Fatalf("only %d cases", cases)
	}
}
