package exec

import (
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// Typed MIN/MAX: a value and a seen flag per group in Go slices of the
// column's own type; nothing is boxed. NaN is greater than every other
// value, as in DuckDB: with Go's comparison (never less or greater) the
// answer depended on the order the values came in, which differs
// between one table and several (the parallel and routed aggregates).

type minMaxNum[T cmp.Ordered] struct {
	isMax  bool
	typ    arrow.DataType
	v      []T
	seen   []bool
	values func(arrow.Array) []T
}

func (a *minMaxNum[T]) grow(n int) {
	a.v = growTo(a.v, n)
	a.seen = growTo(a.seen, n)
}

func (a *minMaxNum[T]) update(gids []uint32, arg arrow.Array, rows int) {
	v := a.values(arg)
	nulls := arg.NullN() > 0
	for i, g := range gids[:rows] {
		if nulls && arg.IsNull(i) {
			continue
		}
		x, y := v[i], a.v[g]
		// x != x only for NaN.
		if !a.seen[g] || (a.isMax && (x > y || x != x && y == y)) || (!a.isMax && (x < y || y != y && x == x)) {
			a.v[g], a.seen[g] = x, true
		}
	}
}

func (a *minMaxNum[T]) merge(gids []uint32, states []arrow.Array) {
	a.update(gids, states[0], len(gids))
}

func (a *minMaxNum[T]) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, a.typ)
	defer b.Release()
	b.(interface{ AppendValues([]T, []bool) }).AppendValues(a.v[:n], a.seen[:n])
	return b.NewArray()
}

func (a *minMaxNum[T]) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

func mmNum[T cmp.Ordered, A interface{ Values() []T }](isMax bool, t arrow.DataType) accumulator {
	return &minMaxNum[T]{isMax: isMax, typ: t, values: func(a arrow.Array) []T { return a.(A).Values() }}
}

// minMaxStr keeps copies of the winning strings (a batch's buffers are not
// the accumulator's to keep); their bytes are charged to the statement's
// account, so MAX(long text) over many groups counts what it holds.
type minMaxStr struct {
	isMax bool
	typ   arrow.DataType
	v     []string
	seen  []bool
	mem   memory.Allocator
	held  int64 // bytes of v, charged
}

func (a *minMaxStr) setMem(mem memory.Allocator) { a.mem = mem }

// release gives the kept strings' bytes back.
func (a *minMaxStr) release() {
	memlimit.Refund(a.mem, a.held)
	a.held, a.v, a.seen = 0, nil, nil
}

func (a *minMaxStr) grow(n int) {
	a.v = growTo(a.v, n)
	a.seen = growTo(a.seen, n)
}

func (a *minMaxStr) update(gids []uint32, arg arrow.Array, rows int) {
	s := arg.(*array.String)
	nulls := arg.NullN() > 0
	for i, g := range gids[:rows] {
		if nulls && s.IsNull(i) {
			continue
		}
		x := s.Value(i)
		if !a.seen[g] || (a.isMax && x > a.v[g]) || (!a.isMax && x < a.v[g]) {
			if d := int64(len(x) - len(a.v[g])); d > 0 {
				memlimit.Charge(a.mem, d) // may refuse: nothing changed yet
				a.held += d
			} else if d < 0 {
				memlimit.Refund(a.mem, -d)
				a.held += d
			}
			a.v[g], a.seen[g] = strings.Clone(x), true
		}
	}
}

func (a *minMaxStr) merge(gids []uint32, states []arrow.Array) {
	a.update(gids, states[0], len(gids))
}

func (a *minMaxStr) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(a.v[:n], a.seen[:n])
	return b.NewArray()
}

func (a *minMaxStr) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// typedMinMax is the typed MIN/MAX state for t, nil where the generic
// minMaxAcc serves (decimals, binaries, nested values).
func typedMinMax(isMax bool, t arrow.DataType) accumulator {
	switch t.ID() {
	case arrow.INT8:
		return mmNum[int8, *array.Int8](isMax, t)
	case arrow.INT16:
		return mmNum[int16, *array.Int16](isMax, t)
	case arrow.INT32:
		return mmNum[int32, *array.Int32](isMax, t)
	case arrow.INT64:
		return mmNum[int64, *array.Int64](isMax, t)
	case arrow.UINT8:
		return mmNum[uint8, *array.Uint8](isMax, t)
	case arrow.UINT16:
		return mmNum[uint16, *array.Uint16](isMax, t)
	case arrow.UINT32:
		return mmNum[uint32, *array.Uint32](isMax, t)
	case arrow.UINT64:
		return mmNum[uint64, *array.Uint64](isMax, t)
	case arrow.FLOAT32:
		return mmNum[float32, *array.Float32](isMax, t)
	case arrow.FLOAT64:
		return mmNum[float64, *array.Float64](isMax, t)
	case arrow.DATE32:
		return mmNum[arrow.Date32, *array.Date32](isMax, t)
	case arrow.DATE64:
		return mmNum[arrow.Date64, *array.Date64](isMax, t)
	case arrow.TIMESTAMP:
		return mmNum[arrow.Timestamp, *array.Timestamp](isMax, t)
	case arrow.STRING:
		return &minMaxStr{isMax: isMax, typ: t}
	}
	return nil
}
