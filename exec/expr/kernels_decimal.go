package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// decimalDivMod is /, % and DIV over DECIMAL in one typed loop. Operands
// that fit an int64 divide in 128-by-64-bit integer steps; any other row
// goes through decimalRow (math/big), so results, NULLs (division by
// zero) and overflow errors are decimalRow's.
func (a *ArithExpr) decimalDivMod(env *Env, x, y *array.Decimal128, valid []bool, s1, s2 int32) (arrow.Array, error) {
	xs, ys := x.Values(), y.Values()
	n := len(xs)
	po, so := decimalPS(a.out)
	var dec []decimal128.Num
	var ints []int64
	if a.Op == IntDiv {
		ints = make([]int64, n)
	} else {
		dec = make([]decimal128.Num, n)
	}
	shift := s2 - s1 // DIV: l·10^(s2-s1) / r, truncated
	if a.Op == Div {
		shift = so - s1 + s2
	}
	s := max(s1, s2)
	overflow := func() error { return errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a) }
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			continue
		}
		l, r := xs[i], ys[i]
		switch a.Op {
		case Mod:
			// As decimalRow: both sides at the common scale first (which
			// may overflow), then a zero divisor gives NULL.
			l2, ok1 := scaleUp(l, s-s1)
			r2, ok2 := scaleUp(r, s-s2)
			if !ok1 || !ok2 {
				return nil, overflow()
			}
			var m decimal128.Num
			if r2 == (decimal128.Num{}) {
				valid = setNull(valid, i, n)
				continue
			}
			if p, ok := i64(l2); ok {
				if q, ok := i64(r2); ok {
					m = decimal128.FromI64(p % q) // Go's % truncates, as Div's remainder; MinInt64 % -1 is 0
				} else {
					_, m = l2.Div(r2)
				}
			} else {
				_, m = l2.Div(r2)
			}
			if !fitsPrec(m, po) {
				return nil, overflow()
			}
			dec[i] = m
			continue
		case Div, IntDiv:
			if r == (decimal128.Num{}) {
				valid = setNull(valid, i, n)
				continue
			}
			if q, neg, ok := divFast(l, r, shift, a.Op == Div); ok {
				if a.Op == IntDiv {
					if q > math.MaxInt64 && !(neg && q == 1<<63) {
						return nil, overflow()
					}
					v := int64(q) // 1<<63 wraps to the least BIGINT, which negation keeps
					if neg {
						v = -v
					}
					ints[i] = v
					continue
				}
				d := decimal128.New(0, q)
				if neg {
					d = d.Negate()
				}
				if !fitsPrec(d, po) {
					return nil, overflow()
				}
				dec[i] = d
				continue
			}
		}
		res, err := a.decimalRow(l, r, s1, s2)
		if err != nil {
			return nil, err
		}
		switch v := res.(type) {
		case nil:
			valid = setNull(valid, i, n)
		case int64:
			ints[i] = v
		case decimal128.Num:
			dec[i] = v
		}
	}
	if a.Op == IntDiv {
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(ints, valid)
		return b.NewArray(), nil
	}
	b := array.NewDecimal128Builder(env.Mem, a.out.(*arrow.Decimal128Type))
	defer b.Release()
	b.AppendValues(dec, valid)
	return b.NewArray(), nil
}

// divFast divides l·10^shift by r (or l by r·10^-shift) for operands
// that fit an int64, with the quotient's magnitude in 64 bits: q is that
// magnitude, truncated or (round) rounded half away from zero, neg its
// sign. ok is false when the values do not allow it; r is not zero.
func divFast(l, r decimal128.Num, shift int32, round bool) (q uint64, neg, ok bool) {
	a, ok1 := i64(l)
	b, ok2 := i64(r)
	if !ok1 || !ok2 {
		return 0, false, false
	}
	neg = (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	var hi, lo uint64
	if shift >= 0 {
		if int(shift) >= len(pow10i) {
			return 0, false, false
		}
		hi, lo = bits.Mul64(ua, uint64(pow10i[shift]))
	} else {
		if int(-shift) >= len(pow10i) {
			return 0, false, false
		}
		h, d := bits.Mul64(ub, uint64(pow10i[-shift]))
		if h != 0 {
			return 0, false, false
		}
		ub, lo = d, ua
	}
	if hi >= ub { // the quotient would not fit 64 bits
		return 0, false, false
	}
	q, rem := bits.Div64(hi, lo, ub)
	if round && rem >= ub-rem { // 2·rem >= ub without overflow
		if q == math.MaxUint64 {
			return 0, false, false
		}
		q++
	}
	return q, neg, true
}
