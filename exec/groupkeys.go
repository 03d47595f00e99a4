package exec

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// groupTable maps key tuples to dense group ids 0..n-1 and keeps each
// group's key values (typed, in keyCols) in first-seen order. NULL is a key
// value like any other, so all NULLs of a column fall in one group.
//
// A single fixed-width key (integers of every width, dates, times, bool,
// floats) is its own hash-table key: a direct-indexed array while the
// values span at most directMax, then an intTable. Anything else is hashed
// column by column into a vector and looked up in an open-addressing table
// of (hash tag, group id) words, comparing the stored keys column by column
// on a tag match. Nothing on the way boxes a value, except nested keys.
type groupTable struct {
	cols []keyCol
	n    int

	// single fixed-width key
	fixed     *fixedKeyCol
	ints      *intTable // nil while direct serves
	direct    []uint32  // id+1 by value-dbase, 0 = none
	dbase     uint64
	directOff bool  // the values outgrew directMax: ints serves for good
	nullGID   int64 // group id of the NULL key, -1 if none yet
	// sizeHint, when set, is the number of rows about to be added (a
	// join's build side, known in advance): the intTable starts with as
	// many slots, so that distinct keys grow it once (from half full)
	// instead of doubling their way there from 1024, and keys with
	// duplicates do not make it larger than twice what they need.
	sizeHint int

	// keys of short strings only, while they stay short
	// (groupkeys_packed.go); nil otherwise
	pk *packedKeys

	// any other key
	str   *strKeyCol // the key when it is one string column
	slots []uint64   // hash>>32 << 32 | id+1; 0 is an empty slot
	mask  uint64
	ghash []uint64 // each group's hash, to re-slot on growth
	// hint is the number of groups expected (0: unknown), for the hash
	// tables' growth (nextSize) and the direct array's reach (directCap).
	hint int
	// spread is how many tables share the key space (a partitioned
	// aggregate's workers, agg_part.go); 0 or 1: this one holds it all.
	spread int
	hashes []uint64 // the batch's row hashes

	// mem is the statement's account; charged the Go memory of the table
	// counted against it so far (memlimit.Charge), refunded by release.
	mem     memory.Allocator
	charged int64
}

// directMax bounds the direct-indexed array of a single integer key (4 MB)
// while the table holds few keys.
const directMax = 1 << 20

// directPerKey: past directMax the direct array may span this many
// values per key the table holds or is about to (directCap): 16 bytes a
// key are no more than an intTable's slot for it (16 bytes, the table at
// most half full), and a lookup is one load. TPC-H's keys (o_orderkey
// spans 4 values per order) stay direct.
const directPerKey = 4

// directHardMax bounds the direct array whatever the keys (1 GB).
const directHardMax = 1 << 28

// directTrustMax bounds the direct array the group estimate allows before
// the groups that justify it are there (64 MB): keys read from several
// ordered streams at once (a lake table's files, each sorted by the key)
// span most of their range in the first batches, with few groups yet, and
// the direct array must take that span then or never (an intTable, a
// hashed and so cache-missing slot per group, costs TPC-H Q18's aggregate
// of l_orderkey over the lake three times the direct array's CPU). The
// array is sized by the keys seen, so an estimate far above the truth
// costs at most this much, and only when the keys are spread that wide.
const directTrustMax = 1 << 24

// directCap is how many values the direct array may span now, with
// batchRows rows being added. fixed says the span comes from the group
// estimate, which stays put while the groups grow towards it: the array
// may grow to it at once without being copied again batch after batch.
func (g *groupTable) directCap(batchRows int) (span uint64, fixed bool) {
	keys := g.n + batchRows
	spread := uint64(max(g.spread, 1))
	if g.hint > keys && (g.n*hintShare >= g.hint || directPerKey*uint64(g.hint)*spread <= directTrustMax) {
		// The estimate, once an eighth of it is here (as nextSize), or
		// from the start when the array it allows is small enough.
		keys, fixed = g.hint, true
	}
	// A worker of a partitioned aggregate holds a share of keys that span
	// the whole range (agg_part.go).
	return min(max(directMax, directPerKey*uint64(keys)*spread), directHardMax), fixed
}

// Approximate Go memory per entry, for the statement's account.
const (
	intSlotBytes = 16
	slotBytes    = 8
)

// newGroupTable makes a table for keys of the given types. keepKeys says
// whether keyArrays will be called (aggregation); joins and DISTINCT only
// need the ids.
func newGroupTable(mem memory.Allocator, types []arrow.DataType, keepKeys bool) *groupTable {
	g := &groupTable{nullGID: -1, mem: mem}
	for _, t := range types {
		c := newKeyCol(t)
		if gc, ok := c.(*genericKeyCol); ok && keepKeys {
			gc.b = array.NewBuilder(mem, t)
		}
		g.cols = append(g.cols, c)
	}
	if len(types) == 1 {
		g.fixed, _ = g.cols[0].(*fixedKeyCol)
		g.str, _ = g.cols[0].(*strKeyCol)
	}
	if keepKeys {
		g.pk = newPackedKeys(types)
	}
	if g.fixed == nil && g.pk == nil {
		g.slots = make([]uint64, 1<<10)
		g.mask = 1<<10 - 1
	}
	return g
}

func (g *groupTable) release() {
	for _, c := range g.cols {
		c.release()
	}
	memlimit.Refund(g.mem, g.charged)
	g.charged = 0
}

// charge counts the table's growth against the statement's account (it
// panics with memlimit's *Exceeded past the limit, like an allocation).
func (g *groupTable) charge() {
	want := int64(len(g.slots))*slotBytes + int64(cap(g.ghash))*8 + int64(len(g.direct))*4
	if g.ints != nil {
		want += int64(len(g.ints.slots)) * intSlotBytes
	}
	for _, c := range g.cols {
		want += c.memBytes()
	}
	if want > g.charged {
		memlimit.Charge(g.mem, want-g.charged)
		g.charged = want
	}
}

// ids assigns a group id to every row of keys (columns of one batch),
// creating groups as needed, and returns them in out (resized).
func (g *groupTable) ids(keys []arrow.Array, rows int, out []uint32) []uint32 {
	if cap(out) < rows {
		out = make([]uint32, rows)
	}
	out = out[:rows]
	if len(keys) == 0 {
		if g.n == 0 {
			g.n = 1
		}
		clear(out)
		return out
	}
	if g.pk != nil {
		for k, c := range g.cols {
			c.(*strKeyCol).bindRaw(keys[k])
		}
		if g.pk.pack(g.cols, nil, rows) {
			g.reserve(rows)
			g.packedIDs(out)
			g.charge()
			return out
		}
		g.unpack()
	}
	for k, c := range g.cols {
		c.bind(keys[k])
	}
	g.reserve(rows)
	if g.fixed != nil {
		g.fixedIDs(out)
	} else {
		g.hashIDs(out)
	}
	g.charge()
	return out
}

// newGroup stores row's key as group n.
func (g *groupTable) newGroup(row int) uint32 {
	for _, c := range g.cols {
		c.add(row)
	}
	g.n++
	return uint32(g.n - 1)
}

// fixedIDs serves a single fixed-width key: the direct array while the
// values fit it (a value outside widens it or moves to the intTable), then
// the intTable.
func (g *groupTable) fixedIDs(out []uint32) {
	cur := g.fixed.cur
	i := 0
	if !g.directOff {
		if g.direct == nil {
			g.fitDirect(0)
		}
		for g.direct != nil && i < len(cur) {
			if i = g.directRun(i, out); i < len(cur) {
				g.fitDirect(i)
			}
		}
	}
	if i < len(cur) {
		g.intRun(i, out)
	}
}

// directRun assigns ids from row i on through the direct array and stops
// at the first value outside it (returning its row).
func (g *groupTable) directRun(i int, out []uint32) int {
	c := g.fixed
	cur, nulls := c.cur, c.curNull
	d, base := g.direct, g.dbase
	size := uint64(len(d))
	for ; i < len(cur); i++ {
		if len(nulls) > 0 && nulls[i] {
			out[i] = g.nullID(i)
			continue
		}
		p := cur[i] - base
		if p >= size {
			return i
		}
		e := d[p]
		if e == 0 {
			e = g.newGroup(i) + 1
			d[p] = e
		}
		out[i] = e - 1
	}
	return i
}

func (g *groupTable) intRun(i int, out []uint32) {
	c := g.fixed
	cur, nulls := c.cur, c.curNull
	t := g.ints
	// Neighbouring rows often share a key (data clustered by it, as
	// lineitem by l_orderkey): their id is the last one.
	last, lastID, have := uint64(0), uint32(0), false
	for ; i < len(cur); i++ {
		if len(nulls) > 0 && nulls[i] {
			out[i] = g.nullID(i)
			continue
		}
		if have && cur[i] == last {
			out[i] = lastID
			continue
		}
		if t == nil { // only NULLs so far
			g.toIntTable()
			t = g.ints
		}
		id, inserted := t.getOrInsert(int64(cur[i]), uint32(g.n))
		if inserted {
			c.add(i)
			g.n++
		}
		out[i] = id
		last, lastID, have = cur[i], id, true
	}
}

func (g *groupTable) nullID(row int) uint32 {
	if g.nullGID < 0 {
		g.nullGID = int64(g.newGroup(row))
	}
	return uint32(g.nullGID)
}

// fitDirect widens the direct array to the values of rows from on, or
// moves the groups to an intTable when they would span more than
// directMax. With only NULLs there it does nothing.
func (g *groupTable) fitDirect(from int) {
	c := g.fixed
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	if len(c.curNull) == 0 {
		for _, v := range c.cur[from:] {
			lo, hi = min(lo, int64(v)), max(hi, int64(v))
		}
	} else {
		for k, v := range c.cur[from:] {
			if !c.curNull[from+k] {
				lo, hi = min(lo, int64(v)), max(hi, int64(v))
			}
		}
	}
	if lo > hi {
		return // only NULLs
	}
	if g.direct != nil {
		lo, hi = min(lo, int64(g.dbase)), max(hi, int64(g.dbase)+int64(len(g.direct))-1)
	}
	span := uint64(hi) - uint64(lo) + 1
	limit, fixed := g.directCap(len(c.cur))
	if span == 0 || span > limit || (c.typ.ID() == arrow.FLOAT32 || c.typ.ID() == arrow.FLOAT64) {
		g.toIntTable()
		return
	}
	// Grow by doubling so keys that creep upward batch by batch do not
	// copy the array each time.
	size := min(max(span, 2*uint64(len(g.direct)), 1024), limit)
	if g.direct != nil && span > directMax && size < 2*uint64(len(g.direct)) && size*4 < 5*uint64(len(g.direct)) && !fixed {
		// Past directMax the array grows by at least a quarter (doubling
		// while the limit allows): growing it by what the limit allows
		// batch after batch would copy it every time. A limit fixed by
		// the estimate is reached once.
		g.toIntTable()
		return
	}
	base := uint64(lo)
	if g.direct != nil && lo == int64(g.dbase) {
		base = g.dbase
	} else if size > span {
		// Extending downward: leave the spare room below.
		base = uint64(hi) - (size - 1)
		if int64(base) > lo { // wrapped past the int64 range
			base = uint64(lo)
		}
	}
	g.chargeNow(int64(size) * 4)
	d := make([]uint32, size)
	if g.direct != nil {
		copy(d[g.dbase-base:], g.direct)
	}
	g.chargeNow(-int64(len(g.direct)) * 4)
	g.direct, g.dbase = d, base
}

// cachedDirect says whether the table is a direct array of at most
// cachedDirectMax entries.
func (g *groupTable) cachedDirect() bool {
	return g.fixed != nil && !g.directOff && g.direct != nil && len(g.direct) <= cachedDirectMax
}

// cachedDirectMax: see cachedDirect. A variable for tests.
var cachedDirectMax = directMax

func (g *groupTable) toIntTable() {
	g.directOff = true
	// Sized for the groups there are (and, once they are an eighth of it,
	// the estimate) at once: they all go in now; a hash join's build knows
	// the rows about to come (sizeHint) and takes that size from the start.
	size := 1 << 10
	for size < 2*g.n {
		size = nextSize(size, g.n, g.hint)
	}
	size = max(size, 1<<bits.Len(uint(g.sizeHint)))
	g.chargeNow(int64(size) * intSlotBytes)
	g.ints = newIntTableSized(size)
	g.ints.grew = g.chargeNow
	g.ints.hint = g.hint
	c := g.fixed
	for id, v := range c.vals {
		if int64(id) != g.nullGID {
			g.ints.getOrInsert(int64(v), uint32(id))
		}
	}
	g.chargeNow(-int64(len(g.direct)) * 4)
	g.direct = nil
}

// rowHashes hashes every row of the bound batch.
func (g *groupTable) rowHashes(rows int) []uint64 {
	if cap(g.hashes) < rows {
		g.hashes = make([]uint64, rows)
	}
	h := g.hashes[:rows]
	clear(h)
	for _, c := range g.cols {
		c.hash(h)
	}
	if keyHashMask != ^uint64(0) {
		for i := range h {
			h[i] &= keyHashMask
		}
	}
	return h
}

// keyHashMask is all ones but in tests, which clear bits of every row hash
// to force collisions, so that key comparison decides every lookup.
var keyHashMask = ^uint64(0)

func (g *groupTable) rowEq(row int, id uint32) bool {
	if g.str != nil {
		return g.str.eq(row, id)
	}
	for _, c := range g.cols {
		if !c.eq(row, id) {
			return false
		}
	}
	return true
}

// prefetchSlots is the table size (slots) from which hashIDs loads every
// row's first slot in a pass of its own before probing: the table no
// longer fits the caches, and independent loads overlap their misses
// where the probe loop, waiting on each one, would take them one by one.
const prefetchSlots = 1 << 17

// touched keeps the prefetch pass's loads from being optimised away.
var touched atomic.Uint64

// prefetchRows is how many rows' slots one prefetch pass loads: few
// enough that their cache lines are all still there for the probes.
const prefetchRows = 128

func (g *groupTable) hashIDs(out []uint32) {
	h := g.rowHashes(len(out))
	if len(g.slots) < prefetchSlots {
		g.probe(out, h, 0)
		return
	}
	var sum uint64
	for lo := 0; lo < len(h); lo += prefetchRows {
		hi := min(lo+prefetchRows, len(h))
		slots, mask := g.slots, g.mask
		for _, hv := range h[lo:hi] {
			sum += slots[hv&mask]
		}
		g.probe(out[lo:hi], h[lo:hi], lo)
	}
	touched.Add(sum & 1)
}

// probe finds or makes the group of rows base.. whose hashes are h.
func (g *groupTable) probe(out []uint32, h []uint64, base int) {
	for j, hv := range h {
		i := base + j
		tag := hv >> 32 << 32
		for p := hv & g.mask; ; p = (p + 1) & g.mask {
			s := g.slots[p]
			if s == 0 {
				id := g.newGroup(i)
				g.slots[p] = tag | uint64(id+1)
				g.ghash = append(g.ghash, hv)
				out[j] = id
				if g.n*2 > len(g.slots) {
					g.grow()
				}
				break
			}
			if s&^0xFFFFFFFF == tag {
				if id := uint32(s) - 1; g.rowEq(i, id) {
					out[j] = id
					break
				}
			}
		}
	}
}

func (g *groupTable) grow() {
	size := nextSize(len(g.slots), g.n, g.hint)
	old := int64(len(g.slots)) * slotBytes
	g.chargeNow(int64(size) * slotBytes) // before the allocation: see groupgrow.go
	defer g.chargeNow(-old)
	g.rehash(size)
}

// rehash makes size slots (charged by the caller) and slots every group
// in from its hash.
func (g *groupTable) rehash(size int) {
	g.slots = make([]uint64, size)
	g.mask = uint64(size - 1)
	for id, hv := range g.ghash {
		p := hv & g.mask
		for g.slots[p] != 0 {
			p = (p + 1) & g.mask
		}
		g.slots[p] = hv>>32<<32 | uint64(id+1)
	}
}

// keyArrays returns the key columns of all groups, in group-id order.
func (g *groupTable) keyArrays() []arrow.Array {
	out := make([]arrow.Array, len(g.cols))
	for i, c := range g.cols {
		out[i] = c.build(g.mem)
	}
	return out
}

// lookup returns the group id of every row of keys, -1 where the key was
// never inserted. It adds no groups.
func (g *groupTable) lookup(keys []arrow.Array, rows int) []int32 {
	out := make([]int32, rows)
	if len(keys) == 0 {
		for i := range out {
			out[i] = int32(g.n) - 1 // the one group, or -1 when empty
		}
		return out
	}
	if g.pk != nil {
		g.unpack() // lookups serve joins, whose tables are never packed
	}
	for k, c := range g.cols {
		c.bind(keys[k])
	}
	if c := g.fixed; c != nil {
		for i, v := range c.cur {
			out[i] = -1
			if len(c.curNull) > 0 && c.curNull[i] {
				continue // NULL never matches
			}
			if g.direct != nil {
				if p := v - g.dbase; p < uint64(len(g.direct)) {
					out[i] = int32(g.direct[p]) - 1
				}
			} else if g.ints != nil {
				if id, ok := g.ints.get(int64(v)); ok {
					out[i] = int32(id)
				}
			}
		}
		return out
	}
	h := g.rowHashes(rows)
	for i, hv := range h {
		out[i] = -1
		tag := hv >> 32 << 32
		for p := hv & g.mask; g.slots[p] != 0; p = (p + 1) & g.mask {
			s := g.slots[p]
			if s&^0xFFFFFFFF == tag {
				if id := uint32(s) - 1; g.rowEq(i, id) {
					out[i] = int32(id)
					break
				}
			}
		}
	}
	return out
}
