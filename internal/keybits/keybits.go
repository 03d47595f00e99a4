package keybits

import (
	"encoding/binary"
	"fmt"
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
