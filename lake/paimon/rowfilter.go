package paimon

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/internal/arrowval"
	"github.com/inlet-db/inlet/internal/keybits"
)

// evalBatch evaluates the predicate on rows [0, n) of a batch into out
// (len n): the answer evalRow gives row by row, computed column-wise. Leaves
// over signed integers, DATE, FLOAT, DOUBLE, strings, bytes, BOOLEAN and
// timestamps run typed loops with no per-row boxing; any other leaf (decimal,
// TIME, nested, a missing column) falls back to evalRow on that leaf alone.
// col returns the batch column of a predicate field (nil when absent).
func (b *bound) evalBatch(col func(string) arrow.Array, n int, out []bool) {
	b.evalLive(col, n, out, nil)
}

// evalLive is evalBatch where only the rows with live[i] set matter (all
// when live is nil): out[i] of another row is left unspecified, and the
// leaves whose per-row cost is high (strings) skip those rows. An AND
// hands its children the rows its earlier children kept, so Q19's
// l_shipinstruct = ... compares only the rows l_shipmode IN (...) kept.
func (b *bound) evalLive(col func(string) arrow.Array, n int, out, live []bool) {
	switch b.op {
	case OpAnd:
		// Fixed-width leaves first: they are cheap over every row, and the
		// strings and subtrees after them then compare only the rows left
		// (Q12's l_receiptdate range keeps 1/7 of the rows before
		// l_shipmode IN (...)). Row filtering is a conjunction, so the
		// order does not change the answer.
		first := true
		var tmp []bool
		for pass := 0; pass < 2; pass++ {
			for _, c := range b.children {
				if c.cheap(col) != (pass == 0) {
					continue
				}
				if first {
					c.evalLive(col, n, out, live)
					first = false
					continue
				}
				if tmp == nil {
					tmp = make([]bool, n)
				}
				c.evalLive(col, n, tmp, out)
				for i, t := range tmp {
					out[i] = out[i] && t
				}
			}
		}
		return
	case OpOr:
		b.children[0].evalLive(col, n, out, live)
		if len(b.children) == 1 {
			return
		}
		tmp := make([]bool, n)
		for _, c := range b.children[1:] {
			c.evalLive(col, n, tmp, live)
			for i, t := range tmp {
				out[i] = out[i] || t
			}
		}
		return
	}
	arr := col(b.field)
	if arr == nil || !b.evalLeaf(arr, n, out, live) {
		row := 0
		get := func(string) any { return arrowValue(arr, row) }
		for row = 0; row < n; row++ {
			out[row] = b.evalRow(get)
		}
	}
}

// cheap: a leaf over a fixed-width column (present in the batch), whose
// typed loop costs little per row whether or not the row is live.
func (b *bound) cheap(col func(string) arrow.Array) bool {
	if b.op == OpAnd || b.op == OpOr {
		return false
	}
	switch col(b.field).(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Date32,
		*array.Float32, *array.Float64, *array.Boolean, *array.Timestamp, *array.Decimal128:
		return true
	}
	return false
}

// evalLeaf is evalLive of a leaf on a column with a typed loop; false
// when the column type or literal has none (nothing written then).
func (b *bound) evalLeaf(arr arrow.Array, n int, out, live []bool) bool {
	if !fastType(arr) {
		return false
	}
	switch b.op {
	case OpInBits:
		return bitsLeaf(arr, b.bits, b.bitsLo, n, out)
	case OpIsNull, OpIsNotNull:
		want := b.op == OpIsNotNull
		for i := 0; i < n; i++ {
			out[i] = arr.IsValid(i) == want
		}
		return true
	case OpIn:
		if inStrings(arr, b.values, n, out, live) {
			break
		}
		for i := range out[:n] {
			out[i] = false
		}
		tmp := make([]bool, n)
		for _, l := range b.values {
			if l == nil { // compareNorm(v, nil) is never ok
				continue
			}
			if !cmpLeaf(arr, OpEq, l, n, tmp, live) {
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
		if !cmpLeaf(arr, b.op, b.value, n, out, live) {
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

// bitsLeaf sets out[i] for the rows whose integer is in the key bitmap
// (NULL never is), by keybits, as the FE's filter tests; false for a
// column that is not a signed integer.
func bitsLeaf(arr arrow.Array, words []uint64, lo int64, n int, out []bool) bool {
	return keybits.KeepArray(words, lo, arr, n, out)
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
func cmpLeaf(arr arrow.Array, op Op, lit any, n int, out, live []bool) bool {
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
		return cmpVarlen(a.ValueOffsets(), a.ValueBytes(), op, lit, n, out, live)
	case *array.LargeString:
		return cmpVarlen(a.ValueOffsets(), a.ValueBytes(), op, lit, n, out, live)
	case *array.Binary:
		return cmpVarlen(a.ValueOffsets(), a.ValueBytes(), op, lit, n, out, live)
	case *array.LargeBinary:
		return cmpVarlen(a.ValueOffsets(), a.ValueBytes(), op, lit, n, out, live)
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

// cmpVarlen compares string or binary cells, read straight from the
// offsets and bytes (no string header per row through Value), with a
// literal: a string for both, as bind gives it (strings and bytes both
// order bytewise; any other literal is left to the row path). Equality checks the
// length first, which settles most rows of a dictionary column's few
// distinct values. Rows outside live are not compared.
func cmpVarlen[O int32 | int64](offs []O, data []byte, op Op, lit any, n int, out, live []bool) bool {
	l, ok := lit.(string)
	if !ok {
		return false
	}
	base := offs[0]
	offs = offs[:n+1]
	out = out[:n]
	if live != nil {
		live = live[:n]
	}
	switch op {
	case OpEq, OpNe:
		want := op == OpEq
		for i := range out {
			if live != nil && !live[i] {
				out[i] = false
				continue
			}
			s, e := offs[i]-base, offs[i+1]-base
			out[i] = (int(e-s) == len(l) && string(data[s:e]) == l) == want
		}
	default:
		for i := range out {
			if live != nil && !live[i] {
				out[i] = false
				continue
			}
			s, e := offs[i]-base, offs[i+1]-base
			out[i] = holds(op, strings.Compare(string(data[s:e]), l))
		}
	}
	return true
}

// inStrings is IN over string or binary cells with string literals in one
// pass per row (a length check, then the bytes) instead of one pass per
// literal; false when the column or a literal is of another kind. NULL
// literals never match (compareNorm with nil is never ok).
func inStrings(arr arrow.Array, values []any, n int, out, live []bool) bool {
	lits := make([]string, 0, len(values))
	for _, v := range values {
		switch l := v.(type) {
		case nil:
		case string:
			lits = append(lits, l)
		default:
			return false
		}
	}
	switch a := arr.(type) {
	case *array.String:
		inVarlen(a.ValueOffsets(), a.ValueBytes(), lits, n, out, live)
	case *array.LargeString:
		inVarlen(a.ValueOffsets(), a.ValueBytes(), lits, n, out, live)
	case *array.Binary:
		inVarlen(a.ValueOffsets(), a.ValueBytes(), lits, n, out, live)
	case *array.LargeBinary:
		inVarlen(a.ValueOffsets(), a.ValueBytes(), lits, n, out, live)
	default:
		return false
	}
	return true
}

// inVarlen: lens has bit L set when a literal is L bytes long (L < 64;
// bit 63 stands for every longer one), so most cells of a column of a few
// distinct values are settled by their length, and the first byte
// settles most of the rest before a full comparison.
func inVarlen[O int32 | int64](offs []O, data []byte, lits []string, n int, out, live []bool) {
	var lens uint64
	for _, l := range lits {
		lens |= 1 << min(len(l), 63)
	}
	base := offs[0]
	offs = offs[:n+1]
	out = out[:n]
	if live != nil {
		live = live[:n]
	}
	for i := range out {
		out[i] = false
		if live != nil && !live[i] {
			continue
		}
		s, e := offs[i]-base, offs[i+1]-base
		if lens&(1<<min(int(e-s), 63)) == 0 {
			continue
		}
		cell := data[s:e]
		for _, l := range lits {
			if len(cell) == len(l) && (len(l) == 0 || cell[0] == l[0]) && string(cell) == l {
				out[i] = true
				break
			}
		}
	}
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
	vals := a.Values()[:n]
	out = out[:n]
	if !u.IsInt() {
		switch op {
		case OpEq, OpNe:
			for i := range out {
				out[i] = op == OpNe
			}
			return true
		case OpLt:
			op = OpLe // x < u <=> x <= f
		case OpGe:
			op = OpGt // x >= u <=> x > f
		}
	}
	if f.IsInt64() {
		cmpDecimals64(vals, op, f.Int64(), out)
		return true
	}
	fl := decimal128.FromBigInt(f)
	for i, x := range vals {
		out[i] = holds(op, x.Cmp(fl))
	}
	return true
}

// cmpDecimals64 is cmpDecimals for a bound f within int64, the case of
// every TPC-H literal: a cell whose 128 bits are the sign extension of its
// low 64 compares as an int64; any other cell lies beyond the int64 range,
// on the side its sign says. Lt and Ge become Le and Gt of f-1 where f-1
// does not wrap, so the loops are four.
func cmpDecimals64(vals []decimal128.Num, op Op, f int64, out []bool) {
	switch {
	case op == OpLt && f != math.MinInt64:
		op, f = OpLe, f-1
	case op == OpGe && f != math.MinInt64:
		op, f = OpGt, f-1
	}
	switch op {
	case OpEq, OpNe:
		want := op == OpEq
		for i, x := range vals {
			lo, hi := int64(x.LowBits()), x.HighBits()
			out[i] = (hi == lo>>63 && lo == f) == want
		}
	case OpLe:
		for i, x := range vals {
			lo, hi := int64(x.LowBits()), x.HighBits()
			if hi == lo>>63 {
				out[i] = lo <= f
			} else {
				out[i] = hi < 0
			}
		}
	case OpGt:
		for i, x := range vals {
			lo, hi := int64(x.LowBits()), x.HighBits()
			if hi == lo>>63 {
				out[i] = lo > f
			} else {
				out[i] = hi >= 0
			}
		}
	default: // Lt or Ge of math.MinInt64
		for i, x := range vals {
			lo, hi := int64(x.LowBits()), x.HighBits()
			c := -1
			if hi == lo>>63 {
				c = cmp3(lo < f, lo > f)
			} else if hi >= 0 {
				c = 1
			}
			out[i] = holds(op, c)
		}
	}
}
