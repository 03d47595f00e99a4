package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// distinctAcc is an aggregate over DISTINCT values: a groupTable over
// (group id, value) pairs keeps each pair once, in first-seen order, with
// its values typed; result runs the plain aggregate over the pairs.
type distinctAcc struct {
	call     AggCall
	innerErr error
	typ      arrow.DataType // argument type
	out      arrow.DataType
	// mem is the statement's account, for the pair table (setMem); nil
	// until the operator sets it, then the pair table is made.
	mem   memory.Allocator
	pairs *groupTable
	pids  []uint32
	// global: the aggregate has no GROUP BY, every group id is 0, and the
	// table is keyed on the value alone (an integer one takes the direct
	// or integer table).
	global bool
}

// setMem gives the accumulator the statement's allocator.
func (a *distinctAcc) setMem(mem memory.Allocator) { a.mem = mem }

// setGlobal says the aggregate has no GROUP BY (before the first update).
func (a *distinctAcc) setGlobal() { a.global = true }

func (a *distinctAcc) table() *groupTable {
	if a.pairs == nil {
		types := []arrow.DataType{arrow.PrimitiveTypes.Uint32, a.typ}
		if a.global {
			types = types[1:]
		}
		a.pairs = newGroupTable(a.mem, types, true)
	}
	return a.pairs
}

func (a *distinctAcc) grow(int) {}

// gidArray views gids as a UINT32 column without copying.
func gidArray(gids []uint32) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Uint32Traits.CastToBytes(gids))
	d := array.NewData(arrow.PrimitiveTypes.Uint32, len(gids), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer d.Release()
	return array.NewUint32Data(d)
}

func (a *distinctAcc) update(gids []uint32, arg arrow.Array, rows int) {
	if a.global {
		a.pids = a.table().ids([]arrow.Array{arg}, rows, a.pids)
		return
	}
	g := gidArray(gids[:rows])
	defer g.Release()
	a.pids = a.table().ids([]arrow.Array{g, arg}, rows, a.pids)
}

func (a *distinctAcc) merge([]uint32, []arrow.Array) {}

// tooLarge is the error of the last result's GROUP_CONCAT, if its value
// grew past the limit.
func (a *distinctAcc) tooLarge() error { return a.innerErr }

func (a *distinctAcc) result(mem memory.Allocator, n int) arrow.Array {
	plain := a.call
	plain.Distinct = false
	inner, err := newAccumulator(plain, a.typ, a.out)
	if err != nil {
		return array.MakeArrayOfNull(mem, a.out, n)
	}
	if m, ok := inner.(interface{ setMem(memory.Allocator) }); ok {
		m.setMem(a.mem)
	}
	if r, ok := inner.(interface{ release() }); ok {
		defer r.release()
	}
	if e, ok := inner.(interface{ tooLarge() error }); ok {
		defer func() { a.innerErr = e.tooLarge() }()
	}
	inner.grow(n)
	if a.pairs != nil && a.pairs.n > 0 {
		t := a.pairs
		gids := make([]uint32, t.n)
		if !a.global {
			for i, v := range t.cols[0].(*fixedKeyCol).vals {
				gids[i] = uint32(v)
			}
		}
		vals := t.cols[len(t.cols)-1].build(mem)
		// A NULL value is a pair too; every plain aggregate skips it.
		inner.update(gids, vals, t.n)
		vals.Release()
	}
	return inner.result(mem, n)
}

func (a *distinctAcc) states(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{a.result(mem, n)}
}

// release gives back the pair table.
func (a *distinctAcc) release() {
	if a.pairs != nil {
		a.pairs.release()
		a.pairs = nil
	}
}
