package opt

import (
	"math"
	"math/bits"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
)

// Equivalence classes. Equalities a = b and b = c between plain columns of
// three inputs make a = c as well; without it the join graph lacks the
// edge, and an input reachable only through the middle one joins late:
// TPC-H Q5's customer joins supplier on c_nationkey = s_nationkey and
// supplier nation on s_nationkey = n_nationkey, so customer could only
// come after supplier, unfiltered (150 K rows), instead of joining the
// five Asian nations first (30 K). deriveEquivalences adds the missing
// equalities of each class, so every pair of its inputs is linked.
//
// The class is then estimated as a whole: k of its columns joined keep
// 1/(n2·…·nk) of the product, n1 ≤ … ≤ nk their distinct counts (each
// value of the fewest-valued column meets its equals in the others, the
// smaller sets of values contained in the larger), where multiplying the
// equalities' selectivities would count the implied ones too. And where
// two parts of the plan join, one equality of the class is enough (build
// places the first and drops the others, implied by it).
//
// Only classes with one column per input whose every pair of inputs is
// joined by nothing but the class's equality are taken: other conditions
// on the same pair are estimated as a composite key (compositeKeys), which
// a class estimate would double count.

// eqClass is the columns of one class, at most one per input.
type eqClass struct {
	cols  []int // global columns
	leafs []int // their inputs
	ndv   []float64
}

// deriveEquivalences finds the region's classes of three or more columns
// and adds their missing equalities; every condition of a class gets cls.
func (r *region) deriveEquivalences() []*eqClass {
	parent := map[int]int{}
	var find func(g int) int
	find = func(g int) int {
		if p, ok := parent[g]; ok && p != g {
			root := find(p)
			parent[g] = root
			return root
		}
		return g
	}
	plain := func(c *cond) (int, int, bool) {
		if c.r == nil || bits.OnesCount64(c.leafs) != 2 {
			return 0, 0, false
		}
		l, lok := c.l.(*expr.ColumnRef)
		rr, rok := c.r.(*expr.ColumnRef)
		if !lok || !rok || !arrow.TypeEqual(l.Type, rr.Type) {
			return 0, 0, false
		}
		return r.global[l], r.global[rr], true
	}
	for _, c := range r.conds {
		if a, b, ok := plain(c); ok {
			for _, g := range []int{a, b} {
				if _, seen := parent[g]; !seen {
					parent[g] = g
				}
			}
			parent[find(a)] = find(b)
		}
	}
	members := map[int][]int{}
	for g := range parent {
		members[find(g)] = append(members[find(g)], g)
	}
	roots := make([]int, 0, len(members))
	for root := range members {
		roots = append(roots, root)
	}
	sort.Ints(roots)
	// Conditions per pair of inputs.
	onPair := map[uint64]int{}
	for _, c := range r.conds {
		if bits.OnesCount64(c.leafs) == 2 {
			onPair[c.leafs]++
		}
	}
	var out []*eqClass
	for _, root := range roots {
		ms := members[root]
		if len(ms) < 3 {
			continue
		}
		sort.Ints(ms)
		cl := &eqClass{cols: ms}
		var inputs uint64
		ok := true
		for _, g := range ms {
			i := r.owner(g)
			if inputs&(1<<i) != 0 {
				ok = false
			}
			inputs |= 1 << i
			cl.leafs = append(cl.leafs, i)
		}
		var mine []*cond
		for _, c := range r.conds {
			if a, _, isPlain := plain(c); isPlain && find(a) == root {
				mine = append(mine, c)
				if onPair[c.leafs] != 1 {
					ok = false // another condition (or a repeat) on the pair
				}
			}
		}
		for a := 0; ok && a < len(ms); a++ {
			for b := a + 1; b < len(ms); b++ {
				pair := uint64(1)<<cl.leafs[a] | uint64(1)<<cl.leafs[b]
				if n := onPair[pair]; n > 1 {
					ok = false
				}
			}
		}
		if !ok {
			continue
		}
		for _, c := range mine {
			c.cls = cl
		}
		for a := 0; a < len(ms); a++ {
			for b := a + 1; b < len(ms); b++ {
				pair := uint64(1)<<cl.leafs[a] | uint64(1)<<cl.leafs[b]
				if onPair[pair] != 0 {
					continue
				}
				l, rr := r.column(ms[a]), r.column(ms[b])
				r.conds = append(r.conds, &cond{l: l, r: rr, leafs: pair, refs: []*expr.ColumnRef{l, rr}, cls: cl})
			}
		}
		out = append(out, cl)
	}
	return out
}

// column is a new reference to global column g, placed by build.
func (r *region) column(g int) *expr.ColumnRef {
	i := r.owner(g)
	c := r.leaves[i].Columns()[g-r.first[i]]
	ref := expr.Col(g-r.first[i], c.Name, c.Type)
	r.global[ref] = g
	return ref
}

// ndvs notes each column's distinct values, at most its input's rows;
// unknown ones are taken as a key of their input.
func (cl *eqClass) ndvs(colStats func(int) colStat, rows []float64) {
	cl.ndv = make([]float64, len(cl.cols))
	for k, g := range cl.cols {
		n := colStats(g).ndv
		if n <= 0 || n > rows[cl.leafs[k]] {
			n = rows[cl.leafs[k]]
		}
		cl.ndv[k] = math.Max(n, 1)
	}
}

// sel is the share of the product of set's inputs the class keeps.
func (cl *eqClass) sel(set uint64) float64 {
	in, prod, least := 0, 1.0, math.Inf(1)
	for k, i := range cl.leafs {
		if set&(1<<i) != 0 {
			in++
			prod *= cl.ndv[k]
			least = math.Min(least, cl.ndv[k])
		}
	}
	if in < 2 {
		return 1
	}
	return least / prod
}
