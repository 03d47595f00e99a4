package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func mathFunc(name string, args []Expr) (builder, bool) {
	F, I := Float64T(), Int64T()
	f := func(v []any, i int) float64 { return v[i].(float64) }
	// float1 is a unary DOUBLE function; ok=false from fn is NULL.
	float1 := func(fn func(x float64) (float64, bool)) builder {
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			r := strictFunc(name, args, []arrow.DataType{F}, F, func(_ *Env, v []any) any {
				if y, ok := fn(f(v, 0)); ok {
					return y
				}
				return nil
			})
			r.vec = floatUnaryKernel(fn)
			return r, nil
		}
	}
	switch name {
	case "abs":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			t := args[0].DataType()
			f := absRow(name, args, t)
			f.vec = absKernel
			return f, nil
		}, true
	case "ceil", "ceiling", "floor", "round", "truncate", "dround":
		return func() (Expr, error) { return roundFamily(name, args) }, true
	case "mod":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return Arith(Mod, args[0], args[1])
		}, true
	case "pow", "power":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{F}, F, func(_ *Env, v []any) any {
				r := math.Pow(f(v, 0), f(v, 1))
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return nil
				}
				return r
			}), nil
		}, true
	case "sqrt":
		return float1(func(x float64) (float64, bool) {
			if x < 0 {
				return 0, false
			}
			return math.Sqrt(x), true
		}), true
	case "ln":
		return float1(func(x float64) (float64, bool) {
			if x <= 0 {
				return 0, false
			}
			return math.Log(x), true
		}), true
	case "log10":
		return float1(func(x float64) (float64, bool) {
			if x <= 0 {
				return 0, false
			}
			return math.Log10(x), true
		}), true
	case "log2":
		return float1(func(x float64) (float64, bool) {
			if x <= 0 {
				return 0, false
			}
			return math.Log2(x), true
		}), true
	case "exp":
		return float1(func(x float64) (float64, bool) { return math.Exp(x), true }), true
	case "sign":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{F}, I, func(_ *Env, v []any) any {
				x := f(v, 0)
				return int64(cmp3(x < 0, x > 0))
			}), nil
		}, true
	case "pi":
		return func() (Expr, error) {
			if err := arity(name, args, 0, 0); err != nil {
				return nil, err
			}
			return Float(math.Pi), nil
		}, true
	case "greatest", "least":
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			t := arrow.DataType(NullT())
			for _, a := range args {
				var err error
				if t, err = CommonType(t, a.DataType()); err != nil {
					return nil, errorf(ErrType, "%s: %v", name, err)
				}
			}
			want := 1
			if name == "least" {
				want = -1
			}
			return strictFunc(name, args, []arrow.DataType{t}, t, func(_ *Env, v []any) any {
				best := v[0]
				for _, x := range v[1:] {
					if compareAny(x, best, t) == want {
						best = x
					}
				}
				return best
			}), nil
		}, true
	}
	return nil, false
}

func numericArgs(name string, args []Expr) error {
	for _, a := range args {
		t := a.DataType()
		if !isNumericOrBool(t) && !isString(t) && !isNull(t) {
			return errorf(ErrType, "%s(%s): argument is %s, not a number", name, a, TypeName(t))
		}
	}
	return nil
}

// roundFamily builds ceil/floor/round/truncate. Integers stay BIGINT,
// DOUBLE stays DOUBLE for round/truncate and becomes BIGINT for ceil/floor,
// DECIMAL keeps exact digits with the requested scale.
func roundFamily(name string, args []Expr) (Expr, error) {
	hi := 2
	if name == "ceil" || name == "ceiling" || name == "floor" {
		hi = 1
	}
	lo := 1
	if name == "truncate" {
		lo = 2
	}
	if err := arity(name, args, lo, hi); err != nil {
		return nil, err
	}
	if err := numericArgs(name, args); err != nil {
		return nil, err
	}
	digits := int64(0)
	if len(args) == 2 {
		l, ok := coerce(args[1], Int64T()).(*Literal)
		if !ok || l.Value == nil {
			return nil, errorf(ErrUnsupported, "%s: the number of digits must be a constant", name)
		}
		digits = l.Value.(int64)
	}
	t := args[0].DataType()
	mode := name
	switch {
	case isInt(t) || t.ID() == arrow.BOOL:
		if digits >= 0 {
			return coerce(args[0], Int64T()), nil
		}
		return strictFunc(name, args[:1], []arrow.DataType{Int64T()}, Int64T(), func(_ *Env, v []any) any {
			p := math.Pow10(int(-digits))
			return int64(roundFloat(mode, float64(v[0].(int64))/p) * p)
		}), nil
	case isDecimal(t):
		p, s := decimalPS(t)
		ns := int32(max(min(digits, int64(s)), 0))
		outT := DecimalT(clampPrec(p-s+ns+1), ns)
		return strictFunc(name, args[:1], []arrow.DataType{nil}, outT, func(_ *Env, v []any) any {
			x := v[0].(decimal128.Num)
			if int64(s) <= digits {
				return x.IncreaseScaleBy(ns - s)
			}
			drop := s - int32(digits)
			mul := decimal128.GetScaleMultiplier(int(drop))
			q, r := x.Div(mul)
			switch mode {
			case "round", "dround":
				half := decimal128.GetHalfScaleMultiplier(int(drop))
				if r.Abs().GreaterEqual(half) {
					if x.Sign() < 0 {
						q = q.Sub(decimal128.FromI64(1))
					} else {
						q = q.Add(decimal128.FromI64(1))
					}
				}
			case "ceil", "ceiling":
				if r.Sign() > 0 {
					q = q.Add(decimal128.FromI64(1))
				}
			case "floor":
				if r.Sign() < 0 {
					q = q.Sub(decimal128.FromI64(1))
				}
			}
			if digits < 0 {
				return q.Mul(decimal128.GetScaleMultiplier(int(-digits)))
			}
			return q.IncreaseScaleBy(ns - int32(digits))
		}), nil
	}
	if mode == "ceil" || mode == "ceiling" || mode == "floor" {
		return strictFunc(name, args, []arrow.DataType{Float64T()}, Int64T(), func(_ *Env, v []any) any {
			r := roundFloat(mode, v[0].(float64))
			if math.IsNaN(r) || r >= 9.223372036854775807e18 || r < -9.223372036854775808e18 {
				return nil
			}
			return int64(r)
		}), nil
	}
	return strictFunc(name, args[:1], []arrow.DataType{Float64T()}, Float64T(), func(_ *Env, v []any) any {
		p := math.Pow10(int(digits))
		return roundFloat(mode, v[0].(float64)*p) / p
	}), nil
}

func roundFloat(mode string, x float64) float64 {
	switch mode {
	case "ceil", "ceiling":
		return math.Ceil(x)
	case "floor":
		return math.Floor(x)
	case "truncate":
		return math.Trunc(x)
	}
	return math.Round(x) // half away from zero
}

// absRow is abs() row by row, over the argument cast to BIGINT, DOUBLE or
// kept DECIMAL; absKernel replaces it for arrays it has a loop for.
func absRow(name string, args []Expr, t arrow.DataType) *rowFunc {
	F, I := Float64T(), Int64T()
	switch {
	case isDecimal(t):
		return strictFunc(name, args, []arrow.DataType{nil}, t, func(_ *Env, v []any) any { return v[0].(decimal128.Num).Abs() })
	case isInt(t) || t.ID() == arrow.BOOL:
		return strictFunc(name, args, []arrow.DataType{I}, I, func(_ *Env, v []any) any {
			x := v[0].(int64)
			if x == math.MinInt64 {
				return nil
			}
			if x < 0 {
				return -x
			}
			return x
		})
	}
	return strictFunc(name, args, []arrow.DataType{F}, F, func(_ *Env, v []any) any { return math.Abs(v[0].(float64)) })
}
