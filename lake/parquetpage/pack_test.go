package parquetpage

import (
	"math/rand/v2"
	"testing"
)

// TestPackLevels checks the 8-at-a-time validity packing against bit by
// bit at every alignment.
func TestPackLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		row, k := rng.IntN(20), rng.IntN(70)
		defs := make([]byte, k)
		want := 0
		for i := range defs {
			if rng.IntN(3) > 0 {
				defs[i] = 1
				want++
			}
		}
		vbits := make([]byte, (row+k+7)/8+1)
		if got := packLevels(vbits, row, defs); got != want {
			t.Fatalf("row %d k %d: %d ones, want %d", row, k, got, want)
		}
		for i := 0; i < row+k+8 && i/8 < len(vbits); i++ {
			set := vbits[i/8]>>(i%8)&1 == 1
			exp := i >= row && i < row+k && defs[i-row] == 1
			if set != exp {
				t.Fatalf("row %d k %d: bit %d is %v", row, k, i, set)
			}
		}
	}
}
