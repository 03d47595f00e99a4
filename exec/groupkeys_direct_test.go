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
// and lookup (absent keys, NULL) is the map's either way. Keys read from
// several key-ordered streams at once (a lake table's files) span their
// whole range within the first batches: with the optimizer's estimate of
// the groups (hint; spread for a partitioned aggregate's worker holding a
// share of them) allowing that span they stay direct, without it, or with
// an estimate whose span would pass directTrustMax, they do not.
func TestGroupTableDirectCap(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cases := []struct {
		name         string
		batches      [][]int64 // -1 is NULL
		hint, spread int
		wantDirect   bool
	}{
		{"dense build", [][]int64{spread(rng, 600_000, 4, 1)}, 0, 0, true},
		{"sparse build", [][]int64{spread(rng, 300_000, 16, 1)}, 0, 0, false},
		{"creeping aggregate", creeping(rng, 25, 40_000, 4), 0, 0, false},
		{"small", [][]int64{spread(rng, 1000, 4, 7)}, 0, 0, true},
		// six streams of 100 K groups, four values apart (span 2.4 M),
		// 8192-row batches taken from them in turn
		{"interleaved streams", interleaved(6, 100_000, 4, 8192, 1), 0, 0, false},
		{"interleaved streams, estimate", interleaved(6, 100_000, 4, 8192, 1), 600_000, 0, true},
		// five streams: the array takes most of the span early and then
		// grows by less than a quarter, to the span the estimate allows
		{"interleaved streams, estimate, last growth", interleaved(5, 120_000, 4, 8192, 1), 600_000, 0, true},
		{"interleaved streams, worker share", interleaved(6, 100_000, 4, 8192, 2), 300_000, 2, true},
		{"interleaved streams, estimate short", interleaved(6, 100_000, 4, 8192, 1), 500_000, 0, false},
		// 5 M estimated groups would allow a 20 M-value span: more than
		// directTrustMax before an eighth of them is there
		{"interleaved streams, estimate past trust", interleaved(6, 100_000, 4, 8192, 1), 5_000_000, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			g := newGroupTable(mem, []arrow.DataType{expr.Int64T()}, true)
			g.hint, g.spread = tc.hint, tc.spread
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

// interleaved is the rows of streams key-ordered streams read at once:
// stream j holds groups j*groups .. (j+1)*groups-1, each as the key
// 1+step*group on two to six neighbouring rows (lineitem's l_orderkey),
// and the batches of batch rows are taken from the streams in turn. With
// share > 1 only the groups with group%share == 0 are kept, as the rows
// a partitioned aggregate routes to one of share workers.
func interleaved(streams, groups int, step int64, batch, share int) [][]int64 {
	rows := make([][]int64, streams)
	for j := range rows {
		for g := j * groups; g < (j+1)*groups; g++ {
			if g%share != 0 {
				continue
			}
			for range 2 + g%5 {
				rows[j] = append(rows[j], 1+step*int64(g))
			}
		}
	}
	var out [][]int64
	for left := true; left; {
		left = false
		for j := range rows {
			n := min(batch, len(rows[j]))
			if n > 0 {
				out = append(out, rows[j][:n])
				rows[j] = rows[j][n:]
				left = true
			}
		}
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
