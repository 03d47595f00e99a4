package exec

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// The aggregates that keep a group's values: PERCENTILE, MEDIAN and
// PERCENTILE_APPROX (every non-NULL value), APPROX_COUNT_DISTINCT (every
// distinct value: exact, not an HLL sketch) and TOPN (a count per
// distinct value). Their state grows with the data, like Doris's exact
// percentile. The operator charges a fixed size per group; each of these
// charges its values and keys too (valMem), so a huge group ends with the
// statement's memory-limit error, and release refunds them.

// ---- PERCENTILE / MEDIAN / PERCENTILE_APPROX ----

type percentileAcc struct {
	valMem
	f    AggFunc
	vals [][]float64
	p    []float64
	pSet []bool
}

func (a *percentileAcc) grow(n int) {
	for len(a.vals) < n {
		a.vals = append(a.vals, nil)
		a.p = append(a.p, 0.5)
		a.pSet = append(a.pSet, false)
	}
}

func (a *percentileAcc) update(gids []uint32, arg arrow.Array, rows int) {
	var xs, ps *array.Float64
	if st, ok := arg.(*array.Struct); ok {
		xs, ps = st.Field(0).(*array.Float64), st.Field(1).(*array.Float64)
	} else {
		xs = arg.(*array.Float64)
	}
	for i, g := range gids[:rows] {
		if ps != nil && !a.pSet[g] && ps.IsValid(i) {
			a.p[g], a.pSet[g] = ps.Value(i), true
		}
		if xs.IsNull(i) {
			continue
		}
		x := xs.Value(i)
		if a.f == PercentileApprox {
			// Doris's t-digest holds float centroids.
			x = float64(float32(x))
		}
		a.push(g, x)
	}
}

func (a *percentileAcc) merge(gids []uint32, states []arrow.Array) {
	l := states[0].(*array.List)
	vs := l.ListValues().(*array.Float64)
	ps := states[1].(*array.Float64)
	for i, g := range gids {
		if ps.IsValid(i) && !a.pSet[g] {
			a.p[g], a.pSet[g] = ps.Value(i), true
		}
		if l.IsNull(i) {
			continue
		}
		s, e := l.ValueOffsets(i)
		add := vs.Float64Values()[s:e]
		if need := len(a.vals[g]) + len(add); need > cap(a.vals[g]) {
			// Grow as append would, charged before the copy.
			c := max(need, 2*cap(a.vals[g]))
			a.charge(int64(c-cap(a.vals[g])) * valBytes)
			v := make([]float64, len(a.vals[g]), c)
			copy(v, a.vals[g])
			a.vals[g] = v
		}
		a.vals[g] = append(a.vals[g], add...)
	}
}

// push appends x to group g, charging the slice's growth first.
func (a *percentileAcc) push(g uint32, x float64) {
	v := a.vals[g]
	if len(v) == cap(v) {
		c := max(4, 2*cap(v))
		a.charge(int64(c-cap(v)) * valBytes)
		nv := make([]float64, len(v), c)
		copy(nv, v)
		v = nv
	}
	a.vals[g] = append(v, x)
}

func (a *percentileAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := 0; g < n; g++ {
		v := a.vals[g]
		if len(v) == 0 {
			b.AppendNull()
			continue
		}
		slices.Sort(v)
		if a.f == PercentileApprox {
			b.Append(tdigestQuantile(v, a.p[g]))
		} else {
			b.Append(linearQuantile(v, a.p[g]))
		}
	}
	return b.NewArray()
}

// linearQuantile is Doris's exact PERCENTILE: position p·(n-1) in the
// sorted values, interpolated linearly between its neighbours.
func linearQuantile(v []float64, p float64) float64 {
	pos := p * float64(len(v)-1)
	lo := int(math.Floor(pos))
	if lo >= len(v)-1 {
		return v[len(v)-1]
	}
	if lo < 0 {
		return v[0]
	}
	return v[lo] + (pos-float64(lo))*(v[lo+1]-v[lo])
}

// tdigestQuantile is the quantile Doris's t-digest answers while every
// value is still a centroid of its own (with the default compression 10000
// centroids merge only past tens of millions of values): value i sits at
// rank i + 1/2, ranks between two centres interpolate linearly, and ranks
// within half a value of either end give the minimum or maximum. Beyond
// that size Doris approximates; this stays exact under the same rule.
func tdigestQuantile(v []float64, p float64) float64 {
	n := len(v)
	if n == 1 {
		return v[0]
	}
	idx := p * float64(n)
	if idx <= 0.5 {
		return v[0]
	}
	if idx > float64(n)-0.5 {
		return v[n-1]
	}
	// The first centre at or after idx: centre i is at i + 0.5.
	i := int(math.Ceil(idx - 0.5))
	z1 := idx - (float64(i) - 0.5) // distance from centre i-1
	z2 := (float64(i) + 0.5) - idx // distance to centre i
	r := (v[i-1]*z2 + v[i]*z1) / (z1 + z2)
	return math.Max(v[i-1], math.Min(r, v[i]))
}

func (a *percentileAcc) states(mem memory.Allocator, n int) []arrow.Array {
	lb := array.NewListBuilder(mem, expr.Float64T())
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Float64Builder)
	for g := 0; g < n; g++ {
		lb.Append(true)
		vb.AppendValues(a.vals[g], nil)
	}
	// p is NULL where this side saw no row (a global aggregate over no
	// input), so the merge takes it from a side that did.
	pb := array.NewFloat64Builder(mem)
	defer pb.Release()
	pb.AppendValues(a.p[:n], a.pSet[:n])
	return []arrow.Array{lb.NewArray(), pb.NewArray()}
}

// ---- APPROX_COUNT_DISTINCT / NDV (exact) ----

type ndvAcc struct {
	valMem
	typ  arrow.DataType
	sets []map[string]struct{}
}

func (a *ndvAcc) grow(n int) {
	a.sets = growTo(a.sets, n)
}

func (a *ndvAcc) add(g uint32, k string) {
	if a.sets[g] == nil {
		a.sets[g] = map[string]struct{}{}
	}
	if _, ok := a.sets[g][k]; ok {
		return
	}
	a.charge(int64(len(k)) + setEntryBytes)
	a.sets[g][k] = struct{}{}
}

func (a *ndvAcc) update(gids []uint32, arg arrow.Array, rows int) {
	get := expr.Getter(arg)
	for i, g := range gids[:rows] {
		if v := get(i); v != nil {
			a.add(g, expr.KeyString(v, a.typ))
		}
	}
}

func (a *ndvAcc) merge(gids []uint32, states []arrow.Array) {
	l := states[0].(*array.List)
	ks := l.ListValues().(*array.String)
	for i, g := range gids {
		s, e := l.ValueOffsets(i)
		for j := s; j < e; j++ {
			a.add(g, ks.Value(int(j)))
		}
	}
}

func (a *ndvAcc) result(mem memory.Allocator, n int) arrow.Array {
	c := make([]int64, n)
	for g := range c {
		c[g] = int64(len(a.sets[g]))
	}
	return int64Array(mem, c)
}

func (a *ndvAcc) states(mem memory.Allocator, n int) []arrow.Array {
	lb := array.NewListBuilder(mem, expr.StringT())
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for g := 0; g < n; g++ {
		lb.Append(true)
		for k := range a.sets[g] {
			vb.Append(k)
		}
	}
	return []arrow.Array{lb.NewArray()}
}

// ---- TOPN(x, n) ----

// topNAcc counts each distinct text value. The result is Doris's JSON
// object {"value":count,...} of the n most frequent values, most frequent
// first; equal counts go in ascending value order (Doris leaves that order
// open). No values give NULL.
type topNAcc struct {
	valMem
	counts []map[string]int64
	n      []int64
}

func (a *topNAcc) grow(n int) {
	a.counts = growTo(a.counts, n)
	a.n = growTo(a.n, n)
}

func (a *topNAcc) add(g uint32, k string, c int64) {
	if a.counts[g] == nil {
		a.counts[g] = map[string]int64{}
	}
	if _, ok := a.counts[g][k]; !ok {
		a.charge(int64(len(k)) + cntEntryBytes)
	}
	a.counts[g][k] += c
}

func (a *topNAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	xs, ns := st.Field(0).(*array.String), st.Field(1).(*array.Int64)
	for i, g := range gids[:rows] {
		if a.n[g] == 0 && ns.IsValid(i) {
			a.n[g] = ns.Value(i)
		}
		if st.IsNull(i) || xs.IsNull(i) {
			continue
		}
		a.add(g, xs.Value(i), 1)
	}
}

func (a *topNAcc) merge(gids []uint32, states []arrow.Array) {
	kl, cl := states[0].(*array.List), states[1].(*array.List)
	ks, cs := kl.ListValues().(*array.String), cl.ListValues().(*array.Int64)
	ns := states[2].(*array.Int64)
	for i, g := range gids {
		if a.n[g] == 0 && ns.IsValid(i) {
			a.n[g] = ns.Value(i)
		}
		s, e := kl.ValueOffsets(i)
		cs0, _ := cl.ValueOffsets(i)
		for j := s; j < e; j++ {
			a.add(g, ks.Value(int(j)), cs.Value(int(cs0+j-s)))
		}
	}
}

func (a *topNAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	type kc struct {
		k string
		c int64
	}
	for g := 0; g < n; g++ {
		if len(a.counts[g]) == 0 {
			b.AppendNull()
			continue
		}
		all := make([]kc, 0, len(a.counts[g]))
		for k, c := range a.counts[g] {
			all = append(all, kc{k, c})
		}
		slices.SortFunc(all, func(x, y kc) int {
			if x.c != y.c {
				if x.c > y.c {
					return -1
				}
				return 1
			}
			return strings.Compare(x.k, y.k)
		})
		if top := a.n[g]; top > 0 && int64(len(all)) > top {
			all = all[:top]
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for i, e := range all {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSONString(&sb, e.k)
			sb.WriteByte(':')
			sb.WriteString(strconv.FormatInt(e.c, 10))
		}
		sb.WriteByte('}')
		b.Append(sb.String())
	}
	return b.NewArray()
}

func (a *topNAcc) states(mem memory.Allocator, n int) []arrow.Array {
	kb := array.NewListBuilder(mem, expr.StringT())
	defer kb.Release()
	cb := array.NewListBuilder(mem, expr.Int64T())
	defer cb.Release()
	kv := kb.ValueBuilder().(*array.StringBuilder)
	cv := cb.ValueBuilder().(*array.Int64Builder)
	for g := 0; g < n; g++ {
		kb.Append(true)
		cb.Append(true)
		for k, c := range a.counts[g] {
			kv.Append(k)
			cv.Append(c)
		}
	}
	return []arrow.Array{kb.NewArray(), cb.NewArray(), int64Array(mem, a.n[:n])}
}

// writeJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, everything else as is.
func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteByte("0123456789abcdef"[r>>4])
			sb.WriteByte("0123456789abcdef"[r&15])
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
}
