package expr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Error kinds. Constructors wrap them with the function, operator or column
// concerned.
var (
	// ErrType: operand types do not fit the operator or function.
	ErrType = errors.New("type error")
	// ErrUnsupported: a valid construct this executor does not implement.
	ErrUnsupported = errors.New("unsupported")
	// ErrArity: wrong number of arguments.
	ErrArity = errors.New("wrong number of arguments")
	// ErrOverflow: a value does not fit its type (BIGINT or DECIMAL range).
	ErrOverflow = errors.New("value out of range")
	// ErrTooLarge: a function would build a string longer than
	// MaxStringBytes (or a batch of results longer than MaxBatchStringBytes).
	// It is a kind of ErrOverflow, so the wire reports it as out of range.
	ErrTooLarge = fmt.Errorf("%w: string too large", ErrOverflow)
)

// The one rule for every function that builds a string whose size comes from
// its arguments (lpad, rpad, repeat, space, concat, concat_ws, replace, ...):
// a result longer than MaxStringBytes bytes fails the statement with
// ErrTooLarge naming the function and the size, before anything of that size
// is allocated. This follows Doris, which fails such a query ("string column
// length is too large") instead of returning NULL or a truncated value.
// MaxBatchStringBytes bounds what one evaluation of one function may build
// over a whole batch, so many rows just under the value limit cannot add up
// (and an Arrow string array, with int32 offsets, never overflows).
const (
	MaxStringBytes      = 16 << 20
	MaxBatchStringBytes = 1 << 30
)

// tooLarge is the error of a function whose result would have n bytes.
func tooLarge(fn string, n int64) error {
	return errorf(ErrTooLarge, "%s: result of %d bytes exceeds the limit of %d bytes", fn, n, MaxStringBytes)
}

// Env is what evaluation needs from the statement: the allocator, the
// statement's fixed instant, and the session time zone. It is read-only
// during evaluation and may be shared by goroutines.
type Env struct {
	// Mem allocates every array an Eval returns. Required.
	Mem memory.Allocator
	// Now is the statement start; now(), curdate(), unix_timestamp() read it.
	Now time.Time
	// Loc is the session time zone (nil means UTC). DATETIME values are wall
	// clock times in this zone.
	Loc *time.Location
}

func (e *Env) loc() *time.Location {
	if e.Loc == nil {
		return time.UTC
	}
	return e.Loc
}

// Expr is a bound, typed scalar expression.
type Expr interface {
	// DataType is the Arrow type of every value Eval returns.
	DataType() arrow.DataType
	// String prints the expression for EXPLAIN, SQL-like.
	String() string
	// Children are the direct operands, for plan walkers.
	Children() []Expr
	// Eval computes the expression over every row of batch. The returned
	// array has batch.NumRows() rows and belongs to the caller.
	Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error)
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index int
	Name  string
	Type  arrow.DataType
}

// Col references input column index (0-based) named name of type t.
func Col(index int, name string, t arrow.DataType) *ColumnRef {
	return &ColumnRef{Index: index, Name: name, Type: t}
}

func (c *ColumnRef) DataType() arrow.DataType { return c.Type }
func (c *ColumnRef) Children() []Expr         { return nil }
func (c *ColumnRef) String() string {
	if c.Name != "" {
		return c.Name
	}
	return "$" + strconv.Itoa(c.Index)
}

func (c *ColumnRef) Eval(_ *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	if c.Index < 0 || int64(c.Index) >= batch.NumCols() {
		return nil, fmt.Errorf("expr: column %s: index %d out of range of %d input columns", c, c.Index, batch.NumCols())
	}
	col := batch.Column(c.Index)
	if !arrow.TypeEqual(col.DataType(), c.Type) {
		return nil, fmt.Errorf("%w: column %s: input is %s, plan says %s", ErrType, c, col.DataType(), c.Type)
	}
	col.Retain()
	return col, nil
}

// Literal is a constant of a given type; Value is nil for NULL.
type Literal struct {
	Value any
	Type  arrow.DataType
}

// Lit makes a literal of type t. v is a Go value convertible to t:
// integers, floats, string, bool, decimal128.Num (already scaled for t) or
// a decimal string, arrow.Date32 or a 'YYYY-MM-DD' string, arrow.Timestamp
// (microseconds) or a datetime string, []any for lists, MapValue, []any for
// structs, or nil for NULL.
func Lit(v any, t arrow.DataType) (*Literal, error) {
	if !supported(t) {
		return nil, errorf(ErrUnsupported, "literal of type %s", t)
	}
	if v == nil {
		return &Literal{Type: t}, nil
	}
	cv, from, err := canonicalGo(v)
	if err != nil {
		return nil, err
	}
	if from == nil { // nested values are taken as given
		return &Literal{Value: cv, Type: t}, nil
	}
	if isDecimal(from) && isDecimal(t) {
		// A decimal128.Num passed for a decimal type is already scaled.
		return &Literal{Value: cv, Type: t}, nil
	}
	out := castValue(cv, from, t, time.UTC)
	if out == nil {
		return nil, errorf(ErrType, "literal %v is not a valid %s", v, TypeName(t))
	}
	return &Literal{Value: out, Type: t}, nil
}

func canonicalGo(v any) (any, arrow.DataType, error) {
	switch x := v.(type) {
	case int:
		return int64(x), Int64T(), nil
	case int8:
		return int64(x), Int64T(), nil
	case int16:
		return int64(x), Int64T(), nil
	case int32:
		return int64(x), Int64T(), nil
	case int64:
		return x, Int64T(), nil
	case uint8:
		return int64(x), Int64T(), nil
	case uint16:
		return int64(x), Int64T(), nil
	case uint32:
		return int64(x), Int64T(), nil
	case float32:
		return float64(x), Float64T(), nil
	case float64:
		return x, Float64T(), nil
	case string:
		return x, StringT(), nil
	case []byte:
		return string(x), StringT(), nil
	case bool:
		return x, BoolT(), nil
	case decimal128.Num:
		return x, DecimalT(38, 0), nil
	case arrow.Date32:
		return x, Date32T(), nil
	case arrow.Timestamp:
		return x, DatetimeT(), nil
	case time.Time:
		return arrow.Timestamp(time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC).UnixMicro()), DatetimeT(), nil
	case []any, MapValue:
		return x, nil, nil
	}
	return nil, nil, errorf(ErrType, "literal of Go type %T", v)
}

// MustLit is Lit for values known to fit (tests, constant folding); it
// panics on a programming error.
func MustLit(v any, t arrow.DataType) *Literal {
	l, err := Lit(v, t)
	if err != nil {
		panic(err)
	}
	return l
}

// Int is a BIGINT literal.
func Int(v int64) *Literal { return &Literal{Value: v, Type: Int64T()} }

// Float is a DOUBLE literal.
func Float(v float64) *Literal { return &Literal{Value: v, Type: Float64T()} }

// Str is a STRING literal.
func Str(v string) *Literal { return &Literal{Value: v, Type: StringT()} }

// Bool is a BOOLEAN literal.
func Bool(v bool) *Literal { return &Literal{Value: v, Type: BoolT()} }

// Null is a NULL literal of type t (NullT() for an untyped NULL).
func Null(t arrow.DataType) *Literal { return &Literal{Type: t} }

// Decimal parses a decimal literal such as "12.340"; precision and scale
// come from the text, as in SQL.
func Decimal(s string) (*Literal, error) {
	t := strings.TrimLeft(strings.TrimSpace(s), "+-")
	intPart, frac, _ := strings.Cut(t, ".")
	intPart = strings.TrimLeft(intPart, "0")
	scale := int32(len(frac))
	prec := clampPrec(int32(len(intPart)) + scale)
	if prec < scale {
		prec = scale
	}
	n, err := decimal128.FromString(strings.TrimSpace(s), 38, scale)
	if err != nil {
		return nil, errorf(ErrType, "decimal literal %q: %v", s, err)
	}
	return &Literal{Value: n, Type: DecimalT(prec, scale)}, nil
}

func (l *Literal) DataType() arrow.DataType { return l.Type }
func (l *Literal) Children() []Expr         { return nil }
func (l *Literal) String() string {
	if l.Value == nil {
		return "NULL"
	}
	s := formatValue(l.Value, l.Type)
	if isString(l.Type) || isTemporal(l.Type) {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

func (l *Literal) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	return constArray(env.Mem, l.Type, l.Value, int(batch.NumRows())), nil
}

// constArray makes an array of n copies of canonical v of type t.
func constArray(mem memory.Allocator, t arrow.DataType, v any, n int) arrow.Array {
	if v == nil {
		return array.MakeArrayOfNull(mem, t, n)
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	switch bb := b.(type) {
	case *array.Int64Builder:
		x := v.(int64)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(x)
		}
	case *array.Float64Builder:
		x := v.(float64)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(x)
		}
	case *array.BooleanBuilder:
		x := v.(bool)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(x)
		}
	case *array.StringBuilder:
		x := v.(string)
		for i := 0; i < n; i++ {
			bb.Append(x)
		}
	case *array.Decimal128Builder:
		x := v.(decimal128.Num)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(x)
		}
	default:
		app := Appender(b)
		for i := 0; i < n; i++ {
			app(v)
		}
	}
	return b.NewArray()
}

// evalAll evaluates args, releasing what was made if one fails.
func evalAll(env *Env, batch arrow.RecordBatch, args []Expr) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(args))
	for _, a := range args {
		arr, err := a.Eval(env, batch)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, arr)
	}
	return out, nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// rowFunc is the generic row-wise node used by most library functions: the
// arguments are evaluated as whole arrays, then fn runs once per row on
// canonical values. With strict set, a NULL argument gives NULL without
// calling fn.
type rowFunc struct {
	name   string
	args   []Expr
	ret    arrow.DataType
	strict bool
	fn     func(env *Env, args []any) any
	// argTypes are the types fn receives (after implicit casts).
	show func() string
	// field is the field a struct_element reads (see StructField).
	field string
	// vec, when set, is a typed kernel over the evaluated arguments; it
	// answers ok=false for inputs it has no loop for, and fn runs instead.
	vec func(env *Env, args []arrow.Array) (out arrow.Array, ok bool, err error)
}

func (f *rowFunc) DataType() arrow.DataType { return f.ret }
func (f *rowFunc) Children() []Expr         { return f.args }
func (f *rowFunc) String() string {
	if f.show != nil {
		return f.show()
	}
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return f.name + "(" + strings.Join(parts, ", ") + ")"
}

func (f *rowFunc) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arrs, err := evalAll(env, batch, f.args)
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	if f.vec != nil {
		if out, ok, err := f.vec(env, arrs); ok || err != nil {
			return out, err
		}
	}
	n := int(batch.NumRows())
	getters := make([]func(int) any, len(arrs))
	for i, a := range arrs {
		getters[i] = Getter(a)
	}
	b := array.NewBuilder(env.Mem, f.ret)
	defer b.Release()
	b.Reserve(n)
	app := Appender(b)
	vals := make([]any, len(arrs))
	var built int64 // string bytes appended so far (MaxBatchStringBytes)
	for r := 0; r < n; r++ {
		isNull := false
		for i, g := range getters {
			vals[i] = g(r)
			if vals[i] == nil {
				isNull = true
			}
		}
		if isNull && f.strict {
			b.AppendNull()
			continue
		}
		v := f.fn(env, vals)
		switch x := v.(type) {
		case error:
			// A row function reports a per-row failure (e.g. tooLarge) as
			// its value; the statement fails with it.
			return nil, x
		case string:
			if built += int64(len(x)); built > MaxBatchStringBytes {
				return nil, errorf(ErrTooLarge, "%s: results of one batch exceed %d bytes", f.name, MaxBatchStringBytes)
			}
		}
		app(v)
	}
	return b.NewArray(), nil
}

// coerce wraps e in a cast to t unless it already has type t.
func coerce(e Expr, t arrow.DataType) Expr {
	if arrow.TypeEqual(e.DataType(), t) {
		return e
	}
	if l, ok := e.(*Literal); ok {
		// Fold casts of constants so EXPLAIN and evaluation stay simple.
		if l.Value == nil {
			return Null(t)
		}
		if tt, ok := t.(*arrow.TimestampType); ok && tt.TimeZone != "" && wallClock(l.Type) {
			// Wall-clock time in the session zone, which only evaluation
			// knows (cast_zone.go); the fold then uses the session's.
			return &CastExpr{Arg: e, To: t}
		}
		return &Literal{Value: castValue(l.Value, l.Type, t, time.UTC), Type: t}
	}
	return &CastExpr{Arg: e, To: t}
}
