package orc

import "fmt"

// Run-length codecs of the ORC specification. Every decoder reads from an
// already decompressed stream and fills the whole destination or fails with
// an ErrCorrupt naming the stream (what) and the stream offset.

// byteRLE: a control byte c in 0..127 is a run of c+3 copies of the next
// byte; c in 128..255 is 256-c literal bytes.
type byteRLE struct {
	src  []byte
	pos  int
	left int  // values left in the current run
	lit  bool // current run is literal
	val  byte // repeated value
	what string
}

func (d *byteRLE) errf(format string, a ...any) error {
	return fmt.Errorf("%w: %s at stream offset %d: %s", ErrCorrupt, d.what, d.pos, fmt.Sprintf(format, a...))
}

func (d *byteRLE) next(dst []byte) error {
	for i := 0; i < len(dst); {
		if d.left == 0 {
			if d.pos >= len(d.src) {
				return d.errf("byte RLE stream ends, %d values missing", len(dst)-i)
			}
			c := d.src[d.pos]
			d.pos++
			if c < 128 {
				if d.pos >= len(d.src) {
					return d.errf("byte RLE run without value")
				}
				d.left, d.lit, d.val = int(c)+3, false, d.src[d.pos]
				d.pos++
			} else {
				d.left, d.lit = 256-int(c), true
				if d.left > len(d.src)-d.pos {
					return d.errf("byte RLE literal run of %d exceeds stream", d.left)
				}
			}
		}
		n := min(d.left, len(dst)-i)
		if d.lit {
			copy(dst[i:i+n], d.src[d.pos:d.pos+n])
			d.pos += n
		} else {
			v := d.val
			for j := i; j < i+n; j++ {
				dst[j] = v
			}
		}
		d.left -= n
		i += n
	}
	return nil
}

// boolRLE: byte RLE of bytes whose bits, most significant first, are the
// values.
type boolRLE struct {
	bytes byteRLE
	cur   byte
	nbits int // bits left in cur
	buf   []byte
}

func newBoolRLE(src []byte, what string) *boolRLE {
	return &boolRLE{bytes: byteRLE{src: src, what: what}}
}

func (d *boolRLE) next(dst []bool) error {
	i := 0
	for i < len(dst) && d.nbits > 0 {
		dst[i] = d.cur&0x80 != 0
		d.cur <<= 1
		d.nbits--
		i++
	}
	if i == len(dst) {
		return nil
	}
	rest := len(dst) - i
	nb := (rest + 7) / 8
	if cap(d.buf) < nb {
		d.buf = make([]byte, nb)
	}
	buf := d.buf[:nb]
	if err := d.bytes.next(buf); err != nil {
		return err
	}
	for _, b := range buf[:rest/8] {
		dst[i] = b&0x80 != 0
		dst[i+1] = b&0x40 != 0
		dst[i+2] = b&0x20 != 0
		dst[i+3] = b&0x10 != 0
		dst[i+4] = b&0x08 != 0
		dst[i+5] = b&0x04 != 0
		dst[i+6] = b&0x02 != 0
		dst[i+7] = b&0x01 != 0
		i += 8
	}
	if i < len(dst) {
		b := buf[nb-1]
		d.nbits = 8
		for i < len(dst) {
			dst[i] = b&0x80 != 0
			b <<= 1
			d.nbits--
			i++
		}
		d.cur = b
	}
	return nil
}

// intDecoder yields integers from an RLE v1 or v2 stream. Unsigned streams
// return the raw 64-bit pattern.
type intDecoder interface {
	next(dst []int64) error
}

func newIntDecoder(src []byte, signed, v2 bool, what string) intDecoder {
	if v2 {
		return &intRLEv2{src: src, signed: signed, what: what}
	}
	return &intRLEv1{src: src, signed: signed, what: what}
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// readVarint decodes a base-128 little-endian varint.
func readVarint(src []byte, pos int) (uint64, int, bool) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if pos >= len(src) {
			return 0, pos, false
		}
		b := src[pos]
		pos++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			if shift == 63 && b > 1 {
				return 0, pos, false
			}
			return v, pos, true
		}
	}
	return 0, pos, false
}

// intRLEv1: control c in 0..127 is a run of c+3 values: a signed delta
// byte, then the base varint; c in 128..255 is 256-c literal varints.
type intRLEv1 struct {
	src    []byte
	pos    int
	signed bool
	what   string
	left   int
	lit    bool
	cur    int64
	delta  int64
}

func (d *intRLEv1) errf(format string, a ...any) error {
	return fmt.Errorf("%w: %s at stream offset %d: %s", ErrCorrupt, d.what, d.pos, fmt.Sprintf(format, a...))
}

func (d *intRLEv1) varint() (int64, error) {
	u, p, ok := readVarint(d.src, d.pos)
	if !ok {
		return 0, d.errf("bad varint")
	}
	d.pos = p
	if d.signed {
		return unzigzag(u), nil
	}
	return int64(u), nil
}

func (d *intRLEv1) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if d.left == 0 {
			if d.pos >= len(d.src) {
				return d.errf("integer RLE v1 stream ends, %d values missing", len(dst)-i)
			}
			c := d.src[d.pos]
			d.pos++
			if c < 128 {
				if d.pos >= len(d.src) {
					return d.errf("integer RLE v1 run without delta")
				}
				d.delta = int64(int8(d.src[d.pos]))
				d.pos++
				v, err := d.varint()
				if err != nil {
					return err
				}
				d.cur, d.left, d.lit = v, int(c)+3, false
			} else {
				d.left, d.lit = 256-int(c), true
			}
		}
		n := min(d.left, len(dst)-i)
		if d.lit {
			for j := i; j < i+n; j++ {
				v, err := d.varint()
				if err != nil {
					return err
				}
				dst[j] = v
			}
		} else {
			for j := i; j < i+n; j++ {
				dst[j] = d.cur
				d.cur += d.delta
			}
		}
		d.left -= n
		i += n
	}
	return nil
}

// intRLEv2 decodes the four RLE v2 sub-encodings, selected by the top two
// bits of the first header byte:
//
//	0 SHORT_REPEAT  [00 WWW CCC]: a value of W+1 big-endian bytes, repeated C+3 times
//	1 DIRECT        [01 WWWWW L][LLLLLLLL]: L+1 values of width(W) bits, big-endian packed
//	2 PATCHED_BASE  DIRECT header, then [BBB PPPPP][GGG NNNNN], a sign-magnitude
//	                base of B+1 bytes, L+1 values, N patches of (G+1)+width(P) bits
//	3 DELTA         DIRECT header (W=0: fixed delta), base varint, delta varint
//	                (signed), then L-1 deltas of width(W) bits
type intRLEv2 struct {
	src    []byte
	pos    int
	signed bool
	what   string
	buf    []int64 // values of the current run not yet returned: buf[bpos:]
	bpos   int
	// direct, while a run is decoded, is the caller's room for it: a run
	// that fits is decoded there rather than into buf and copied out.
	direct  []int64
	patches []int64 // scratch of PATCHED_BASE runs
}

func (d *intRLEv2) errf(format string, a ...any) error {
	return fmt.Errorf("%w: %s at stream offset %d: %s", ErrCorrupt, d.what, d.pos, fmt.Sprintf(format, a...))
}

func (d *intRLEv2) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if d.bpos == len(d.buf) {
			d.direct = dst[i:]
			n, err := d.run()
			d.direct = nil
			if err != nil {
				return err
			}
			if n > 0 { // decoded in place
				i += n
				continue
			}
		}
		n := copy(dst[i:], d.buf[d.bpos:])
		d.bpos += n
		i += n
	}
	return nil
}

var widthTable = [32]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64}

func closestFixedBits(n int) int {
	switch {
	case n == 0:
		return 1
	case n <= 24:
		return n
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	}
	return 64
}

// unpack reads len(dst) big-endian values of width bits each.
func (d *intRLEv2) unpack(dst []int64, width int) error {
	need := (len(dst)*width + 7) / 8
	if need > len(d.src)-d.pos {
		return d.errf("bit-packed run needs %d bytes, %d left", need, len(d.src)-d.pos)
	}
	src := d.src[d.pos : d.pos+need]
	d.pos += need
	switch width {
	case 8:
		for i := range dst {
			dst[i] = int64(src[i])
		}
		return nil
	case 16:
		for i := range dst {
			dst[i] = int64(src[2*i])<<8 | int64(src[2*i+1])
		}
		return nil
	case 32:
		for i := range dst {
			j := 4 * i
			dst[i] = int64(src[j])<<24 | int64(src[j+1])<<16 | int64(src[j+2])<<8 | int64(src[j+3])
		}
		return nil
	}
	if width <= 56 {
		// The low nacc bits of acc are unread; refill a byte at a time.
		var acc uint64
		nacc := 0
		p := 0
		mask := uint64(1)<<width - 1
		for i := range dst {
			for nacc < width {
				acc = acc<<8 | uint64(src[p])
				p++
				nacc += 8
			}
			nacc -= width
			dst[i] = int64(acc >> nacc & mask)
		}
		return nil
	}
	var acc uint64 // bits not yet consumed, right-aligned
	nacc := 0
	p := 0
	for i := range dst {
		var v uint64
		w := width
		for w > 0 {
			if nacc == 0 {
				acc = uint64(src[p])
				p++
				nacc = 8
			}
			take := min(w, nacc)
			v = v<<take | (acc>>(nacc-take))&(1<<take-1)
			nacc -= take
			w -= take
		}
		dst[i] = int64(v)
	}
	return nil
}

// run decodes the next run, into d.direct when it fits (returning its
// length) or else into d.buf (returning 0).
func (d *intRLEv2) run() (int, error) {
	if d.pos >= len(d.src) {
		return 0, d.errf("integer RLE v2 stream ends")
	}
	var out []int64
	h := d.src[d.pos]
	switch h >> 6 {
	case 0: // short repeat
		w := int(h>>3&7) + 1
		n := int(h&7) + 3
		if w > len(d.src)-d.pos-1 {
			return 0, d.errf("short repeat value truncated")
		}
		var u uint64
		for _, b := range d.src[d.pos+1 : d.pos+1+w] {
			u = u<<8 | uint64(b)
		}
		d.pos += 1 + w
		v := int64(u)
		if d.signed {
			v = unzigzag(u)
		}
		out = d.resize(n)
		for i := range out {
			out[i] = v
		}
	case 1: // direct
		if len(d.src)-d.pos < 2 {
			return 0, d.errf("direct header truncated")
		}
		w := widthTable[h>>1&31]
		n := (int(h&1)<<8 | int(d.src[d.pos+1])) + 1
		d.pos += 2
		out = d.resize(n)
		if err := d.unpack(out, w); err != nil {
			return 0, err
		}
		if d.signed {
			for i, v := range out {
				out[i] = unzigzag(uint64(v))
			}
		}
	case 2:
		var err error
		out, err = d.patched(h)
		if err != nil {
			return 0, err
		}
	case 3:
		var err error
		out, err = d.deltaRun(h)
		if err != nil {
			return 0, err
		}
	}
	if len(d.buf) == 0 {
		return len(out), nil
	}
	return 0, nil
}

// resize returns where a run of n values decodes: the caller's room
// (d.buf left empty) or d.buf.
func (d *intRLEv2) resize(n int) []int64 {
	d.bpos = 0
	if len(d.direct) >= n {
		d.buf = d.buf[:0]
		return d.direct[:n]
	}
	if cap(d.buf) < n {
		d.buf = make([]int64, n, 512)
	}
	d.buf = d.buf[:n]
	return d.buf
}

func (d *intRLEv2) patched(h byte) ([]int64, error) {
	if len(d.src)-d.pos < 4 {
		return nil, d.errf("patched base header truncated")
	}
	w := widthTable[h>>1&31]
	n := (int(h&1)<<8 | int(d.src[d.pos+1])) + 1
	b3, b4 := d.src[d.pos+2], d.src[d.pos+3]
	bw := int(b3>>5) + 1
	pw := widthTable[b3&31]
	pgw := int(b4>>5) + 1
	pll := int(b4 & 31)
	d.pos += 4
	if bw > len(d.src)-d.pos {
		return nil, d.errf("patched base value truncated")
	}
	var base uint64
	for _, b := range d.src[d.pos : d.pos+bw] {
		base = base<<8 | uint64(b)
	}
	d.pos += bw
	sign := uint64(1) << (8*bw - 1)
	baseVal := int64(base &^ sign)
	if base&sign != 0 {
		baseVal = -baseVal
	}
	out := d.resize(n)
	if err := d.unpack(out, w); err != nil {
		return nil, err
	}
	if w+pw > 64 {
		return nil, d.errf("patch width %d + value width %d exceeds 64", pw, w)
	}
	if pll > 0 {
		pbits := closestFixedBits(pgw + pw)
		if cap(d.patches) < pll {
			d.patches = make([]int64, 32) // pll < 32
		}
		patches := d.patches[:pll]
		if err := d.unpack(patches, pbits); err != nil {
			return nil, err
		}
		idx := 0
		pmask := uint64(1)<<pw - 1
		if pw == 64 {
			pmask = ^uint64(0)
		}
		for _, p := range patches {
			gap := int(uint64(p) >> pw)
			patch := uint64(p) & pmask
			idx += gap
			if idx >= n {
				return nil, d.errf("patch position %d beyond run of %d", idx, n)
			}
			out[idx] = int64(uint64(out[idx]) | patch<<w)
		}
	}
	for i := range out {
		out[i] += baseVal
	}
	return out, nil
}

func (d *intRLEv2) deltaRun(h byte) ([]int64, error) {
	if len(d.src)-d.pos < 2 {
		return nil, d.errf("delta header truncated")
	}
	fw := int(h >> 1 & 31)
	w := 0
	if fw != 0 {
		w = widthTable[fw]
	}
	n := (int(h&1)<<8 | int(d.src[d.pos+1])) + 1
	d.pos += 2
	u, p, ok := readVarint(d.src, d.pos)
	if !ok {
		return nil, d.errf("delta base varint")
	}
	d.pos = p
	base := int64(u)
	if d.signed {
		base = unzigzag(u)
	}
	u, p, ok = readVarint(d.src, d.pos)
	if !ok {
		return nil, d.errf("delta varint")
	}
	d.pos = p
	delta := unzigzag(u)
	out := d.resize(n)
	if w == 0 {
		v := base
		for i := range out {
			out[i] = v
			v += delta
		}
		return out, nil
	}
	out[0] = base
	if n == 1 {
		return out, nil
	}
	out[1] = base + delta
	if n > 2 {
		if err := d.unpack(out[2:], w); err != nil {
			return nil, err
		}
		// the packed deltas are magnitudes; the first delta's sign applies to all
		if delta < 0 {
			for i := 2; i < n; i++ {
				out[i] = out[i-1] - out[i]
			}
		} else {
			for i := 2; i < n; i++ {
				out[i] = out[i-1] + out[i]
			}
		}
	}
	return out, nil
}
