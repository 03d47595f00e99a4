package exec

import (
	"unsafe"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// A group table's Go slices grow by reallocation: for the moment of the
// copy both the old and the new backing array are live, and an append
// that doubles a 64 MB arena holds 192 MB. Counting the table only after
// a batch (charge) would let that happen past the limit and refuse
// afterwards. So before a batch is inserted, every slice that may grow
// while inserting it (worst case: every row a new group) is grown here
// first, the new array charged before it is allocated (a refusal leaves
// nothing allocated) and the old one refunded once copied, and the
// slots' rehash charges the same way (grow, intTable.resize).

// chargeNow counts n bytes against the statement now (strict: panics
// with *memlimit.Exceeded past the limit, counting nothing).
func (g *groupTable) chargeNow(n int64) {
	if n == 0 || g.mem == nil {
		return
	}
	if n < 0 {
		memlimit.Refund(g.mem, -n)
	} else {
		memlimit.Charge(g.mem, n)
	}
	g.charged += n
}

// growFor returns s with room for need elements: s itself when it has
// it, else a copy with at least twice the capacity, charged to g before
// it is allocated.
func growFor[T any](g *groupTable, s []T, need int) []T {
	if need <= cap(s) {
		return s
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	nc := max(need, 2*cap(s), 64)
	g.chargeNow(int64(nc) * size)
	ns := make([]T, len(s), nc)
	copy(ns, s)
	g.chargeNow(-int64(cap(s)) * size)
	return ns
}

// reserve makes room for rows more groups of the bound batch in every
// growing slice of the table.
func (g *groupTable) reserve(rows int) {
	need := g.n + rows
	if g.fixed == nil {
		g.ghash = growFor(g, g.ghash, need)
	}
	for _, c := range g.cols {
		switch c := c.(type) {
		case *fixedKeyCol:
			c.vals = growFor(g, c.vals, need)
			c.nulls = growFor(g, c.nulls, need)
		case *decKeyCol:
			c.vals = growFor(g, c.vals, need)
			c.nulls = growFor(g, c.nulls, need)
		case *strKeyCol:
			c.offs = growFor(g, c.offs, need+1)
			c.keys = growFor(g, c.keys, need)
			c.arena = growFor(g, c.arena, len(c.arena)+c.batchBytes())
		}
	}
}

// batchBytes bounds the key bytes of the bound batch.
func (c *strKeyCol) batchBytes() int {
	switch {
	case c.o32 != nil:
		return int(int64(c.o32[len(c.o32)-1]) - c.base)
	case c.o64 != nil:
		return int(c.o64[len(c.o64)-1] - c.base)
	case c.fsb != nil:
		return c.fsb.Len() * c.fsb.DataType().(interface{ Bytes() int }).Bytes()
	}
	return 0
}
