package parquetpage

import (
	"encoding/binary"
	"fmt"
)

// Bounds on a DELTA_BINARY_PACKED header, so a corrupt one cannot make
// the decoder loop or allocate without limit.
const maxDeltaBlock = 1 << 16

// decodeDeltaBinary decodes n DELTA_BINARY_PACKED values of pw (4 or 8)
// bytes into dst (reused), little-endian like PLAIN, so the page is then
// read as PLAIN. Arithmetic wraps in the physical width, as writers do.
func decodeDeltaBinary(dst []byte, src []byte, n, pw int) ([]byte, error) {
	pos := 0
	uv := func(what string) (uint64, error) {
		v, k := binary.Uvarint(src[pos:])
		if k <= 0 {
			return 0, fmt.Errorf("DELTA_BINARY_PACKED %s unreadable at byte %d", what, pos)
		}
		pos += k
		return v, nil
	}
	zz := func(what string) (int64, error) {
		v, k := binary.Varint(src[pos:])
		if k <= 0 {
			return 0, fmt.Errorf("DELTA_BINARY_PACKED %s unreadable at byte %d", what, pos)
		}
		pos += k
		return v, nil
	}
	block, err := uv("block size")
	if err != nil {
		return nil, err
	}
	minis, err := uv("miniblock count")
	if err != nil {
		return nil, err
	}
	total, err := uv("value count")
	if err != nil {
		return nil, err
	}
	first, err := zz("first value")
	if err != nil {
		return nil, err
	}
	if block == 0 || block%128 != 0 || block > maxDeltaBlock || minis == 0 || block%minis != 0 || (block/minis)%32 != 0 {
		return nil, fmt.Errorf("DELTA_BINARY_PACKED block of %d values in %d miniblocks", block, minis)
	}
	if total < uint64(n) {
		return nil, fmt.Errorf("DELTA_BINARY_PACKED page of %d values, %d non-NULL rows", total, n)
	}
	if cap(dst) < n*pw {
		dst = make([]byte, n*pw)
	}
	dst = dst[:n*pw]
	put := func(i int, v int64) {
		if pw == 4 {
			binary.LittleEndian.PutUint32(dst[i*4:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(dst[i*8:], uint64(v))
		}
	}
	if n == 0 {
		return dst, nil
	}
	per := int(block / minis)
	cur := first
	put(0, cur)
	got := 1
	for got < n {
		minDelta, err := zz("block minimum delta")
		if err != nil {
			return nil, err
		}
		if len(src)-pos < int(minis) {
			return nil, fmt.Errorf("DELTA_BINARY_PACKED bit widths past the page's end")
		}
		widths := src[pos : pos+int(minis)]
		pos += int(minis)
		for _, w := range widths {
			if got >= n {
				break
			}
			if w > 64 {
				return nil, fmt.Errorf("DELTA_BINARY_PACKED bit width %d", w)
			}
			need := per * int(w) / 8
			take := min(per, n-got)
			avail := len(src) - pos
			// The last miniblock may be cut short after its last value.
			if avail < (take*int(w)+7)/8 {
				return nil, fmt.Errorf("DELTA_BINARY_PACKED miniblock past the page's end")
			}
			mb := src[pos:min(pos+need, len(src))]
			for j := 0; j < take; j++ {
				d := unpackBits(mb, j*int(w), int(w))
				cur += minDelta + int64(d)
				if pw == 4 {
					cur = int64(int32(cur))
				}
				put(got, cur)
				got++
			}
			pos += min(need, avail)
		}
	}
	return dst, nil
}

// unpackBits reads w (≤ 64) bits LSB-first from bit offset off of b;
// the caller has checked b holds them.
func unpackBits(b []byte, off, w int) uint64 {
	var v uint64
	for k := 0; k < w; {
		byteI, bit := (off+k)>>3, (off+k)&7
		n := min(8-bit, w-k)
		v |= uint64(b[byteI]>>bit&(1<<n-1)) << k
		k += n
	}
	return v
}
