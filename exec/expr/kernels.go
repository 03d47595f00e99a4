package expr

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Typed kernels: loops straight over Arrow buffers for the hot cases the
// row-wise paths (canonical values boxed in `any`) handle generically.
// Each one allocates per batch, never per row, and must give exactly what
// the generic path gives, NULLs included; kernels_test.go holds them to
// hand-derived values.

// compareStrings fills out[i] = x[i] op y[i] (or op c when y is nil) for
// the rows valid marks (all when valid is nil). Byte order, as
// compareValues orders strings.
func compareStrings(op CmpOp, x, y *array.String, c string, valid, out []bool) {
	for i := range out {
		if valid != nil && !valid[i] {
			continue
		}
		r := c
		if y != nil {
			r = y.Value(i)
		}
		l := x.Value(i)
		switch op {
		case Eq, NullSafeEq:
			out[i] = l == r
		case Ne:
			out[i] = l != r
		case Lt:
			out[i] = l < r
		case Le:
			out[i] = l <= r
		case Gt:
			out[i] = l > r
		case Ge:
			out[i] = l >= r
		}
	}
}

// compareDecimals is compareStrings for DECIMAL values of one scale (Cmp
// coerces both sides to one type first).
func compareDecimals(op CmpOp, x, y []decimal128.Num, c decimal128.Num, valid, out []bool) {
	for i := range out {
		if valid != nil && !valid[i] {
			continue
		}
		r := c
		if y != nil {
			r = y[i]
		}
		out[i] = holds(op, x[i].Cmp(r))
	}
}

// i64 returns x as an int64 when its 128 bits are a sign-extended int64.
func i64(x decimal128.Num) (int64, bool) {
	hi, lo := x.HighBits(), x.LowBits()
	if (hi == 0 && lo < 1<<63) || (hi == -1 && lo >= 1<<63) {
		return int64(lo), true
	}
	return 0, false
}

// mulDecimal multiplies two unscaled decimals without big.Int when both fit
// in an int64 and the product in 126 bits (bigToDec's bound); ok is false
// otherwise, and the caller takes the big.Int path, which decides overflow.
func mulDecimal(l, r decimal128.Num) (decimal128.Num, bool) {
	a, ok1 := i64(l)
	b, ok2 := i64(r)
	if !ok1 || !ok2 {
		return decimal128.Num{}, false
	}
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi>>62 != 0 {
		return decimal128.Num{}, false
	}
	p := decimal128.New(int64(hi), lo)
	if neg {
		p = p.Negate()
	}
	return p, true
}

// absKernel is abs() over BIGINT, DOUBLE or DECIMAL arrays; ok is false
// for any other array, which the row-wise path then handles. abs of the
// least BIGINT does not fit and is NULL, as in the row-wise path.
func absKernel(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	if len(arrs) != 1 {
		return nil, false, nil
	}
	valid := validity(arrs[0])
	switch x := arrs[0].(type) {
	case *array.Int64:
		in := x.Int64Values()
		out := make([]int64, len(in))
		for i, v := range in {
			switch {
			case v == math.MinInt64:
				if valid == nil || valid[i] {
					valid = setNull(valid, i, len(in))
				}
			case v < 0:
				out[i] = -v
			default:
				out[i] = v
			}
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	case *array.Float64:
		in := x.Float64Values()
		out := make([]float64, len(in))
		for i, v := range in {
			out[i] = math.Abs(v)
		}
		b := array.NewFloat64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	case *array.Decimal128:
		in := x.Values()
		out := make([]decimal128.Num, len(in))
		for i, v := range in {
			out[i] = v.Abs()
		}
		b := array.NewDecimal128Builder(env.Mem, x.DataType().(*arrow.Decimal128Type))
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	}
	return nil, false, nil
}

// coalesceKernel is COALESCE over BIGINT, DOUBLE, DECIMAL or STRING
// arrays of the result type: each row takes the first argument that is
// not NULL there.
func coalesceKernel(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	if len(arrs) == 0 {
		return nil, false, nil
	}
	n := arrs[0].Len()
	switch t := arrs[0].DataType().(type) {
	case *arrow.Int64Type:
		vals, ok := typedValues(arrs, func(a *array.Int64) []int64 { return a.Int64Values() })
		if !ok {
			return nil, false, nil
		}
		out, valid := pickFirst(arrs, vals, n)
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	case *arrow.Float64Type:
		vals, ok := typedValues(arrs, func(a *array.Float64) []float64 { return a.Float64Values() })
		if !ok {
			return nil, false, nil
		}
		out, valid := pickFirst(arrs, vals, n)
		b := array.NewFloat64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	case *arrow.Decimal128Type:
		vals, ok := typedValues(arrs, func(a *array.Decimal128) []decimal128.Num { return a.Values() })
		if !ok {
			return nil, false, nil
		}
		out, valid := pickFirst(arrs, vals, n)
		b := array.NewDecimal128Builder(env.Mem, t)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	case *arrow.StringType:
		ss := make([]*array.String, len(arrs))
		for k, a := range arrs {
			s, ok := a.(*array.String)
			if !ok {
				return nil, false, nil
			}
			ss[k] = s
		}
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
	rows:
		for i := 0; i < n; i++ {
			for _, s := range ss {
				if s.IsValid(i) {
					b.Append(s.Value(i))
					continue rows
				}
			}
			b.AppendNull()
		}
		return b.NewArray(), true, nil
	}
	return nil, false, nil
}

// typedValues returns the value slices of arrs when every one is an A.
func typedValues[A arrow.Array, T any](arrs []arrow.Array, get func(A) []T) ([][]T, bool) {
	vals := make([][]T, len(arrs))
	for k, a := range arrs {
		x, ok := a.(A)
		if !ok {
			return nil, false
		}
		vals[k] = get(x)
	}
	return vals, true
}

// pickFirst takes, row by row, the value of the first argument that is
// valid there; rows where none is are NULL.
func pickFirst[T any](arrs []arrow.Array, vals [][]T, n int) ([]T, []bool) {
	out := make([]T, n)
	var valid []bool
	for i := 0; i < n; i++ {
		hit := false
		for k, a := range arrs {
			if a.IsValid(i) {
				out[i] = vals[k][i]
				hit = true
				break
			}
		}
		if !hit {
			valid = setNull(valid, i, n)
		}
	}
	return out, valid
}

// caseAssemble builds the CASE result of typ from the per-arm results
// (res[a] nil: the arm yields NULL), row i taking row pos[i] of arm
// arm[i]; ok is false for types without a typed loop.
func caseAssemble(env *Env, typ arrow.DataType, arm, pos []int, res []arrow.Array) (arrow.Array, bool) {
	n := len(arm)
	valid := make([]bool, n)
	for i, a := range arm {
		valid[i] = res[a] != nil && res[a].IsValid(pos[i])
	}
	switch t := typ.(type) {
	case *arrow.Int64Type:
		vals, ok := armValues(res, func(a *array.Int64) []int64 { return a.Int64Values() })
		if !ok {
			return nil, false
		}
		out := gather(arm, pos, vals, valid)
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	case *arrow.Float64Type:
		vals, ok := armValues(res, func(a *array.Float64) []float64 { return a.Float64Values() })
		if !ok {
			return nil, false
		}
		out := gather(arm, pos, vals, valid)
		b := array.NewFloat64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	case *arrow.Decimal128Type:
		vals, ok := armValues(res, func(a *array.Decimal128) []decimal128.Num { return a.Values() })
		if !ok {
			return nil, false
		}
		out := gather(arm, pos, vals, valid)
		b := array.NewDecimal128Builder(env.Mem, t)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	}
	return nil, false
}

// armValues is typedValues allowing nil (all-NULL) arms.
func armValues[A arrow.Array, T any](res []arrow.Array, get func(A) []T) ([][]T, bool) {
	vals := make([][]T, len(res))
	for k, a := range res {
		if a == nil {
			continue
		}
		x, ok := a.(A)
		if !ok {
			return nil, false
		}
		vals[k] = get(x)
	}
	return vals, true
}

func gather[T any](arm, pos []int, vals [][]T, valid []bool) []T {
	out := make([]T, len(arm))
	for i, a := range arm {
		if valid[i] {
			out[i] = vals[a][pos[i]]
		}
	}
	return out
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalFloat is decimalToFloat with its common case computed directly:
// an unscaled value of at most 53 bits over an exact power of ten is one
// correctly rounded division, the same double the text parse gives.
func decimalFloat(x decimal128.Num, s int32) float64 {
	if v, ok := i64(x); ok && v >= -(1<<53) && v <= 1<<53 && s >= 0 && int(s) < len(pow10) {
		return float64(v) / pow10[s]
	}
	return decimalToFloat(x, s)
}

// castKernel converts in to type to with a typed loop for BIGINT→STRING,
// STRING→BIGINT, DECIMAL→DOUBLE and DECIMAL→DECIMAL; ok is false for every
// other pair. Values the fast loop cannot decide (a string that is not a
// plain integer) go through castValue, so results equal the generic path.
func castKernel(env *Env, in arrow.Array, to arrow.DataType) (arrow.Array, bool) {
	n := in.Len()
	valid := validity(in)
	switch x := in.(type) {
	case *array.Int64:
		if to.ID() != arrow.STRING {
			return nil, false
		}
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
		var buf [24]byte
		for i, v := range x.Int64Values() {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(strconv.AppendInt(buf[:0], v, 10))
		}
		return b.NewArray(), true
	case *array.String:
		if to.ID() != arrow.INT64 {
			return nil, false
		}
		out := make([]int64, n)
		for i := range out {
			if valid != nil && !valid[i] {
				continue
			}
			s := x.Value(i)
			if v, err := strconv.ParseInt(s, 10, 64); err == nil {
				out[i] = v
				continue
			}
			if v, ok := castValue(s, x.DataType(), to, env.loc()).(int64); ok {
				out[i] = v
				continue
			}
			valid = setNull(valid, i, n)
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	case *array.Decimal128:
		_, fs := decimalPS(x.DataType())
		switch t := to.(type) {
		case *arrow.Float64Type:
			out := make([]float64, n)
			for i, v := range x.Values() {
				if valid == nil || valid[i] {
					out[i] = decimalFloat(v, fs)
				}
			}
			b := array.NewFloat64Builder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true
		case *arrow.Decimal128Type:
			p, s := t.Precision, t.Scale
			out := make([]decimal128.Num, n)
			for i, v := range x.Values() {
				if valid != nil && !valid[i] {
					continue
				}
				switch {
				case fs < s:
					var ok bool
					if v, ok = scaleUp(v, s-fs); !ok {
						valid = setNull(valid, i, n)
						continue
					}
				case fs > s:
					v = scaleDown(v, fs-s)
				}
				if !fitsPrec(v, p) {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = v
			}
			b := array.NewDecimal128Builder(env.Mem, t)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true
		}
	}
	return nil, false
}

// pow10i holds the powers of ten an int64 represents.
var pow10i = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// scaleUp is n.IncreaseScaleBy(k) without big.Int when n fits an int64
// and k <= 18 (the common case); ok is false when the result does not fit
// 128 bits, where IncreaseScaleBy would panic.
func scaleUp(n decimal128.Num, k int32) (decimal128.Num, bool) {
	if k == 0 {
		return n, true
	}
	if k > 0 && int(k) < len(pow10i) {
		if p, ok := mulDecimal(n, decimal128.FromI64(pow10i[k])); ok {
			return p, true
		}
	}
	b := new(big.Int).Mul(n.BigInt(), decimal128.GetScaleMultiplier(int(k)).BigInt())
	if b.BitLen() > 127 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(b), true
}

// scaleDown is n.ReduceScaleBy(k, true) (half away from zero) without
// big.Int when n fits an int64.
func scaleDown(n decimal128.Num, k int32) decimal128.Num {
	if k == 0 {
		return n
	}
	v, ok := i64(n)
	if !ok || k < 0 || int(k) >= len(pow10i) {
		return n.ReduceScaleBy(k, true)
	}
	d := pow10i[k]
	q, r := v/d, v%d
	if r < 0 {
		r = -r
	}
	if r >= d-r { // 2|r| >= d without overflow
		if v < 0 {
			q--
		} else {
			q++
		}
	}
	return decimal128.FromI64(q)
}

// floatUnaryKernel runs a unary DOUBLE function over a Float64 array;
// ok=false from fn is NULL.
func floatUnaryKernel(fn func(float64) (float64, bool)) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		if len(arrs) != 1 {
			return nil, false, nil
		}
		x, ok := arrs[0].(*array.Float64)
		if !ok {
			return nil, false, nil
		}
		in := x.Float64Values()
		valid := validity(x)
		out := make([]float64, len(in))
		for i, v := range in {
			if valid != nil && !valid[i] {
				continue
			}
			y, ok := fn(v)
			if !ok {
				valid = setNull(valid, i, len(in))
				continue
			}
			out[i] = y
		}
		b := array.NewFloat64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	}
}
