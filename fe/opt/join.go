package opt

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// dpLimit is the most inputs a region's order is searched exhaustively
// for (3^n subset pairs); larger regions are ordered greedily.
const dpLimit = 12

// Optimize reorders the inner joins of p by estimated cost and returns the
// plan with every node's estimated row count (nodes below a table without
// statistics are absent from the map).
func Optimize(ctx context.Context, p bind.Plan) (bind.Plan, map[bind.Plan]float64) {
	q, e := OptimizePlan(ctx, p)
	return q, e.Rows
}

// Estimates are what Optimize knows of the plan it returned.
type Estimates struct {
	// Rows are nodes' estimated row counts (nodes below a table without
	// statistics are absent).
	Rows map[bind.Plan]float64
	est  *estimator
}

// OptimizePlan is Optimize returning the estimates for further questions
// (MatchShare).
func OptimizePlan(ctx context.Context, p bind.Plan) (bind.Plan, *Estimates) {
	totalsFromGroups(p)
	o := &optimizer{est: newEstimator(ctx), uses: map[*expr.ColumnRef]int{}}
	countUses(p, o.uses)
	p = o.rewrite(p)
	o.markBuildLeft(p)
	rows := map[bind.Plan]float64{}
	var walk func(p bind.Plan)
	walk = func(p bind.Plan) {
		if s := o.est.stats(p); s.known {
			rows[p] = s.rows
		}
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(p)
	return p, &Estimates{Rows: rows, est: o.est}
}

// MatchShare estimates the share of j's left (probe) rows whose key'th key
// finds an equal value on the right (build) side: the right side's
// distinct keys over the left's, taking the smaller set of values as
// contained in the larger (as a foreign key in its primary key). ok is
// false where either side's distinct count is unknown.
func (e *Estimates) MatchShare(j *bind.Join, key int) (float64, bool) {
	if key >= len(j.LeftKeys) || key >= len(j.RightKeys) {
		return 0, false
	}
	l, r := e.est.stats(j.Left), e.est.stats(j.Right)
	if !l.known || !r.known {
		return 0, false
	}
	lc, lok := colOf(j.LeftKeys[key], l.cols)
	rc, rok := colOf(j.RightKeys[key], r.cols)
	if !lok || !rok || lc.ndv == 0 || rc.ndv == 0 {
		return 0, false
	}
	ln := math.Max(math.Min(lc.ndv, l.rows), 1)
	rn := math.Max(math.Min(rc.ndv, r.rows), 1)
	return math.Min(rn/ln, 1), true
}

type optimizer struct {
	est  *estimator
	uses map[*expr.ColumnRef]int
}

func isInner(p bind.Plan) bool {
	j, ok := p.(*bind.Join)
	return ok && (j.Kind == bind.InnerJoin || j.Kind == bind.CrossJoin)
}

// regionRoot is a join region's top: an inner join, or a filter over one.
func regionRoot(p bind.Plan) bool {
	if f, ok := p.(*bind.Filter); ok {
		return isInner(f.Input)
	}
	return isInner(p)
}

// rewrite optimises p's subtrees bottom-up, regions as a whole.
func (o *optimizer) rewrite(p bind.Plan) bind.Plan {
	if regionRoot(p) {
		if q := o.region(p); q != nil {
			return q
		}
	}
	switch n := p.(type) {
	case *bind.Filter:
		n.Input = o.rewrite(n.Input)
	case *bind.Project:
		n.Input = o.rewrite(n.Input)
	case *bind.Aggregate:
		n.Input = o.rewrite(n.Input)
	case *bind.Join:
		n.Left, n.Right = o.rewrite(n.Left), o.rewrite(n.Right)
	case *bind.Sort:
		n.Input = o.rewrite(n.Input)
	case *bind.Limit:
		n.Input = o.rewrite(n.Input)
	case *bind.Union:
		for i, c := range n.Inputs {
			n.Inputs[i] = o.rewrite(c)
		}
	case *bind.Repeat:
		n.Input = o.rewrite(n.Input)
	case *bind.Window:
		n.Input = o.rewrite(n.Input)
	}
	return p
}

// cond is one condition of a region. Equalities keep their two sides (as
// the binder typed them) so they can become hash keys in either
// orientation.
type cond struct {
	l, r  expr.Expr // an equality's sides; r nil for any other condition
	e     expr.Expr // the condition when r is nil
	leafs uint64    // the inputs it reads
	refs  []*expr.ColumnRef
	// cls is the equivalence class of a column equality (original or
	// derived) whose columns the region's equalities make equal across
	// three or more inputs; nil for every other condition.
	cls *eqClass
}

// region is a tree of inner joins taken apart.
type region struct {
	leaves []bind.Plan
	first  []int // each leaf's first column in the region's output
	conds  []*cond
	// global is each column reference's position in the region's output.
	global map[*expr.ColumnRef]int
	ok     bool
}

func (r *region) owner(g int) int {
	i := sort.SearchInts(r.first, g+1) - 1
	return i
}

// refsOf lists e's column references (every one, through Children).
func refsOf(e expr.Expr, into []*expr.ColumnRef) []*expr.ColumnRef {
	if c, ok := e.(*expr.ColumnRef); ok {
		return append(into, c)
	}
	for _, k := range e.Children() {
		into = refsOf(k, into)
	}
	return into
}

// note records e's references as offset by off into the region's output;
// a reference shared at two different positions makes the region unusable.
func (r *region) note(e expr.Expr, off int) []*expr.ColumnRef {
	refs := refsOf(e, nil)
	for _, c := range refs {
		g := c.Index + off
		if old, seen := r.global[c]; seen && old != g {
			r.ok = false
		}
		r.global[c] = g
	}
	return refs
}

func (r *region) addCond(c *cond, refs []*expr.ColumnRef) {
	c.refs = refs
	r.conds = append(r.conds, c)
}

// collect takes p apart; off is p's first column in the region.
func (r *region) collect(p bind.Plan, off int) {
	switch n := p.(type) {
	case *bind.Filter:
		if isInner(n.Input) {
			r.collect(n.Input, off)
			for _, c := range expr.Conjuncts(n.Cond) {
				r.addCond(&cond{e: c}, r.note(c, off))
			}
			return
		}
	case *bind.Join:
		if isInner(n) {
			nl := len(n.Left.Columns())
			if len(n.Out) != nl+len(n.Right.Columns()) {
				r.ok = false
			}
			r.collect(n.Left, off)
			r.collect(n.Right, off+nl)
			for i := range n.LeftKeys {
				refs := r.note(n.LeftKeys[i], off)
				refs = append(refs, r.note(n.RightKeys[i], off+nl)...)
				r.addCond(&cond{l: n.LeftKeys[i], r: n.RightKeys[i]}, refs)
			}
			if n.Residual != nil {
				for _, c := range expr.Conjuncts(n.Residual) {
					r.addCond(&cond{e: c}, r.note(c, off))
				}
			}
			return
		}
	}
	r.leaves = append(r.leaves, p)
	r.first = append(r.first, off)
}

// leafsOf is the set of inputs the references read.
func (r *region) leafsOf(refs []*expr.ColumnRef) uint64 {
	var m uint64
	for _, c := range refs {
		m |= 1 << r.owner(r.global[c])
	}
	return m
}

// tree is a join order: a leaf, or left ⋈ right (right is the build side).
type tree struct {
	leaf        int
	set         uint64
	left, right *tree
	rows, cost  float64
}

// region optimises the join region rooted at p; nil leaves p as it is.
func (o *optimizer) region(p bind.Plan) bind.Plan {
	r := &region{global: map[*expr.ColumnRef]int{}, ok: true}
	r.collect(p, 0)
	if !r.ok || len(r.leaves) < 2 || len(r.leaves) > 64 {
		return nil
	}
	inConds := map[*expr.ColumnRef]int{}
	for _, c := range r.conds {
		for _, ref := range c.refs {
			inConds[ref]++
		}
	}
	for ref, k := range inConds {
		if o.uses[ref] != k {
			return nil
		}
	}
	for i, l := range r.leaves {
		r.leaves[i] = o.rewrite(l)
	}
	// Leaves were rewritten: from here on, not reordering still installs
	// them in the tree as bound.
	keep := func() bind.Plan {
		k := 0
		var put func(p bind.Plan) bind.Plan
		put = func(p bind.Plan) bind.Plan {
			switch n := p.(type) {
			case *bind.Filter:
				if isInner(n.Input) {
					n.Input = put(n.Input)
					return n
				}
			case *bind.Join:
				if isInner(n) {
					n.Left = put(n.Left)
					n.Right = put(n.Right)
					return n
				}
			}
			k++
			return r.leaves[k-1]
		}
		return put(p)
	}
	n := len(r.leaves)
	for _, c := range r.conds {
		c.leafs = r.leafsOf(c.refs)
	}
	r.transitive()
	classes := r.deriveEquivalences()
	stats := make([]*relStat, n)
	for i, l := range r.leaves {
		stats[i] = o.est.stats(l)
		if !stats[i].known || stats[i].unanalysed {
			// No statistics, or a table that keeps column statistics but
			// was never analysed: a row count alone cannot tell a key from
			// a 25-value column (customer ⋈ supplier on the nation key),
			// so the binder's order stays until ANALYZE TABLE.
			return keep()
		}
	}
	// Statistics of a region column, by its global position.
	colStats := func(g int) colStat {
		i := r.owner(g)
		loc := g - r.first[i]
		if loc < len(stats[i].cols) {
			return stats[i].cols[loc]
		}
		return colStat{}
	}
	// Selectivity of each condition; single-input ones shrink their input.
	rows := make([]float64, n)
	for i := range stats {
		rows[i] = stats[i].rows
	}
	condSel := make([]float64, len(r.conds))
	for k, c := range r.conds {
		condSel[k] = o.condSel(r, c, colStats, stats)
		if bits.OnesCount64(c.leafs) == 1 {
			i := bits.TrailingZeros64(c.leafs)
			rows[i] = math.Max(rows[i]*condSel[k], 1)
		}
	}
	o.compositeKeys(r, colStats, rows, condSel)
	backoff(r.conds, condSel)
	for _, cl := range classes {
		cl.ndvs(colStats, rows)
	}
	var neighbours = make([]uint64, n)
	for _, c := range r.conds {
		if c.r != nil && bits.OnesCount64(c.leafs) == 2 {
			a := bits.TrailingZeros64(c.leafs)
			b := 63 - bits.LeadingZeros64(c.leafs)
			neighbours[a] |= 1 << b
			neighbours[b] |= 1 << a
		}
	}
	card := func(set uint64) float64 {
		v := 1.0
		for m := set; m != 0; m &= m - 1 {
			v *= rows[bits.TrailingZeros64(m)]
		}
		for k, c := range r.conds {
			if c.cls == nil && bits.OnesCount64(c.leafs) > 1 && c.leafs&set == c.leafs {
				v *= condSel[k]
			}
		}
		for _, cl := range classes {
			v *= cl.sel(set)
		}
		return math.Max(v, 1)
	}
	var best *tree
	if n <= dpLimit {
		best = dpOrder(n, neighbours, card)
	} else {
		best = greedyOrder(n, neighbours, card)
	}
	if q := o.build(r, best, p); q != nil {
		return q
	}
	return keep()
}

// transitive derives column = constant filters through the region's
// column equalities: with a = b joining two inputs and a filter b = 5 on
// one, the other gets a = 5 too, so it shrinks before the join (and its
// estimate with it). Only plain columns of one type and constants are
// used: the derived filter is implied, never a new condition.
func (r *region) transitive() {
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
	for _, c := range r.conds {
		if c.r == nil {
			continue
		}
		l, lok := c.l.(*expr.ColumnRef)
		rr, rok := c.r.(*expr.ColumnRef)
		if lok && rok && arrow.TypeEqual(l.Type, rr.Type) {
			a, b := r.global[l], r.global[rr]
			for _, g := range []int{a, b} {
				if _, ok := parent[g]; !ok {
					parent[g] = g
				}
			}
			parent[find(a)] = find(b)
		}
	}
	if len(parent) == 0 {
		return
	}
	// Constants each class is filtered to, from the inputs' own filters.
	type known struct {
		lit  *expr.Literal
		from int // the global column it filters
	}
	consts := map[int][]known{}
	has := map[[2]int]bool{} // (global column, constant's class entry) already filtered
	for i, l := range r.leaves {
		f, ok := l.(*bind.Filter)
		if !ok {
			continue
		}
		for _, c := range expr.Conjuncts(f.Cond) {
			cmp, ok := c.(*expr.CmpExpr)
			if !ok || cmp.Op != expr.Eq {
				continue
			}
			col, ok1 := cmp.L.(*expr.ColumnRef)
			lit, ok2 := cmp.R.(*expr.Literal)
			if !ok1 || !ok2 {
				col, ok1 = cmp.R.(*expr.ColumnRef)
				lit, ok2 = cmp.L.(*expr.Literal)
			}
			if !ok1 || !ok2 || lit.Value == nil || !arrow.TypeEqual(col.Type, lit.Type) {
				continue
			}
			g := r.first[i] + col.Index
			if _, in := parent[g]; !in {
				continue
			}
			consts[find(g)] = append(consts[find(g)], known{lit, g})
			has[[2]int{g, 0}] = true
		}
	}
	for g := range parent {
		ks := consts[find(g)]
		if len(ks) == 0 || has[[2]int{g, 0}] {
			continue
		}
		i := r.owner(g)
		if r.owner(ks[0].from) == i {
			continue
		}
		cols := r.leaves[i].Columns()
		loc := g - r.first[i]
		c := cols[loc]
		e, err := expr.Cmp(expr.Eq, expr.Col(loc, c.Name, c.Type), ks[0].lit)
		if err != nil {
			continue
		}
		r.leaves[i] = &bind.Filter{Input: r.leaves[i], Cond: e}
		has[[2]int{g, 0}] = true
	}
}

// condSel is a region condition's selectivity.
func (o *optimizer) condSel(r *region, c *cond, colStats func(int) colStat, stats []*relStat) float64 {
	// Selectivity functions read columns by index: give them a slice in
	// which each reference's index finds its column's statistics.
	saved := make([]int, len(c.refs))
	var cols []colStat
	for i, ref := range c.refs {
		saved[i] = ref.Index
	}
	idx := map[int]int{}
	for _, ref := range c.refs {
		g := r.global[ref]
		if _, ok := idx[g]; !ok {
			idx[g] = len(cols)
			cols = append(cols, colStats(g))
		}
	}
	// Temporarily point references into cols; restored below.
	for _, ref := range c.refs {
		ref.Index = idx[r.global[ref]]
	}
	defer func() {
		for i, ref := range c.refs {
			ref.Index = saved[i]
		}
	}()
	if c.r != nil {
		li, ri := c.leafs, c.leafs
		if bits.OnesCount64(c.leafs) == 2 {
			lrefs := refsOf(c.l, nil)
			if len(lrefs) > 0 {
				li = 1 << r.owner(r.global[lrefs[0]])
				ri = c.leafs &^ li
			}
		}
		l := &relStat{rows: setRows(li, stats), cols: cols}
		rr := &relStat{rows: setRows(ri, stats), cols: cols}
		return keySel(c.l, c.r, l, rr)
	}
	return selectivity(c.e, cols)
}

// compositeKeys estimates several equalities between the same two inputs
// as one key: each side's distinct combinations are at most its rows and
// at most the product of its columns' NDVs, and when every column of one
// side has no more distinct values than its partner (a foreign key into
// a primary key) its combinations are taken as contained in the other's.
// The selectivity is one over the larger count, as for one column;
// multiplying per column would take lineitem ⋈ partsupp for a few rows
// instead of one per lineitem row.
func (o *optimizer) compositeKeys(r *region, colStats func(int) colStat, rows, condSel []float64) {
	groups := map[uint64][]int{}
	for k, c := range r.conds {
		if c.r != nil && bits.OnesCount64(c.leafs) == 2 {
			groups[c.leafs] = append(groups[c.leafs], k)
		}
	}
	ndvOf := func(e expr.Expr) (float64, int) {
		col, ok := stripCast(e).(*expr.ColumnRef)
		if !ok {
			return 0, -1
		}
		g := r.global[col]
		return colStats(g).ndv, r.owner(g)
	}
	for set, g := range groups {
		if len(g) < 2 {
			continue
		}
		a := bits.TrailingZeros64(set)
		b := 63 - bits.LeadingZeros64(set)
		combA, combB := 1.0, 1.0
		aLEb, bLEa, ok := true, true, true
		for _, k := range g {
			c := r.conds[k]
			nl, ll := ndvOf(c.l)
			nr, lr := ndvOf(c.r)
			if nl == 0 || nr == 0 || ll < 0 || lr < 0 {
				ok = false
				break
			}
			if ll != a {
				nl, nr = nr, nl
			}
			combA *= nl
			combB *= nr
			aLEb = aLEb && nl <= nr
			bLEa = bLEa && nr <= nl
		}
		if !ok {
			continue // backoff below
		}
		combA, combB = math.Min(combA, rows[a]), math.Min(combB, rows[b])
		if aLEb {
			combA = math.Min(combA, combB)
		}
		if bLEa {
			combB = math.Min(combB, combA)
		}
		for i, k := range g {
			condSel[k] = 1
			if i == 0 {
				condSel[k] = 1 / math.Max(math.Max(combA, combB), 1)
			}
		}
	}
}

// backoff weakens all but the most selective of several conditions between
// the same inputs (s1 · s2^½ · s3^¼ …): the columns of a composite key
// are correlated (each partsupp row is one (partkey, suppkey) pair), and
// multiplying their selectivities as independent would make
// lineitem ⋈ partsupp a few rows instead of one per lineitem row.
func backoff(conds []*cond, condSel []float64) {
	groups := map[uint64][]int{}
	for k, c := range conds {
		if bits.OnesCount64(c.leafs) > 1 {
			groups[c.leafs] = append(groups[c.leafs], k)
		}
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		sort.Slice(g, func(i, j int) bool { return condSel[g[i]] < condSel[g[j]] })
		exp := 1.0
		for _, k := range g {
			condSel[k] = math.Pow(condSel[k], exp)
			exp /= 2
		}
	}
}

func setRows(set uint64, stats []*relStat) float64 {
	v := 1.0
	for m := set; m != 0; m &= m - 1 {
		v = math.Max(v, stats[bits.TrailingZeros64(m)].rows)
	}
	return v
}

// joinCost is the cost of left ⋈ right building on right.
func join(l, r *tree, rows float64) *tree {
	if r.rows > l.rows || (r.rows == l.rows && r.set < l.set) {
		l, r = r, l
	}
	return &tree{leaf: -1, set: l.set | r.set, left: l, right: r, rows: rows,
		cost: l.cost + r.cost + rows + l.rows + 2*r.rows}
}

func leafTree(i int, card func(uint64) float64) *tree {
	return &tree{leaf: i, set: 1 << i, rows: card(1 << i)}
}

func linked(a, b uint64, neighbours []uint64) bool {
	for m := a; m != 0; m &= m - 1 {
		if neighbours[bits.TrailingZeros64(m)]&b != 0 {
			return true
		}
	}
	return false
}

// dpOrder finds the cheapest tree over connected subsets (DPsub); parts no
// equality connects are cross-joined last, largest first.
func dpOrder(n int, neighbours []uint64, card func(uint64) float64) *tree {
	best := make([]*tree, 1<<n)
	for i := range n {
		best[1<<i] = leafTree(i, card)
	}
	for set := uint64(1); set < 1<<n; set++ {
		if bits.OnesCount64(set) < 2 {
			continue
		}
		rows := -1.0
		// Each split once: the part with the lowest input on the left.
		low := set & -set
		for sub := (set - 1) & set; sub != 0; sub = (sub - 1) & set {
			if sub&low == 0 {
				continue
			}
			a, b := best[sub], best[set^sub]
			if a == nil || b == nil || !linked(sub, set^sub, neighbours) {
				continue
			}
			if rows < 0 {
				rows = card(set)
			}
			t := join(a, b, rows)
			if best[set] == nil || t.cost < best[set].cost {
				best[set] = t
			}
		}
	}
	full := uint64(1)<<n - 1
	if best[full] != nil {
		return best[full]
	}
	// Connected components, each at its best, then cross products.
	var parts []*tree
	left := full
	for left != 0 {
		comp := uint64(1) << bits.TrailingZeros64(left)
		for {
			grow := comp
			for m := comp; m != 0; m &= m - 1 {
				grow |= neighbours[bits.TrailingZeros64(m)] & full
			}
			if grow == comp {
				break
			}
			comp = grow
		}
		parts = append(parts, best[comp])
		left &^= comp
	}
	return crossAll(parts, card)
}

func crossAll(parts []*tree, card func(uint64) float64) *tree {
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].rows > parts[j].rows })
	t := parts[0]
	for _, p := range parts[1:] {
		t = join(t, p, card(t.set|p.set))
	}
	return t
}

// greedyOrder joins the connected pair with the smallest result first
// until one tree is left (cross products only between unconnected parts).
func greedyOrder(n int, neighbours []uint64, card func(uint64) float64) *tree {
	parts := make([]*tree, n)
	for i := range n {
		parts[i] = leafTree(i, card)
	}
	for len(parts) > 1 {
		bi, bj, bc := -1, -1, math.Inf(1)
		for i := range parts {
			for j := i + 1; j < len(parts); j++ {
				if !linked(parts[i].set, parts[j].set, neighbours) {
					continue
				}
				if c := card(parts[i].set | parts[j].set); c < bc {
					bi, bj, bc = i, j, c
				}
			}
		}
		if bi < 0 {
			return crossAll(parts, card)
		}
		t := join(parts[bi], parts[bj], bc)
		parts = slices.Delete(parts, bj, bj+1)
		parts[bi] = t
	}
	return parts[0]
}

// built is a subtree as plan with the region columns it outputs, in order.
type built struct {
	plan bind.Plan
	cols []int // global column positions
}

// build makes the plan of t, placing every condition at the lowest node
// that sees all it reads, and a projection back to the region's order.
func (o *optimizer) build(r *region, t *tree, root bind.Plan) bind.Plan {
	placed := make([]bool, len(r.conds))
	// where each reference will point, decided before anything changes
	target := map[*expr.ColumnRef]int{}
	conflict := false
	point := func(refs []*expr.ColumnRef, cols []int) {
		pos := map[int]int{}
		for i, g := range cols {
			pos[g] = i
		}
		for _, c := range refs {
			p := pos[r.global[c]]
			if old, ok := target[c]; ok && old != p {
				conflict = true
			}
			target[c] = p
		}
	}
	var mk func(t *tree) built
	mk = func(t *tree) built {
		if t.leaf >= 0 {
			i := t.leaf
			cols := make([]int, len(r.leaves[i].Columns()))
			for k := range cols {
				cols[k] = r.first[i] + k
			}
			b := built{plan: r.leaves[i], cols: cols}
			// Conditions on this input alone (filters from above the joins).
			for k, c := range r.conds {
				if c.leafs == t.set && !placed[k] {
					placed[k] = true
					e := c.e
					if c.r != nil {
						e, _ = expr.Cmp(expr.Eq, c.l, c.r)
					}
					if e == nil {
						conflict = true
						continue
					}
					f := &bind.Filter{Input: b.plan, Cond: e}
					point(refsOf(e, nil), b.cols)
					b.plan = f
				}
			}
			return b
		}
		l, rt := mk(t.left), mk(t.right)
		out := append(append([]bind.Column{}, l.plan.Columns()...), rt.plan.Columns()...)
		j := &bind.Join{Kind: bind.CrossJoin, Left: l.plan, Right: rt.plan, Out: out}
		cols := append(append([]int{}, l.cols...), rt.cols...)
		// One equality per equivalence class joins two parts: each part's
		// columns of the class are equal already (by the same rule below
		// it), so the class's other equalities between them are implied.
		keyed := map[*eqClass]bool{}
		for k, c := range r.conds {
			if placed[k] || c.leafs&t.set != c.leafs {
				continue
			}
			placed[k] = true
			if c.cls != nil {
				if keyed[c.cls] {
					continue
				}
				keyed[c.cls] = true
			}
			j.Kind = bind.InnerJoin
			if c.r != nil {
				ll, rl := r.leafsOf(refsOf(c.l, nil)), r.leafsOf(refsOf(c.r, nil))
				switch {
				case ll&t.left.set == ll && rl&t.right.set == rl && ll != 0 && rl != 0:
					j.LeftKeys, j.RightKeys = append(j.LeftKeys, c.l), append(j.RightKeys, c.r)
					point(refsOf(c.l, nil), l.cols)
					point(refsOf(c.r, nil), rt.cols)
					continue
				case rl&t.left.set == rl && ll&t.right.set == ll && ll != 0 && rl != 0:
					j.LeftKeys, j.RightKeys = append(j.LeftKeys, c.r), append(j.RightKeys, c.l)
					point(refsOf(c.r, nil), l.cols)
					point(refsOf(c.l, nil), rt.cols)
					continue
				}
			}
			e := c.e
			if c.r != nil {
				e, _ = expr.Cmp(expr.Eq, c.l, c.r)
			}
			if e == nil {
				conflict = true
				continue
			}
			if j.Residual == nil {
				j.Residual = e
			} else if x, err := expr.And(j.Residual, e); err == nil {
				j.Residual = x
			} else {
				conflict = true
			}
			point(refsOf(e, nil), cols)
		}
		o.est.memo[j] = &relStat{rows: t.rows, known: true,
			cols: append(append([]colStat{}, o.est.stats(l.plan).cols...), o.est.stats(rt.plan).cols...)}
		return built{plan: j, cols: cols}
	}
	b := mk(t)
	// Conditions reading no column go on top.
	var rest []expr.Expr
	for k, c := range r.conds {
		if !placed[k] {
			if c.r != nil {
				conflict = true
				continue
			}
			rest = append(rest, c.e)
		}
	}
	if conflict {
		return nil
	}
	for c, p := range target {
		c.Index = p
	}
	plan := b.plan
	if len(rest) > 0 {
		cond, err := expr.And(rest...)
		if err != nil {
			return nil
		}
		if len(rest) == 1 {
			cond = rest[0]
		}
		plan = &bind.Filter{Input: plan, Cond: cond}
	}
	identity := true
	for i, g := range b.cols {
		identity = identity && i == g
	}
	if identity {
		return plan
	}
	want := root.Columns()
	pos := make([]int, len(b.cols))
	for i, g := range b.cols {
		pos[g] = i
	}
	exprs := make([]expr.Expr, len(want))
	pc := plan.Columns()
	for g, c := range want {
		exprs[g] = expr.Col(pos[g], pc[pos[g]].Name, c.Type)
	}
	return &bind.Project{Input: plan, Exprs: exprs, Out: want}
}
