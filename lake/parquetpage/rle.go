package parquetpage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unsafe"
)

//go:generate go run genunpack.go

// rleDecoder reads the RLE/bit-packed hybrid encoding (levels, dictionary
// indices, RLE booleans).
type rleDecoder struct {
	b   []byte
	pos int
	bw  uint
	// current run: rleLeft repeats of rleVal, or bpLeft packed values
	// starting at bit bpBit of b
	rleLeft int
	rleVal  uint32
	bpLeft  int
	bpBit   int
}

func (d *rleDecoder) init(b []byte, bw int) error {
	if bw < 0 || bw > 32 {
		return fmt.Errorf("bit width %d", bw)
	}
	*d = rleDecoder{b: b, bw: uint(bw)}
	return nil
}

var errRunsEnd = errors.New("RLE/bit-packed data ends before its values")

func (d *rleDecoder) nextRun() error {
	var h uint64
	var shift uint
	for {
		if d.pos >= len(d.b) {
			return errRunsEnd
		}
		c := d.b[d.pos]
		d.pos++
		h |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
		if shift > 35 {
			return errors.New("RLE run header too long")
		}
	}
	if h&1 == 1 {
		groups := h >> 1
		nbytes := groups * uint64(d.bw)
		avail := uint64(len(d.b) - d.pos)
		n := groups * 8
		if nbytes > avail {
			// A final run may stop short of its last group's bytes.
			if d.bw == 0 {
				return errRunsEnd
			}
			n = avail * 8 / uint64(d.bw)
			nbytes = avail
		}
		if n == 0 {
			return errRunsEnd
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		d.bpLeft = int(n)
		d.bpBit = d.pos * 8
		d.pos += int(nbytes)
		return nil
	}
	n := h >> 1
	if n == 0 {
		return errors.New("RLE run of length 0")
	}
	if n > 1<<31 {
		n = 1 << 31
	}
	w := int(d.bw+7) / 8
	if len(d.b)-d.pos < w {
		return errRunsEnd
	}
	var v uint32
	for i := 0; i < w; i++ {
		v |= uint32(d.b[d.pos+i]) << (8 * i)
	}
	d.pos += w
	d.rleLeft = int(n)
	d.rleVal = v
	return nil
}

// unpack reads the packed value at bit offset bit.
func (d *rleDecoder) unpack(bit int) uint32 {
	i := bit >> 3
	var w uint64
	if i+8 <= len(d.b) {
		w = binary.LittleEndian.Uint64(d.b[i:])
	} else {
		for k := 0; i+k < len(d.b); k++ {
			w |= uint64(d.b[i+k]) << (8 * k)
		}
	}
	return uint32((w >> uint(bit&7)) & (1<<d.bw - 1))
}

// decode fills dst.
func (d *rleDecoder) decode(dst []uint32) error {
	for len(dst) > 0 {
		switch {
		case d.rleLeft > 0:
			n := min(d.rleLeft, len(dst))
			v := d.rleVal
			for i := range dst[:n] {
				dst[i] = v
			}
			d.rleLeft -= n
			dst = dst[n:]
		case d.bpLeft > 0:
			n := min(d.bpLeft, len(dst))
			bw := int(d.bw)
			bit := d.bpBit
			if bit&7 == 0 && n >= 32 {
				// Whole blocks of 32 from a byte boundary: the run holds
				// their 4×bw bytes (nextRun counted them).
				unpack, i := unpackers[bw], 0
				for ; i+32 <= n; i += 32 {
					unpack(d.b[bit>>3:], (*[32]uint32)(dst[i:i+32]))
					bit += 32 * bw
				}
				d.bpBit, d.bpLeft = bit, d.bpLeft-i
				dst = dst[i:]
				continue
			}
			if n > 32 {
				// Up to the next byte boundary (at most 7 values), then
				// blocks.
				for n = 1; (bit+n*bw)&7 != 0; n++ {
				}
			}
			if (bit+n*bw)>>3+8 <= len(d.b) {
				// Every 8-byte load stays inside b: no per-value check.
				b, mask := d.b, uint64(1)<<d.bw-1
				for i := range dst[:n] {
					dst[i] = uint32(binary.LittleEndian.Uint64(b[bit>>3:]) >> uint(bit&7) & mask)
					bit += bw
				}
			} else {
				for i := range dst[:n] {
					dst[i] = d.unpack(bit)
					bit += bw
				}
			}
			d.bpBit = bit
			d.bpLeft -= n
			dst = dst[n:]
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillBytes sets every byte of dst to v, eight at a time.
func fillBytes(dst []byte, v byte) {
	if v == 0 {
		clear(dst)
		return
	}
	w := uint64(v) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], w)
	}
	for ; i < len(dst); i++ {
		dst[i] = v
	}
}

// levelBytes[c] is the byte c's eight bits, low bit first, as eight 0/1
// bytes (little-endian word).
var levelBytes = func() (t [256]uint64) {
	for c := range t {
		for k := 0; k < 8; k++ {
			t[c] |= uint64(c>>k&1) << (8 * k)
		}
	}
	return t
}()

// decodeLevels fills dst with definition levels of maximum 1, as 0/1
// bytes, and returns how many are 1.
func (d *rleDecoder) decodeLevels(dst []byte) (int, error) {
	ones := 0
	for len(dst) > 0 {
		switch {
		case d.rleLeft > 0:
			n := min(d.rleLeft, len(dst))
			v := byte(0)
			if d.rleVal != 0 {
				v = 1
				ones += n
			}
			if d.rleVal > 1 {
				return 0, fmt.Errorf("definition level %d above the maximum 1", d.rleVal)
			}
			fillBytes(dst[:n], v)
			d.rleLeft -= n
			dst = dst[n:]
		case d.bpLeft > 0:
			n := min(d.bpLeft, len(dst))
			bit := d.bpBit
			i := 0
			if d.bw == 1 {
				// Whole bytes of eight levels at a time.
				for ; i < n && bit&7 != 0; i++ {
					v := byte(d.unpack(bit))
					dst[i] = v
					ones += int(v)
					bit++
				}
				b := d.b[bit>>3:]
				for ; i+8 <= n && len(b) > 0; i += 8 {
					c := b[0]
					b = b[1:]
					binary.LittleEndian.PutUint64(dst[i:i+8], levelBytes[c])
					ones += bits.OnesCount8(c)
					bit += 8
				}
			}
			for ; i < n; i++ {
				v := byte(d.unpack(bit))
				dst[i] = v
				ones += int(v)
				bit++
			}
			d.bpBit = bit
			d.bpLeft -= n
			dst = dst[n:]
		default:
			if err := d.nextRun(); err != nil {
				return 0, err
			}
		}
	}
	return ones, nil
}

// allOnes reports whether the RLE/bit-packed definition levels (bit
// width 1) start with nv levels of 1 in RLE runs, the way writers encode
// a page without NULLs; then the page needs no levels expanded and no
// validity bits. Anything else (a bit-packed run, a 0, levels too short
// or malformed) answers false, and decodeLevels reads them, reporting
// malformed levels.
func allOnes(levels []byte, nv int) bool {
	var d rleDecoder
	_ = d.init(levels, 1)
	for nv > 0 {
		if d.nextRun() != nil || d.bpLeft > 0 || d.rleVal != 1 {
			return false
		}
		nv -= d.rleLeft
	}
	return true
}

// decodeDict fills dst with the dictionary values of the next len(dst)
// indices, without staging them (dense reads of 4-, 8- and 16-byte
// values). An index past the dictionary stops it with
// bad set.
func decodeDict[T dictValue](d *rleDecoder, dst, dict []T) (bad int64, err error) {
	for len(dst) > 0 {
		switch {
		case d.rleLeft > 0:
			k := min(d.rleLeft, len(dst))
			if int(d.rleVal) >= len(dict) {
				return int64(d.rleVal), nil
			}
			v := dict[d.rleVal]
			for i := range dst[:k] {
				dst[i] = v
			}
			d.rleLeft -= k
			dst = dst[k:]
		case d.bpLeft > 0:
			k := min(d.bpLeft, len(dst))
			bw := int(d.bw)
			bit := d.bpBit
			if bit&7 == 0 && k >= 32 {
				// Blocks of 32 indices unpacked and gathered by the
				// width's kernel, each index checked against the
				// dictionary once (which also lets the compiler drop the
				// gather's own check).
				gather, i := gathersFor[T]()[bw], 0
				for ; i+32 <= k; i += 32 {
					if bad := gather(d.b[bit>>3:], dict, dst[i:i+32]); bad >= 0 {
						return bad, nil
					}
					bit += 32 * bw
				}
				d.bpBit, d.bpLeft = bit, d.bpLeft-i
				dst = dst[i:]
				continue
			}
			if k > 32 {
				// Up to the next byte boundary, then blocks.
				for k = 1; (bit+k*bw)&7 != 0; k++ {
				}
			}
			if (bit+k*bw)>>3+8 <= len(d.b) {
				b, mask := d.b, uint64(1)<<d.bw-1
				for i := range dst[:k] {
					ix := uint32(binary.LittleEndian.Uint64(b[bit>>3:]) >> uint(bit&7) & mask)
					if int(ix) >= len(dict) {
						return int64(ix), nil
					}
					dst[i] = dict[ix]
					bit += bw
				}
			} else {
				for i := range dst[:k] {
					ix := d.unpack(bit)
					if int(ix) >= len(dict) {
						return int64(ix), nil
					}
					dst[i] = dict[ix]
					bit += bw
				}
			}
			d.bpBit = bit
			d.bpLeft -= k
			dst = dst[k:]
		default:
			if err := d.nextRun(); err != nil {
				return -1, err
			}
		}
	}
	return -1, nil
}

// dictValue is a dictionary value decodeDict gathers whole: 4, 8 or 16
// bytes (a decimal).
type dictValue interface {
	uint32 | uint64 | [2]uint64
}

// gathersFor is the gather kernels' table for values of type T.
func gathersFor[T dictValue]() *[33]func(in []byte, dict, out []T) int64 {
	var z T
	switch any(z).(type) {
	case uint32:
		return any(&gathers32).(*[33]func(in []byte, dict, out []T) int64)
	case uint64:
		return any(&gathers64).(*[33]func(in []byte, dict, out []T) int64)
	}
	return any(&gathers128).(*[33]func(in []byte, dict, out []T) int64)
}

// skip moves past the next n values without decoding them.
func (d *rleDecoder) skip(n int) error {
	for n > 0 {
		switch {
		case d.rleLeft > 0:
			k := min(d.rleLeft, n)
			d.rleLeft -= k
			n -= k
		case d.bpLeft > 0:
			k := min(d.bpLeft, n)
			d.bpBit += k * int(d.bw)
			d.bpLeft -= k
			n -= k
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// one decodes the next value.
func (d *rleDecoder) one() (uint32, error) {
	for {
		switch {
		case d.rleLeft > 0:
			d.rleLeft--
			return d.rleVal, nil
		case d.bpLeft > 0:
			v := d.unpack(d.bpBit)
			d.bpBit += int(d.bw)
			d.bpLeft--
			return v, nil
		}
		if err := d.nextRun(); err != nil {
			return 0, err
		}
	}
}

// decodeDictSparse writes to the selected rows of dst the dictionary
// values of their indices, decoding only those and skipping the rest of
// the segment's indices; rows not selected and NULL rows (defs[i] == 0,
// when defs is set; they have no index) get zero. It is the gather for a
// selection so sparse that decoding every index would dominate: each run
// of selected rows is decoded at once (decodeDict, then spread over its
// NULLs), each run of unselected rows only counted. An index past the
// dictionary stops it with bad set.
func decodeDictSparse[T uint32 | uint64](d *rleDecoder, dst, dict []T, defs []byte, sel []bool) (bad int64, err error) {
	sel = sel[:len(dst)]
	if defs != nil {
		defs = defs[:len(dst)]
	}
	if len(sel) == 0 {
		return -1, nil
	}
	// selB is sel as bytes (a bool is one byte, 0 or 1): eight rows none
	// of which is selected are one zero word, eight all selected one
	// word of ones.
	selB := unsafe.Slice((*byte)(unsafe.Pointer(&sel[0])), len(sel))
	const ones = 0x0101010101010101
	pending := 0 // indices of unselected non-NULL rows not yet skipped
	for i := 0; i < len(sel); {
		j := i
		for j+8 <= len(sel) && binary.LittleEndian.Uint64(selB[j:]) == 0 {
			j += 8
		}
		for j < len(sel) && !sel[j] {
			j++
		}
		if j > i {
			clear(dst[i:j])
			pending += nonNull(defs, i, j)
			i = j
			continue
		}
		for j+8 <= len(sel) && binary.LittleEndian.Uint64(selB[j:]) == ones {
			j += 8
		}
		for j < len(sel) && sel[j] {
			j++
		}
		if pending > 0 {
			if err := d.skip(pending); err != nil {
				return -1, err
			}
			pending = 0
		}
		m := nonNull(defs, i, j)
		if bad, err := decodeDict(d, dst[i:i+m], dict); bad >= 0 || err != nil {
			return bad, err
		}
		if m < j-i {
			spreadW(dst[i:j], defs[i:j], m)
		}
		i = j
	}
	if pending > 0 {
		if err := d.skip(pending); err != nil {
			return -1, err
		}
	}
	return -1, nil
}

// nonNull counts the rows of i..j whose definition level is 1 (all of
// them when defs is nil).
func nonNull(defs []byte, i, j int) int {
	if defs == nil {
		return j - i
	}
	k := 0
	for ; i+8 <= j; i += 8 {
		k += bits.OnesCount64(binary.LittleEndian.Uint64(defs[i:]))
	}
	for ; i < j; i++ {
		k += int(defs[i])
	}
	return k
}
