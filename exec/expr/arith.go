package expr

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ArithOp is a binary arithmetic operator.
type ArithOp int

const (
	Add    ArithOp = iota // +
	Sub                   // -
	Mul                   // *
	Div                   // /  (integers divide as DOUBLE, as Doris does)
	Mod                   // %  (MOD)
	IntDiv                // DIV (integer quotient, truncated toward zero)
)

func (o ArithOp) String() string {
	return [...]string{"+", "-", "*", "/", "%", "DIV"}[o]
}

// ArithExpr is L op R. Division or modulo by zero gives NULL; a result
// out of the range of its type (BIGINT, DECIMAL(38)) is an ErrOverflow
// error, as MySQL's "BIGINT value is out of range".
type ArithExpr struct {
	Op   ArithOp
	L, R Expr
	// in is the type both operands are cast to before the loop; for
	// decimals the operands keep their own scale.
	in  arrow.DataType
	out arrow.DataType
}

// Arith builds l op r with MySQL/Doris result types: integers give BIGINT
// (DIV too), any DOUBLE/FLOAT or string operand gives DOUBLE, a DECIMAL
// operand gives DECIMAL (scale max(s1,s2) for + - %, s1+s2 for *, s1+4 for
// /), and / on integers gives DOUBLE.
func Arith(op ArithOp, l, r Expr) (Expr, error) {
	lt, rt := l.DataType(), r.DataType()
	arithOK := func(t arrow.DataType) bool { return isNumericOrBool(t) || isString(t) || isNull(t) }
	if !arithOK(lt) || !arithOK(rt) {
		return nil, errorf(ErrType, "operator %s on %s and %s", op, TypeName(lt), TypeName(rt))
	}
	if isNull(lt) {
		lt = rt
	}
	if isNull(rt) {
		rt = lt
	}
	kind := Int64T()
	switch {
	case isFloat(lt) || isFloat(rt) || isString(lt) || isString(rt) || isNull(lt):
		kind = Float64T()
	case integralArith(lt, rt) && op == Div:
		kind = Float64T() // LARGEINT / integer is DOUBLE, as in Doris
	case isDecimal(lt) || isDecimal(rt):
		kind = nil // decimal
	case op == Div:
		kind = Float64T()
	}
	e := &ArithExpr{Op: op}
	if kind != nil {
		e.in = kind
		e.out = kind
		if op == IntDiv {
			e.out = Int64T()
		}
		e.L, e.R = coerce(l, kind), coerce(r, kind)
		return e, nil
	}
	p1, s1 := decimalPS(lt)
	p2, s2 := decimalPS(rt)
	var p, s int32
	switch op {
	case Add, Sub:
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s + 1
	case Mul:
		s = s1 + s2
		p = p1 + p2
	case Div:
		s = s1 + 4
		p = p1 + s2 + 4
	case Mod:
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s
	case IntDiv:
		s, p = 0, 38
	}
	if s > 38 {
		return nil, errorf(ErrType, "operator %s on %s and %s: result scale %d exceeds 38", op, TypeName(lt), TypeName(rt), s)
	}
	p = clampPrec(max(p, s))
	e.L, e.R = coerce(l, DecimalT(p1, s1)), coerce(r, DecimalT(p2, s2))
	e.in = nil
	e.out = DecimalT(p, s)
	if integralArith(lt, rt) && op != Div {
		e.out = LargeIntT() // LARGEINT op integer stays LARGEINT, as in Doris
	}
	if op == IntDiv {
		e.out = Int64T()
	}
	return e, nil
}

// Neg is unary minus, as 0 - e with e's numeric type.
func Neg(e Expr) (Expr, error) {
	t := e.DataType()
	// A negative constant stays a constant, so arguments that must be
	// constant (ROUND's digits) accept -2.
	if l, ok := e.(*Literal); ok {
		switch v := l.Value.(type) {
		case int64:
			if v != math.MinInt64 {
				return &Literal{Value: -v, Type: l.Type}, nil
			}
		case float64:
			return &Literal{Value: -v, Type: l.Type}, nil
		case decimal128.Num:
			return &Literal{Value: v.Negate(), Type: l.Type}, nil
		}
	}
	if isDecimal(t) {
		p, s := decimalPS(t)
		zero := &Literal{Value: decimal128.Num{}, Type: DecimalT(p, s)}
		out, err := Arith(Sub, zero, e)
		if err != nil {
			return nil, err
		}
		out.(*ArithExpr).out = DecimalT(p, s)
		return out, nil
	}
	if isFloat(t) {
		return Arith(Sub, Float(0), e)
	}
	return Arith(Sub, Int(0), e)
}

func (a *ArithExpr) DataType() arrow.DataType { return a.out }
func (a *ArithExpr) Children() []Expr         { return []Expr{a.L, a.R} }
func (a *ArithExpr) String() string {
	return "(" + a.L.String() + " " + a.Op.String() + " " + a.R.String() + ")"
}

func (a *ArithExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	if out, ok, err := a.decimalFast(env, batch); ok {
		return out, err
	}
	la, err := a.L.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := a.R.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	n := la.Len()
	valid := bothValid(la, ra)
	switch {
	case a.in != nil && a.in.ID() == arrow.INT64:
		x, y := la.(*array.Int64).Int64Values(), ra.(*array.Int64).Int64Values()
		out := make([]int64, n)
		var ovf int
		if valid, ovf = arithInt(a.Op, x, y, out, valid); ovf >= 0 {
			return nil, errorf(ErrOverflow, "BIGINT value is out of range in %s (%d %s %d)", a, x[ovf], a.Op, y[ovf])
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), nil
	case a.in != nil && a.in.ID() == arrow.FLOAT64:
		x, y := la.(*array.Float64).Float64Values(), ra.(*array.Float64).Float64Values()
		if a.Op == IntDiv {
			out := make([]int64, n)
			for i := range out {
				if y[i] == 0 {
					valid = setNull(valid, i, n)
					continue
				}
				q := math.Trunc(x[i] / y[i])
				if math.IsNaN(q) || q >= 9.223372036854775807e18 || q < -9.223372036854775808e18 {
					if valid == nil || valid[i] {
						return nil, errorf(ErrOverflow, "BIGINT value is out of range in %s", a)
					}
					continue
				}
				out[i] = int64(q)
			}
			b := array.NewInt64Builder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), nil
		}
		out := make([]float64, n)
		valid = arithFloat(a.Op, x, y, out, valid)
		b := array.NewFloat64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), nil
	}
	return a.evalDecimal(env, la.(*array.Decimal128), ra.(*array.Decimal128), valid)
}

// bothValid returns per-row validity (nil = all valid).
func bothValid(x, y arrow.Array) []bool {
	if x.NullN() == 0 && y.NullN() == 0 {
		return nil
	}
	v := make([]bool, x.Len())
	for i := range v {
		v[i] = x.IsValid(i) && y.IsValid(i)
	}
	return v
}

func setNull(valid []bool, i, n int) []bool {
	if valid == nil {
		valid = make([]bool, n)
		for k := range valid {
			valid[k] = true
		}
	}
	valid[i] = false
	return valid
}

// arithInt computes out = x op y. Division by zero gives NULL; overflow
// of a row that is not NULL is returned as its index (else -1).
func arithInt(op ArithOp, x, y, out []int64, valid []bool) ([]bool, int) {
	n := len(out)
	ovf := -1
	overflow := func(i int) {
		if ovf < 0 && (valid == nil || valid[i]) {
			ovf = i
		}
	}
	switch op {
	case Add:
		for i := range out {
			s := x[i] + y[i]
			// Overflow iff both operands share a sign the sum lacks.
			if (x[i] >= 0) == (y[i] >= 0) && (s >= 0) != (x[i] >= 0) {
				overflow(i)
			}
			out[i] = s
		}
	case Sub:
		for i := range out {
			s := x[i] - y[i]
			if (x[i] >= 0) != (y[i] >= 0) && (s >= 0) != (x[i] >= 0) {
				overflow(i)
			}
			out[i] = s
		}
	case Mul:
		for i := range out {
			p := x[i] * y[i]
			if x[i] != 0 && (p/x[i] != y[i] || (x[i] == -1 && y[i] == math.MinInt64)) {
				overflow(i)
			}
			out[i] = p
		}
	case Mod, IntDiv:
		for i := range out {
			if y[i] == 0 {
				valid = setNull(valid, i, n)
				continue
			}
			if y[i] == -1 {
				if op == Mod {
					out[i] = 0
				} else if x[i] == math.MinInt64 {
					overflow(i)
				} else {
					out[i] = -x[i]
				}
				continue
			}
			if op == Mod {
				out[i] = x[i] % y[i]
			} else {
				out[i] = x[i] / y[i]
			}
		}
	}
	return valid, ovf
}

func arithFloat(op ArithOp, x, y, out []float64, valid []bool) []bool {
	n := len(out)
	switch op {
	case Add:
		for i := range out {
			out[i] = x[i] + y[i]
		}
	case Sub:
		for i := range out {
			out[i] = x[i] - y[i]
		}
	case Mul:
		for i := range out {
			out[i] = x[i] * y[i]
		}
	case Div:
		for i := range out {
			if y[i] == 0 {
				valid = setNull(valid, i, n)
				continue
			}
			out[i] = x[i] / y[i]
		}
	case Mod:
		for i := range out {
			if y[i] == 0 {
				valid = setNull(valid, i, n)
				continue
			}
			out[i] = math.Mod(x[i], y[i])
		}
	}
	return valid
}

func (a *ArithExpr) evalDecimal(env *Env, x, y *array.Decimal128, valid []bool) (arrow.Array, error) {
	_, s1 := decimalPS(x.DataType())
	_, s2 := decimalPS(y.DataType())
	po, _ := decimalPS(a.out)
	if a.Op == Add || a.Op == Sub || a.Op == Mul {
		return a.decimalAddMul(env, x, y, valid, s1, s2, po)
	}
	return a.decimalDivMod(env, x, y, valid, s1, s2)
}

// decimalRowwise is the reference evaluation of a DECIMAL operation, one
// boxed value per row; the typed loops fall back to decimalRow for the
// values their 64-bit steps cannot take, and tests hold them to it.
func (a *ArithExpr) decimalRowwise(env *Env, x, y *array.Decimal128, valid []bool) (arrow.Array, error) {
	n := x.Len()
	_, s1 := decimalPS(x.DataType())
	_, s2 := decimalPS(y.DataType())
	b := array.NewBuilder(env.Mem, a.out)
	defer b.Release()
	b.Reserve(n)
	app := Appender(b)
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			b.AppendNull()
			continue
		}
		res, err := a.decimalRow(x.Value(i), y.Value(i), s1, s2)
		if err != nil {
			return nil, err
		}
		app(res)
	}
	return b.NewArray(), nil
}

// decimalRow computes l op r for unscaled operands of scales s1 and s2:
// a decimal128.Num of the output type, an int64 for DIV, nil for a
// division by zero, or ErrOverflow.
func (a *ArithExpr) decimalRow(l, r decimal128.Num, s1, s2 int32) (any, error) {
	po, so := decimalPS(a.out)
	var res any
	switch a.Op {
	case Add, Sub, Mod:
		s := max(s1, s2)
		var ok1, ok2 bool
		l, ok1 = scaleUp(l, s-s1)
		r, ok2 = scaleUp(r, s-s2)
		if !ok1 || !ok2 {
			return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
		}
		switch a.Op {
		case Add:
			res = l.Add(r)
		case Sub:
			res = l.Sub(r)
		}
		if d, ok := res.(decimal128.Num); ok && po >= LargeIntPrecision && AddOverflows(l, r, d, a.Op == Sub) {
			res = nil // wrapped past the int128 range
		}
		switch a.Op {
		case Mod:
			if r.Sign() == 0 {
				res = nil
			} else {
				_, rem := l.Div(r)
				res = rem
			}
		}
	case Mul:
		bi := new(big.Int).Mul(l.BigInt(), r.BigInt())
		res = bigToDec(bi, po)
	case Div, IntDiv:
		if r.Sign() == 0 {
			res = nil
			break
		}
		// l/10^s1 ÷ r/10^s2 = l·10^(so-s1+s2) / r, rounded half away from zero.
		shift := so - s1 + s2
		if a.Op == IntDiv {
			shift = s2 - s1
		}
		num := l.BigInt()
		den := r.BigInt()
		if shift >= 0 {
			num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
		} else {
			den.Mul(den, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil))
		}
		q, m := new(big.Int).QuoRem(num, den, new(big.Int))
		if a.Op == IntDiv {
			if !q.IsInt64() {
				res = nil
			} else {
				res = q.Int64()
			}
			break
		}
		m.Abs(m).Mul(m, big.NewInt(2))
		if m.CmpAbs(den) >= 0 {
			if (num.Sign() < 0) != (den.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		res = bigToDec(q, po)
	}
	if d, ok := res.(decimal128.Num); ok && !fitsPrec(d, po) {
		res = nil
	}
	if res == nil && !(r.Sign() == 0 && (a.Op == Div || a.Op == IntDiv || a.Op == Mod)) {
		return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
	}
	return res, nil
}

func bigToDec(b *big.Int, prec int32) any {
	if prec >= LargeIntPrecision {
		if !bigFitsInt128(b) {
			return nil
		}
		return int128FromBig(b)
	}
	if b.BitLen() > 126 {
		return nil
	}
	d := decimal128.FromBigInt(b)
	if !fitsPrec(d, prec) {
		return nil
	}
	return d
}

// decimalAddMul is +, - and * over DECIMAL in 128-bit integers, one typed
// loop without boxing; only a product whose factors do not fit an int64
// takes big.Int. A result outside the output precision is ErrOverflow, as
// in evalDecimal.
func (a *ArithExpr) decimalAddMul(env *Env, x, y *array.Decimal128, valid []bool, s1, s2, po int32) (arrow.Array, error) {
	xs, ys := x.Values(), y.Values()
	out := make([]decimal128.Num, len(xs))
	s := max(s1, s2)
	for i := range out {
		if valid != nil && !valid[i] {
			continue
		}
		l, r := xs[i], ys[i]
		var res decimal128.Num
		switch a.Op {
		case Add, Sub:
			// Inputs wider than 128 bits at the common scale overflow
			// DECIMAL(38) whatever the other operand.
			l, ok1 := scaleUp(l, s-s1)
			r, ok2 := scaleUp(r, s-s2)
			if !ok1 || !ok2 {
				return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
			}
			if a.Op == Add {
				res = l.Add(r)
			} else {
				res = l.Sub(r)
			}
			if po >= LargeIntPrecision && AddOverflows(l, r, res, a.Op == Sub) {
				return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
			}
		case Mul:
			p, ok := mulDecimal(l, r)
			if !ok {
				d, fits := bigToDec(new(big.Int).Mul(l.BigInt(), r.BigInt()), po).(decimal128.Num)
				if !fits {
					return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
				}
				p = d
			}
			res = p
		}
		if !fitsPrec(res, po) {
			return nil, errorf(ErrOverflow, "%s value is out of range in %s", TypeName(a.out), a)
		}
		out[i] = res
	}
	b := array.NewDecimal128Builder(env.Mem, a.out.(*arrow.Decimal128Type))
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}
