package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// CastExpr is CAST(Arg AS To). Values that do not convert become NULL.
type CastExpr struct {
	Arg Expr
	To  arrow.DataType
}

// Cast converts e to type t, as CAST(e AS t). It fails at bind time only
// when no value of e's type could convert (e.g. DOUBLE to DATE, ARRAY to
// INT).
func Cast(e Expr, t arrow.DataType) (Expr, error) {
	if arrow.TypeEqual(e.DataType(), t) {
		return e, nil
	}
	if !supported(t) {
		return nil, errorf(ErrUnsupported, "CAST to %s", t)
	}
	if !castable(e.DataType(), t) {
		return nil, errorf(ErrType, "cannot CAST %s AS %s", TypeName(e.DataType()), TypeName(t))
	}
	return coerce(e, t), nil
}

func (c *CastExpr) DataType() arrow.DataType { return c.To }
func (c *CastExpr) Children() []Expr         { return []Expr{c.Arg} }
func (c *CastExpr) String() string {
	return "CAST(" + c.Arg.String() + " AS " + TypeName(c.To) + ")"
}

func (c *CastExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	in, err := c.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	return castArray(env, in, c.To), nil
}

// castArray converts a whole array; integer widening and integer→double
// take tight loops, everything else goes value by value.
func castArray(env *Env, in arrow.Array, to arrow.DataType) arrow.Array {
	if arrow.TypeEqual(in.DataType(), to) {
		in.Retain()
		return in
	}
	if out, ok := castToInstant(env, in, to); ok {
		return out
	}
	n := in.Len()
	switch to.ID() {
	case arrow.INT64:
		if isInt(in.DataType()) && in.DataType().ID() != arrow.UINT64 {
			b := array.NewInt64Builder(env.Mem)
			defer b.Release()
			b.Resize(n)
			vals := make([]int64, n)
			switch a := in.(type) {
			case *array.Int32:
				for i, v := range a.Int32Values() {
					vals[i] = int64(v)
				}
			case *array.Int16:
				for i, v := range a.Int16Values() {
					vals[i] = int64(v)
				}
			case *array.Int8:
				for i, v := range a.Int8Values() {
					vals[i] = int64(v)
				}
			case *array.Uint8:
				for i, v := range a.Uint8Values() {
					vals[i] = int64(v)
				}
			case *array.Uint16:
				for i, v := range a.Uint16Values() {
					vals[i] = int64(v)
				}
			case *array.Uint32:
				for i, v := range a.Uint32Values() {
					vals[i] = int64(v)
				}
			default:
				g := getterNoNull(in)
				for i := range vals {
					vals[i] = g(i).(int64)
				}
			}
			b.AppendValues(vals, validity(in))
			return b.NewArray()
		}
	case arrow.FLOAT64:
		if isInt(in.DataType()) || in.DataType().ID() == arrow.FLOAT32 {
			b := array.NewFloat64Builder(env.Mem)
			defer b.Release()
			vals := make([]float64, n)
			switch a := in.(type) {
			case *array.Int64:
				for i, v := range a.Int64Values() {
					vals[i] = float64(v)
				}
			case *array.Int32:
				for i, v := range a.Int32Values() {
					vals[i] = float64(v)
				}
			case *array.Float32:
				for i, v := range a.Float32Values() {
					vals[i] = float64(v)
				}
			default:
				g := getterNoNull(in)
				for i := range vals {
					f, _ := toFloat(g(i), in.DataType())
					vals[i] = f
				}
			}
			b.AppendValues(vals, validity(in))
			return b.NewArray()
		}
	}
	if out, ok := castKernel(env, in, to); ok {
		return out
	}
	if out, ok := castTemporal(env, in, to); ok {
		return out
	}
	return castRowwise(env, in, to)
}

// castRowwise is the generic cast, value by value through castValue; the
// typed loops must give exactly what it gives.
func castRowwise(env *Env, in arrow.Array, to arrow.DataType) arrow.Array {
	n := in.Len()
	from := in.DataType()
	g := Getter(in)
	b := array.NewBuilder(env.Mem, to)
	defer b.Release()
	b.Reserve(n)
	app := Appender(b)
	loc := env.loc()
	for i := 0; i < n; i++ {
		app(castValue(g(i), from, to, loc))
	}
	return b.NewArray()
}

// validity returns the per-row valid flags of a, or nil when all are valid.
func validity(a arrow.Array) []bool {
	if a.NullN() == 0 {
		return nil
	}
	v := make([]bool, a.Len())
	for i := range v {
		v[i] = a.IsValid(i)
	}
	return v
}
