package keybits

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Has says whether v is in the set of words from lo.
func Has(words []uint64, lo int64, v int64) bool {
	p := uint64(v) - uint64(lo)
	return p < uint64(len(words))*64 && words[p>>6]>>(p&63)&1 != 0
}

// Keep clears keep[i] for the values not in the set (len(keep) >=
// len(vals)) and returns how many it cleared. It has no branch on the
// outcome: a filter passing one row in ten, in runs, mispredicts often.
func Keep[T int8 | int16 | int32 | int64 | uint64](words []uint64, lo int64, vals []T, keep []bool) int {
	keep = keep[:len(vals)]
	if len(words) == 0 {
		n := 0
		for i, k := range keep {
			if k {
				n++
			}
			keep[i] = false
		}
		return n
	}
	last := uint64(len(words) - 1)
	size := uint64(len(words)) * 64
	dropped := 0
	for i, v := range vals {
		p := uint64(int64(v)) - uint64(lo)
		hit := words[min(p>>6, last)] >> (p & 63) & 1
		if p >= size {
			hit = 0
		}
		var k uint64
		if keep[i] {
			k = 1
		}
		nk := k & hit
		dropped += int(k - nk)
		keep[i] = nk != 0
	}
	return dropped
}

// KeepArray sets keep[i] (len(keep) >= n) for the first n rows of a whose
// value is in the set: a NULL never is. ok is false, and keep unspecified,
// when a is not a signed integer array. It is the one test the BE's
// IN_BITS expression and the lake reader's bitmap leaf both run.
func KeepArray(words []uint64, lo int64, a arrow.Array, n int, keep []bool) (ok bool) {
	keep = keep[:n]
	if a.NullN() == 0 {
		for i := range keep {
			keep[i] = true
		}
	} else {
		for i := range keep {
			keep[i] = a.IsValid(i)
		}
	}
	switch x := a.(type) {
	case *array.Int8:
		Keep(words, lo, x.Int8Values()[:n], keep)
	case *array.Int16:
		Keep(words, lo, x.Int16Values()[:n], keep)
	case *array.Int32:
		Keep(words, lo, x.Int32Values()[:n], keep)
	case *array.Int64:
		Keep(words, lo, x.Int64Values()[:n], keep)
	default:
		return false
	}
	return true
}

// Span is the least and greatest value in the set; ok is false when it is
// empty.
func Span(words []uint64, lo int64) (least, greatest int64, ok bool) {
	first, last := -1, -1
	for i, w := range words {
		if w != 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	lz := 0
	for words[first]>>lz&1 == 0 {
		lz++
	}
	hz := 63
	for words[last]>>hz&1 == 0 {
		hz--
	}
	return lo + int64(first*64+lz), lo + int64(last*64+hz), true
}

// Encode is the wire form of the words: 8 bytes each, little-endian.
func Encode(words []uint64) []byte {
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// Decode reads Encode's form back.
func Decode(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("key bitmap of %d bytes, not a whole number of 8-byte words", len(b))
	}
	w := make([]uint64, len(b)/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w, nil
}
