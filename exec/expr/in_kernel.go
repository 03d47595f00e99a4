package expr

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IN lists in queries are short (TPC-H: 2 to 8 values). Hashing every
// row's value for a Go map was most of what IN cost (Q12: a third of the
// query's CPU), so the list is compiled once into a probe suited to its
// type: integers (and DATE days) into a bitmap over their span, or a
// sorted slice when the span is wide; strings into per-candidate length
// and leading-8-byte words compared against the Arrow buffers in place;
// decimals into a short slice. Other types keep the hash set.

// inStrMax, inDecMax: longer lists probe the hash set (still after the
// length prefilter for strings).
const (
	inStrMax    = 16
	inDecMax    = 16
	inBitmapMax = 1 << 16 // bits: a span up to this uses a bitmap (8 KiB)
)

// inProbe is the compiled form of a constant IN list's non-NULL values.
type inProbe struct {
	// integers: the bitmap over [lo, lo+span) when bits != nil, else the
	// sorted distinct values.
	intOK bool
	lo    int64
	span  uint64
	bits  []uint64
	ints  []int64

	// strings: the candidates (nil with strMap set for long lists), and
	// which lengths occur (bit min(len, 63)).
	strOK bool
	strs  []inStr
	// short: every candidate fits a word (and the list is short): a value
	// is then in it when its length and masked word match one's.
	short   bool
	words   []uint64
	wlens   []int
	strMap  map[string]struct{}
	lenMask uint64

	decOK bool
	decs  []decimal128.Num
	decs0 map[decimal128.Num]struct{}
}

// inStr is one string candidate: its length, its first (up to) 8 bytes
// as a little-endian word, and the bytes after those.
type inStr struct {
	n    int
	head uint64
	tail string
}

// compileInProbe builds the probe for the value set of n (already built),
// nil for a type it does not serve.
func compileInProbe(n *InExpr) *inProbe {
	p := &inProbe{}
	switch {
	case n.ints != nil:
		p.intOK = true
		vs := make([]int64, 0, len(n.ints))
		for v := range n.ints {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		p.ints = vs
		if len(vs) > 0 {
			if span := uint64(vs[len(vs)-1]) - uint64(vs[0]) + 1; span != 0 && span <= inBitmapMax {
				p.lo, p.span = vs[0], span
				p.bits = make([]uint64, (span+63)/64)
				for _, v := range vs {
					d := uint64(v - p.lo)
					p.bits[d>>6] |= 1 << (d & 63)
				}
			}
		}
	case n.strs != nil:
		p.strOK = true
		keys := make([]string, 0, len(n.strs))
		for s := range n.strs {
			keys = append(keys, s)
		}
		slices.Sort(keys)
		for _, s := range keys {
			p.lenMask |= 1 << min(len(s), 63)
		}
		if len(keys) > inStrMax {
			p.strMap = n.strs
			return p
		}
		for _, s := range keys {
			c := inStr{n: len(s), head: headWord([]byte(s), 0)}
			if len(s) > 8 {
				c.tail = s[8:]
			}
			p.strs = append(p.strs, c)
		}
		p.short = len(keys) <= 8
		for _, c := range p.strs {
			p.short = p.short && c.n <= 8
			p.words = append(p.words, c.head)
			p.wlens = append(p.wlens, c.n)
		}
	case n.decs != nil:
		p.decOK = true
		if len(n.decs) > inDecMax {
			p.decs0 = n.decs
			return p
		}
		for v := range n.decs {
			p.decs = append(p.decs, v)
		}
	default:
		return nil
	}
	return p
}

// headMask[n] keeps the first n bytes of a little-endian word.
var headMask = func() (m [9]uint64) {
	for n := range m {
		if n == 8 {
			m[n] = ^uint64(0)
		} else {
			m[n] = 1<<(8*n) - 1
		}
	}
	return
}()

// headWord is the first min(len(b)-off, 8) bytes of b from off as a
// little-endian word, zero above them.
func headWord(b []byte, off int) uint64 {
	if off+8 <= len(b) {
		return binary.LittleEndian.Uint64(b[off:])
	}
	var w uint64
	for i := off; i < len(b) && i < off+8; i++ {
		w |= uint64(b[i]) << (8 * (i - off))
	}
	return w
}

// loadWord is the 8 bytes of data from o as a little-endian word, those
// past the end of data read as zero.
func loadWord(data []byte, o int) uint64 {
	if o+8 <= len(data) {
		return binary.LittleEndian.Uint64(data[o:])
	}
	if len(data) >= 8 {
		// The last word of data, shifted down to start at o (a shift
		// of 64 or more is 0).
		return binary.LittleEndian.Uint64(data[len(data)-8:]) >> (8 * uint(o-(len(data)-8)))
	}
	return headWord(data, o)
}

// hasInt says whether v is in the list.
func (p *inProbe) hasInt(v int64) bool {
	if p.bits != nil {
		d := uint64(v - p.lo)
		return d < p.span && p.bits[d>>6]&(1<<(d&63)) != 0
	}
	if len(p.ints) <= 8 {
		hit := false
		for _, c := range p.ints {
			hit = hit || c == v
		}
		return hit
	}
	_, hit := slices.BinarySearch(p.ints, v)
	return hit
}

// hasStr says whether data[o0:o1] is in the list.
func (p *inProbe) hasStr(data []byte, o0, o1 int) bool {
	n := o1 - o0
	if p.lenMask&(1<<min(n, 63)) == 0 {
		return false
	}
	if p.strMap != nil {
		_, hit := p.strMap[string(data[o0:o1])]
		return hit
	}
	// Bytes past the value (still in the buffer) are masked off.
	head := loadWord(data, o0) & headMask[min(n, 8)]
	for i := range p.strs {
		c := &p.strs[i]
		if c.n == n && c.head == head && (n <= 8 || string(data[o0+8:o1]) == c.tail) {
			return true
		}
	}
	return false
}

func (p *inProbe) hasDec(v decimal128.Num) bool {
	if p.decs0 != nil {
		_, hit := p.decs0[v]
		return hit
	}
	for _, c := range p.decs {
		if c == v {
			return true
		}
	}
	return false
}

// SelectIn appends to out the rows of a (all of them when rows is nil,
// else the candidates in rows) where n is TRUE, a being the value of
// n.Arg over the batch or, when n.Arg is a widening cast of an integer
// column, that column itself (the cast keeps every value). It reports
// false, having written nothing, when a is of a type the compiled list
// does not serve; the caller then evaluates n. out may be rows[:0]: it
// writes behind where it reads.
func (n *InExpr) SelectIn(a arrow.Array, rows, out []int64) ([]int64, bool) {
	p := n.probe
	if p == nil {
		return nil, false
	}
	neg := n.Negated
	if neg && n.hasNull {
		// x NOT IN (..., NULL) is FALSE or NULL for every x.
		if !p.serves(a) {
			return nil, false
		}
		return out, true
	}
	return p.selectHits(a, rows, out, neg)
}

// serves says whether selectHits reads arrays like a.
func (p *inProbe) serves(a arrow.Array) bool {
	switch a.(type) {
	case *array.Int64, *array.Int32, *array.Int16, *array.Int8, *array.Uint8, *array.Uint16, *array.Uint32, *array.Date32:
		return p.intOK
	case *array.String:
		return p.strOK
	case *array.Decimal128:
		return p.decOK
	}
	return false
}

// selectHits appends the non-NULL rows whose value is in the list (not in
// it, when neg) to out; false for an array type it does not read.
func (p *inProbe) selectHits(a arrow.Array, rows, out []int64, neg bool) ([]int64, bool) {
	if !p.serves(a) {
		return nil, false
	}
	switch x := a.(type) {
	case *array.Int64:
		return selectIntHits(p, x, x.Int64Values(), rows, out, neg), true
	case *array.Int32:
		return selectIntHits(p, x, x.Int32Values(), rows, out, neg), true
	case *array.Int16:
		return selectIntHits(p, x, x.Int16Values(), rows, out, neg), true
	case *array.Int8:
		return selectIntHits(p, x, x.Int8Values(), rows, out, neg), true
	case *array.Uint8:
		return selectIntHits(p, x, x.Uint8Values(), rows, out, neg), true
	case *array.Uint16:
		return selectIntHits(p, x, x.Uint16Values(), rows, out, neg), true
	case *array.Uint32:
		return selectIntHits(p, x, x.Uint32Values(), rows, out, neg), true
	case *array.Date32:
		return selectIntHits(p, x, x.Date32Values(), rows, out, neg), true
	case *array.String:
		return selectStrHits(p, x, rows, out, neg), true
	case *array.Decimal128:
		return selectHitsBy(a, func(i int) bool { return p.hasDec(x.Value(i)) }, rows, out, neg), true
	}
	return nil, false
}

// selectIntHits is selectHits over integer values; each candidate row is
// written and kept only if it passed (no branch on the outcome).
func selectIntHits[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | arrow.Date32](p *inProbe, a arrow.Array, vs []T, rows, out []int64, neg bool) []int64 {
	if a.NullN() > 0 {
		return selectHitsBy(a, func(i int) bool { return p.hasInt(int64(vs[i])) }, rows, out, neg)
	}
	j := len(out)
	if rows == nil {
		out = slices.Grow(out, len(vs))[:j+len(vs)]
		if p.bits != nil {
			lo, span, bits := p.lo, p.span, p.bits
			for i, v := range vs {
				d := uint64(int64(v) - lo)
				hit := d < span && bits[d>>6]&(1<<(d&63)) != 0
				out[j] = int64(i)
				j += b2i(hit != neg)
			}
			return out[:j]
		}
		for i, v := range vs {
			out[j] = int64(i)
			j += b2i(p.hasInt(int64(v)) != neg)
		}
		return out[:j]
	}
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	if p.bits != nil {
		lo, span, bits := p.lo, p.span, p.bits
		for _, r := range rows {
			d := uint64(int64(vs[r]) - lo)
			hit := d < span && bits[d>>6]&(1<<(d&63)) != 0
			out[j] = r
			j += b2i(hit != neg)
		}
		return out[:j]
	}
	for _, r := range rows {
		out[j] = r
		j += b2i(p.hasInt(int64(vs[r])) != neg)
	}
	return out[:j]
}

// selectStrHits is selectHits over a VARCHAR column, reading each value's
// bytes in the column's buffers.
func selectStrHits(p *inProbe, a *array.String, rows, out []int64, neg bool) []int64 {
	offs := a.ValueOffsets() // absolute positions in the data buffer
	var data []byte
	if b := a.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	if a.NullN() > 0 {
		return selectHitsBy(a, func(i int) bool { return p.hasStr(data, int(offs[i]), int(offs[i+1])) }, rows, out, neg)
	}
	if p.short {
		return selectShortStrHits(p, data, offs, a.Len(), rows, out, neg)
	}
	j := len(out)
	if rows == nil {
		m := a.Len()
		out = slices.Grow(out, m)[:j+m]
		for i := 0; i < m; i++ {
			out[j] = int64(i)
			j += b2i(p.hasStr(data, int(offs[i]), int(offs[i+1])) != neg)
		}
		return out[:j]
	}
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	for _, r := range rows {
		out[j] = r
		j += b2i(p.hasStr(data, int(offs[r]), int(offs[r+1])) != neg)
	}
	return out[:j]
}

// selectShortStrHits is selectStrHits when every candidate fits a word:
// each value is read as one masked word and compared with all of them,
// with no branch on its length or the outcome (lengths in a column like
// l_shipmode vary at random).
func selectShortStrHits(p *inProbe, data []byte, offs []int32, m int, rows, out []int64, neg bool) []int64 {
	words, wlens := p.words, p.wlens
	flip := b2i(neg)
	j := len(out)
	if rows == nil {
		out = slices.Grow(out, m)[:j+m]
		offs = offs[:m+1]
		for i := 0; i < m; i++ {
			o0 := int(offs[i])
			n := int(offs[i+1]) - o0
			var w uint64
			if o0+8 <= len(data) {
				w = binary.LittleEndian.Uint64(data[o0 : o0+8])
			} else {
				w = loadWord(data, o0)
			}
			w &= ^uint64(0) >> (64 - 8*uint(min(n, 8)))
			hit := 0
			for k, c := range words {
				hit |= b2i(c == w) & b2i(wlens[k] == n)
			}
			out[j] = int64(i)
			j += hit ^ flip
		}
		return out[:j]
	}
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	for _, r := range rows {
		o0 := int(offs[r])
		n := int(offs[r+1]) - o0
		var w uint64
		if o0+8 <= len(data) {
			w = binary.LittleEndian.Uint64(data[o0 : o0+8])
		} else {
			w = loadWord(data, o0)
		}
		w &= ^uint64(0) >> (64 - 8*uint(min(n, 8)))
		hit := 0
		for k, c := range words {
			hit |= b2i(c == w) & b2i(wlens[k] == n)
		}
		out[j] = r
		j += hit ^ flip
	}
	return out[:j]
}

// selectHitsBy is the general loop: non-NULL rows where hit(i) != neg.
func selectHitsBy(a arrow.Array, hit func(int) bool, rows, out []int64, neg bool) []int64 {
	nulls := a.NullN() > 0
	if rows == nil {
		for i := 0; i < a.Len(); i++ {
			if (!nulls || a.IsValid(i)) && hit(i) != neg {
				out = append(out, int64(i))
			}
		}
		return out
	}
	for _, r := range rows {
		if (!nulls || a.IsValid(int(r))) && hit(int(r)) != neg {
			out = append(out, r)
		}
	}
	return out
}

func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// hitsPool holds evalProbe's row lists (a batch's rows at most), so a
// filter evaluating IN batch after batch does not allocate one each time.
var hitsPool = sync.Pool{New: func() any { return new([]int64) }}

// evalProbe is Eval through the compiled probe: the rows in the list
// found by one selection pass, the result's bits and validity set from
// them. nil, false when the probe does not read arr.
func (n *InExpr) evalProbe(mem memory.Allocator, arr arrow.Array) (arrow.Array, bool) {
	p := n.probe
	if p == nil || !p.serves(arr) {
		return nil, false
	}
	m := arr.Len()
	scratch := hitsPool.Get().(*[]int64)
	defer hitsPool.Put(scratch)
	hits, _ := p.selectHits(arr, nil, (*scratch)[:0], false)
	*scratch = hits
	nb := bitutil.BytesForBits(int64(m))
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(int(nb))
	vb := vals.Bytes()
	if n.Negated {
		for i := range vb {
			vb[i] = 0xFF
		}
		if m%8 != 0 {
			// Bits past the last row stay clear, as a builder leaves them.
			vb[len(vb)-1] = byte(1)<<(m%8) - 1
		}
	} else {
		clear(vb)
	}
	for _, r := range hits {
		bitutil.SetBitTo(vb, int(r), !n.Negated)
	}
	var valid *memory.Buffer
	nulls := 0
	switch {
	case n.hasNull:
		// Only rows in the list are known: TRUE (FALSE when negated).
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(nb))
		bb := valid.Bytes()
		clear(bb)
		for _, r := range hits {
			bitutil.SetBit(bb, int(r))
		}
		nulls = m - len(hits)
	case arr.NullN() > 0:
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(nb))
		bb := valid.Bytes()
		clear(bb)
		for i := 0; i < m; i++ {
			if arr.IsValid(i) {
				bitutil.SetBit(bb, i)
			}
		}
		nulls = arr.NullN()
	}
	data := array.NewData(BoolT(), m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	out := array.NewBooleanData(data)
	data.Release()
	vals.Release()
	if valid != nil {
		valid.Release()
	}
	return out, true
}
