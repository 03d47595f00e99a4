package paimon

import (
	"bytes"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/internal/arrowval"
)

// evalBatch evaluates the predicate on rows [0, n) of a batch into out
// (len n): the answer evalRow gives row by row, computed column-wise. Leaves
// over signed integers, DATE, FLOAT, DOUBLE, strings, bytes, BOOLEAN and
// timestamps run typed loops with no per-row boxing; any other leaf (decimal,
// TIME, nested, a missing column) falls back to evalRow on that leaf alone.
// col returns the batch column of a predicate field (nil when absent).
func (b *bound) evalBatch(col func(string) arrow.Array, n int, out []bool) {
	switch b.op {
	case OpAnd, OpOr:
		and := b.op == OpAnd
		b.children[0].evalBatch(col, n, out)
		if len(b.children) == 1 {
			return
		}
		tmp := make([]bool, n)
		for _, c := range b.children[1:] {
			c.evalBatch(col, n, tmp)
			if and {
				for i, t := range tmp {
					out[i] = out[i] && t
				}
			} else {
				for i, t := range tmp {
					out[i] = out[i] || t
				}
			}
		}
		return
	}
	arr := col(b.field)
	if arr == nil || !b.evalLeaf(arr, n, out) {
		row := 0
		get := func(string) any { return arrowValue(arr, row) }
		for row = 0; row < n; row++ {
			out[row] = b.evalRow(get)
		}
	}
}

// evalLeaf is evalBatch of a leaf on a column with a typed loop; false
// when the column type or literal has none (nothing written then).
func (b *bound) evalLeaf(arr arrow.Array, n int, out []bool) bool {
	if !fastType(arr) {
		return false
	}
	switch b.op {
	case OpIsNull, OpIsNotNull:
		want := b.op == OpIsNotNull
		for i := 0; i < n; i++ {
			out[i] = arr.IsValid(i) == want
		}
		return true
	case OpIn:
		for i := range out[:n] {
			out[i] = false
		}
		tmp := make([]bool, n)
		for _, l := range b.values {
			if l == nil { // compareNorm(v, nil) is never ok
				continue
			}
			if !cmpLeaf(arr, OpEq, l, n, tmp) {
				return false
			}
			for i, t := range tmp {
				out[i] = out[i] || t
			}
		}
	default:
		if b.value == nil {
			for i := range out[:n] {
				out[i] = false
			}
			return true
		}
		if !cmpLeaf(arr, b.op, b.value, n, out) {
			return false
		}
	}
	if arr.NullN() > 0 {
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				out[i] = false
			}
		}
	}
	return true
}

// fastType: arrays whose normalized cells evalLeaf compares itself. norm
// gives nil only for their NULL rows, so IS [NOT] NULL is the validity.
func fastType(arr arrow.Array) bool {
	switch arr.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Date32,
		*array.Float32, *array.Float64, *array.String, *array.LargeString,
		*array.Binary, *array.LargeBinary, *array.Boolean, *array.Timestamp, *array.Decimal128:
		return true
	}
	return false
}

// cmpLeaf sets out[i] = (arr[i] op lit) as compareNorm orders them,
// ignoring validity; false when it has no typed loop for the pair.
func cmpLeaf(arr arrow.Array, op Op, lit any, n int, out []bool) bool {
	switch a := arr.(type) {
	case *array.Int8:
		return cmpInts(a.Int8Values()[:n], op, lit, out)
	case *array.Int16:
		return cmpInts(a.Int16Values()[:n], op, lit, out)
	case *array.Int32:
		return cmpInts(a.Int32Values()[:n], op, lit, out)
	case *array.Int64:
		return cmpInts(a.Int64Values()[:n], op, lit, out)
	case *array.Date32:
		return cmpInts(a.Date32Values()[:n], op, lit, out)
	case *array.Float32:
		return cmpFloats(a.Float32Values()[:n], op, lit, out)
	case *array.Float64:
		return cmpFloats(a.Float64Values()[:n], op, lit, out)
	case *array.String:
		return cmpStrings(a, op, lit, n, out)
	case *array.LargeString:
		return cmpStrings(a, op, lit, n, out)
	case *array.Binary:
		return cmpBytes(a, op, lit, n, out)
	case *array.LargeBinary:
		return cmpBytes(a, op, lit, n, out)
	case *array.Boolean:
		y, ok := lit.(bool)
		if !ok {
			return false
		}
		for i := 0; i < n; i++ {
			x := a.Value(i)
			out[i] = holds(op, cmp3(!x && y, x && !y))
		}
		return true
	case *array.Decimal128:
		return cmpDecimals(a, op, lit, n, out)
	case *array.Timestamp:
		y, ok := lit.(tsKey)
		if !ok {
			return false
		}
		unit := a.DataType().(*arrow.TimestampType).Unit
		for i, v := range a.TimestampValues()[:n] {
			x := arrowval.TimestampOf(int64(v), unit)
			c := cmp3(x.Millis < y.ms, x.Millis > y.ms)
			if c == 0 {
				c = cmp3(x.NanoOfMilli < y.nano, x.NanoOfMilli > y.nano)
			}
			out[i] = holds(op, c)
		}
		return true
	}
	return false
}

func holds(op Op, c int) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// cmpInts: an integer literal compares as int64, a float one as
// compareNorm does (cmpFloat of the widened value).
func cmpInts[T signed](vals []T, op Op, lit any, out []bool) bool {
	out = out[:len(vals)] // one bounds check, not one per row
	switch l := lit.(type) {
	case int64:
		switch op {
		case OpEq:
			for i, x := range vals {
				out[i] = int64(x) == l
			}
		case OpNe:
			for i, x := range vals {
				out[i] = int64(x) != l
			}
		case OpLt:
			for i, x := range vals {
				out[i] = int64(x) < l
			}
		case OpLe:
			for i, x := range vals {
				out[i] = int64(x) <= l
			}
		case OpGt:
			for i, x := range vals {
				out[i] = int64(x) > l
			}
		case OpGe:
			for i, x := range vals {
				out[i] = int64(x) >= l
			}
		default:
			return false
		}
		return true
	case float64:
		for i, x := range vals {
			out[i] = holds(op, cmpFloat(float64(x), l))
		}
		return true
	}
	return false
}

func cmpFloats[T float32 | float64](vals []T, op Op, lit any, out []bool) bool {
	var l float64
	switch y := lit.(type) {
	case float64:
		l = y
	case int64:
		l = float64(y)
	default:
		return false
	}
	for i, x := range vals {
		out[i] = holds(op, cmpFloat(float64(x), l))
	}
	return true
}

func cmpStrings[A interface{ Value(int) string }](a A, op Op, lit any, n int, out []bool) bool {
	l, ok := lit.(string)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		out[i] = holds(op, strings.Compare(a.Value(i), l))
	}
	return true
}

func cmpBytes[A interface{ Value(int) []byte }](a A, op Op, lit any, n int, out []bool) bool {
	s, ok := lit.(string)
	if !ok {
		return false
	}
	l := []byte(s)
	for i := 0; i < n; i++ {
		out[i] = holds(op, bytes.Compare(a.Value(i), l))
	}
	return true
}

// cmpDecimals compares unscaled DECIMAL cells with a decimal literal (a
// *big.Rat, as bind makes it) without a big number per row: the literal in
// units of the column's scale is u; with f = floor(u), a cell x compares
// with u as with f when u is whole, and otherwise x <= f means x < u and
// x > f means x > u. The rows of TPC-H's Q6 and Q19 filters take this path.
func cmpDecimals(a *array.Decimal128, op Op, lit any, n int, out []bool) bool {
	r, ok := lit.(*big.Rat)
	if !ok {
		return false
	}
	scale := a.DataType().(*arrow.Decimal128Type).Scale
	if scale < 0 {
		return false
	}
	u := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	// Int.Div is Euclidean; a Rat's denominator is positive, so this is
	// the floor.
	f := new(big.Int).Div(u.Num(), u.Denom())
	if f.BitLen() > 126 {
		return false // beyond any DECIMAL(38): leave it to the exact path
	}
	fl := decimal128.FromBigInt(f)
	whole := u.IsInt()
	vals := a.Values()[:n]
	out = out[:n]
	for i, x := range vals {
		c := x.Cmp(fl)
		if !whole {
			c = cmp3(c <= 0, c > 0)
		}
		out[i] = holds(op, c)
	}
	return true
}
