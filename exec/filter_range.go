package exec

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

// Range kernels. A lower and an upper bound on one column (Q6's
// l_shipdate >= d AND l_shipdate < d + 1 year, l_discount BETWEEN 0.05
// AND 0.07) are tested in one pass instead of two: lo <= v <= hi is the
// single unsigned comparison uint64(v-lo) <= uint64(hi-lo), on the
// column's int64 value (integers, DATE days, DECIMAL unscaled values).

// bound is one conjunct column op constant read as v >= lo or v <= hi.
type bound struct {
	idx   int
	typ   arrow.DataType
	lower bool  // v >= val (else v <= val)
	val   int64 // inclusive
	empty bool  // no value satisfies it (v > MaxInt64, v < MinInt64)
}

// boundOf reads c as a bound, when c compares an integer, DATE or DECIMAL
// column (or a DECIMAL cast keeping its values) with a constant of its own
// type that fits an int64.
func boundOf(c expr.Expr) (bound, bool) {
	cmp, ok := c.(*expr.CmpExpr)
	if !ok {
		return bound{}, false
	}
	op, l, r := cmp.Op, cmp.L, cmp.R
	if _, ok := l.(*expr.Literal); ok {
		mirror := map[expr.CmpOp]expr.CmpOp{expr.Lt: expr.Gt, expr.Le: expr.Ge, expr.Gt: expr.Lt, expr.Ge: expr.Le}
		m, ok := mirror[op]
		if !ok {
			return bound{}, false
		}
		op, l, r = m, r, l
	}
	if cast, isCast := l.(*expr.CastExpr); isCast && cast.To.ID() == arrow.DECIMAL128 && castKeeps(cast.Arg.DataType(), cast.To) {
		// Q19's CAST(l_quantity AS DECIMAL(21,2)) >= 1.00: the same
		// unscaled values as the column's.
		l = cast.Arg
	}
	col, ok := l.(*expr.ColumnRef)
	lit, ok2 := r.(*expr.Literal)
	if !ok || !ok2 || lit.Value == nil {
		return bound{}, false
	}
	var v int64
	switch col.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		x, isInt := lit.Value.(int64)
		if !isInt || !arrow.TypeEqual(col.Type, lit.Type) {
			return bound{}, false
		}
		v = x
	case arrow.DATE32:
		x, isDate := lit.Value.(arrow.Date32)
		if !isDate {
			return bound{}, false
		}
		v = int64(x)
	case arrow.DECIMAL128:
		x, isDec := lit.Value.(decimal128.Num)
		lt, isDecT := lit.Type.(*arrow.Decimal128Type)
		if !isDec || !isDecT || lt.Scale != col.Type.(*arrow.Decimal128Type).Scale || x.HighBits() != int64(x.LowBits())>>63 {
			return bound{}, false
		}
		v = int64(x.LowBits())
	default:
		return bound{}, false
	}
	b := bound{idx: col.Index, typ: col.Type, val: v}
	switch op {
	case expr.Ge:
		b.lower = true
	case expr.Gt:
		b.lower, b.empty = true, v == math.MaxInt64
		b.val = v + 1
	case expr.Le:
	case expr.Lt:
		b.empty = v == math.MinInt64
		b.val = v - 1
	default:
		return bound{}, false
	}
	return b, true
}

// fuseRanges merges each lower bound with an upper bound on the same
// column into one conjunct (their AND, for when the kernel cannot serve a
// batch) with a range kernel; the other conjuncts keep their order.
func fuseRanges(conj []expr.Expr) ([]expr.Expr, []selKernel) {
	used := make([]bool, len(conj))
	var out []expr.Expr
	var kern []selKernel
	for i, c := range conj {
		if used[i] {
			continue
		}
		var both expr.Expr
		var k selKernel
		if bi, ok := boundOf(c); ok {
			for j := i + 1; j < len(conj) && both == nil; j++ {
				bj, ok := boundOf(conj[j])
				if !ok || used[j] || bj.idx != bi.idx || bj.lower == bi.lower || !arrow.TypeEqual(bi.typ, bj.typ) {
					continue
				}
				and, err := expr.And(c, conj[j])
				if err != nil {
					break
				}
				lo, hi := bi, bj
				if !lo.lower {
					lo, hi = hi, lo
				}
				used[j] = true
				both, k = and, rangeKernel(bi.idx, bi.typ, lo, hi)
			}
		}
		if both != nil {
			out, kern = append(out, both), append(kern, k)
			continue
		}
		out, kern = append(out, c), append(kern, nil)
	}
	return out, kern
}

// rangeKernel selects the rows whose value v has lo.val <= v <= hi.val.
func rangeKernel(idx int, typ arrow.DataType, lo, hi bound) selKernel {
	empty := lo.empty || hi.empty || lo.val > hi.val
	l, span := lo.val, uint64(hi.val)-uint64(lo.val)
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if idx < 0 || int64(idx) >= b.NumCols() {
			return nil, false
		}
		a := b.Column(idx)
		if !arrow.TypeEqual(a.DataType(), typ) {
			return nil, false
		}
		if empty {
			return out, true
		}
		switch x := a.(type) {
		case *array.Int8:
			return selectRange(x.Values(), a, l, span, rows, out), true
		case *array.Int16:
			return selectRange(x.Values(), a, l, span, rows, out), true
		case *array.Int32:
			return selectRange(x.Values(), a, l, span, rows, out), true
		case *array.Int64:
			return selectRange(x.Values(), a, l, span, rows, out), true
		case *array.Date32:
			return selectRange(x.Values(), a, l, span, rows, out), true
		case *array.Decimal128:
			return selectRangeDecimal(x.Values(), a, l, span, rows, out), true
		}
		return nil, false
	}
}

// selectRange appends the rows (all, or the candidates rows) of a whose
// value is within [l, l+span]. NULLs never pass.
func selectRange[T ~int8 | ~int16 | ~int32 | ~int64](x []T, a arrow.Array, l int64, span uint64, rows, out []int64) []int64 {
	if a.NullN() > 0 {
		if rows == nil {
			for i, v := range x {
				if a.IsValid(i) && uint64(int64(v))-uint64(l) <= span {
					out = append(out, int64(i))
				}
			}
			return out
		}
		for _, r := range rows {
			if a.IsValid(int(r)) && uint64(int64(x[r]))-uint64(l) <= span {
				out = append(out, r)
			}
		}
		return out
	}
	if rows == nil {
		base := len(out)
		out = slices.Grow(out, len(x))
		dst := out[base : base+len(x)]
		j := 0
		for i, v := range x {
			dst[j] = int64(i)
			j += b2i(uint64(int64(v))-uint64(l) <= span)
		}
		return out[:base+j]
	}
	j := len(out)
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	for _, r := range rows {
		out[j] = r
		j += b2i(uint64(int64(x[r]))-uint64(l) <= span)
	}
	return out[:j]
}

// selectRangeDecimal is selectRange over unscaled DECIMAL values; one
// without an int64 form (past int64) is outside, as the bounds are int64s.
func selectRangeDecimal(x []decimal128.Num, a arrow.Array, l int64, span uint64, rows, out []int64) []int64 {
	in := func(v decimal128.Num) bool {
		lo := int64(v.LowBits())
		return v.HighBits() == lo>>63 && uint64(lo)-uint64(l) <= span
	}
	if a.NullN() > 0 {
		if rows == nil {
			for i, v := range x {
				if a.IsValid(i) && in(v) {
					out = append(out, int64(i))
				}
			}
			return out
		}
		for _, r := range rows {
			if a.IsValid(int(r)) && in(x[r]) {
				out = append(out, r)
			}
		}
		return out
	}
	if rows == nil {
		base := len(out)
		out = slices.Grow(out, len(x))
		dst := out[base : base+len(x)]
		j := 0
		for i, v := range x {
			dst[j] = int64(i)
			j += b2i(in(v))
		}
		return out[:base+j]
	}
	j := len(out)
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	for _, r := range rows {
		out[j] = r
		j += b2i(in(x[r]))
	}
	return out[:j]
}
