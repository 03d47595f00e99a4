package orc

import (
	"encoding/binary"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Stream encoders of the writer. Each keeps a small bounded window of
// pending values and appends encoded bytes to an allocator-backed buffer,
// so a stripe's memory is its encoded streams plus a few hundred values.

// abuf is a growable byte buffer whose memory comes from the writer's
// allocator. view is the buffer's whole allocation; only Reserve (which
// keeps the contents) touches the Buffer, so appends are slice writes.
type abuf struct {
	b    *memory.Buffer
	view []byte
	n    int
}

func newABuf(mem memory.Allocator) *abuf { return &abuf{b: memory.NewResizableBuffer(mem)} }

func (a *abuf) grow(k int) []byte {
	need := a.n + k
	if need > len(a.view) {
		a.b.Reserve(max(need, 2*len(a.view), 256))
		a.view = a.b.Buf()
	}
	out := a.view[a.n:need]
	a.n = need
	return out
}

func (a *abuf) write(p []byte) { copy(a.grow(len(p)), p) }

func (a *abuf) writeByte(c byte) {
	if a.n < len(a.view) {
		a.view[a.n] = c
		a.n++
		return
	}
	a.grow(1)[0] = c
}

func (a *abuf) bytes() []byte { return a.view[:a.n] }

func (a *abuf) reset() { a.n = 0 }

func (a *abuf) release() {
	if a.b != nil {
		a.b.Release()
		a.b, a.view = nil, nil
	}
}

// byteEnc is ORC's byte RLE: a control byte 0..127 is a run of c+3 copies
// of the next byte, -1..-128 (as int8) is that many literal bytes.
type byteEnc struct {
	out  *abuf
	pend []byte
}

const byteWindow = 1024

func (e *byteEnc) add(c byte) {
	e.pend = append(e.pend, c)
	if len(e.pend) >= byteWindow {
		e.flush()
	}
}

func (e *byteEnc) flush() {
	p := e.pend
	for len(p) > 0 {
		// A run of at least 3 equal bytes at the front?
		r := 1
		for r < len(p) && r < 130 && p[r] == p[0] {
			r++
		}
		if r >= 3 {
			e.out.writeByte(byte(r - 3))
			e.out.writeByte(p[0])
			p = p[r:]
			continue
		}
		// Literals up to the next run of 3 (or 128 bytes).
		l := 0
		for l < len(p) && l < 128 {
			if l+2 < len(p) && p[l] == p[l+1] && p[l] == p[l+2] {
				break
			}
			l++
		}
		e.out.writeByte(byte(256 - l))
		e.out.write(p[:l])
		p = p[l:]
	}
	e.pend = e.pend[:0]
}

// boolEnc packs bits most significant first into bytes fed to a byte RLE.
type boolEnc struct {
	b     byteEnc
	cur   byte
	nbits int
}

func (e *boolEnc) add(v bool) {
	if v {
		e.cur |= 0x80 >> e.nbits
	}
	e.nbits++
	if e.nbits == 8 {
		e.b.add(e.cur)
		e.cur, e.nbits = 0, 0
	}
}

func (e *boolEnc) flush() {
	if e.nbits > 0 {
		e.b.add(e.cur)
		e.cur, e.nbits = 0, 0
	}
	e.b.flush()
}

// intEnc is integer RLE v2 with the SHORT_REPEAT, DELTA (fixed step only)
// and DIRECT sub-encodings; Java's writer also uses PATCHED_BASE and
// variable-step DELTA runs, which only make files smaller.
type intEnc struct {
	out    *abuf
	signed bool
	pend   []int64
}

const intWindow = 512

func (e *intEnc) add(v int64) {
	e.pend = append(e.pend, v)
	if len(e.pend) >= intWindow {
		e.flush()
	}
}

func (e *intEnc) zz(v int64) uint64 {
	if e.signed {
		return uint64(v<<1) ^ uint64(v>>63)
	}
	return uint64(v)
}

func (e *intEnc) flush() {
	p := e.pend
	for len(p) > 0 {
		d := deltaRun(p)
		switch {
		case d >= 3 && d <= 10 && p[1] == p[0]:
			e.shortRepeat(p[0], d)
			p = p[d:]
			continue
		case d >= 3:
			e.delta(p[:d])
			p = p[d:]
			continue
		}
		// Literals up to a repeat of 3 or a fixed-step run of 8.
		l := 1
		for l < len(p) && l < 512 {
			if l+2 < len(p) && p[l+1]-p[l] == p[l+2]-p[l+1] {
				dr := deltaRun(p[l:min(len(p), l+8)])
				if dr >= 8 || dr >= 3 && p[l+1] == p[l] {
					break
				}
			}
			l++
		}
		e.direct(p[:l])
		p = p[l:]
	}
	e.pend = e.pend[:0]
}

// shortRepeat writes n (3..10) copies of v: a header byte (encoding 00,
// byte width-1, n-3), then v big endian.
func (e *intEnc) shortRepeat(v int64, n int) {
	u := e.zz(v)
	w := max(1, (bits.Len64(u)+7)/8)
	e.out.writeByte(byte((w-1)<<3 | (n - 3)))
	for i := w - 1; i >= 0; i-- {
		e.out.writeByte(byte(u >> (8 * i)))
	}
}

// deltaLimit keeps values and steps of DELTA runs far from overflow.
const deltaLimit = 1 << 61

// deltaRun is the length (up to 512) of the run at the front of p whose
// values differ by one fixed step.
func deltaRun(p []int64) int {
	if len(p) < 2 || p[0] > deltaLimit || p[0] < -deltaLimit || p[1] > deltaLimit || p[1] < -deltaLimit {
		return min(len(p), 1)
	}
	step := p[1] - p[0]
	r := 2
	for r < len(p) && r < 512 && p[r]-p[r-1] == step && p[r] <= deltaLimit && p[r] >= -deltaLimit {
		r++
	}
	return r
}

// delta writes a fixed-step run as DELTA with width code 0: the header
// (encoding 11, width 0, length-1), the base (zigzag when signed) and the
// step as zigzag varints.
func (e *intEnc) delta(vals []int64) {
	n := len(vals) - 1
	e.out.writeByte(byte(0xc0 | n>>8))
	e.out.writeByte(byte(n))
	var tmp [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(tmp[:], e.zz(vals[0]))
	e.out.write(tmp[:k])
	step := vals[1] - vals[0]
	k = binary.PutUvarint(tmp[:], uint64(step<<1)^uint64(step>>63))
	e.out.write(tmp[:k])
}

// direct writes vals as one DIRECT run: a 2-byte header (encoding 01, the
// 5-bit width code, 9 bits of length-1), then the values bit-packed big
// endian.
func (e *intEnc) direct(vals []int64) {
	need := 1
	for _, v := range vals {
		need = max(need, bits.Len64(e.zz(v)))
	}
	width, code := fixedWidth(need)
	n := len(vals) - 1
	e.out.writeByte(byte(0x40 | code<<1 | n>>8))
	e.out.writeByte(byte(n))
	var acc uint64 // pending bits, right aligned
	nacc := 0
	for _, v := range vals {
		u := e.zz(v)
		for left := width; left > 0; {
			take := min(left, 8-nacc)
			acc = acc<<take | (u>>(left-take))&(1<<take-1)
			nacc += take
			left -= take
			if nacc == 8 {
				e.out.writeByte(byte(acc))
				acc, nacc = 0, 0
			}
		}
	}
	if nacc > 0 {
		e.out.writeByte(byte(acc << (8 - nacc)))
	}
}

// fixedWidth rounds a bit width up to one RLE v2 can encode and returns it
// with its 5-bit code.
func fixedWidth(n int) (int, int) {
	switch {
	case n <= 24:
		return n, n - 1
	case n <= 26:
		return 26, 24
	case n <= 28:
		return 28, 25
	case n <= 30:
		return 30, 26
	case n <= 32:
		return 32, 27
	case n <= 40:
		return 40, 28
	case n <= 48:
		return 48, 29
	case n <= 56:
		return 56, 30
	}
	return 64, 31
}

// formatNanos drops trailing decimal zeros of a nanosecond value the way
// ORC's SECONDARY timestamp stream stores it: value<<3 | (zeros-1).
func formatNanos(ns int64) int64 {
	if ns == 0 || ns%100 != 0 {
		return ns << 3
	}
	ns /= 100
	z := int64(1)
	for ns%10 == 0 && z < 7 {
		ns /= 10
		z++
	}
	return ns<<3 | z
}
