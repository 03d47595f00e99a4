package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// ---- COLLECT_LIST / COLLECT_SET / ARRAY_AGG ----

// collectAcc keeps a group's values in arrival order as an ARRAY (Doris
// leaves the order open). COLLECT_LIST and COLLECT_SET skip NULLs,
// COLLECT_SET keeps the first of equal values, ARRAY_AGG keeps NULLs; a
// group with no values is the empty array. The partial state is the array
// itself.
type collectAcc struct {
	valMem
	f    AggFunc
	typ  arrow.DataType
	vals [][]any
	seen []map[string]struct{}
}

// collectBytes estimates a kept value beyond its string bytes: the
// interface slot and the boxed value.
const collectBytes = 32

func (a *collectAcc) grow(n int) {
	a.vals = growTo(a.vals, n)
	if a.f == CollectSet {
		a.seen = growTo(a.seen, n)
	}
}

func (a *collectAcc) add(g uint32, v any) {
	if v == nil && a.f != ArrayAgg {
		return
	}
	size := int64(collectBytes)
	if s, ok := v.(string); ok {
		size += int64(len(s))
	}
	if a.f == CollectSet {
		k := expr.KeyString(v, a.typ)
		if a.seen[g] == nil {
			a.seen[g] = map[string]struct{}{}
		}
		if _, ok := a.seen[g][k]; ok {
			return
		}
		size += int64(len(k)) + setEntryBytes
		a.charge(size)
		a.seen[g][k] = struct{}{}
	} else {
		a.charge(size)
	}
	a.vals[g] = append(a.vals[g], v)
}

func (a *collectAcc) update(gids []uint32, arg arrow.Array, rows int) {
	get := expr.Getter(arg)
	for i, g := range gids[:rows] {
		a.add(g, get(i))
	}
}

func (a *collectAcc) merge(gids []uint32, states []arrow.Array) {
	get := expr.Getter(states[0])
	for i, g := range gids {
		l, _ := get(i).([]any)
		for _, v := range l {
			a.add(g, v)
		}
	}
}

func (a *collectAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, arrow.ListOf(a.typ))
	defer b.Release()
	app := expr.Appender(b)
	for g := 0; g < n; g++ {
		v := a.vals[g]
		if v == nil {
			v = []any{}
		}
		app(v)
	}
	return b.NewArray()
}

func (a *collectAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}
