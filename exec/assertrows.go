package exec

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrSubqueryRows: a scalar subquery yielded a second row (MySQL errno
// 1242). Whether a subquery yields more than one row is known only once it
// runs, so the check is here rather than in the binder.
var ErrSubqueryRows = errors.New("subquery returns more than 1 row")

// AssertOneRow passes its input through and fails with ErrSubqueryRows as
// soon as a second row arrives (Doris's ASSERT NUMBER OF ROWS node), or,
// with Keys, a second row of the same key values: a correlated scalar
// subquery planned once over all outer values, one key per outer value.
type AssertOneRow struct {
	Input Operator
	Keys  []int
}

// NewAssertOneRow wraps input, which must yield at most one row per value
// of the key columns (none: at most one row).
func NewAssertOneRow(input Operator, keys ...int) *AssertOneRow {
	return &AssertOneRow{Input: input, Keys: keys}
}

func (a *AssertOneRow) Schema() *arrow.Schema { return a.Input.Schema() }
func (a *AssertOneRow) Children() []Operator  { return []Operator{a.Input} }
func (a *AssertOneRow) Explain() string {
	if len(a.Keys) > 0 {
		return "VASSERT_NUM_ROWS\nassert: LE 1 per key"
	}
	return "VASSERT_NUM_ROWS\nassert: LE 1"
}

func (a *AssertOneRow) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	in, err := OpenOp(ctx, env, a.Input)
	if err != nil {
		return nil, err
	}
	if len(a.Keys) > 0 {
		return a.openKeyed(ctx, env, in), nil
	}
	var rows int64
	next := func() (arrow.RecordBatch, error) {
		for in.Next() {
			b := in.RecordBatch()
			if b.NumRows() == 0 {
				continue
			}
			if rows += b.NumRows(); rows > 1 {
				return nil, ErrSubqueryRows
			}
			b.Retain()
			return b, nil
		}
		return nil, in.Err()
	}
	return newPullReader(ctx, a.Schema(), next, in.Release), nil
}

// openKeyed checks that no key repeats: the group table numbers keys in
// first-seen order, so a row whose id is not the next new one repeats a key.
func (a *AssertOneRow) openKeyed(ctx context.Context, env *Env, in array.RecordReader) array.RecordReader {
	types := make([]arrow.DataType, len(a.Keys))
	for i, k := range a.Keys {
		types[i] = a.Schema().Field(k).Type
	}
	g := newGroupTable(env.Mem, types, false)
	var ids []uint32
	var seen uint32
	keys := make([]arrow.Array, len(a.Keys))
	next := func() (arrow.RecordBatch, error) {
		for in.Next() {
			b := in.RecordBatch()
			n := int(b.NumRows())
			if n == 0 {
				continue
			}
			for i, k := range a.Keys {
				keys[i] = b.Column(k)
			}
			ids = g.ids(keys, n, ids)
			for _, id := range ids {
				if id != seen {
					return nil, ErrSubqueryRows
				}
				seen++
			}
			b.Retain()
			return b, nil
		}
		return nil, in.Err()
	}
	return newPullReader(ctx, a.Schema(), next, func() { in.Release(); g.release() })
}
