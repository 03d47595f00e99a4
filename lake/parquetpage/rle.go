package parquetpage

import (
	"encoding/binary"
	"errors"
	"fmt"
)

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
			for i := range dst[:n] {
				dst[i] = v
			}
			d.rleLeft -= n
			dst = dst[n:]
		case d.bpLeft > 0:
			n := min(d.bpLeft, len(dst))
			bit := d.bpBit
			for i := range dst[:n] {
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

// decodeDict fills dst with the dictionary values of the next len(dst)
// indices, without staging the indices (dense reads of 4- and 8-byte
// values). An index past the dictionary stops it with bad set.
func decodeDict[T uint32 | uint64](d *rleDecoder, dst, dict []T) (bad int64, err error) {
	n := uint32(len(dict))
	for len(dst) > 0 {
		switch {
		case d.rleLeft > 0:
			k := min(d.rleLeft, len(dst))
			if d.rleVal >= n {
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
			if (bit+k*bw)>>3+8 <= len(d.b) {
				b, mask := d.b, uint64(1)<<d.bw-1
				for i := range dst[:k] {
					ix := uint32(binary.LittleEndian.Uint64(b[bit>>3:]) >> uint(bit&7) & mask)
					if ix >= n {
						return int64(ix), nil
					}
					dst[i] = dict[ix]
					bit += bw
				}
			} else {
				for i := range dst[:k] {
					ix := d.unpack(bit)
					if ix >= n {
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
