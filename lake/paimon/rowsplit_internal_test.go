package paimon

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowRangeTiles: for row groups of every size and place in files cut
// into 1..40 slices, the slices' row ranges (before and after moving the
// bounds to page starts) tile the group exactly: consecutive, from 0 to
// its row count, each row once; a group read whole goes to exactly one
// slice. Sizes reach the int64 range, where rows × bytes overflows.
func TestRowRangeTiles(t *testing.T) {
	defer func(b, r int64) { minSplitGroupBytes, minSplitGroupRows = b, r }(minSplitGroupBytes, minSplitGroupRows)
	minSplitGroupBytes, minSplitGroupRows = 1, 1
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 20000; k++ {
		size := 1 + rng.Int64N(1<<20)
		if k%10 == 0 {
			size = math.MaxInt64/2 + rng.Int64N(1<<40)
		}
		start := rng.Int64N(size)
		end := start + 1 + rng.Int64N(size-start)
		rows := 1 + rng.Int64N(1<<20)
		if k%7 == 0 {
			rows = math.MaxInt32 * int64(1+rng.IntN(1000))
		}
		n := int32(1 + rng.IntN(40))
		// Page starts: 0, some rows, rows.
		starts := []int64{0}
		for p := int64(0); ; {
			p += 1 + rng.Int64N(max(rows/5, 1))
			if p >= rows {
				break
			}
			starts = append(starts, p)
		}
		starts = append(starts, rows)
		splittable := k%3 != 0
		var next, snapped int64
		owners := 0
		for i := int32(0); i < n; i++ {
			s := &FileSlice{Index: i, Count: n}
			from, to, split := s.rowRange(start, end, size, rows, func() bool { return splittable })
			if !split {
				if to > 0 {
					owners++
					if from != 0 || to != rows {
						t.Fatalf("case %d: whole group read as %d..%d of %d", k, from, to, rows)
					}
				}
				continue
			}
			if from > to || (to > 0 && from != next) {
				t.Fatalf("case %d slice %d/%d: rows %d..%d after %d (group %d..%d of %d bytes, %d rows)", k, i, n, from, to, next, start, end, size, rows)
			}
			if to > 0 {
				next = to
			}
			sf, st := from, to
			if sf > 0 {
				sf = snapRow(sf, starts)
			}
			if st < rows {
				st = snapRow(st, starts)
			}
			if sf > st || (st > sf && sf != snapped) {
				t.Fatalf("case %d slice %d/%d: snapped %d..%d after %d", k, i, n, sf, st, snapped)
			}
			if st > sf {
				snapped = st
			}
		}
		if owners > 1 || (owners == 1) == (next > 0) {
			t.Fatalf("case %d: %d whole owners and split rows up to %d", k, owners, next)
		}
		if owners == 0 && (next != rows || snapped != rows) {
			t.Fatalf("case %d: split rows end at %d (snapped %d), want %d", k, next, snapped, rows)
		}
	}
}
