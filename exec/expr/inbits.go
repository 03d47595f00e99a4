package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/internal/keybits"
)

// InBitsExpr is true where Arg, an integer, is a key of an exact key
// bitmap (keybits: bit k-Lo of Words for key k), false elsewhere and on
// NULL: a join's runtime filter shipped to the BE, which must keep
// exactly the rows the FE's filter keeps.
type InBitsExpr struct {
	Arg   Expr
	Lo    int64
	Words []uint64
}

// InBits builds e IN BITMAP; e must be a signed integer.
func InBits(e Expr, lo int64, words []uint64) (Expr, error) {
	switch e.DataType().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
	default:
		return nil, errorf(ErrType, "key bitmap filter on %s of type %s: integer columns only", e, e.DataType())
	}
	return &InBitsExpr{Arg: e, Lo: lo, Words: words}, nil
}

func (b *InBitsExpr) DataType() arrow.DataType { return BoolT() }
func (b *InBitsExpr) Children() []Expr         { return []Expr{b.Arg} }
func (b *InBitsExpr) String() string {
	if lo, hi, ok := keybits.Span(b.Words, b.Lo); ok {
		return fmt.Sprintf("%s IN BITMAP[%d..%d]", b.Arg, lo, hi)
	}
	return b.Arg.String() + " IN BITMAP[]"
}

func (b *InBitsExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := b.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	keep := make([]bool, a.Len())
	if !keybits.KeepArray(b.Words, b.Lo, a, a.Len(), keep) {
		return nil, errorf(ErrType, "key bitmap filter on %s: got %s values", b.Arg, a.DataType())
	}
	out := array.NewBooleanBuilder(env.Mem)
	defer out.Release()
	out.AppendValues(keep, nil)
	return out.NewArray(), nil
}
