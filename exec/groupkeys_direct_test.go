package exec

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestGroupTableDirectCap checks the direct-indexed array past directMax
// against a map: a join's build (one batch of keys spread over four values
// each, as o_orderkey) stays direct, sparser keys and an aggregate whose
// keys creep upward batch by batch move to the intTable, and every id
// and lookup (absent keys, NULL) is the map's either way.
func TestGroupTableDirectCap(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cases := []struct {
		name       string
		batches    [][]int64 // -1 is NULL
		wantDirect bool
	}{
		{"dense build", [][]int64{spread(rng, 600_000, 4, 1)}, true},
		{"sparse build", [][]int64{spread(rng, 300_000, 16, 1)}, false},
		{"creeping aggregate", creeping(rng, 25, 40_000, 4), false},
		{"small", [][]int64{spread(rng, 1000, 4, 7)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			g := newGroupTable(mem, []arrow.DataType{expr.Int64T()}, true)
			ref := map[int64]uint32{}
			nullID := int64(-1)
			for _, keys := range tc.batches {
				a := keyArray(mem, keys)
				ids := g.ids([]arrow.Array{a}, len(keys), nil)
				for i, k := range keys {
					if k < 0 {
						if nullID < 0 {
							nullID = int64(ids[i])
						}
						if int64(ids[i]) != nullID {
							t.Fatalf("NULL row %d: id %d, want %d", i, ids[i], nullID)
						}
						continue
					}
					want, seen := ref[k]
					if !seen {
						want = ids[i]
						ref[k] = want
					}
					if ids[i] != want {
						t.Fatalf("key %d: id %d, want %d", k, ids[i], want)
					}
				}
				a.Release()
			}
			distinct := len(ref)
			if nullID >= 0 {
				distinct++
			}
			if g.n != distinct {
				t.Fatalf("%d groups, want %d", g.n, distinct)
			}
			if direct := g.direct != nil && !g.directOff; direct != tc.wantDirect {
				t.Fatalf("direct array %v, want %v (span %d)", direct, tc.wantDirect, len(g.direct))
			}
			probe := []int64{-1, 0, 3, 1 << 40}
			for k := range ref {
				probe = append(probe, k, k+1)
				if len(probe) > 5000 {
					break
				}
			}
			a := keyArray(mem, probe)
			got := g.lookup([]arrow.Array{a}, len(probe))
			a.Release()
			for i, k := range probe {
				want, seen := ref[k]
				if k < 0 || !seen {
					if got[i] != -1 {
						t.Fatalf("lookup %d: %d, want none", k, got[i])
					}
					continue
				}
				if got[i] != int32(want) {
					t.Fatalf("lookup %d: %d, want %d", k, got[i], want)
				}
			}
			g.release()
		})
	}
}

// spread is n keys from base, one every step values, shuffled, with a
// few NULLs and repeats.
func spread(rng *rand.Rand, n int, step, base int64) []int64 {
	out := make([]int64, 0, n+n/10)
	for i := 0; i < n; i++ {
		out = append(out, base+int64(i)*step)
	}
	for i := 0; i < n/10; i++ {
		out = append(out, out[rng.Intn(n)])
	}
	out = append(out, -1, -1)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// creeping is batches of keys that move upward batch by batch, as an
// aggregate over a table ordered by its key reads them.
func creeping(rng *rand.Rand, batches, rows int, step int64) [][]int64 {
	var out [][]int64
	for b := 0; b < batches; b++ {
		keys := make([]int64, rows)
		for i := range keys {
			keys[i] = (int64(b*rows) + int64(rng.Intn(rows))) * step
		}
		out = append(out, keys)
	}
	return out
}

func keyArray(mem memory.Allocator, keys []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for _, k := range keys {
		if k < 0 {
			b.AppendNull()
		} else {
			b.Append(k)
		}
	}
	return b.NewArray()
}
