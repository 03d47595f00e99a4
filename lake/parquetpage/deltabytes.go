package parquetpage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/parquet"
)

// encOffsets is not a Parquet encoding: it marks a page whose byte array
// values were decoded (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) into
// binOffs/binData, which readBinary copies from.
const encOffsets = -1

// deltaInt32s decodes a DELTA_BINARY_PACKED stream of exactly n INT32
// values (the lengths and prefix lengths of the byte array delta
// encodings) into dst (reused) and returns where the stream ends in src.
// The end matters because another stream or the values follow, so every
// miniblock holding a value is taken whole, padding included, as the
// format writes it.
func deltaInt32s(dst []int32, src []byte, n int, what string) ([]int32, int, error) {
	s := deltaStream{src: src}
	h, err := s.header()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	if h.total != uint64(n) {
		return nil, 0, fmt.Errorf("%s: %d in a page of %d non-NULL values", what, h.total, n)
	}
	if cap(dst) < n {
		dst = make([]int32, n)
	}
	dst = dst[:n]
	if n == 0 {
		return dst, s.pos, nil
	}
	if h.first < math.MinInt32 || h.first > math.MaxInt32 {
		return nil, 0, fmt.Errorf("%s: first value %d beyond INT32", what, h.first)
	}
	per, minis := h.per, h.minis
	cur := int32(h.first)
	dst[0] = cur
	got := 1
	for got < n {
		minDelta, err := s.varint("block minimum delta")
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", what, err)
		}
		pos := s.pos
		if minDelta < math.MinInt32 || minDelta > math.MaxInt32 {
			return nil, 0, fmt.Errorf("%s: DELTA_BINARY_PACKED minimum delta %d beyond INT32", what, minDelta)
		}
		md := int32(minDelta)
		if len(src)-pos < minis {
			return nil, 0, fmt.Errorf("%s: DELTA_BINARY_PACKED bit widths past the page's end", what)
		}
		widths := src[pos : pos+minis]
		pos += minis
		for _, w := range widths {
			if got >= n {
				break // the block's unused miniblocks have a width but no bytes
			}
			if w > 32 {
				return nil, 0, fmt.Errorf("%s: DELTA_BINARY_PACKED bit width %d for INT32", what, w)
			}
			need := per * int(w) / 8
			if len(src)-pos < need {
				return nil, 0, fmt.Errorf("%s: DELTA_BINARY_PACKED miniblock past the page's end", what)
			}
			mb := src[pos : pos+need]
			take := min(per, n-got)
			out := dst[got : got+take]
			if w == 0 {
				for j := range out {
					cur += md
					out[j] = cur
				}
			} else {
				mask := uint64(1)<<w - 1
				for j := range out {
					off := j * int(w)
					var d uint64
					if b := off >> 3; b+8 <= len(mb) {
						d = binary.LittleEndian.Uint64(mb[b:]) >> (off & 7) & mask
					} else {
						d = unpackBits(mb, off, int(w))
					}
					// Wraps in 32 bits, as the writers compute deltas.
					cur += md + int32(uint32(d))
					out[j] = cur
				}
			}
			got += take
			pos += need
		}
		s.pos = pos
	}
	return dst, s.pos, nil
}

// setDeltaBytes decodes a DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY page
// of r.nonNull values: byte array columns are then read from binOffs and
// binData, fixed-width ones (FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY decimals)
// as a PLAIN page built here.
func (r *Reader) setDeltaBytes(enc int32, raw []byte) error {
	name := map[int32]string{encDeltaLength: "DELTA_LENGTH_BYTE_ARRAY", encDeltaByteArray: "DELTA_BYTE_ARRAY"}[enc]
	pt := r.col.Descr.PhysicalType()
	if pt != parquet.Types.ByteArray && (enc == encDeltaLength || pt != parquet.Types.FixedLenByteArray) {
		return fmt.Errorf("%s values in a %s column", name, pt)
	}
	n := r.nonNull
	var data []byte
	switch {
	case n == 0:
		// No value is read, so what a writer puts in an all-NULL page
		// (empty streams, or nothing) does not matter.
		r.binOffs = append(r.binOffs[:0], 0)
	case enc == encDeltaLength:
		lens, end, err := deltaInt32s(r.binLens, raw, n, "value lengths")
		if err != nil {
			return err
		}
		r.binLens = lens
		data = raw[end:]
		if cap(r.binOffs) < n+1 {
			r.binOffs = make([]int32, n+1)
		}
		offs := r.binOffs[:n+1]
		var at int64
		for i, l := range lens {
			if l < 0 {
				return fmt.Errorf("%s value %d of length %d", name, i, l)
			}
			offs[i] = int32(at)
			if at += int64(l); at > int64(len(data)) {
				return fmt.Errorf("%s values of %d bytes or more past the page's end (%d bytes left)", name, at, len(data))
			}
		}
		offs[n] = int32(at)
		r.binOffs = offs
	default:
		prefix, end, err := deltaInt32s(r.binPrefix, raw, n, "prefix lengths")
		if err != nil {
			return err
		}
		r.binPrefix = prefix
		lens, end2, err := deltaInt32s(r.binLens, raw[end:], n, "suffix lengths")
		if err != nil {
			return err
		}
		r.binLens = lens
		suffixes := raw[end+end2:]
		// Sizes first, so a prefix longer than the value before it or
		// suffixes past the page fail before anything is copied, and the
		// output is allocated once.
		var sfx, total int64
		prev := int64(0)
		for i := range n {
			p, l := int64(prefix[i]), int64(lens[i])
			if p < 0 || p > prev {
				return fmt.Errorf("%s value %d: prefix of %d bytes, the value before has %d", name, i, p, prev)
			}
			if l < 0 {
				return fmt.Errorf("%s value %d: suffix of length %d", name, i, l)
			}
			if sfx += l; sfx > int64(len(suffixes)) {
				return fmt.Errorf("%s suffixes of %d bytes or more past the page's end (%d bytes left)", name, sfx, len(suffixes))
			}
			prev = p + l
			if total += prev; total > int64(maxPageBytes) {
				return fmt.Errorf("%s page expands to more than %d bytes", name, maxPageBytes)
			}
		}
		if cap(r.binBuf) < int(total) {
			r.binBuf = make([]byte, 0, total)
		}
		if cap(r.binOffs) < n+1 {
			r.binOffs = make([]int32, n+1)
		}
		offs := r.binOffs[:n+1]
		out := r.binBuf[:0]
		s, start := 0, 0
		for i := range n {
			p, l := int(prefix[i]), int(lens[i])
			offs[i] = int32(len(out))
			out = append(out, out[start:start+p]...)
			out = append(out, suffixes[s:s+l]...)
			s += l
			start = int(offs[i])
		}
		offs[n] = int32(len(out))
		r.binOffs, r.binBuf, data = offs, out, out
	}
	r.binData = data
	switch r.p.cv {
	case cvBinary:
		r.enc, r.vals = encOffsets, nil
	case cvBAtoDec:
		// PLAIN form: a length before each value.
		offs := r.binOffs
		size := 4*n + int(offs[n])
		if cap(r.delta) < size {
			r.delta = make([]byte, size)
		}
		p := r.delta[:0]
		for i := range n {
			p = binary.LittleEndian.AppendUint32(p, uint32(offs[i+1]-offs[i]))
			p = append(p, data[offs[i]:offs[i+1]]...)
		}
		r.delta = p
		r.enc, r.vals = encPlain, p
	default:
		// FIXED_LEN_BYTE_ARRAY: the values lie back to back already,
		// which is PLAIN once each has the column's width.
		pw := int32(r.p.pw)
		for i := range n {
			if l := r.binOffs[i+1] - r.binOffs[i]; l != pw {
				return fmt.Errorf("%s value %d of %d bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", name, i, l, pw)
			}
		}
		r.enc, r.vals = encPlain, data[:n*r.p.pw]
	}
	return nil
}
