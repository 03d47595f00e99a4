package expr

import (
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// CmpOp is a comparison operator.
type CmpOp int

const (
	Eq         CmpOp = iota // =
	Ne                      // <> / !=
	Lt                      // <
	Le                      // <=
	Gt                      // >
	Ge                      // >=
	NullSafeEq              // <=> (never NULL)
)

func (o CmpOp) String() string {
	return [...]string{"=", "!=", "<", "<=", ">", ">=", "<=>"}[o]
}

// CmpExpr is L op R with both sides in one common type.
type CmpExpr struct {
	Op   CmpOp
	L, R Expr
}

// Cmp builds l op r. Operands are converted to CommonType first (so
// '2024-01-02' = date_col compares dates and int_col = 1.5 compares doubles).
func Cmp(op CmpOp, l, r Expr) (Expr, error) {
	l, r = narrowIntLiteral(l, r), narrowIntLiteral(r, l)
	t, err := CommonType(l.DataType(), r.DataType())
	if err != nil {
		return nil, errorf(ErrType, "%s %s %s: %v", l, op, r, err)
	}
	if isNull(t) {
		t = BoolT()
	}
	if !comparable(t) {
		return nil, errorf(ErrType, "%s %s %s: %s values are not comparable", l, op, r, TypeName(t))
	}
	return &CmpExpr{Op: op, L: coerce(l, t), R: coerce(r, t)}, nil
}

// narrowIntLiteral returns lit as a literal of other's narrower integer
// type when lit is a BIGINT constant inside that type's range, else lit
// unchanged: int_col < 100 then compares INT values instead of widening
// every row of the column to BIGINT first. Outside the range the
// comparison stays in BIGINT (where its answer is the same for every row).
func narrowIntLiteral(lit, other Expr) Expr {
	l, ok := lit.(*Literal)
	if !ok || l.Value == nil || l.Type.ID() != arrow.INT64 {
		return lit
	}
	v, ok := l.Value.(int64)
	if !ok {
		return lit
	}
	var lo, hi int64
	switch other.DataType().ID() {
	case arrow.INT8:
		lo, hi = math.MinInt8, math.MaxInt8
	case arrow.INT16:
		lo, hi = math.MinInt16, math.MaxInt16
	case arrow.INT32:
		lo, hi = math.MinInt32, math.MaxInt32
	default:
		return lit
	}
	if v < lo || v > hi {
		return lit
	}
	n, err := Lit(v, other.DataType())
	if err != nil {
		return lit
	}
	return n
}

func comparable(t arrow.DataType) bool {
	return isNumericOrBool(t) || isString(t) || isTemporal(t) || isTime(t) || isNull(t)
}

func (c *CmpExpr) DataType() arrow.DataType { return BoolT() }
func (c *CmpExpr) Children() []Expr         { return []Expr{c.L, c.R} }
func (c *CmpExpr) String() string {
	return "(" + c.L.String() + " " + c.Op.String() + " " + c.R.String() + ")"
}

func (c *CmpExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	la, err := c.L.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	// A constant right side is compared without materializing it.
	var ra arrow.Array
	lit, isLit := c.R.(*Literal)
	if !isLit || lit.Value == nil {
		isLit = false
		ra, err = c.R.Eval(env, batch)
		if err != nil {
			return nil, err
		}
		defer ra.Release()
	}
	n := la.Len()
	out := make([]bool, n)
	var valid []bool
	if isLit {
		valid = validity(la)
	} else {
		valid = bothValid(la, ra)
	}
	op := c.Op
	switch x := la.(type) {
	case *array.Int64:
		compareSlices(op, x.Int64Values(), sliceOr(ra, func(a arrow.Array) []int64 { return a.(*array.Int64).Int64Values() }), litOr[int64](lit, isLit), out)
	case *array.Float64:
		compareSlices(op, x.Float64Values(), sliceOr(ra, func(a arrow.Array) []float64 { return a.(*array.Float64).Float64Values() }), litOr[float64](lit, isLit), out)
	case *array.Int32:
		compareSlices(op, x.Int32Values(), sliceOr(ra, func(a arrow.Array) []int32 { return a.(*array.Int32).Int32Values() }), litAs[int32](lit, isLit), out)
	case *array.Int16:
		compareSlices(op, x.Int16Values(), sliceOr(ra, func(a arrow.Array) []int16 { return a.(*array.Int16).Int16Values() }), litAs[int16](lit, isLit), out)
	case *array.Int8:
		compareSlices(op, x.Int8Values(), sliceOr(ra, func(a arrow.Array) []int8 { return a.(*array.Int8).Int8Values() }), litAs[int8](lit, isLit), out)
	case *array.Uint8:
		compareSlices(op, x.Uint8Values(), sliceOr(ra, func(a arrow.Array) []uint8 { return a.(*array.Uint8).Uint8Values() }), litAs[uint8](lit, isLit), out)
	case *array.Uint16:
		compareSlices(op, x.Uint16Values(), sliceOr(ra, func(a arrow.Array) []uint16 { return a.(*array.Uint16).Uint16Values() }), litAs[uint16](lit, isLit), out)
	case *array.Uint32:
		compareSlices(op, x.Uint32Values(), sliceOr(ra, func(a arrow.Array) []uint32 { return a.(*array.Uint32).Uint32Values() }), litAs[uint32](lit, isLit), out)
	case *array.Float32:
		compareSlices(op, x.Float32Values(), sliceOr(ra, func(a arrow.Array) []float32 { return a.(*array.Float32).Float32Values() }), litAs[float32](lit, isLit), out)
	case *array.Boolean:
		// false < true, as compareValues orders booleans.
		var y *array.Boolean
		if ra != nil {
			y = ra.(*array.Boolean)
		}
		for i := range out {
			if valid != nil && !valid[i] {
				continue
			}
			var r bool
			if y != nil {
				r = y.Value(i)
			} else {
				r = lit.Value.(bool)
			}
			l := x.Value(i)
			out[i] = holds(op, cmp3(!l && r, l && !r))
		}
	case *array.Date32:
		compareSlices(op, x.Date32Values(), sliceOr(ra, func(a arrow.Array) []arrow.Date32 { return a.(*array.Date32).Date32Values() }), litOr[arrow.Date32](lit, isLit), out)
	case *array.Timestamp:
		xs := x.TimestampValues()
		mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
		var ys []arrow.Timestamp
		if ra != nil {
			ys = ra.(*array.Timestamp).TimestampValues()
		}
		var yc *arrow.Timestamp
		if isLit {
			v := arrow.Timestamp(int64(lit.Value.(arrow.Timestamp)) * div / mul)
			yc = &v
		}
		compareSlices(op, xs, ys, yc, out)
	case *array.String:
		var y *array.String
		var c string
		if ra != nil {
			y = ra.(*array.String)
		} else {
			c = lit.Value.(string)
		}
		compareStrings(op, x, y, c, valid, out)
	case *array.Decimal128:
		var ys []decimal128.Num
		var c decimal128.Num
		if ra != nil {
			ys = ra.(*array.Decimal128).Values()
		} else {
			c = lit.Value.(decimal128.Num)
		}
		compareDecimals(op, x.Values(), ys, c, valid, out)
	default:
		// Booleans, times and anything else: value by value.
		gl := getterNoNull(la)
		var gr func(int) any
		if ra != nil {
			gr = getterNoNull(ra)
		}
		t := la.DataType()
		for i := range out {
			if valid != nil && !valid[i] {
				continue
			}
			var rv any
			if isLit {
				rv = lit.Value
			} else {
				rv = gr(i)
			}
			out[i] = holds(op, compareAny(gl(i), rv, t))
		}
	}
	if op == NullSafeEq {
		// <=> is true when both are NULL, false when one is, never NULL.
		for i := range out {
			lnull := la.IsNull(i)
			rnull := (isLit && lit.Value == nil) || (ra != nil && ra.IsNull(i))
			if lnull || rnull {
				out[i] = lnull && rnull
			}
		}
		valid = nil
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}

func compareAny(a, b any, t arrow.DataType) int {
	switch x := a.(type) {
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	}
	return compareValues(a, b, t)
}

// litAs is the constant right side of a comparison over a narrow integer
// or FLOAT column: its canonical value (an int64 or float64 already in
// the column type's range, Lit checked it) in the column's Go type.
func litAs[T int8 | int16 | int32 | uint8 | uint16 | uint32 | float32](l *Literal, isLit bool) *T {
	if !isLit {
		return nil
	}
	var v T
	switch x := l.Value.(type) {
	case int64:
		v = T(x)
	case float64:
		v = T(x)
	}
	return &v
}

func sliceOr[T any](a arrow.Array, f func(arrow.Array) []T) []T {
	if a == nil {
		return nil
	}
	return f(a)
}

func litOr[T any](l *Literal, isLit bool) *T {
	if !isLit {
		return nil
	}
	v := l.Value.(T)
	return &v
}

func holds(op CmpOp, c int) bool {
	switch op {
	case Eq, NullSafeEq:
		return c == 0
	case Ne:
		return c != 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	}
	return false
}

// compareSlices fills out[i] = x[i] op y[i] (or op *yc when yc is set).
// One tight loop per operator keeps the hot path branch-free.
func compareSlices[T cmp.Ordered](op CmpOp, x, y []T, yc *T, out []bool) {
	if yc != nil {
		c := *yc
		switch op {
		case Eq, NullSafeEq:
			for i, v := range x {
				out[i] = v == c
			}
		case Ne:
			for i, v := range x {
				out[i] = v != c
			}
		case Lt:
			for i, v := range x {
				out[i] = v < c
			}
		case Le:
			for i, v := range x {
				out[i] = v <= c
			}
		case Gt:
			for i, v := range x {
				out[i] = v > c
			}
		case Ge:
			for i, v := range x {
				out[i] = v >= c
			}
		}
		return
	}
	y = y[:len(x)]
	switch op {
	case Eq, NullSafeEq:
		for i, v := range x {
			out[i] = v == y[i]
		}
	case Ne:
		for i, v := range x {
			out[i] = v != y[i]
		}
	case Lt:
		for i, v := range x {
			out[i] = v < y[i]
		}
	case Le:
		for i, v := range x {
			out[i] = v <= y[i]
		}
	case Gt:
		for i, v := range x {
			out[i] = v > y[i]
		}
	case Ge:
		for i, v := range x {
			out[i] = v >= y[i]
		}
	}
}
