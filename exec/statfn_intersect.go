package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// intersectAcc is Doris's GROUP_ARRAY_INTERSECT(arr): the elements every
// non-NULL array of the group holds, once each, in the order of the first
// array met; a group with no array is the empty array. The partial state
// is (elements, whether any array was met).
type intersectAcc struct {
	valMem
	elem    arrow.DataType
	started []bool
	elems   [][]any
}

func (a *intersectAcc) grow(n int) {
	a.started = growTo(a.started, n)
	a.elems = growTo(a.elems, n)
}

func (a *intersectAcc) add(g uint32, arr []any) {
	if !a.started[g] {
		a.started[g] = true
		seen := map[string]bool{}
		for _, v := range arr {
			k := expr.KeyString(v, a.elem)
			if !seen[k] {
				seen[k] = true
				a.charge(collectBytes + int64(len(k)))
				a.elems[g] = append(a.elems[g], v)
			}
		}
		return
	}
	in := make(map[string]bool, len(arr))
	for _, v := range arr {
		in[expr.KeyString(v, a.elem)] = true
	}
	kept := a.elems[g][:0]
	for _, v := range a.elems[g] {
		if in[expr.KeyString(v, a.elem)] {
			kept = append(kept, v)
		}
	}
	a.elems[g] = kept
}

func (a *intersectAcc) update(gids []uint32, arg arrow.Array, rows int) {
	get := expr.Getter(arg)
	for i, g := range gids[:rows] {
		if l, ok := get(i).([]any); ok {
			a.add(g, l)
		}
	}
}

func (a *intersectAcc) merge(gids []uint32, states []arrow.Array) {
	get, started := expr.Getter(states[0]), states[1].(*array.Boolean)
	for i, g := range gids {
		if started.IsValid(i) && started.Value(i) {
			l, _ := get(i).([]any)
			a.add(g, l)
		}
	}
}

func (a *intersectAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, arrow.ListOf(a.elem))
	defer b.Release()
	app := expr.Appender(b)
	for g := 0; g < n; g++ {
		v := a.elems[g]
		if v == nil {
			v = []any{}
		}
		app(v)
	}
	return b.NewArray()
}

func (a *intersectAcc) states(mem memory.Allocator, n int) []arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(a.started[:n], nil)
	return []arrow.Array{a.result(mem, n), b.NewArray()}
}
