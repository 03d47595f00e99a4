package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// mapAggAcc is Doris's MAP_AGG(k, v): a group's (k, v) pairs as a MAP,
// the first value met for a key kept, rows with a NULL key skipped (a MAP
// key cannot be NULL); a group with none is the empty map. The partial
// state is the keys and the values as two ARRAYs, merged in order, so a
// key already in the destination keeps its value as in Doris.
type mapAggAcc struct {
	valMem
	kt, vt arrow.DataType
	keys   [][]any
	vals   [][]any
	seen   []map[string]struct{}
}

func (a *mapAggAcc) grow(n int) {
	a.keys = growTo(a.keys, n)
	a.vals = growTo(a.vals, n)
	a.seen = growTo(a.seen, n)
}

func (a *mapAggAcc) add(g uint32, k, v any) {
	if k == nil {
		return
	}
	ks := expr.KeyString(k, a.kt)
	if a.seen[g] == nil {
		a.seen[g] = map[string]struct{}{}
	}
	if _, dup := a.seen[g][ks]; dup {
		return
	}
	size := int64(2*collectBytes+setEntryBytes) + int64(len(ks))
	if s, ok := v.(string); ok {
		size += int64(len(s))
	}
	a.charge(size)
	a.seen[g][ks] = struct{}{}
	a.keys[g] = append(a.keys[g], k)
	a.vals[g] = append(a.vals[g], v)
}

func (a *mapAggAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	kget, vget := expr.Getter(st.Field(0)), expr.Getter(st.Field(1))
	for i, g := range gids[:rows] {
		if st.IsValid(i) {
			a.add(g, kget(i), vget(i))
		}
	}
}

func (a *mapAggAcc) merge(gids []uint32, states []arrow.Array) {
	kget, vget := expr.Getter(states[0]), expr.Getter(states[1])
	for i, g := range gids {
		ks, _ := kget(i).([]any)
		vs, _ := vget(i).([]any)
		for j := range ks {
			a.add(g, ks[j], vs[j])
		}
	}
}

func (a *mapAggAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewBuilder(mem, arrow.MapOf(a.kt, a.vt))
	defer b.Release()
	app := expr.Appender(b)
	for g := 0; g < n; g++ {
		app(expr.MapValue{Keys: a.keys[g], Values: a.vals[g]})
	}
	return b.NewArray()
}

func (a *mapAggAcc) states(mem memory.Allocator, n int) []arrow.Array {
	kb := array.NewBuilder(mem, arrow.ListOf(a.kt))
	defer kb.Release()
	vb := array.NewBuilder(mem, arrow.ListOf(a.vt))
	defer vb.Release()
	kapp, vapp := expr.Appender(kb), expr.Appender(vb)
	for g := 0; g < n; g++ {
		k, v := a.keys[g], a.vals[g]
		if k == nil {
			k, v = []any{}, []any{}
		}
		kapp(k)
		vapp(v)
	}
	return []arrow.Array{kb.NewArray(), vb.NewArray()}
}
