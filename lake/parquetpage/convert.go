package parquetpage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrRange marks a well-formed value the output type cannot hold (an INT96
// instant outside int64 nanoseconds).
var ErrRange = errors.New("value out of range")

// convert decodes m PLAIN values of src into dst (m × ow bytes) and
// returns how many bytes of src they took. Booleans are not handled here.
func (r *Reader) convert(dst, src []byte, m int) (int, error) {
	p := r.p
	if p.pw > 0 && len(src)/p.pw < m {
		return 0, fmt.Errorf("%d values of %d bytes in %d bytes", m, p.pw, len(src))
	}
	switch p.cv {
	case cvCopy:
		return copy(dst[:m*p.ow], src[:m*p.pw]), nil
	case cvI32toI8:
		for i := 0; i < m; i++ {
			dst[i] = src[4*i]
		}
	case cvI32toI16:
		for i := 0; i < m; i++ {
			dst[2*i], dst[2*i+1] = src[4*i], src[4*i+1]
		}
	case cvI32toDec:
		for i := 0; i < m; i++ {
			v := int64(int32(binary.LittleEndian.Uint32(src[4*i:])))
			binary.LittleEndian.PutUint64(dst[16*i:], uint64(v))
			binary.LittleEndian.PutUint64(dst[16*i+8:], uint64(v>>63))
		}
	case cvI64toDec:
		for i := 0; i < m; i++ {
			v := int64(binary.LittleEndian.Uint64(src[8*i:]))
			binary.LittleEndian.PutUint64(dst[16*i:], uint64(v))
			binary.LittleEndian.PutUint64(dst[16*i+8:], uint64(v>>63))
		}
	case cvInt96:
		for i := 0; i < m; i++ {
			ns, ok := Int96Nanos(src[12*i : 12*i+12])
			if !ok {
				return 0, fmt.Errorf("%w: INT96 timestamp (Julian day %d) is outside the nanosecond range of years 1677..2262", ErrRange, binary.LittleEndian.Uint32(src[12*i+8:]))
			}
			q := ns / p.div
			if ns%p.div < 0 {
				q--
			}
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(q))
		}
	case cvFLBAtoDec:
		for i := 0; i < m; i++ {
			putBigEndianDecimal(dst[16*i:16*i+16], src[p.pw*i:p.pw*(i+1)])
		}
	case cvBAtoDec:
		pos := 0
		for i := 0; i < m; i++ {
			if len(src)-pos < 4 {
				return 0, errShort
			}
			l := binary.LittleEndian.Uint32(src[pos:])
			pos += 4
			if uint64(l) > uint64(len(src)-pos) {
				return 0, errShort
			}
			if l > 16 {
				return 0, fmt.Errorf("decimal of %d bytes", l)
			}
			putBigEndianDecimal(dst[16*i:16*i+16], src[pos:pos+int(l)])
			pos += int(l)
		}
		return pos, nil
	default:
		return 0, fmt.Errorf("internal: conversion %d", p.cv)
	}
	return m * p.pw, nil
}

// putBigEndianDecimal writes the big-endian two's complement integer b
// (at most 16 bytes) as a little-endian 128-bit integer.
func putBigEndianDecimal(dst, b []byte) {
	var fill byte
	if len(b) > 0 && b[0]&0x80 != 0 {
		fill = 0xff
	}
	for i := range dst {
		dst[i] = fill
	}
	for i := 0; i < len(b); i++ {
		dst[i] = b[len(b)-1-i]
	}
}

const (
	julianDayOfEpoch = 2440588
	nanosPerDay      = 86400 * 1_000_000_000
)

// Int96Nanos returns the instant of a 12-byte INT96 timestamp as
// nanoseconds since the epoch: (Julian day − 2440588) × 86400 s +
// nanoseconds of the day, the latter read signed (Java Paimon writes
// instants before 1970 with a negative one). ok is false when the instant
// is outside int64 nanoseconds.
func Int96Nanos(v []byte) (nanos int64, ok bool) {
	if len(v) < 12 {
		return 0, false
	}
	nod := int64(binary.LittleEndian.Uint64(v[:8]))
	day := int64(binary.LittleEndian.Uint32(v[8:12])) - julianDayOfEpoch
	const maxDay = math.MaxInt64 / nanosPerDay
	if day > maxDay || day < -maxDay {
		return 0, false
	}
	dn := day * nanosPerDay
	sum := dn + nod
	if (dn >= 0) == (nod >= 0) && (sum >= 0) != (dn >= 0) {
		return 0, false
	}
	return sum, true
}
