package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxRetention is the most conditions RETENTION takes (Doris: 32).
const maxRetention = 32

// retentionAcc is Doris's RETENTION(c1, ..., cn): per group, the mask of
// the conditions some row met (a NULL condition is not met). The result
// has n flags: the first is whether c1 was met, the i-th whether c1 and
// ci both were (by any rows), so all are 0 when c1 never was. The mask is
// also the partial state; states merge by OR.
type retentionAcc struct {
	n    int
	mask []int64
}

func (a *retentionAcc) grow(n int) { a.mask = growTo(a.mask, n) }

func (a *retentionAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	for f := 0; f < a.n; f++ {
		c := st.Field(f).(*array.Boolean)
		bit := int64(1) << f
		for i, g := range gids[:rows] {
			if st.IsValid(i) && c.IsValid(i) && c.Value(i) {
				a.mask[g] |= bit
			}
		}
	}
}

func (a *retentionAcc) merge(gids []uint32, states []arrow.Array) {
	m := states[0].(*array.Int64)
	for i, g := range gids {
		if m.IsValid(i) {
			a.mask[g] |= m.Value(i)
		}
	}
}

func (a *retentionAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewListBuilder(mem, arrow.FixedWidthTypes.Boolean)
	defer b.Release()
	vb := b.ValueBuilder().(*array.BooleanBuilder)
	for g := 0; g < n; g++ {
		b.Append(true)
		first := a.mask[g]&1 != 0
		vb.Append(first)
		for f := 1; f < a.n; f++ {
			vb.Append(first && a.mask[g]&(1<<f) != 0)
		}
	}
	return b.NewArray()
}

func (a *retentionAcc) states(mem memory.Allocator, n int) []arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(a.mask[:n], nil)
	return []arrow.Array{b.NewArray()}
}
