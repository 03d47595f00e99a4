package dispatch

import (
	"hash/fnv"
	"strconv"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// Ranges go to BEs by rendezvous (highest random weight) hashing of their
// affinity over the BE names: every range of one affinity (one partition
// and bucket) lands on one BE, the choice depends only on the affinity and
// the set of live BEs, and a BE joining or leaving moves only the
// affinities it wins or held.

func affinityKey(r *inletpb.Range) string {
	if r.GetAffinity() != "" {
		return r.GetAffinity()
	}
	// No affinity: the range is its own group.
	return "range:" + strconv.FormatInt(r.GetId(), 10)
}

func weight(backend, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(backend))
	h.Write([]byte{0})
	h.Write([]byte(key))
	// fnv's low bits mix poorly for short inputs; finish with a
	// splitmix64 step so the winner is spread evenly.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// pick returns the index of the BE that wins key, or -1 when bes is empty.
func pick(bes []Backend, key string) int {
	best, bestW := -1, uint64(0)
	for i, b := range bes {
		if w := weight(b.Name(), key); best < 0 || w > bestW || (w == bestW && b.Name() < bes[best].Name()) {
			best, bestW = i, w
		}
	}
	return best
}

// assign splits ranges over bes; the result holds, for each BE index, its
// ranges in fragment order.
func assign(ranges []*inletpb.Range, bes []Backend) [][]*inletpb.Range {
	out := make([][]*inletpb.Range, len(bes))
	won := map[string]int{}
	for _, r := range ranges {
		k := affinityKey(r)
		i, ok := won[k]
		if !ok {
			i = pick(bes, k)
			won[k] = i
		}
		out[i] = append(out[i], r)
	}
	return out
}

// repeatable reports whether a range's output is the same rows in the same
// order every time it is read (so a re-run may skip the rows already
// passed on). PK_FULL is not: SCAN_KV reads the live state at some offset
// and merges the changelog after it, so the same final rows come out in an
// order that depends on when the scan ran.
func repeatable(t inletpb.RangeType) bool {
	switch t {
	case inletpb.RangeType_LOG, inletpb.RangeType_PK_TAIL, inletpb.RangeType_LAKE, inletpb.RangeType_LAKE_SUPPRESS:
		return true
	}
	return false
}
