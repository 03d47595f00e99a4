package exec

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// Group keys made only of short strings (TPC-H Q1's l_returnflag and
// l_linestatus, Q12's l_shipmode, codes, flags) are packed into one
// 64-bit word per row, each column a field of its length (+1, 0 for
// NULL) and its bytes, and looked up in an intTable: no row hash, no
// byte comparison, and (packedIDsSel) no copy of the filtered rows' key
// strings before grouping. The fields are wide enough for maxLen bytes
// a column; the first batch holding a longer value moves the table to
// the general hashed representation for good (unpack), which the stored
// keys (the strKeyCols, kept as in every mode) rebuild.
type packedKeys struct {
	maxLen uint32 // longest value a field holds
	lenBit uint   // bits of a field's length part
	width  uint   // bits of one field
	t      *intTable
	words  []uint64 // the batch's packed keys
}

// packedMaxLen is the longest value each of k string columns may have for
// their fields to share 64 bits (0: they cannot): 7 bytes for one
// column, 3 for two, 2 for three, 1 for four to six.
func packedMaxLen(k int) uint32 {
	for l := uint32(7); l >= 1; l-- {
		if k*(bits.Len32(l+1)+8*int(l)) <= 64 {
			return l
		}
	}
	return 0
}

// newPackedKeys returns the packing of keys of these types, nil unless
// every one is a string or binary column (not fixed-size: its values all
// have one length, rarely a short one).
func newPackedKeys(types []arrow.DataType) *packedKeys {
	if len(types) == 0 {
		return nil
	}
	for _, t := range types {
		switch t.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		default:
			return nil
		}
	}
	l := packedMaxLen(len(types))
	if l == 0 {
		return nil
	}
	lb := uint(bits.Len32(l + 1))
	return &packedKeys{maxLen: l, lenBit: lb, width: lb + 8*uint(l)}
}

// pack computes the packed key of the bound batch's rows (sel: those rows,
// in order; nil: every row) into p.words, straight from the columns'
// offsets and bytes (bindRaw: no per-row heads); false when a value is
// longer than the fields hold (the words of such rows are meaningless).
func (p *packedKeys) pack(cols []keyCol, sel []int64, rows int) bool {
	if cap(p.words) < rows {
		p.words = make([]uint64, rows)
	}
	w := p.words[:rows]
	clear(w)
	long := false
	for _, kc := range cols {
		c := kc.(*strKeyCol)
		if c.o32 != nil {
			long = packOffsets(w, sel, c.o32, c, p) || long
		} else {
			long = packOffsets(w, sel, c.o64, c, p) || long
		}
	}
	return !long
}

// packOffsets shifts every word of w left by a field and puts row r's
// field of column c in: its length+1 (0 for NULL) and its bytes. True
// when a value is longer than the fields hold.
func packOffsets[T int32 | int64](w []uint64, sel []int64, offs []T, c *strKeyCol, p *packedKeys) bool {
	data, base := c.data, c.base
	maxLen, lb, width := int64(p.maxLen), p.lenBit, p.width
	var nulls arrow.Array
	if c.arr.NullN() > 0 {
		nulls = c.arr
	}
	long := false
	for i := range w {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		from, to := int64(offs[r])-base, int64(offs[r+1])-base
		var f uint64
		switch {
		case nulls != nil && nulls.IsNull(r):
		case to-from > maxLen:
			long = true
		case to-from == 1:
			// One byte (flags, codes): no load of 8 and mask.
			f = uint64(data[from])<<lb | 2
		default:
			f = head8(data, int(from), int(to))<<lb | uint64(to-from+1)
		}
		w[i] = w[i]<<width | f
	}
	return long
}

// addPacked stores the key packed in word w as the next group's, in
// every column (as strKeyCol.add would from the row).
func (g *groupTable) addPacked(w uint64) {
	p := g.pk
	fieldMask := uint64(1)<<p.width - 1
	lenMask := uint64(1)<<p.lenBit - 1
	k := len(g.cols)
	for j, kc := range g.cols {
		c := kc.(*strKeyCol)
		f := w >> (uint(k-1-j) * p.width) & fieldMask
		h := strHead{head: f >> p.lenBit, n: nullLen}
		if n1 := f & lenMask; n1 > 0 {
			h.n = uint32(n1 - 1)
		}
		c.offs = append(c.offs, len(c.arena))
		c.keys = append(c.keys, h)
	}
	g.n++
}

// packedIDs assigns the rows' groups from p.words.
func (g *groupTable) packedIDs(out []uint32) {
	p := g.pk
	t := p.t
	if t == nil {
		g.chargeNow(int64(1<<10) * intSlotBytes)
		t = newIntTable()
		t.grew = g.chargeNow
		t.hint = g.hint
		p.t = t
	}
	var last uint64
	lastID := uint32(0)
	have := false
	for i, w := range p.words[:len(out)] {
		// Neighbouring rows often share a key (data clustered by date).
		if have && w == last {
			out[i] = lastID
			continue
		}
		id, inserted := t.getOrInsert(int64(w), uint32(g.n))
		if inserted {
			g.addPacked(w)
		}
		out[i] = id
		last, lastID, have = w, id, true
	}
}

// idsSel is ids for the rows sel of keys (whole-batch columns): packed
// keys or one fixed-width key only, so that a filtered batch is grouped
// without copying its key columns. ok is false when the table is neither
// or the batch does not pack (the table then is no longer packed);
// nothing is added then, and the caller takes the rows through ids.
func (g *groupTable) idsSel(keys []arrow.Array, sel []int64, out []uint32) ([]uint32, bool) {
	rows := len(sel)
	if g.pk == nil && g.fixed != nil {
		// One fixed-width key: its normalised values are a copy already;
		// keeping those of the rows sel makes them the batch.
		c := g.fixed
		c.bind(keys[0])
		for i, r := range sel {
			c.cur[i] = c.cur[r]
		}
		c.cur = c.cur[:rows]
		if len(c.curNull) > 0 {
			for i, r := range sel {
				c.curNull[i] = c.curNull[r]
			}
			c.curNull = c.curNull[:rows]
		}
		if cap(out) < rows {
			out = make([]uint32, rows)
		}
		out = out[:rows]
		g.reserve(rows)
		g.fixedIDs(out)
		g.charge()
		return out, true
	}
	if g.pk == nil {
		return out, false
	}
	for k, c := range g.cols {
		c.(*strKeyCol).bindRaw(keys[k])
	}
	if !g.pk.pack(g.cols, sel, rows) {
		g.unpack()
		return out, false
	}
	if cap(out) < rows {
		out = make([]uint32, rows)
	}
	out = out[:rows]
	g.reserve(rows)
	g.packedIDs(out)
	g.charge()
	return out, true
}

// unpack moves the groups to the hashed representation: the hash of
// every stored key into ghash and the slots.
func (g *groupTable) unpack() {
	p := g.pk
	g.pk = nil
	if p.t != nil {
		g.chargeNow(-int64(len(p.t.slots)) * intSlotBytes)
	}
	size := 1 << 10
	for g.n*2 > size {
		size *= 2
	}
	g.ghash = growFor(g, g.ghash, g.n)
	for id := range g.n {
		var h uint64
		for _, c := range g.cols {
			k := c.(*strKeyCol).keys[id]
			// As strKeyCol.hash for a value of at most 8 bytes or NULL.
			h = mix64(h*hashMul ^ k.head ^ uint64(k.n)<<56 ^ uint64(k.n))
		}
		g.ghash = append(g.ghash, h&keyHashMask)
	}
	g.chargeNow(int64(size) * slotBytes)
	g.rehash(size)
}
