package exec

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/internal/keybits"
)

// RFKind is the kind of a runtime filter, as Doris names them.
type RFKind int

const (
	// RFIn keeps the build side's distinct key values; a build side with
	// more than MaxIn of them disables it (everything passes).
	RFIn RFKind = iota
	// RFBloom keeps a bloom filter of the build side's key values.
	RFBloom
	// RFMinMax keeps the least and greatest build key.
	RFMinMax
	// RFInOrBloom is an IN filter while the build side has at most MaxIn
	// distinct keys, else a bloom filter.
	RFInOrBloom
)

func (k RFKind) String() string {
	return [...]string{"in", "bloom", "min_max", "in_or_bloom"}[k]
}

// RuntimeFilter is made by a hash join from its build side once that side
// is read, and applied by a scan below the join's probe side: probe rows
// whose key cannot match any build row are dropped before they reach the
// operators between the scan and the join. Only inner, semi and right
// outer joins make them (a probe row without a match is never output
// there), and the probe-side filters of probefirst.go go the other way,
// from the probe keys to the build side's scan; the planner
// places them only through operators that pass the key column through
// unchanged and drop rows only by themselves (filters, projections, inner
// joins, the preserved side of outer joins, the probe side of semi joins).
//
// A filter not yet published lets every row through, so a scan that
// starts before the build ends is still correct, only less filtered.
type RuntimeFilter struct {
	// ID numbers the filter within its statement (RF000, RF001, ...).
	ID   int
	Kind RFKind
	// Key is the join key pair (an index into the join's keys) the filter
	// is made from.
	Key int
	// Target names the probe-side scan column, for EXPLAIN.
	Target string
	// MaxIn bounds the distinct values of an IN filter.
	MaxIn int

	typ    arrow.DataType // the key's type: the join's common key type
	source string         // the build key, for EXPLAIN
	// states holds the published filter of each execution, by its Env: a
	// plan may be opened several times, concurrently, and each probe side
	// must see its own build side's filter. last is the latest, for the
	// profile.
	states sync.Map // *Env → *rfState
	last   atomic.Pointer[rfState]

	// Counters for the profile: rows the filter looked at and dropped.
	Input, Filtered atomic.Int64
	// idle is set once the filter has dropped too few of the rows it saw
	// to pay for itself; the scan stops applying it.
	idle atomic.Bool
}

// rfState is one execution's published filter.
type rfState struct {
	none     bool // no build row has a non-NULL key: nothing passes
	disabled bool // an IN filter over too many values: everything passes
	isIn     bool // the values are in in, else in bloom (if not MIN_MAX)
	mu       sync.Mutex
	in       *groupTable // lookups bind its key column: under mu
	bloom    []uint64
	// bits is an exact set of integer keys, bit k-lo for key k, made
	// instead of a bloom filter when the keys span few enough values
	// (TPC-H's dense order, part and customer keys): a probe is one
	// subtraction and one load, with no hash and no false positive.
	bits   []uint64
	bitsLo int64
	// ints are an IN filter's signed integer keys, sorted, when they are
	// too spread for bits and at most maxShippedIn (nil otherwise).
	ints []int64
	mm   *minMax
}

// state is the filter the build side of env's execution published, nil
// before it has.
func (rf *RuntimeFilter) state(env *Env) *rfState {
	if v, ok := rf.states.Load(env); ok {
		return v.(*rfState)
	}
	return nil
}

// A filter that has seen rfProbation rows and dropped less than
// 1/rfMinGain of them is not applied further: its probe keys evidently
// all meet the build side, and checking them costs a hash per row.
const (
	rfProbation = 1 << 16
	rfMinGain   = 20
)

// Type is the type probe keys are compared in (set when the filter is
// attached to its join).
func (rf *RuntimeFilter) Type() arrow.DataType { return rf.typ }

// Name is the EXPLAIN spelling, "RF000[bloom]".
func (rf *RuntimeFilter) Name() string { return fmt.Sprintf("RF%03d[%s]", rf.ID, rf.Kind) }

// Effective is the kind the filter took once published ("in" or "bloom"
// for IN_OR_BLOOM_FILTER), for the profile.
func (rf *RuntimeFilter) Effective() string {
	st := rf.last.Load()
	switch {
	case st == nil:
		return "not ready"
	case st.disabled:
		return "disabled"
	case rf.idle.Load():
		return rf.Kind.String() + ", stopped: dropped too few"
	case rf.Kind == RFMinMax:
		return "min_max"
	case st.isIn:
		return "in"
	case st.bits != nil:
		return "bloom (as bitmap)"
	}
	return "bloom"
}

// AddRuntimeFilters attaches filters built from the join's keys; the
// scans that apply them hold the same pointers. Filters on a join that
// is not an inner or semi join, or on a keyless one, are refused.
func (j *HashJoin) AddRuntimeFilters(rfs ...*RuntimeFilter) error {
	if len(rfs) == 0 {
		return nil
	}
	// Joins that drop the probe rows without a match: a filter drops
	// only those sooner.
	switch j.Type {
	case InnerJoin, LeftSemiJoin, RightOuterJoin, RightSemiJoin, RightAntiJoin:
	default:
		return errorf(ErrPlan, "runtime filter on a %s", j.Type)
	}
	for _, rf := range rfs {
		if rf.Key < 0 || rf.Key >= len(j.rk) {
			return errorf(ErrPlan, "runtime filter on join key %d of %d", rf.Key, len(j.rk))
		}
		rf.typ, rf.source = j.rk[rf.Key].DataType(), j.RightKeys[rf.Key].String()
		j.filters = append(j.filters, rf)
	}
	return nil
}

// rfExplain is the join's EXPLAIN line of the filters it makes.
func (j *HashJoin) rfExplain() string {
	if len(j.filters) == 0 {
		return ""
	}
	parts := make([]string, len(j.filters))
	for i, rf := range j.filters {
		parts[i] = rf.Name() + " <- " + rf.source
	}
	return "runtime filters: " + strings.Join(parts, ", ")
}

// publishFilters fills the join's filters from the build keys (nil keys:
// an empty build side) and releases them to the scans. distinct is the
// number of distinct key tuples, which bounds each key's distinct values.
func (j *HashJoin) publishFilters(env *Env, keys []arrow.Array, rows, distinct int) int64 {
	var charged int64
	for _, rf := range j.filters {
		charged += rf.publish(env, keys, rows, distinct)
	}
	return charged
}

// bloomBitsPerKey sizes bloom filters: about 1-2% false positives with
// three bits per key in one 64-bit word.
const (
	bloomBitsPerKey = 16
	bloomMaxWords   = 1 << 21 // 16 MB, Doris's runtime_bloom_filter_max_size
)

// publish fills the filter and only then marks it ready: a fill that
// fails (past the memory limit) leaves it letting every row through, and
// the statement fails anyway. A join opened again fills it anew.
func (rf *RuntimeFilter) publish(env *Env, keys []arrow.Array, rows, distinct int) int64 {
	st := &rfState{}
	n := rf.fill(st, env, keys, rows, distinct)
	rf.states.Store(env, st)
	rf.last.Store(st)
	return n
}

func (rf *RuntimeFilter) fill(st *rfState, env *Env, keys []arrow.Array, rows, distinct int) int64 {
	if keys == nil || rows == 0 {
		st.none = true
		return 0
	}
	a := keys[rf.Key]
	if a.NullN() == a.Len() {
		st.none = true
		return 0
	}
	switch rf.Kind {
	case RFMinMax:
		st.mm = newMinMax(a)
		if st.mm == nil {
			st.disabled = true
		}
		return 0
	case RFIn, RFInOrBloom:
		if distinct <= rf.MaxIn {
			st.isIn = true
			// Integer keys within a small range: the same set as an
			// exact bitmap, tested without the lock and the table's
			// per-batch binding, which serialised the scan's workers.
			if lo, span, ok := intSpan(a); ok && span/64 < inBitmapWords {
				n := int64(8 * (span/64 + 1))
				memlimit.Charge(env.Mem, n)
				st.bits, st.bitsLo = make([]uint64, span/64+1), lo
				fillBits(st.bits, lo, a)
				return n
			}
			g := newGroupTable(env.Mem, []arrow.DataType{a.DataType()}, false)
			g.ids([]arrow.Array{a}, a.Len(), nil)
			st.in, st.isIn = g, true
			// Integer keys too spread for a bitmap: their list, for a BE
			// and a lake reader (FilterInts).
			st.ints = distinctInts(a, min(distinct, maxShippedIn))
			n := int64(8 * len(st.ints))
			memlimit.Charge(env.Mem, n)
			return n // the table charged itself
		}
		if rf.Kind == RFIn {
			st.disabled = true
			return 0
		}
	}
	words := 1 << bits.Len(uint(max(64, distinct*bloomBitsPerKey/64)))
	words = min(words, bloomMaxWords)
	if lo, span, ok := intSpan(a); ok && span/64 < uint64(max(words, bitmapMinWords)) {
		n := int64(8 * (span/64 + 1))
		memlimit.Charge(env.Mem, n)
		st.bits, st.bitsLo = make([]uint64, span/64+1), lo
		fillBits(st.bits, lo, a)
		return n
	}
	st.bloom = make([]uint64, words)
	n := int64(8 * words)
	memlimit.Charge(env.Mem, n)
	h := hashKeys(a)
	mask := uint64(words - 1)
	for i, v := range h {
		if a.IsNull(i) {
			continue
		}
		st.bloom[(v>>32)&mask] |= bloomBits(v)
	}
	return n
}

// maxShippedIn bounds the keys of an IN filter listed for the BEs.
const maxShippedIn = 4096

// distinctInts is the sorted distinct non-NULL values of a, a signed
// integer array with at most limit of them; nil for another type or more
// values.
func distinctInts(a arrow.Array, limit int) []int64 {
	switch a.DataType().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
	default:
		return nil
	}
	c := newKeyCol(a.DataType()).(*fixedKeyCol)
	c.bind(a)
	seen := make(map[int64]struct{}, limit)
	for i, v := range c.cur {
		if len(c.curNull) > 0 && c.curNull[i] {
			continue
		}
		seen[int64(v)] = struct{}{}
		if len(seen) > limit {
			return nil
		}
	}
	out := make([]int64, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// inBitmapWords bounds the bitmap an IN filter's integer keys take
// (128 KB).
const inBitmapWords = 1 << 14

// bitmapMinWords: a bitmap filter may take this many words (1 MB) even
// where a bloom filter of the keys would be smaller; past that it takes
// no more than the bloom filter would.
const bitmapMinWords = 1 << 17

// intSpan is the least non-NULL value of a and the span of its values
// (greatest - least), for the integer and date types; ok is false for
// other types and when a has no non-NULL value.
func intSpan(a arrow.Array) (lo int64, span uint64, ok bool) {
	switch a.DataType().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DURATION:
	default:
		return 0, 0, false
	}
	c := newKeyCol(a.DataType()).(*fixedKeyCol)
	c.bind(a)
	hi := int64(0)
	for i, v := range c.cur {
		if len(c.curNull) > 0 && c.curNull[i] {
			continue
		}
		if !ok || int64(v) < lo {
			lo = int64(v)
		}
		if !ok || int64(v) > hi {
			hi = int64(v)
		}
		ok = true
	}
	return lo, uint64(hi) - uint64(lo), ok
}

// fillBits sets the bit of every non-NULL value of a (intSpan's types,
// all within the bitmap).
func fillBits(bm []uint64, lo int64, a arrow.Array) {
	c := newKeyCol(a.DataType()).(*fixedKeyCol)
	c.bind(a)
	for i, v := range c.cur {
		if len(c.curNull) > 0 && c.curNull[i] {
			continue
		}
		p := v - uint64(lo)
		bm[p>>6] |= 1 << (p & 63)
	}
}

// passBits clears keep[i] for the rows whose value of a is not in the
// bitmap bm (from lo), returning how many it cleared. NULL rows are
// cleared by the caller already. Int64, Int32 and Date32 are read in
// place; the other types through a widened copy.
func passBits(bm []uint64, lo int64, a arrow.Array, keep []bool) int {
	switch x := a.(type) {
	case *array.Int64:
		return keybits.Keep(bm, lo, x.Int64Values(), keep)
	case *array.Int32:
		return keybits.Keep(bm, lo, x.Int32Values(), keep)
	case *array.Date32:
		return keybits.Keep(bm, lo, arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(x.Date32Values())), keep)
	}
	// By keybits, as the BE's filter and the lake reader's test.
	c := newKeyCol(a.DataType()).(*fixedKeyCol)
	c.bind(a)
	return keybits.Keep(bm, lo, c.cur, keep)
}

// hashKeys hashes each row of a for a bloom filter (the filter's own
// hash: fill and pass both take it from here).
func hashKeys(a arrow.Array) []uint64 {
	// The common key columns without NULLs in one pass, with no widened
	// copy: the same values as fixedKeyCol's bind and hash below.
	if a.NullN() == 0 {
		switch x := a.(type) {
		case *array.Int64:
			return hashInts(x.Int64Values())
		case *array.Int32:
			return hashInts(x.Int32Values())
		case *array.Date32:
			return hashInts(arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(x.Date32Values())))
		}
	}
	c := newKeyCol(a.DataType())
	c.bind(a)
	h := make([]uint64, a.Len())
	c.hash(h) // a fixed-width value v hashes to mix64(v), as in hashInts
	return h
}

func hashInts[T int32 | int64](vs []T) []uint64 {
	h := make([]uint64, len(vs))
	for i, v := range vs {
		h[i] = mix64(uint64(int64(v)))
	}
	return h
}

// bloomBits are the three bits a hash sets in its word.
func bloomBits(h uint64) uint64 {
	return 1<<(h&63) | 1<<((h>>6)&63) | 1<<((h>>12)&63)
}

// release drops env's filter and what it charged to the statement.
func (rf *RuntimeFilter) release(env *Env) {
	v, ok := rf.states.LoadAndDelete(env)
	if !ok {
		return
	}
	st := v.(*rfState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.in != nil {
		st.in.release()
		st.in = nil
	}
}

// pass sets keep[i] false for the rows of a (probe keys in the filter's
// type) no build key can match; rows already false are left alone. It
// returns the rows it dropped.
func (st *rfState) pass(a arrow.Array, keep []bool) int {
	if st.disabled {
		return 0
	}
	dropped := 0
	drop := func(i int) {
		if keep[i] {
			keep[i] = false
			dropped++
		}
	}
	if st.none {
		for i := range keep {
			drop(i)
		}
		return dropped
	}
	// NULL matches nothing in an inner or semi join.
	if a.NullN() > 0 {
		for i := range keep {
			if a.IsNull(i) {
				drop(i)
			}
		}
	}
	switch {
	case st.mm != nil:
		st.mm.pass(a, drop)
	case st.bits != nil:
		dropped += passBits(st.bits, st.bitsLo, a, keep)
	case st.isIn:
		st.mu.Lock()
		if st.in == nil { // released: the join is gone, its probe too
			st.mu.Unlock()
			return dropped
		}
		ids := st.in.lookup([]arrow.Array{a}, a.Len())
		st.mu.Unlock()
		for i, id := range ids {
			if id < 0 {
				drop(i)
			}
		}
	case st.bloom != nil:
		mask := uint64(len(st.bloom) - 1)
		for i, v := range hashKeys(a) {
			if b := bloomBits(v); keep[i] && st.bloom[(v>>32)&mask]&b != b {
				keep[i] = false
				dropped++
			}
		}
	}
	return dropped
}

// minMax is the range of a build key, for the kinds it can order.
type minMax struct {
	kind     byte // 'i' signed, 'u' unsigned, 'f' float, 'd' decimal, 's' bytes
	lo, hi   uint64
	dlo, dhi decimal128.Num
	slo, shi []byte
}

// newMinMax is the range of a's non-NULL values (not all NULL), nil for a
// type without an order it knows.
func newMinMax(a arrow.Array) *minMax {
	m := &minMax{}
	valid := func(i int) bool { return a.IsValid(i) }
	first := true
	switch a.DataType().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP,
		arrow.TIME32, arrow.TIME64, arrow.DURATION:
		m.kind = 'i'
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		m.kind = 'u'
	case arrow.FLOAT32, arrow.FLOAT64:
		m.kind = 'f'
	case arrow.DECIMAL128:
		m.kind = 'd'
		for i, v := range a.(*array.Decimal128).Values() {
			if !valid(i) {
				continue
			}
			if first || v.Less(m.dlo) {
				m.dlo = v
			}
			if first || m.dhi.Less(v) {
				m.dhi = v
			}
			first = false
		}
		return m
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		m.kind = 's'
		c := newKeyCol(a.DataType()).(*strKeyCol)
		c.bind(a)
		for i := 0; i < a.Len(); i++ {
			if !valid(i) {
				continue
			}
			v := c.at(i)
			if first || bytes.Compare(v, m.slo) < 0 {
				m.slo = v
			}
			if first || bytes.Compare(v, m.shi) > 0 {
				m.shi = v
			}
			first = false
		}
		// Copies: a's buffers go with the build side.
		m.slo, m.shi = bytes.Clone(m.slo), bytes.Clone(m.shi)
		return m
	default:
		return nil
	}
	c := newKeyCol(a.DataType()).(*fixedKeyCol)
	c.bind(a)
	for i, v := range c.cur {
		if !valid(i) || (m.kind == 'f' && math.IsNaN(math.Float64frombits(v))) {
			continue
		}
		if first || m.less(v, m.lo) {
			m.lo = v
		}
		if first || m.less(m.hi, v) {
			m.hi = v
		}
		first = false
	}
	if first {
		return nil // only NaN: leave the rows to the join
	}
	return m
}

func (m *minMax) less(a, b uint64) bool {
	switch m.kind {
	case 'i':
		return int64(a) < int64(b)
	case 'u':
		return a < b
	}
	return math.Float64frombits(a) < math.Float64frombits(b)
}

// pass drops the rows of a outside [lo, hi] (NULLs are dropped already).
func (m *minMax) pass(a arrow.Array, drop func(int)) {
	switch m.kind {
	case 'd':
		for i, v := range a.(*array.Decimal128).Values() {
			if v.Less(m.dlo) || m.dhi.Less(v) {
				drop(i)
			}
		}
	case 's':
		c := newKeyCol(a.DataType()).(*strKeyCol)
		c.bind(a)
		for i := 0; i < a.Len(); i++ {
			if v := c.at(i); bytes.Compare(v, m.slo) < 0 || bytes.Compare(v, m.shi) > 0 {
				drop(i)
			}
		}
	default:
		c := newKeyCol(a.DataType()).(*fixedKeyCol)
		c.bind(a)
		for i, v := range c.cur {
			if m.less(v, m.lo) || m.less(m.hi, v) {
				drop(i)
			}
		}
	}
}

// rfEnvKey carries a scan's Env to its Source's Open (which gets only an
// allocator), so the source can read the filters published for it.
type rfEnvKey struct{}

// FilterRange is the bounds of min/max filter rf as published for the
// execution whose scan opens under ctx, for a reader that can skip by
// them: ok is false for any other filter, one not published yet, or one
// without bounds (an empty build side makes none: the FE drops every row
// anyway). Integer bounds come as int64, text as string.
func FilterRange(ctx context.Context, rf *RuntimeFilter) (lo, hi any, ok bool) {
	env, _ := ctx.Value(rfEnvKey{}).(*Env)
	st := rf.state(env)
	if env == nil || st == nil || st.mm == nil {
		return nil, nil, false
	}
	switch m := st.mm; m.kind {
	case 'i':
		return int64(m.lo), int64(m.hi), true
	case 's':
		return string(m.slo), string(m.shi), true
	}
	return nil, nil, false
}

// FilterBits is the exact key bitmap of filter rf as published for the
// execution whose scan opens under ctx (an IN filter, or a bloom filter,
// over integer keys spanning few values: rfState.bits), for a BE or a
// reader to drop the rows it rules out before sending them: key k is in
// when bit k-lo of words is set. An empty build side gives an empty set
// (no row passes). ok is false for any other filter and one not yet
// published. words is the filter's own: not to be changed.
func FilterBits(ctx context.Context, rf *RuntimeFilter) (lo int64, words []uint64, ok bool) {
	env, _ := ctx.Value(rfEnvKey{}).(*Env)
	st := rf.state(env)
	if env == nil || st == nil || st.disabled || rf.Kind == RFMinMax || rf.idle.Load() {
		return 0, nil, false
	}
	if st.none {
		return 0, []uint64{}, true
	}
	if st.bits == nil {
		return 0, nil, false
	}
	return st.bitsLo, st.bits, true
}

// FilterInts is the key list of IN filter rf as published for the
// execution whose scan opens under ctx, when its keys are signed integers
// too spread for a bitmap (FilterBits) and at most maxShippedIn of them:
// sorted, distinct, never empty. ok is false otherwise. vals is the
// filter's own: not to be changed.
func FilterInts(ctx context.Context, rf *RuntimeFilter) (vals []int64, ok bool) {
	env, _ := ctx.Value(rfEnvKey{}).(*Env)
	st := rf.state(env)
	if env == nil || st == nil || st.disabled || !st.isIn || len(st.ints) == 0 || rf.idle.Load() {
		return nil, false
	}
	return st.ints, true
}

// ScanFilter is a runtime filter a scan applies to its Column.
type ScanFilter struct {
	RF     *RuntimeFilter
	Column int
	// Casts are the conversions between the column and the join key,
	// outermost first: the scan compares what the join compares.
	Casts []arrow.DataType
}

// scanFilterLine is the scan's EXPLAIN line of the filters it applies.
func scanFilterLine(fs []ScanFilter) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.RF.Name() + " -> " + f.RF.Target
	}
	return "runtime filters: " + strings.Join(parts, ", ")
}

// applyScanFilters drops the rows of b that a published filter rules out;
// it returns b itself (retained) when no row goes, nil when all do.
func applyScanFilters(ctx context.Context, env *Env, schema *arrow.Schema, fs []ScanFilter, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	keep, kept := scanFilterKeep(env, schema, fs, b)
	if kept == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	return filterRows(compute.WithAllocator(ctx, memlimit.Lenient(env.Mem)), env, b, keep, kept)
}

// scanFilterKeep marks the rows of b no published filter rules out (keep
// nil: every row) and counts them.
func scanFilterKeep(env *Env, schema *arrow.Schema, fs []ScanFilter, b arrow.RecordBatch) (keep []bool, kept int) {
	kept = int(b.NumRows())
	// min/max first: two comparisons a row, and the rows it drops need no
	// hash.
	for k := range 2 {
		for _, f := range fs {
			if (f.RF.Kind == RFMinMax) != (k == 0) {
				continue
			}
			if kept == 0 {
				break
			}
			rf := f.RF
			st := rf.state(env)
			if st == nil || st.disabled || rf.typ == nil || rf.idle.Load() {
				continue
			}
			if keep == nil {
				keep = make([]bool, b.NumRows())
				for i := range keep {
					keep[i] = true
				}
			}
			fld := schema.Field(f.Column)
			var e expr.Expr = expr.Col(f.Column, fld.Name, fld.Type)
			var err error
			for i := len(f.Casts) - 1; i >= 0 && err == nil; i-- {
				e, err = expr.Cast(e, f.Casts[i])
			}
			if err == nil {
				e, err = expr.Cast(e, rf.typ)
			}
			if err != nil {
				continue // not the join's comparison: leave the rows to the join
			}
			a, err := e.Eval(env, b)
			if err != nil {
				// A conversion that fails on a row the operators above
				// would have dropped must not fail the statement: leave
				// this batch to them.
				continue
			}
			rf.Input.Add(int64(kept))
			d := st.pass(a, keep)
			a.Release()
			in, out := rf.Input.Load(), rf.Filtered.Add(int64(d))
			if in >= rfProbation && out*rfMinGain < in {
				rf.idle.Store(true)
			}
			kept -= d
		}
	}
	return keep, kept
}
