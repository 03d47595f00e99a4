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
	s := deltaStream{src: src}
	h, err := s.header()
	if err != nil {
		return nil, err
	}
	if h.total < uint64(n) {
		return nil, fmt.Errorf("DELTA_BINARY_PACKED page of %d values, %d non-NULL rows", h.total, n)
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
	per := h.per
	cur := h.first
	put(0, cur)
	got := 1
	for got < n {
		minDelta, err := s.varint("block minimum delta")
		if err != nil {
			return nil, err
		}
		pos := s.pos
		if len(src)-pos < h.minis {
			return nil, fmt.Errorf("DELTA_BINARY_PACKED bit widths past the page's end")
		}
		widths := src[pos : pos+h.minis]
		pos += h.minis
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
		s.pos = pos
	}
	return dst, nil
}

// deltaStream reads the varints of a DELTA_BINARY_PACKED stream from pos.
type deltaStream struct {
	src []byte
	pos int
}

func (s *deltaStream) uvarint(field string) (uint64, error) {
	v, k := binary.Uvarint(s.src[s.pos:])
	if k <= 0 {
		return 0, fmt.Errorf("DELTA_BINARY_PACKED %s unreadable at byte %d", field, s.pos)
	}
	s.pos += k
	return v, nil
}

func (s *deltaStream) varint(field string) (int64, error) {
	v, k := binary.Varint(s.src[s.pos:])
	if k <= 0 {
		return 0, fmt.Errorf("DELTA_BINARY_PACKED %s unreadable at byte %d", field, s.pos)
	}
	s.pos += k
	return v, nil
}

// deltaHeader is the header of a DELTA_BINARY_PACKED stream.
type deltaHeader struct {
	per, minis int // values per miniblock, miniblocks per block
	total      uint64
	first      int64
}

// header reads the stream's header and checks the block's shape.
func (s *deltaStream) header() (deltaHeader, error) {
	block, err := s.uvarint("block size")
	if err != nil {
		return deltaHeader{}, err
	}
	minis, err := s.uvarint("miniblock count")
	if err != nil {
		return deltaHeader{}, err
	}
	total, err := s.uvarint("value count")
	if err != nil {
		return deltaHeader{}, err
	}
	first, err := s.varint("first value")
	if err != nil {
		return deltaHeader{}, err
	}
	if block == 0 || block%128 != 0 || block > maxDeltaBlock || minis == 0 || block%minis != 0 || (block/minis)%32 != 0 {
		return deltaHeader{}, fmt.Errorf("DELTA_BINARY_PACKED block of %d values in %d miniblocks", block, minis)
	}
	return deltaHeader{per: int(block / minis), minis: int(minis), total: total, first: first}, nil
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
