package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The distribution functions, as Doris and MySQL define them over a
// partition of N rows in window order (the frame does not matter):
//   - NTILE(n): rows split into n buckets in order, the first N mod n
//     buckets one row larger; a row's bucket ignores its peers.
//   - PERCENT_RANK(): (rank - 1) / (N - 1), 0 for a one-row partition;
//     peers share it.
//   - CUME_DIST(): (rows up to and including the row's last peer) / N.

func isDistribution(f WindowFunc) bool { return f >= Ntile && f <= CumeDist }

func evalDistribution(env *Env, c WindowCall, newPart, newPeer []bool) arrow.Array {
	n := len(newPart)
	ints := array.NewInt64Builder(env.Mem)
	defer ints.Release()
	floats := array.NewFloat64Builder(env.Mem)
	defer floats.Release()
	for ps := 0; ps < n; {
		pe := ps + 1
		for pe < n && !newPart[pe] {
			pe++
		}
		size := int64(pe - ps)
		switch c.Func {
		case Ntile:
			q, rem := size/c.Offset, size%c.Offset
			for r := int64(0); r < size; r++ {
				if r < rem*(q+1) {
					ints.Append(r/(q+1) + 1)
				} else {
					ints.Append(rem + (r-rem*(q+1))/q + 1)
				}
			}
		case PercentRank:
			var rank int64
			for i := ps; i < pe; i++ {
				if newPeer[i] {
					rank = int64(i-ps) + 1
				}
				if size == 1 {
					floats.Append(0)
				} else {
					floats.Append(float64(rank-1) / float64(size-1))
				}
			}
		case CumeDist:
			for i := ps; i < pe; {
				j := i + 1
				for j < pe && !newPeer[j] {
					j++
				}
				for k := i; k < j; k++ {
					floats.Append(float64(j-ps) / float64(size))
				}
				i = j
			}
		}
		ps = pe
	}
	if c.Func == Ntile {
		return ints.NewArray()
	}
	return floats.NewArray()
}
