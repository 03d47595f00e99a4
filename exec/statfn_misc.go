package exec

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// MIN_BY/MAX_BY, AVG_WEIGHTED, GROUP_BIT_AND/OR/XOR, BOOL_AND/OR and SUM0.
// All skip NULLs; over no values they give NULL, except SUM0 (0).

// ---- MIN_BY(x, y) / MAX_BY(x, y) ----

// byAcc keeps the x of the row with the least (greatest) non-NULL y; x
// itself may be NULL. On ties the first row seen wins.
type byAcc struct {
	max    bool
	xT, yT arrow.DataType
	x, y   []any
	seen   []bool
}

func (a *byAcc) grow(n int) {
	a.x, a.y, a.seen = growTo(a.x, n), growTo(a.y, n), growTo(a.seen, n)
}

func (a *byAcc) offer(g uint32, x, y any) {
	if y == nil {
		return
	}
	if a.seen[g] {
		c := expr.Compare(y, a.y[g], a.yT)
		if (a.max && c <= 0) || (!a.max && c >= 0) {
			return
		}
	}
	// Strings from Arrow arrays share the array's buffer; the state
	// outlives the batch.
	if s, ok := x.(string); ok {
		x = strings.Clone(s)
	}
	if s, ok := y.(string); ok {
		y = strings.Clone(s)
	}
	a.x[g], a.y[g], a.seen[g] = x, y, true
}

func (a *byAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	gx, gy := expr.Getter(st.Field(0)), expr.Getter(st.Field(1))
	for i, g := range gids[:rows] {
		if st.IsValid(i) {
			a.offer(g, gx(i), gy(i))
		}
	}
}

func (a *byAcc) merge(gids []uint32, states []arrow.Array) {
	gx, gy := expr.Getter(states[0]), expr.Getter(states[1])
	for i, g := range gids {
		a.offer(g, gx(i), gy(i))
	}
}

func (a *byAcc) result(mem memory.Allocator, n int) arrow.Array {
	return anyArray(mem, a.xT, a.x[:n])
}

func (a *byAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{anyArray(mem, a.xT, a.x[:n]), anyArray(mem, a.yT, a.y[:n])}
}

// anyArray builds an array of type t from boxed values (nil: NULL).
func anyArray(mem memory.Allocator, t arrow.DataType, vs []any) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	app := expr.Appender(b)
	for _, v := range vs {
		app(v)
	}
	return b.NewArray()
}

// ---- AVG_WEIGHTED(x, w) ----

// avgWeightedAcc is Σx·w / Σw over the rows where both are non-NULL; a
// zero weight sum gives NaN, as in Doris.
type avgWeightedAcc struct {
	sxw, sw []float64
	n       []int64
}

func (a *avgWeightedAcc) grow(n int) {
	a.sxw, a.sw, a.n = growTo(a.sxw, n), growTo(a.sw, n), growTo(a.n, n)
}

func (a *avgWeightedAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	xs, ws := st.Field(0).(*array.Float64), st.Field(1).(*array.Float64)
	for i, g := range gids[:rows] {
		if st.IsNull(i) || xs.IsNull(i) || ws.IsNull(i) {
			continue
		}
		a.sxw[g] += xs.Value(i) * ws.Value(i)
		a.sw[g] += ws.Value(i)
		a.n[g]++
	}
}

func (a *avgWeightedAcc) merge(gids []uint32, states []arrow.Array) {
	sxw, sw, n := states[0].(*array.Float64), states[1].(*array.Float64), states[2].(*array.Int64)
	for i, g := range gids {
		a.sxw[g] += sxw.Value(i)
		a.sw[g] += sw.Value(i)
		a.n[g] += n.Value(i)
	}
}

func (a *avgWeightedAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		switch {
		case a.n[g] == 0:
			b.AppendNull()
		case a.sw[g] == 0:
			b.Append(math.NaN())
		default:
			b.Append(a.sxw[g] / a.sw[g])
		}
	}
	return b.NewArray()
}

func (a *avgWeightedAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{float64Array(mem, a.sxw[:n]), float64Array(mem, a.sw[:n]), int64Array(mem, a.n[:n])}
}

// ---- GROUP_BIT_AND / OR / XOR ----

type bitAcc struct {
	f    AggFunc
	v    []int64
	seen []bool
}

func (a *bitAcc) grow(n int) {
	a.v, a.seen = growTo(a.v, n), growTo(a.seen, n)
}

func (a *bitAcc) fold(g uint32, x int64) {
	if !a.seen[g] {
		a.v[g], a.seen[g] = x, true
		return
	}
	switch a.f {
	case GroupBitAnd:
		a.v[g] &= x
	case GroupBitOr:
		a.v[g] |= x
	default:
		a.v[g] ^= x
	}
}

func (a *bitAcc) update(gids []uint32, arg arrow.Array, rows int) {
	v := arg.(*array.Int64)
	for i, g := range gids[:rows] {
		if v.IsValid(i) {
			a.fold(g, v.Value(i))
		}
	}
}

func (a *bitAcc) merge(gids []uint32, states []arrow.Array) { a.update(gids, states[0], len(gids)) }

func (a *bitAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(a.v[:n], a.seen[:n])
	return b.NewArray()
}

func (a *bitAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- BOOL_AND / BOOL_OR ----

type boolAcc struct {
	and  bool
	v    []bool
	seen []bool
}

func (a *boolAcc) grow(n int) {
	for len(a.v) < n {
		a.v, a.seen = append(a.v, a.and), append(a.seen, false)
	}
}

func (a *boolAcc) update(gids []uint32, arg arrow.Array, rows int) {
	v := arg.(*array.Boolean)
	for i, g := range gids[:rows] {
		if v.IsNull(i) {
			continue
		}
		a.seen[g] = true
		if a.and {
			a.v[g] = a.v[g] && v.Value(i)
		} else {
			a.v[g] = a.v[g] || v.Value(i)
		}
	}
}

func (a *boolAcc) merge(gids []uint32, states []arrow.Array) { a.update(gids, states[0], len(gids)) }

func (a *boolAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(a.v[:n], a.seen[:n])
	return b.NewArray()
}

func (a *boolAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// ---- SUM0 ----

// sum0Acc is SUM with 0 in place of NULL; its partial state is SUM's (a
// NULL state merges as nothing).
type sum0Acc struct {
	accumulator
	typ arrow.DataType
}

func (a *sum0Acc) overflowed() bool {
	o, ok := a.accumulator.(interface{ overflowed() bool })
	return ok && o.overflowed()
}

func (a *sum0Acc) result(mem memory.Allocator, n int) arrow.Array {
	r := a.accumulator.result(mem, n)
	if r.NullN() == 0 {
		return r
	}
	defer r.Release()
	get := expr.Getter(r)
	var z any
	switch a.typ.ID() { // SUM's result types
	case arrow.INT64:
		z = int64(0)
	case arrow.FLOAT64:
		z = 0.0
	case arrow.DECIMAL128:
		z = decimal128.Num{}
	}
	vs := make([]any, n)
	for i := range vs {
		if vs[i] = get(i); vs[i] == nil {
			vs[i] = z
		}
	}
	return anyArray(mem, a.typ, vs)
}
