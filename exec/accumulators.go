package exec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// accumulator keeps one aggregate's state for every group, indexed by
// group id. Groups are created densely, so grow(n) extends the state.
type accumulator interface {
	grow(n int)
	// update folds argument values (nil for COUNT(*)) into their groups.
	update(gids []uint32, arg arrow.Array, rows int)
	// merge folds partial states (columns as produced by states) in.
	merge(gids []uint32, states []arrow.Array)
	// result builds the final values of groups 0..n-1.
	result(mem memory.Allocator, n int) arrow.Array
	// states builds the partial state columns of groups 0..n-1.
	states(mem memory.Allocator, n int) []arrow.Array
}

// growTo extends s with zero values to length n (the accumulators'
// grow: per-group state only ever lengthens).
func growTo[E any](s []E, n int) []E {
	if len(s) >= n {
		return s
	}
	if cap(s) < n {
		// At least double: append grows a large slice by a quarter, and a
		// table of millions of groups copied its state every few batches.
		ns := make([]E, n, max(n, 2*cap(s)))
		copy(ns, s)
		s = ns
	}
	s = s[:n]
	return s
}

// oneGroup reports whether every row of a batch belongs to one group (and
// which), so an accumulator can fold the batch without indexing its state
// per row. rows = 0 is not one group.
func oneGroup(gids []uint32) (uint32, bool) {
	if len(gids) == 0 {
		return 0, false
	}
	g := gids[0]
	for _, x := range gids {
		if x != g {
			return 0, false
		}
	}
	return g, true
}

// ---- COUNT ----

type countAcc struct {
	star bool
	c    []int64
	// batch, when set, is the batch's row counts shared with the
	// aggregate's other counts (agg_small.go).
	batch *batchCounts
}

func (a *countAcc) grow(n int) { a.c = growTo(a.c, n) }

func (a *countAcc) update(gids []uint32, arg arrow.Array, rows int) {
	if a.star || arg.NullN() == 0 {
		if g, ok := oneGroup(gids[:rows]); ok {
			a.c[g] += int64(rows)
			return
		}
		if len(a.c) <= smallGroups {
			a.batch.add(a.c, gids[:rows])
			return
		}
		for _, g := range gids[:rows] {
			a.c[g]++
		}
		return
	}
	for i, g := range gids[:rows] {
		if arg.IsValid(i) {
			a.c[g]++
		}
	}
}

func (a *countAcc) merge(gids []uint32, states []arrow.Array) {
	v := states[0].(*array.Int64)
	for i, g := range gids {
		if v.IsValid(i) {
			a.c[g] += v.Value(i)
		}
	}
}

func (a *countAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(a.c[:n], nil)
	return b.NewArray()
}

func (a *countAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- SUM over BIGINT / DOUBLE ----

type number interface{ ~int64 | ~float64 }

type sumAcc[T number] struct {
	s        []T
	seen     []bool
	typ      arrow.DataType
	overflow bool // a BIGINT sum left the int64 range
}

// overflowed is checked by the operators after each batch.
func (a *sumAcc[T]) overflowed() bool { return a.overflow }

func (a *sumAcc[T]) grow(n int) {
	a.s = growTo(a.s, n)
	a.seen = growTo(a.seen, n)
}

func values[T number](arr arrow.Array) []T {
	switch x := arr.(type) {
	case *array.Int64:
		return any(x.Int64Values()).([]T)
	case *array.Float64:
		return any(x.Float64Values()).([]T)
	}
	return nil
}

func (a *sumAcc[T]) update(gids []uint32, arg arrow.Array, rows int) {
	if iv, ok := any(a).(*sumAcc[int64]); ok {
		iv.updateInt(gids, arg.(*array.Int64), rows)
		return
	}
	v := values[T](arg)
	if arg.NullN() == 0 {
		if g, ok := oneGroup(gids[:rows]); ok {
			// Same order of additions as below, in a register.
			x := a.s[g]
			for _, y := range v[:rows] {
				x += y
			}
			a.s[g] = x
			a.seen[g] = true
			return
		}
		for i, g := range gids[:rows] {
			a.s[g] += v[i]
			a.seen[g] = true
		}
		return
	}
	for i, g := range gids[:rows] {
		if arg.IsValid(i) {
			a.s[g] += v[i]
			a.seen[g] = true
		}
	}
}

// updateInt is the BIGINT sum with overflow detection: the sum overflows
// exactly when both addends differ in sign from the result.
func (a *sumAcc[T]) updateInt(gids []uint32, arg *array.Int64, rows int) {
	v := arg.Int64Values()
	s := any(a.s).([]int64)
	nulls := arg.NullN() > 0
	var bad int64
	if g, ok := oneGroup(gids[:rows]); ok && !nulls {
		// One group (an aggregate without GROUP BY, or a batch of one
		// key): the running sum stays in a register instead of going
		// through memory on every row.
		x := s[g]
		for _, y := range v[:rows] {
			r := x + y
			bad |= (x ^ r) & (y ^ r)
			x = r
		}
		s[g] = x
		a.seen[g] = true
		if bad < 0 {
			a.overflow = true
		}
		return
	}
	for i, g := range gids[:rows] {
		if nulls && arg.IsNull(i) {
			continue
		}
		x, y := s[g], v[i]
		r := x + y
		bad |= (x ^ r) & (y ^ r)
		s[g] = r
		a.seen[g] = true
	}
	if bad < 0 {
		a.overflow = true
	}
}

func (a *sumAcc[T]) merge(gids []uint32, states []arrow.Array) {
	a.update(gids, states[0], len(gids))
}

func (a *sumAcc[T]) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, a.typ)
	defer b.Release()
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.AppendValues(any(a.s[:n]).([]int64), a.seen[:n])
	case *array.Float64Builder:
		bb.AppendValues(any(a.s[:n]).([]float64), a.seen[:n])
	}
	return b.NewArray()
}

func (a *sumAcc[T]) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- SUM over DECIMAL ----

type decSumAcc struct {
	s        []decimal128.Num
	seen     []bool
	typ      arrow.DataType // decimal(38, s)
	overflow bool
	// wraps counts, per group, the times a LARGEINT sum wrapped past
	// 2^127-1 (+1) or below -2^127 (-1): 128-bit sums are exact modulo
	// 2^128, so the sum is out of range only if the count ends non-zero,
	// whatever the order the rows came in.
	wraps map[uint32]int
	// lane holds, per group, the part of a DECIMAL (not LARGEINT) sum not
	// yet added to s, summed in int64 while it fits (agg_decimal.go).
	lane []int64
	// room: while positive, every lane is within 2^62-room of zero, so
	// values adding up to room in magnitude fold without an overflow
	// check (agg_dec64.go); 0 when unknown.
	room uint64
}

func (a *decSumAcc) overflowed() bool {
	a.settle()
	for _, w := range a.wraps {
		if w != 0 {
			return true
		}
	}
	return a.overflow
}

func (a *decSumAcc) grow(n int) {
	a.s = growTo(a.s, n)
	a.seen = growTo(a.seen, n)
}

func (a *decSumAcc) update(gids []uint32, arg arrow.Array, rows int) {
	d := arg.(*array.Decimal128)
	wide := expr.IsLargeInt(a.typ) // LARGEINT: the int128 range, not 38 digits
	if !wide {
		a.updateLane(gids, d, rows)
		return
	}
	for i, g := range gids[:rows] {
		if d.IsValid(i) {
			a.add(g, d.Value(i), wide)
		}
	}
}

// add adds v to group g's sum, noting a wrap (wide: LARGEINT) or a sum
// beyond 38 digits.
func (a *decSumAcc) add(g uint32, v decimal128.Num, wide bool) {
	prev := a.s[g]
	a.s[g] = prev.Add(v)
	a.seen[g] = true
	if wide {
		if expr.AddOverflows(prev, v, a.s[g], false) {
			if a.wraps == nil {
				a.wraps = map[uint32]int{}
			}
			if v.Sign() > 0 {
				a.wraps[g]++
			} else {
				a.wraps[g]--
			}
		}
	} else if !a.s[g].FitsInPrecision(38) {
		a.overflow = true
	}
}

func (a *decSumAcc) merge(gids []uint32, states []arrow.Array) { a.update(gids, states[0], len(gids)) }

func (a *decSumAcc) result(mem memory.Allocator, n int) arrow.Array {
	a.settle()
	b := array.NewDecimal128Builder(mem, a.typ.(*arrow.Decimal128Type))
	defer b.Release()
	b.AppendValues(a.s[:n], a.seen[:n])
	return b.NewArray()
}

func (a *decSumAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- MIN / MAX ----

type minMaxAcc struct {
	isMax bool
	typ   arrow.DataType
	v     []any
}

func (a *minMaxAcc) grow(n int) {
	for len(a.v) < n {
		a.v = append(a.v, nil)
	}
}

func (a *minMaxAcc) update(gids []uint32, arg arrow.Array, rows int) {
	switch x := arg.(type) {
	case *array.Int64:
		a.updateTyped(gids[:rows], x.Int64Values(), arg)
		return
	case *array.Float64:
		a.updateTyped(gids[:rows], x.Float64Values(), arg)
		return
	}
	get := expr.Getter(arg)
	want := -1
	if a.isMax {
		want = 1
	}
	for i, g := range gids[:rows] {
		v := get(i)
		if v == nil {
			continue
		}
		if cur := a.v[g]; cur == nil || expr.Compare(v, cur, a.typ) == want {
			a.v[g] = v
		}
	}
}

func minMaxTyped[T int64 | float64](a *minMaxAcc, gids []uint32, v []T, arg arrow.Array) {
	nulls := arg.NullN() > 0
	for i, g := range gids {
		if nulls && arg.IsNull(i) {
			continue
		}
		x := v[i]
		cur, ok := a.v[g].(T)
		if !ok || (a.isMax && x > cur) || (!a.isMax && x < cur) {
			a.v[g] = x
		}
	}
}

func (a *minMaxAcc) updateTyped(gids []uint32, v any, arg arrow.Array) {
	switch vv := v.(type) {
	case []int64:
		minMaxTyped(a, gids, vv, arg)
	case []float64:
		minMaxTyped(a, gids, vv, arg)
	}
}

func (a *minMaxAcc) merge(gids []uint32, states []arrow.Array) {
	a.update(gids, states[0], len(gids))
}

func (a *minMaxAcc) result(mem memory.Allocator, n int) arrow.Array {
	return anyArray(mem, a.typ, a.v[:n])
}

func (a *minMaxAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- AVG = SUM / COUNT ----

type avgAcc struct {
	sum   accumulator // sumAcc[float64] or decSumAcc
	count *countAcc
	typ   arrow.DataType
	inTyp arrow.DataType // sum's type
}

func (a *avgAcc) grow(n int) { a.sum.grow(n); a.count.grow(n) }

func (a *avgAcc) overflowed() bool {
	o, ok := a.sum.(interface{ overflowed() bool })
	return ok && o.overflowed()
}

func (a *avgAcc) update(gids []uint32, arg arrow.Array, rows int) {
	a.sum.update(gids, arg, rows)
	a.count.update(gids, arg, rows)
}

func (a *avgAcc) merge(gids []uint32, states []arrow.Array) {
	a.sum.merge(gids, states[:1])
	a.count.merge(gids, states[1:2])
}

func (a *avgAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, a.typ)
	defer b.Release()
	switch s := a.sum.(type) {
	case *sumAcc[float64]:
		fb := b.(*array.Float64Builder)
		for g := 0; g < n; g++ {
			if a.count.c[g] == 0 {
				fb.AppendNull()
				continue
			}
			fb.Append(s.s[g] / float64(a.count.c[g]))
		}
	case *decSumAcc:
		db := b.(*array.Decimal128Builder)
		_, in := decPS(a.inTyp)
		_, out := decPS(a.typ)
		s.settle()
		for g := 0; g < n; g++ {
			if a.count.c[g] == 0 {
				db.AppendNull()
				continue
			}
			db.Append(decDivRound(s.s[g], in, decimal128.FromI64(a.count.c[g]), out))
		}
	}
	return b.NewArray()
}

func (a *avgAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return append(a.sum.states(mem, n), a.count.states(mem, n)...)
}

func decPS(t arrow.DataType) (int32, int32) {
	d := t.(*arrow.Decimal128Type)
	return d.Precision, d.Scale
}

// decDivRound divides x (scale in) by integer c into scale out, rounding
// half away from zero.
func decDivRound(x decimal128.Num, in int32, c decimal128.Num, out int32) decimal128.Num {
	num := x
	if out > in {
		num = x.IncreaseScaleBy(out - in)
	}
	q, r := num.Div(c)
	if r.Abs().Add(r.Abs()).GreaterEqual(c.Abs()) {
		if num.Sign() < 0 {
			q = q.Sub(decimal128.FromI64(1))
		} else {
			q = q.Add(decimal128.FromI64(1))
		}
	}
	if out < in {
		q = q.ReduceScaleBy(in-out, true)
	}
	return q
}

// ---- GROUP_CONCAT ----

// concatAcc appends each group's values to a byte slice it grows itself
// (doubling, so n values cost O(total bytes), never the O(n²) of string
// +=) and charges every growth to the statement's account, so a huge
// GROUP_CONCAT fails at exec_mem_limit instead of holding unaccounted
// memory. A group past maxConcatBytes fails the statement (tooLarge).
type concatAcc struct {
	sep     string
	b       [][]byte
	seen    []bool
	mem     memory.Allocator
	charged int64
	big     int64 // bytes a group would have passed maxConcatBytes with; 0 none
}

// maxConcatBytes bounds one group's result: an Arrow string array (int32
// offsets) holds at most 2 GiB, and Doris fails such a string too.
const maxConcatBytes = expr.MaxBatchStringBytes

func (a *concatAcc) setMem(mem memory.Allocator) { a.mem = mem }

func (a *concatAcc) grow(n int) {
	a.b = growTo(a.b, n)
	a.seen = growTo(a.seen, n)
}

// add appends sep (when the group has a value) and v to group g.
func (a *concatAcc) add(g uint32, v string) {
	if a.big > 0 {
		return // the statement fails; nothing more is worth holding
	}
	cur := a.b[g]
	need := len(cur) + len(v)
	if a.seen[g] {
		need += len(a.sep)
	}
	if int64(need) > maxConcatBytes {
		a.big = int64(need)
		return
	}
	if need > cap(cur) {
		c := max(2*cap(cur), need, 64)
		if int64(c) > maxConcatBytes {
			c = int(maxConcatBytes)
		}
		// Charge first: past the limit it panics (memlimit.Guard makes it
		// the statement's error) and nothing has changed.
		memlimit.Charge(a.mem, int64(c-cap(cur)))
		a.charged += int64(c - cap(cur))
		nb := make([]byte, len(cur), c)
		copy(nb, cur)
		cur = nb
	}
	if a.seen[g] {
		cur = append(cur, a.sep...)
	}
	a.b[g] = append(cur, v...)
	a.seen[g] = true
}

func (a *concatAcc) update(gids []uint32, arg arrow.Array, rows int) {
	sa := arg.(*array.String)
	for i, g := range gids[:rows] {
		if sa.IsNull(i) {
			continue
		}
		a.add(g, sa.Value(i))
	}
}

func (a *concatAcc) merge(gids []uint32, states []arrow.Array) { a.update(gids, states[0], len(gids)) }

func (a *concatAcc) tooLarge() error {
	if a.big == 0 {
		return nil
	}
	return fmt.Errorf("%w: group_concat: result of more than %d bytes exceeds the limit of %d bytes", expr.ErrTooLarge, a.big, maxConcatBytes)
}

func (a *concatAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	total := 0
	for _, v := range a.b[:n] {
		total += len(v)
	}
	b.ReserveData(total)
	for g := range n {
		if a.seen[g] {
			b.BinaryBuilder.Append(a.b[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

func (a *concatAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// release gives the groups' bytes back to the account.
func (a *concatAcc) release() {
	memlimit.Refund(a.mem, a.charged)
	a.charged = 0
	a.b, a.seen = nil, nil
}

// ---- ANY_VALUE ----

// anyAcc keeps the first value of each group. Strings and byte slices are
// copied (a batch's buffers are not the accumulator's to keep: a view would
// pin the whole buffer, unaccounted, or read it after it was reused) and
// their bytes charged to the statement's account.
type anyAcc struct {
	typ  arrow.DataType
	v    []any
	mem  memory.Allocator
	held int64
}

func (a *anyAcc) setMem(mem memory.Allocator) { a.mem = mem }

func (a *anyAcc) release() {
	memlimit.Refund(a.mem, a.held)
	a.held, a.v = 0, nil
}

// keep copies v out of its batch, charging its bytes.
func (a *anyAcc) keep(v any) any {
	switch x := v.(type) {
	case string:
		memlimit.Charge(a.mem, int64(len(x)))
		a.held += int64(len(x))
		return strings.Clone(x)
	case []byte:
		memlimit.Charge(a.mem, int64(len(x)))
		a.held += int64(len(x))
		return bytes.Clone(x)
	}
	return v
}

func (a *anyAcc) grow(n int) {
	for len(a.v) < n {
		a.v = append(a.v, nil)
	}
}

func (a *anyAcc) update(gids []uint32, arg arrow.Array, rows int) {
	get := expr.Getter(arg)
	for i, g := range gids[:rows] {
		if a.v[g] == nil {
			if v := get(i); v != nil {
				a.v[g] = a.keep(v)
			}
		}
	}
}

func (a *anyAcc) merge(gids []uint32, states []arrow.Array) { a.update(gids, states[0], len(gids)) }

func (a *anyAcc) result(mem memory.Allocator, n int) arrow.Array {
	return anyArray(mem, a.typ, a.v[:n])
}

func (a *anyAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// newAccumulator makes the state for call over an argument of type argT
// (already cast to what the function accumulates in) with result type out.
func newAccumulator(call AggCall, argT, out arrow.DataType) (accumulator, error) {
	if call.Distinct && call.Func != Min && call.Func != Max && call.Func != AnyValue {
		return &distinctAcc{call: call, typ: argT, out: out}, nil
	}
	switch call.Func {
	case GroupConcat:
		return &concatAcc{sep: call.separator()}, nil
	case AnyValue:
		return &anyAcc{typ: out}, nil
	case StddevPop, StddevSamp, VarPop, VarSamp:
		return &statAcc{f: call.Func}, nil
	case CountStar:
		return &countAcc{star: true}, nil
	case Count:
		return &countAcc{}, nil
	case Sum:
		switch out.ID() {
		case arrow.INT64:
			return &sumAcc[int64]{typ: out}, nil
		case arrow.FLOAT64:
			return &sumAcc[float64]{typ: out}, nil
		case arrow.DECIMAL128:
			return &decSumAcc{typ: out}, nil
		}
	case Min, Max:
		if acc := typedMinMax(call.Func == Max, out); acc != nil {
			return acc, nil
		}
		return &minMaxAcc{isMax: call.Func == Max, typ: out}, nil
	case Avg:
		if d, ok := argT.(*arrow.Decimal128Type); ok {
			st := &arrow.Decimal128Type{Precision: 38, Scale: d.Scale}
			return &avgAcc{sum: &decSumAcc{typ: st}, count: &countAcc{}, typ: out, inTyp: st}, nil
		}
		return &avgAcc{sum: &sumAcc[float64]{typ: argT}, count: &countAcc{}, typ: out, inTyp: argT}, nil
	}
	if isStatAgg(call.Func) {
		return newStatFnAcc(call, argT, out)
	}
	return nil, fmt.Errorf("%w: aggregate %s over %s", ErrUnsupported, call.Func, expr.TypeName(argT))
}
