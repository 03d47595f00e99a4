package exec

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// The last aggregates of Doris's list: TOPN_ARRAY, TOPN_WEIGHTED,
// COUNT_BY_ENUM, PERCENTILE_APPROX_WEIGHTED, HISTOGRAM, LINEAR_HISTOGRAM,
// SEQUENCE_MATCH and SEQUENCE_COUNT. Each keeps what the group saw (a
// count or weight per distinct value, the weighted values, the events),
// charges it to the statement's account as it grows (valMem) and passes
// it on as list columns for the partial/final split. Their constant
// parameters ride in the argument STRUCT and again in the states, so a
// final aggregate that only merges knows them.

// ---- TOPN_ARRAY(x, n) / TOPN_WEIGHTED(x, w, n) ----

// topWeight is one distinct value of a top-n group: its value, its count
// or summed weight, and when it was first seen (ties: the value first
// seen last comes first, which is the order Doris's hash table hands
// equal counts to its sort, e.g. [1, 2, 4] over 1,2,1,3,1,2,1,4).
type topWeight struct {
	v   any
	w   float64
	seq int64
}

type topArrayAcc struct {
	valMem
	typ      arrow.DataType
	weighted bool
	groups   []map[string]*topWeight
	n        []int64
	seq      int64
}

func (a *topArrayAcc) grow(n int) {
	a.groups = growTo(a.groups, n)
	a.n = growTo(a.n, n)
}

func (a *topArrayAcc) add(g uint32, v any, w float64) {
	m := a.groups[g]
	if m == nil {
		m = map[string]*topWeight{}
		a.groups[g] = m
	}
	k := expr.KeyString(v, a.typ)
	if e, ok := m[k]; ok {
		e.w += w
		return
	}
	a.charge(int64(2*len(k)) + cntEntryBytes + 32)
	if s, ok := v.(string); ok {
		v = strings.Clone(s)
	}
	a.seq++
	m[k] = &topWeight{v: v, w: w, seq: a.seq}
}

func (a *topArrayAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	get := expr.Getter(st.Field(0))
	ni := 1
	var ws *array.Float64
	if a.weighted {
		ws, ni = st.Field(1).(*array.Float64), 2
	}
	ns := st.Field(ni).(*array.Int64)
	for i, g := range gids[:rows] {
		if a.n[g] == 0 && ns.IsValid(i) {
			a.n[g] = ns.Value(i)
		}
		v := get(i)
		if !st.IsValid(i) || v == nil {
			continue
		}
		w := 1.0
		if ws != nil {
			if ws.IsNull(i) {
				continue
			}
			w = ws.Value(i)
		}
		a.add(g, v, w)
	}
}

func (a *topArrayAcc) merge(gids []uint32, states []arrow.Array) {
	vs, ws := expr.Getter(states[0]), expr.Getter(states[1])
	ns := states[2].(*array.Int64)
	for i, g := range gids {
		if a.n[g] == 0 && ns.IsValid(i) {
			a.n[g] = ns.Value(i)
		}
		v, _ := vs(i).([]any)
		w, _ := ws(i).([]any)
		for k := range v {
			a.add(g, v[k], w[k].(float64))
		}
	}
}

func (a *topArrayAcc) sorted(g int) []*topWeight {
	all := make([]*topWeight, 0, len(a.groups[g]))
	for _, e := range a.groups[g] {
		all = append(all, e)
	}
	slices.SortFunc(all, func(x, y *topWeight) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		case x.seq > y.seq:
			return -1
		case x.seq < y.seq:
			return 1
		}
		return 0
	})
	return all
}

func (a *topArrayAcc) result(mem memory.Allocator, n int) arrow.Array {
	lb := array.NewListBuilder(mem, a.typ)
	defer lb.Release()
	app := expr.Appender(lb.ValueBuilder())
	for g := 0; g < n; g++ {
		if len(a.groups[g]) == 0 {
			lb.AppendNull()
			continue
		}
		all := a.sorted(g)
		if top := a.n[g]; top > 0 && int64(len(all)) > top {
			all = all[:top]
		}
		lb.Append(true)
		for _, e := range all {
			app(e.v)
		}
	}
	return lb.NewArray()
}

func (a *topArrayAcc) states(mem memory.Allocator, n int) []arrow.Array {
	vb := array.NewListBuilder(mem, a.typ)
	defer vb.Release()
	wb := array.NewListBuilder(mem, expr.Float64T())
	defer wb.Release()
	app := expr.Appender(vb.ValueBuilder())
	wv := wb.ValueBuilder().(*array.Float64Builder)
	for g := 0; g < n; g++ {
		vb.Append(true)
		wb.Append(true)
		// In first-seen order, so the merge keeps the tie order.
		all := make([]*topWeight, 0, len(a.groups[g]))
		for _, e := range a.groups[g] {
			all = append(all, e)
		}
		slices.SortFunc(all, func(x, y *topWeight) int { return int(x.seq - y.seq) })
		for _, e := range all {
			app(e.v)
			wv.Append(e.w)
		}
	}
	return []arrow.Array{vb.NewArray(), wb.NewArray(), int64Array(mem, a.n[:n])}
}

// ---- COUNT_BY_ENUM(e1, ..., en) ----

// enumCount is one column's tally in a group: a count per value (with
// its first-seen order) and the NULLs.
type enumCount struct {
	counts map[string]*topWeight
	nulls  int64
	seq    int64
}

// countByEnumAcc is COUNT_BY_ENUM: per argument, how often each value
// occurs, how many are not NULL, NULL and in all, as Doris's JSON array
// [{"cbe":{"v":n,...},"notnull":n,"null":n,"all":n}, ...]; "cbe" lists
// the values last seen first, the order of Doris's examples.
type countByEnumAcc struct {
	valMem
	n      int
	groups [][]enumCount
}

func (a *countByEnumAcc) grow(n int) {
	for len(a.groups) < n {
		// A tally per argument and group, beyond the operator's fixed
		// per-group charge.
		a.charge(int64(a.n) * 48)
		a.groups = append(a.groups, make([]enumCount, a.n))
	}
}

func (a *countByEnumAcc) add(g uint32, c int, v string, k int64) {
	e := &a.groups[g][c]
	if e.counts == nil {
		e.counts = map[string]*topWeight{}
	}
	if x, ok := e.counts[v]; ok {
		x.w += float64(k)
		return
	}
	a.charge(int64(len(v)) + cntEntryBytes + 32)
	e.seq++
	e.counts[strings.Clone(v)] = &topWeight{w: float64(k), seq: e.seq}
}

func (a *countByEnumAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	for c := 0; c < a.n; c++ {
		col := st.Field(c).(*array.String)
		for i, g := range gids[:rows] {
			if !st.IsValid(i) || col.IsNull(i) {
				a.groups[g][c].nulls++
				continue
			}
			a.add(g, c, col.Value(i), 1)
		}
	}
}

// The state is the keys (column index, a NUL byte, the value), their
// counts and each column's NULL count.
func (a *countByEnumAcc) merge(gids []uint32, states []arrow.Array) {
	ks, cs, ns := expr.Getter(states[0]), expr.Getter(states[1]), expr.Getter(states[2])
	for i, g := range gids {
		k, _ := ks(i).([]any)
		cnt, _ := cs(i).([]any)
		for j := range k {
			col, v, _ := strings.Cut(k[j].(string), "\x00")
			c, _ := strconv.Atoi(col)
			a.add(g, c, v, cnt[j].(int64))
		}
		nulls, _ := ns(i).([]any)
		for c := range nulls {
			if c < a.n {
				a.groups[g][c].nulls += nulls[c].(int64)
			}
		}
	}
}

func (a *countByEnumAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		var sb strings.Builder
		sb.WriteByte('[')
		for c := range a.groups[g] {
			e := &a.groups[g][c]
			if c > 0 {
				sb.WriteByte(',')
			}
			type kv struct {
				k   string
				cnt int64
				seq int64
			}
			all := make([]kv, 0, len(e.counts))
			var notnull int64
			for k, x := range e.counts {
				all = append(all, kv{k, int64(x.w), x.seq})
				notnull += int64(x.w)
			}
			sort.Slice(all, func(x, y int) bool { return all[x].seq > all[y].seq })
			sb.WriteString(`{"cbe":{`)
			for j, x := range all {
				if j > 0 {
					sb.WriteByte(',')
				}
				writeJSONString(&sb, x.k)
				sb.WriteByte(':')
				sb.WriteString(strconv.FormatInt(x.cnt, 10))
			}
			sb.WriteString(`},"notnull":`)
			sb.WriteString(strconv.FormatInt(notnull, 10))
			sb.WriteString(`,"null":`)
			sb.WriteString(strconv.FormatInt(e.nulls, 10))
			sb.WriteString(`,"all":`)
			sb.WriteString(strconv.FormatInt(notnull+e.nulls, 10))
			sb.WriteByte('}')
		}
		sb.WriteByte(']')
		b.Append(sb.String())
	}
	return b.NewArray()
}

func (a *countByEnumAcc) states(mem memory.Allocator, n int) []arrow.Array {
	kb := array.NewListBuilder(mem, expr.StringT())
	defer kb.Release()
	cb := array.NewListBuilder(mem, expr.Int64T())
	defer cb.Release()
	nb := array.NewListBuilder(mem, expr.Int64T())
	defer nb.Release()
	kv := kb.ValueBuilder().(*array.StringBuilder)
	cv := cb.ValueBuilder().(*array.Int64Builder)
	nv := nb.ValueBuilder().(*array.Int64Builder)
	for g := 0; g < n; g++ {
		kb.Append(true)
		cb.Append(true)
		nb.Append(true)
		for c := range a.groups[g] {
			e := &a.groups[g][c]
			keys := make([]string, 0, len(e.counts))
			for k := range e.counts {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(x, y int) bool { return e.counts[keys[x]].seq < e.counts[keys[y]].seq })
			for _, k := range keys {
				kv.Append(strconv.Itoa(c) + "\x00" + k)
				cv.Append(int64(e.counts[k].w))
			}
			nv.Append(e.nulls)
		}
	}
	return []arrow.Array{kb.NewArray(), cb.NewArray(), nb.NewArray()}
}

// ---- PERCENTILE_APPROX_WEIGHTED(x, w, p) ----

// weightedPercentileAcc keeps every (value, weight) with a positive
// weight (Doris skips the others) and answers as Doris's t-digest does
// while each value is a centroid of its own: in float32, centroid i at
// cumulative weight W(<i) + w_i/2, linear between neighbouring centres,
// the minimum or maximum beyond the outer half-weights. Doris merges
// centroids only past weights near the compression (10000 by default);
// this stays exact there.
type weightedPercentileAcc struct {
	valMem
	vals, ws [][]float64
	p        []float64
	pSet     []bool
}

func (a *weightedPercentileAcc) grow(n int) {
	a.vals, a.ws, a.p, a.pSet = growTo(a.vals, n), growTo(a.ws, n), growTo(a.p, n), growTo(a.pSet, n)
}

func (a *weightedPercentileAcc) add(g uint32, x, w float64) {
	if w <= 0 || math.IsNaN(x) {
		return
	}
	a.charge(2 * valBytes)
	a.vals[g] = append(a.vals[g], float64(float32(x)))
	a.ws[g] = append(a.ws[g], float64(float32(w)))
}

func (a *weightedPercentileAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	xs, ws, ps := st.Field(0).(*array.Float64), st.Field(1).(*array.Float64), st.Field(2).(*array.Float64)
	for i, g := range gids[:rows] {
		if !a.pSet[g] && ps.IsValid(i) {
			a.p[g], a.pSet[g] = ps.Value(i), true
		}
		if !st.IsValid(i) || xs.IsNull(i) || ws.IsNull(i) {
			continue
		}
		a.add(g, xs.Value(i), ws.Value(i))
	}
}

func (a *weightedPercentileAcc) merge(gids []uint32, states []arrow.Array) {
	vs, ws := expr.Getter(states[0]), expr.Getter(states[1])
	ps := states[2].(*array.Float64)
	for i, g := range gids {
		if !a.pSet[g] && ps.IsValid(i) {
			a.p[g], a.pSet[g] = ps.Value(i), true
		}
		v, _ := vs(i).([]any)
		w, _ := ws(i).([]any)
		for k := range v {
			a.add(g, v[k].(float64), w[k].(float64))
		}
	}
}

func (a *weightedPercentileAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if len(a.vals[g]) == 0 {
			b.AppendNull()
			continue
		}
		b.Append(float64(weightedTDigestQuantile(a.vals[g], a.ws[g], float32(a.p[g]))))
	}
	return b.NewArray()
}

// weightedTDigestQuantile is the t-digest quantile over single-value
// centroids, in float32 as Doris computes it.
func weightedTDigestQuantile(vals, ws []float64, q float32) float32 {
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return vals[idx[x]] < vals[idx[y]] })
	n := len(idx)
	mean := func(i int) float32 { return float32(vals[idx[i]]) }
	weight := func(i int) float32 { return float32(ws[idx[i]]) }
	if n == 1 {
		return mean(0)
	}
	cum := make([]float32, 0, n+1)
	var total float32
	for i := 0; i < n; i++ {
		cum = append(cum, total+weight(i)/2)
		total += weight(i)
	}
	cum = append(cum, total)
	index := q * total
	if index <= weight(0)/2 {
		return mean(0)
	}
	i := sort.Search(len(cum), func(k int) bool { return cum[k] >= index })
	if i+1 < len(cum) {
		z1 := index - cum[i-1]
		z2 := cum[i] - index
		return weightedAverage32(mean(i-1), z2, mean(i), z1)
	}
	return mean(n - 1)
}

func weightedAverage32(x1, w1, x2, w2 float32) float32 {
	if x1 > x2 {
		x1, w1, x2, w2 = x2, w2, x1, w1
	}
	// Each product rounded to float32 on its own (no fused multiply-add),
	// as Doris's float arithmetic does.
	x := (float32(x1*w1) + float32(x2*w2)) / (w1 + w2)
	return max(x1, min(x, x2))
}

func (a *weightedPercentileAcc) states(mem memory.Allocator, n int) []arrow.Array {
	pb := array.NewFloat64Builder(mem)
	defer pb.Release()
	pb.AppendValues(a.p[:n], a.pSet[:n])
	return []arrow.Array{float64Lists(mem, a.vals[:n]), float64Lists(mem, a.ws[:n]), pb.NewArray()}
}

func float64Lists(mem memory.Allocator, vs [][]float64) arrow.Array {
	lb := array.NewListBuilder(mem, expr.Float64T())
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Float64Builder)
	for _, v := range vs {
		lb.Append(true)
		vb.AppendValues(v, nil)
	}
	return lb.NewArray()
}

func int64Lists(mem memory.Allocator, vs [][]int64) arrow.Array {
	lb := array.NewListBuilder(mem, expr.Int64T())
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Int64Builder)
	for _, v := range vs {
		lb.Append(true)
		vb.AppendValues(v, nil)
	}
	return lb.NewArray()
}

// ---- HISTOGRAM(x, max_buckets) ----

// histogramAcc is Doris's equal-height HISTOGRAM: the values in order,
// each joining the last bucket when it equals its upper bound or the
// bucket holds fewer than ceil(count / max_buckets) values, else opening
// a new one; the result is {"num_buckets":n,"buckets":[{"lower","upper",
// "ndv","count","pre_sum"}, ...]} with the bounds as text.
type histogramAcc struct {
	valMem
	typ    arrow.DataType
	groups []map[string]*topWeight
	max    []int64
}

func (a *histogramAcc) grow(n int) {
	a.groups = growTo(a.groups, n)
	a.max = growTo(a.max, n)
}

func (a *histogramAcc) add(g uint32, v any, c int64) {
	m := a.groups[g]
	if m == nil {
		m = map[string]*topWeight{}
		a.groups[g] = m
	}
	k := expr.KeyString(v, a.typ)
	if e, ok := m[k]; ok {
		e.w += float64(c)
		return
	}
	a.charge(int64(2*len(k)) + cntEntryBytes + 32)
	if s, ok := v.(string); ok {
		v = strings.Clone(s)
	}
	m[k] = &topWeight{v: v, w: float64(c)}
}

func (a *histogramAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	get := expr.Getter(st.Field(0))
	ns := st.Field(1).(*array.Int64)
	for i, g := range gids[:rows] {
		if a.max[g] == 0 && ns.IsValid(i) {
			a.max[g] = ns.Value(i)
		}
		if v := get(i); st.IsValid(i) && v != nil {
			a.add(g, v, 1)
		}
	}
}

func (a *histogramAcc) merge(gids []uint32, states []arrow.Array) {
	vs, cs := expr.Getter(states[0]), expr.Getter(states[1])
	ns := states[2].(*array.Int64)
	for i, g := range gids {
		if a.max[g] == 0 && ns.IsValid(i) {
			a.max[g] = ns.Value(i)
		}
		v, _ := vs(i).([]any)
		c, _ := cs(i).([]any)
		for k := range v {
			a.add(g, v[k], c[k].(int64))
		}
	}
}

func (a *histogramAcc) text(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float64:
		if a.typ.ID() == arrow.FLOAT32 {
			return strconv.FormatFloat(x, 'g', -1, 32)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return expr.FormatValue(v, a.typ)
}

func (a *histogramAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	type bucket struct {
		lower, upper       any
		count, preSum, ndv int64
	}
	for g := 0; g < n; g++ {
		all := make([]*topWeight, 0, len(a.groups[g]))
		var total int64
		for _, e := range a.groups[g] {
			all = append(all, e)
			total += int64(e.w)
		}
		slices.SortFunc(all, func(x, y *topWeight) int { return expr.Compare(x.v, y.v, a.typ) })
		maxB := a.max[g]
		if maxB <= 0 {
			maxB = 128
		}
		per := (total + maxB - 1) / maxB
		var bs []bucket
		for _, e := range all {
			c := int64(e.w)
			// Value by value, as Doris adds them one at a time: the first
			// copy decides, the rest of equal values follow it.
			last := len(bs) - 1
			if last >= 0 && bs[last].count < per {
				bs[last].upper, bs[last].count, bs[last].ndv = e.v, bs[last].count+c, bs[last].ndv+1
				continue
			}
			pre := int64(0)
			if last >= 0 {
				pre = bs[last].preSum + bs[last].count
			}
			bs = append(bs, bucket{lower: e.v, upper: e.v, count: c, preSum: pre, ndv: 1})
		}
		var sb strings.Builder
		sb.WriteString(`{"num_buckets":`)
		sb.WriteString(strconv.Itoa(len(bs)))
		sb.WriteString(`,"buckets":[`)
		for i, x := range bs {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"lower":`)
			writeJSONString(&sb, a.text(x.lower))
			sb.WriteString(`,"upper":`)
			writeJSONString(&sb, a.text(x.upper))
			sb.WriteString(`,"ndv":` + strconv.FormatInt(x.ndv, 10))
			sb.WriteString(`,"count":` + strconv.FormatInt(x.count, 10))
			sb.WriteString(`,"pre_sum":` + strconv.FormatInt(x.preSum, 10) + `}`)
		}
		sb.WriteString(`]}`)
		b.Append(sb.String())
	}
	return b.NewArray()
}

func (a *histogramAcc) states(mem memory.Allocator, n int) []arrow.Array {
	vb := array.NewListBuilder(mem, a.typ)
	defer vb.Release()
	cb := array.NewListBuilder(mem, expr.Int64T())
	defer cb.Release()
	app := expr.Appender(vb.ValueBuilder())
	cv := cb.ValueBuilder().(*array.Int64Builder)
	for g := 0; g < n; g++ {
		vb.Append(true)
		cb.Append(true)
		for _, e := range a.groups[g] {
			app(e.v)
			cv.Append(int64(e.w))
		}
	}
	return []arrow.Array{vb.NewArray(), cb.NewArray(), int64Array(mem, a.max[:n])}
}

// ---- LINEAR_HISTOGRAM(x, interval, offset) ----

// linearHistogramAcc counts values per bucket floor((x-offset)/interval)
// and gives Doris's {"num_buckets":n,"buckets":[{"lower":l,"upper":u,
// "count":c,"acc_count":a}, ...]} over the non-empty buckets in order.
type linearHistogramAcc struct {
	valMem
	groups           []map[int64]int64
	interval, offset float64
	set              bool
}

func (a *linearHistogramAcc) grow(n int) { a.groups = growTo(a.groups, n) }

func (a *linearHistogramAcc) add(g uint32, k, c int64) {
	m := a.groups[g]
	if m == nil {
		m = map[int64]int64{}
		a.groups[g] = m
	}
	if _, ok := m[k]; !ok {
		a.charge(cntEntryBytes)
	}
	m[k] += c
}

func (a *linearHistogramAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	xs, is, os := st.Field(0).(*array.Float64), st.Field(1).(*array.Float64), st.Field(2).(*array.Float64)
	for i, g := range gids[:rows] {
		if !a.set && is.IsValid(i) && os.IsValid(i) {
			a.interval, a.offset, a.set = is.Value(i), os.Value(i), true
		}
		if !st.IsValid(i) || xs.IsNull(i) || math.IsNaN(xs.Value(i)) || !a.set {
			continue
		}
		a.add(g, int64(math.Floor((xs.Value(i)-a.offset)/a.interval)), 1)
	}
}

func (a *linearHistogramAcc) merge(gids []uint32, states []arrow.Array) {
	ks, cs := expr.Getter(states[0]), expr.Getter(states[1])
	is, os := states[2].(*array.Float64), states[3].(*array.Float64)
	for i, g := range gids {
		if !a.set && is.IsValid(i) && os.IsValid(i) {
			a.interval, a.offset, a.set = is.Value(i), os.Value(i), true
		}
		k, _ := ks(i).([]any)
		c, _ := cs(i).([]any)
		for j := range k {
			a.add(g, k[j].(int64), c[j].(int64))
		}
	}
}

// jsonDouble prints a double as rapidjson does: the shortest digits, with
// ".0" on whole numbers.
func jsonDouble(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func (a *linearHistogramAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		keys := make([]int64, 0, len(a.groups[g]))
		for k := range a.groups[g] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var sb strings.Builder
		sb.WriteString(`{"num_buckets":` + strconv.Itoa(len(keys)) + `,"buckets":[`)
		var acc int64
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			c := a.groups[g][k]
			acc += c
			lower := float64(k)*a.interval + a.offset
			sb.WriteString(`{"lower":` + jsonDouble(lower) + `,"upper":` + jsonDouble(lower+a.interval) +
				`,"count":` + strconv.FormatInt(c, 10) + `,"acc_count":` + strconv.FormatInt(acc, 10) + `}`)
		}
		sb.WriteString(`]}`)
		b.Append(sb.String())
	}
	return b.NewArray()
}

func (a *linearHistogramAcc) states(mem memory.Allocator, n int) []arrow.Array {
	ks := make([][]int64, n)
	cs := make([][]int64, n)
	for g := 0; g < n; g++ {
		for k, c := range a.groups[g] {
			ks[g] = append(ks[g], k)
			cs[g] = append(cs[g], c)
		}
	}
	ib := array.NewFloat64Builder(mem)
	defer ib.Release()
	ob := array.NewFloat64Builder(mem)
	defer ob.Release()
	for g := 0; g < n; g++ {
		if a.set {
			ib.Append(a.interval)
			ob.Append(a.offset)
		} else {
			ib.AppendNull()
			ob.AppendNull()
		}
	}
	return []arrow.Array{int64Lists(mem, ks), int64Lists(mem, cs), ib.NewArray(), ob.NewArray()}
}
