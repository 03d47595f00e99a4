package planner

import (
	"slices"
	"testing"
)

// TestTailPieces: the cuts of a log tail, derived by hand from
// tailPieceRecords (32768) and maxTailPieces (4).
func TestTailPieces(t *testing.T) {
	const k = tailPieceRecords
	for _, tc := range []struct {
		name        string
		start, stop int64
		want        [][2]int64
	}{
		{"one record", 7, 8, [][2]int64{{7, 8}}},
		{"under two pieces", 0, 2*k - 1, [][2]int64{{0, 2*k - 1}}},
		{"two pieces", 100, 100 + 2*k, [][2]int64{{100, 100 + k}, {100 + k, 100 + 2*k}}},
		// 100001 records: three pieces of 33333, 33334, 33334 (cuts at
		// floor(100001*i/3)).
		{"uneven three", 5, 100006, [][2]int64{{5, 33338}, {33338, 66672}, {66672, 100006}}},
		// TPC-H SF 1 lineitem's tail: 300 000 records, 9 pieces' worth,
		// capped at 4 of 75 000.
		{"capped", 5_701_215, 6_001_215, [][2]int64{
			{5_701_215, 5_776_215}, {5_776_215, 5_851_215}, {5_851_215, 5_926_215}, {5_926_215, 6_001_215}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tailPieces(tc.start, tc.stop, maxTailPieces)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("tailPieces(%d, %d) = %v, want %v", tc.start, tc.stop, got, tc.want)
			}
		})
	}
	// fluss_log_tail_pieces = 1: one range whatever the size.
	if got := tailPieces(0, 1<<30, 1); !slices.Equal(got, [][2]int64{{0, 1 << 30}}) {
		t.Errorf("one piece at most: %v", got)
	}
	// Whatever the size: consecutive, covering, none below the minimum
	// once cut, never more than the cap.
	for _, n := range []int64{1, k, 2*k + 1, 5*k + 3, 8 * k, 8*k + 1, 1 << 40} {
		ps := tailPieces(1000, 1000+n, maxTailPieces)
		if len(ps) > maxTailPieces || ps[0][0] != 1000 || ps[len(ps)-1][1] != 1000+n {
			t.Fatalf("%d records: %d pieces %v", n, len(ps), ps)
		}
		for i, p := range ps {
			if p[1] <= p[0] || (i > 0 && p[0] != ps[i-1][1]) || (len(ps) > 1 && p[1]-p[0] < k) {
				t.Fatalf("%d records: piece %d %v of %v", n, i, p, ps)
			}
		}
	}
}
