package expr

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimalFast is +, - and * over DECIMAL (not LARGEINT, whose sums wrap)
// on int64 lanes: the unscaled values of TPC-H's prices, discounts and
// taxes, and most products of them, fit an int64, so a row costs a few
// integer operations with no 128-bit arithmetic and no big.Int. A
// constant operand (the 1 of 1 - l_discount) is read as one value instead
// of being spread into an array first, and the result is written straight
// into the output buffer. Rows whose operands or result leave the int64
// lane take decimalAddMulRow, so results and overflow errors are
// decimalAddMul's. ok is false when the path does not apply; nothing has
// been evaluated then.
func (a *ArithExpr) decimalFast(env *Env, batch arrow.RecordBatch) (_ arrow.Array, ok bool, _ error) {
	if a.in != nil || (a.Op != Add && a.Op != Sub && a.Op != Mul) {
		return nil, false, nil
	}
	ot, isDec := a.out.(*arrow.Decimal128Type)
	lt, lok := a.L.DataType().(*arrow.Decimal128Type)
	rt, rok := a.R.DataType().(*arrow.Decimal128Type)
	if !isDec || !lok || !rok || ot.Precision >= LargeIntPrecision {
		return nil, false, nil
	}
	s1, s2, po := lt.Scale, rt.Scale, ot.Precision
	s := max(s1, s2)
	if a.Op != Mul && (s-s1 >= int32(len(pow10i)) || s-s2 >= int32(len(pow10i))) {
		return nil, false, nil
	}
	var lc, rc decimal128.Num
	var lIsConst, rIsConst bool
	if l, isLit := a.L.(*Literal); isLit {
		if lc, lIsConst = l.Value.(decimal128.Num); !lIsConst {
			return nil, false, nil // NULL: the general path
		}
	}
	if r, isLit := a.R.(*Literal); isLit {
		if rc, rIsConst = r.Value.(decimal128.Num); !rIsConst {
			return nil, false, nil
		}
	}
	if lIsConst && rIsConst {
		return nil, false, nil
	}
	var xs, ys []decimal128.Num
	var la, ra arrow.Array
	var err error
	if !lIsConst {
		if la, err = a.L.Eval(env, batch); err != nil {
			return nil, true, err
		}
		defer la.Release()
		xs = la.(*array.Decimal128).Values()
	}
	if !rIsConst {
		if ra, err = a.R.Eval(env, batch); err != nil {
			return nil, true, err
		}
		defer ra.Release()
		ys = ra.(*array.Decimal128).Values()
	}
	var valid []bool
	var n int
	switch {
	case la != nil && ra != nil:
		n, valid = la.Len(), bothValid(la, ra)
	case la != nil:
		n, valid = la.Len(), validity(la)
	default:
		n, valid = ra.Len(), validity(ra)
	}

	buf := memory.NewResizableBuffer(env.Mem)
	defer buf.Release()
	buf.Resize(n * arrow.Decimal128SizeBytes)
	out := arrow.Decimal128Traits.CastFromBytes(buf.Bytes())
	overflow := func() error { return errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a) }
	// An int64 result has at most 19 digits: below DECIMAL(19) it needs
	// the precision check, from there on it always fits.
	var bound int64 = math.MaxInt64
	if po < 19 {
		bound = pow10i[po]
	}
	var m1, m2, lim1, lim2 int64
	if a.Op != Mul {
		m1, m2 = pow10i[s-s1], pow10i[s-s2]
		// |x·m1| and |y·m2| below 2^62 keep their sum or difference
		// inside the int64 range.
		lim1, lim2 = (1<<62-1)/m1, (1<<62-1)/m2
	}
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			out[i] = decimal128.Num{}
			continue
		}
		l, r := lc, rc
		if xs != nil {
			l = xs[i]
		}
		if ys != nil {
			r = ys[i]
		}
		x, xok := i64(l)
		y, yok := i64(r)
		if xok && yok {
			switch a.Op {
			case Add, Sub:
				if x <= lim1 && x >= -lim1 && y <= lim2 && y >= -lim2 {
					v := x*m1 + y*m2
					if a.Op == Sub {
						v = x*m1 - y*m2
					}
					if v >= bound || v <= -bound {
						return nil, true, overflow()
					}
					out[i] = decimal128.FromI64(v)
					continue
				}
			case Mul:
				neg := (x < 0) != (y < 0)
				ux, uy := uint64(x), uint64(y)
				if x < 0 {
					ux = -ux
				}
				if y < 0 {
					uy = -uy
				}
				hi, lo := bits.Mul64(ux, uy)
				if hi == 0 && lo < 1<<63 {
					v := int64(lo)
					if neg {
						v = -v
					}
					if v >= bound || v <= -bound {
						return nil, true, overflow()
					}
					out[i] = decimal128.FromI64(v)
					continue
				}
				if hi>>62 == 0 {
					// Below 2^126 < 10^38: only a narrower output can
					// overflow.
					p := decimal128.New(int64(hi), lo)
					if neg {
						p = p.Negate()
					}
					if po < 38 && !p.FitsInPrecision(po) {
						return nil, true, overflow()
					}
					out[i] = p
					continue
				}
			}
		}
		res, err := a.decimalAddMulRow(l, r, s1, s2, po)
		if err != nil {
			return nil, true, err
		}
		out[i] = res
	}

	var nullBuf *memory.Buffer
	nulls := 0
	if valid != nil {
		nullBuf = memory.NewResizableBuffer(env.Mem)
		defer nullBuf.Release()
		nullBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		bm := nullBuf.Bytes()
		clear(bm)
		for i, v := range valid {
			if v {
				bitutil.SetBit(bm, i)
			} else {
				nulls++
			}
		}
	}
	data := array.NewData(a.out, n, []*memory.Buffer{nullBuf, buf}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), true, nil
}

// decimalAddMulRow is one row of decimalAddMul: l op r in 128 bits (big.Int
// for a product of factors wider than an int64), ErrOverflow outside the
// output precision po.
func (a *ArithExpr) decimalAddMulRow(l, r decimal128.Num, s1, s2, po int32) (decimal128.Num, error) {
	overflow := func() error { return errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a) }
	var res decimal128.Num
	switch a.Op {
	case Add, Sub:
		s := max(s1, s2)
		l, ok1 := scaleUp(l, s-s1)
		r, ok2 := scaleUp(r, s-s2)
		if !ok1 || !ok2 {
			return res, overflow()
		}
		if a.Op == Add {
			res = l.Add(r)
		} else {
			res = l.Sub(r)
		}
		if po >= LargeIntPrecision && AddOverflows(l, r, res, a.Op == Sub) {
			return res, overflow()
		}
	case Mul:
		p, ok := mulDecimal(l, r)
		if !ok {
			d, fits := bigToDec(new(big.Int).Mul(l.BigInt(), r.BigInt()), po).(decimal128.Num)
			if !fits {
				return res, overflow()
			}
			p = d
		}
		res = p
	}
	if !fitsPrec(res, po) {
		return res, overflow()
	}
	return res, nil
}
