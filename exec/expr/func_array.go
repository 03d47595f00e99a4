package expr

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Doris's array functions (sql-manual/sql-functions/scalar-functions/
// array-functions). Values are the evaluator's canonical []any with nil for
// a NULL element. The rules shared by the family, from Doris's manual: a
// NULL array gives NULL; elements are compared in the common type of the
// element and the other argument (as = would); a NULL element equals a NULL
// argument where the function searches (array_position, array_contains,
// countequal), aggregates over elements skip NULLs and give NULL when
// nothing is left; set functions keep one NULL.

// arrayElem is the element type of an ARRAY argument; an untyped NULL is
// taken as an array of NULLs (the call then gives NULL).
func arrayElem(name string, e Expr) (arrow.DataType, error) {
	t := e.DataType()
	if isNull(t) {
		return NullT(), nil
	}
	lt, ok := t.(arrow.ListLikeType)
	if !ok || (t.ID() != arrow.LIST && t.ID() != arrow.LARGE_LIST) {
		return nil, errorf(ErrType, "%s(%s): argument is %s, not an array", name, e, TypeName(t))
	}
	return lt.Elem(), nil
}

// listOf is ARRAY<t> as the evaluator builds it.
func listOf(t arrow.DataType) arrow.DataType { return arrow.ListOf(t) }

// asList casts e (an array or an untyped NULL) to ARRAY<t> when it is not
// one already.
// arrayAndFlags checks the (array, array of flags) arguments of
// array_split, array_reverse_split and array_filter and returns the first
// as a list of its element type.
func arrayAndFlags(name string, args []Expr) (Expr, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	et, err := arrayElem(name, args[0])
	if err != nil {
		return nil, err
	}
	if _, err := arrayElem(name, args[1]); err != nil {
		return nil, err
	}
	return asList(args[0], et), nil
}

func asList(e Expr, et arrow.DataType) Expr {
	if lt, ok := e.DataType().(arrow.ListLikeType); ok && arrow.TypeEqual(lt.Elem(), et) {
		return e
	}
	return coerce(e, listOf(et))
}

// arraysCommon unifies the element types of several array arguments and
// casts each to ARRAY<common>.
func arraysCommon(name string, args []Expr) ([]Expr, arrow.DataType, error) {
	t := arrow.DataType(NullT())
	for _, a := range args {
		et, err := arrayElem(name, a)
		if err != nil {
			return nil, nil, err
		}
		if t, err = CommonType(t, et); err != nil {
			return nil, nil, errorf(ErrType, "%s: %v", name, err)
		}
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		out[i] = asList(a, t)
	}
	return out, t, nil
}

// arrayAndValue unifies an array argument with a value argument: both are
// cast to the common type of the element and the value.
func arrayAndValue(name string, arr, v Expr) (Expr, Expr, arrow.DataType, error) {
	et, err := arrayElem(name, arr)
	if err != nil {
		return nil, nil, nil, err
	}
	// Over string elements the value is compared as a string (Doris:
	// countequal(['1', '2', '3', 'c'], 2) casts 2 to TEXT); otherwise both
	// go to their common type, as = would.
	t := arrow.DataType(StringT())
	if !isString(et) {
		if t, err = CommonType(et, v.DataType()); err != nil {
			return nil, nil, nil, errorf(ErrType, "%s: %v", name, err)
		}
	}
	return asList(arr, t), coerce(v, t), t, nil
}

// elemEqual is = between two elements, with NULL equal to NULL (the
// matching rule of array_position, array_remove, array_distinct, ...).
func elemEqual(a, b any, t arrow.DataType) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareAny(a, b, t) == 0
}

// hashKey is a map key for an element: the value itself when Go can hash
// it, its printed form for nested values.
func hashKey(v any) any {
	switch v.(type) {
	case []any, MapValue:
		return fmt.Sprintf("%#v", v)
	}
	return v
}

// sortElems sorts l in place, ascending with NULLs first or descending
// with NULLs last (array_sort and array_reverse_sort).
func sortElems(l []any, t arrow.DataType, desc bool) {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		switch {
		case a == nil && b == nil:
			return false
		case a == nil:
			return !desc
		case b == nil:
			return desc
		}
		c := compareAny(a, b, t)
		if desc {
			return c > 0
		}
		return c < 0
	})
}

// truthy is an element read as a condition (array_count, array_filter,
// array_exists, ...): non-zero numbers and true; NULL is false.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case decimal128.Num:
		return x != (decimal128.Num{})
	case string:
		return x != "" && x != "0"
	}
	return false
}

// numericElem checks that an aggregate over elements has numbers to work on.
func numericElem(name string, e Expr, et arrow.DataType) error {
	if !isNumericOrBool(et) && !isNull(et) {
		return errorf(ErrType, "%s(%s): elements of type %s are not numbers", name, e, TypeName(et))
	}
	return nil
}

// sumType is the type array_sum and array_cum_sum add in: BIGINT for
// integers (and booleans), DOUBLE for floats, DECIMAL(38, s) for decimals.
func sumType(et arrow.DataType) arrow.DataType {
	switch {
	case IsLargeInt(et):
		return LargeIntT()
	case isDecimal(et):
		_, s := decimalPS(et)
		return DecimalT(38, s)
	case isFloat(et):
		return Float64T()
	}
	return Int64T()
}

func addVals(a, b any) any {
	switch x := a.(type) {
	case int64:
		return x + b.(int64)
	case float64:
		return x + b.(float64)
	case decimal128.Num:
		return x.Add(b.(decimal128.Num))
	}
	return nil
}

func subVals(a, b any) any {
	switch x := a.(type) {
	case int64:
		return x - b.(int64)
	case float64:
		return x - b.(float64)
	case decimal128.Num:
		return x.Sub(b.(decimal128.Num))
	}
	return nil
}

// arrayRow is a row function over already-cast arguments; strict
// functions give NULL for a NULL argument without calling fn.
func arrayRow(name string, args []Expr, ret arrow.DataType, strict bool, fn func(v []any) any) Expr {
	return &rowFunc{name: name, args: args, ret: ret, strict: strict, fn: func(_ *Env, v []any) any { return fn(v) }}
}

func arrayFunc(name string, args []Expr) (builder, bool) {
	one := func(build func(a Expr, et arrow.DataType) (Expr, error)) builder {
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			return build(asList(args[0], et), et)
		}
	}
	switch name {
	case "array_sort", "array_reverse_sort":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			desc := name == "array_reverse_sort"
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				l := append([]any{}, v[0].([]any)...)
				sortElems(l, et, desc)
				return l
			}), nil
		}), true
	case "array_contains", "array_position", "countequal":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			a, x, t, err := arrayAndValue(name, args[0], args[1])
			if err != nil {
				return nil, err
			}
			ret := Int64T()
			if name == "array_contains" {
				ret = BoolT()
			}
			// Only the array makes the result NULL: a NULL value is looked
			// for among the NULL elements.
			return arrayRow(name, []Expr{a, x}, ret, false, func(v []any) any {
				if v[0] == nil {
					return nil
				}
				var n int64
				for i, e := range v[0].([]any) {
					if !elemEqual(e, v[1], t) {
						continue
					}
					switch name {
					case "array_contains":
						return true
					case "array_position":
						return int64(i + 1)
					}
					n++
				}
				if name == "array_contains" {
					return false
				}
				return n
			}), nil
		}, true
	case "array_remove":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			a, x, t, err := arrayAndValue(name, args[0], args[1])
			if err != nil {
				return nil, err
			}
			return arrayRow(name, []Expr{a, x}, a.DataType(), true, func(v []any) any {
				out := []any{}
				for _, e := range v[0].([]any) {
					if !elemEqual(e, v[1], t) {
						out = append(out, e)
					}
				}
				return out
			}), nil
		}, true
	case "array_distinct":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				return distinctElems(nil, v[0].([]any), map[any]bool{})
			}), nil
		}), true
	case "array_join":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 3); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			switch et.ID() {
			case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
				return nil, errorf(ErrType, "%s(%s, ...): elements of type %s cannot be joined", name, args[0], TypeName(et))
			}
			cargs := []Expr{asList(args[0], et)}
			for _, s := range args[1:] {
				cargs = append(cargs, coerce(s, StringT()))
			}
			return arrayRow(name, cargs, StringT(), true, func(v []any) any {
				var sb strings.Builder
				first := true
				for _, e := range v[0].([]any) {
					s := ""
					switch {
					case e != nil:
						s, _ = castValue(e, et, StringT(), time.UTC).(string)
					case len(v) == 3:
						s = v[2].(string)
					default:
						continue // without a replacement NULLs are skipped
					}
					if !first {
						sb.WriteString(v[1].(string))
					}
					first = false
					sb.WriteString(s)
					if sb.Len() > MaxStringBytes {
						return tooLarge(name, int64(sb.Len()))
					}
				}
				return sb.String()
			}), nil
		}, true
	case "array_min", "array_max":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			switch et.ID() {
			case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
				return nil, errorf(ErrType, "%s(%s): elements of type %s have no order", name, args[0], TypeName(et))
			}
			return arrayRow(name, []Expr{a}, et, true, func(v []any) any {
				var best any
				for _, e := range v[0].([]any) {
					if e == nil {
						continue
					}
					if best == nil {
						best = e
						continue
					}
					c := compareAny(e, best, et)
					if (name == "array_min" && c < 0) || (name == "array_max" && c > 0) {
						best = e
					}
				}
				return best
			}), nil
		}), true
	case "array_sum", "array_avg", "array_product":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			// Strings are read as DOUBLE (Doris's array_avg manual: ['1',
			// '2', ...] averages; an unreadable one is skipped as NULL).
			if isString(et) {
				et = Float64T()
			} else if err := numericElem(name, args[0], et); err != nil {
				return nil, err
			}
			st := sumType(et)
			ret := st
			switch {
			case name == "array_product", name == "array_avg" && !isDecimal(st):
				// Doris: DOUBLE for integers and floats; array_avg keeps a
				// decimal's scale.
				st, ret = Float64T(), Float64T()
			}
			a = asList(a, st)
			return arrayRow(name, []Expr{a}, ret, true, func(v []any) any {
				var acc any
				var n int64
				for _, e := range v[0].([]any) {
					if e == nil {
						continue
					}
					n++
					switch {
					case acc == nil:
						acc = e
					case name == "array_product":
						acc = acc.(float64) * e.(float64)
					default:
						acc = addVals(acc, e)
					}
				}
				if acc == nil || name != "array_avg" {
					return acc
				}
				switch x := acc.(type) {
				case float64:
					return x / float64(n)
				case decimal128.Num:
					return divRound(x, n)
				}
				return nil
			}), nil
		}), true
	case "array_cum_sum":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			if err := numericElem(name, args[0], et); err != nil {
				return nil, err
			}
			st := sumType(et)
			a = asList(a, st)
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				l := v[0].([]any)
				out := make([]any, len(l))
				var acc any
				for i, e := range l {
					switch {
					case e != nil && acc == nil:
						acc = e
					case e != nil:
						acc = addVals(acc, e)
					}
					// NULLs before the first value stay NULL; after it they
					// count as 0 (Doris's manual).
					out[i] = acc
				}
				return out
			}), nil
		}), true
	case "array_difference":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			if err := numericElem(name, args[0], et); err != nil {
				return nil, err
			}
			st := sumType(et)
			a = asList(a, st)
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				l := v[0].([]any)
				out := make([]any, len(l))
				for i, e := range l {
					switch {
					case i == 0 && e == nil:
						out[i] = nil
					case i == 0:
						out[i] = zeroOf(st)
					case e == nil || l[i-1] == nil:
						out[i] = nil
					default:
						out[i] = subVals(e, l[i-1])
					}
				}
				return out
			}), nil
		}), true
	case "array_slice":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 3); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			cargs := []Expr{asList(args[0], et)}
			for _, x := range args[1:] {
				cargs = append(cargs, coerce(x, Int64T()))
			}
			return arrayRow(name, cargs, cargs[0].DataType(), true, func(v []any) any {
				l := v[0].([]any)
				n := int64(len(l))
				off := v[1].(int64)
				switch {
				case off > 0:
					off--
				case off < 0:
					off += n
				default:
					return []any{}
				}
				if off < 0 || off >= n {
					return []any{}
				}
				end := n
				if len(v) == 3 {
					ln := v[2].(int64)
					switch {
					case ln >= 0:
						end = min(n, off+ln)
					default:
						// A negative length drops that many from the end.
						end = n + ln
					}
				}
				if end <= off {
					return []any{}
				}
				return append([]any{}, l[off:end]...)
			}), nil
		}, true
	case "array_concat":
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			cargs, _, err := arraysCommon(name, args)
			if err != nil {
				return nil, err
			}
			return arrayRow(name, cargs, cargs[0].DataType(), true, func(v []any) any {
				out := []any{}
				for _, x := range v {
					out = append(out, x.([]any)...)
				}
				return out
			}), nil
		}, true
	case "array_union", "array_intersect", "array_except", "arrays_overlap":
		return func() (Expr, error) {
			lo, hi := 2, -1
			if name == "array_except" || name == "arrays_overlap" {
				hi = 2
			}
			if name == "array_union" {
				lo = 1
			}
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			cargs, t, err := arraysCommon(name, args)
			if err != nil {
				return nil, err
			}
			if name == "arrays_overlap" {
				return arrayRow(name, cargs, BoolT(), true, func(v []any) any { return overlap(v[0].([]any), v[1].([]any), t) }), nil
			}
			return arrayRow(name, cargs, cargs[0].DataType(), true, func(v []any) any {
				return setOp(name, v)
			}), nil
		}, true
	case "array_compact":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				out := []any{}
				for i, e := range v[0].([]any) {
					if i > 0 && elemEqual(e, out[len(out)-1], et) {
						continue
					}
					out = append(out, e)
				}
				return out
			}), nil
		}), true
	case "array_popback", "array_popfront":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			return arrayRow(name, []Expr{a}, a.DataType(), true, func(v []any) any {
				l := v[0].([]any)
				switch {
				case len(l) == 0:
					return []any{}
				case name == "array_popback":
					return append([]any{}, l[:len(l)-1]...)
				}
				return append([]any{}, l[1:]...)
			}), nil
		}), true
	case "array_pushback", "array_pushfront":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			a, x, _, err := arrayAndValue(name, args[0], args[1])
			if err != nil {
				return nil, err
			}
			// A NULL value is pushed as a NULL element.
			return arrayRow(name, []Expr{a, x}, a.DataType(), false, func(v []any) any {
				if v[0] == nil {
					return nil
				}
				l := v[0].([]any)
				if name == "array_pushback" {
					return append(append([]any{}, l...), v[1])
				}
				return append([]any{v[1]}, l...)
			}), nil
		}, true
	case "array_with_constant", "array_repeat":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			n, x := args[0], args[1]
			if name == "array_repeat" {
				n, x = x, n
			}
			et := x.DataType()
			if isNull(et) {
				et = Int64T()
				x = coerce(x, et)
			}
			return arrayRow(name, []Expr{coerce(n, Int64T()), x}, listOf(et), false, func(v []any) any {
				// A NULL count is the empty array; a count outside
				// [0, 1000000] is an error (Doris's manual).
				if v[0] == nil {
					return []any{}
				}
				c := v[0].(int64)
				if c < 0 || c > maxArrayElems {
					return errorf(ErrType, "%s: the count %d is not in [0, %d]", name, c, maxArrayElems)
				}
				out := make([]any, c)
				for i := range out {
					out[i] = v[1]
				}
				return out
			}), nil
		}, true
	case "array_range", "sequence":
		return func() (Expr, error) { return arrayRange(name, args) }, true
	case "array_count", "array_exists", "array_first_index", "array_last_index":
		// The forms without a lambda, over an array read as conditions;
		// f(x -> cond, arr) is f(array_map(x -> cond, arr)).
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			ret := Int64T()
			if name == "array_exists" {
				ret = listOf(BoolT())
			}
			// Of a NULL array, array_exists gives NULL; the counts and
			// indexes give 0 (Doris's manual).
			return arrayRow(name, []Expr{a}, ret, name == "array_exists", func(v []any) any {
				if v[0] == nil {
					return int64(0)
				}
				l := v[0].([]any)
				switch name {
				case "array_count":
					var n int64
					for _, e := range l {
						if truthy(e) {
							n++
						}
					}
					return n
				case "array_exists":
					out := make([]any, len(l))
					for i, e := range l {
						if e != nil {
							out[i] = truthy(e)
						}
					}
					return out
				case "array_first_index":
					for i, e := range l {
						if truthy(e) {
							return int64(i + 1)
						}
					}
				default:
					for i := len(l) - 1; i >= 0; i-- {
						if truthy(l[i]) {
							return int64(i + 1)
						}
					}
				}
				return int64(0)
			}), nil
		}), true
	case "array_match_all", "array_match_any":
		// Over a lambda's results: all (any) true; a NULL result with no
		// deciding one makes the answer NULL.
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			all := name == "array_match_all"
			return arrayRow(name, []Expr{a}, BoolT(), true, func(v []any) any {
				sawNull := false
				for _, e := range v[0].([]any) {
					switch {
					case e == nil:
						sawNull = true
					case truthy(e) != all:
						return !all
					}
				}
				if sawNull {
					return nil
				}
				return all
			}), nil
		}), true
	case "array_split", "array_reverse_split":
		return func() (Expr, error) {
			// array_split cuts before each position whose flag is true,
			// array_reverse_split after it; a NULL flag is false.
			a, err := arrayAndFlags(name, args)
			if err != nil {
				return nil, err
			}
			return arrayRow(name, []Expr{a, args[1]}, listOf(a.DataType()), true, func(v []any) any {
				l, flags := v[0].([]any), v[1].([]any)
				if len(l) != len(flags) {
					return errorf(ErrType, "%s: the array and the flags have different lengths (%d and %d)", name, len(l), len(flags))
				}
				out := []any{}
				cur := []any{}
				for i, e := range l {
					if name == "array_split" && i > 0 && truthy(flags[i]) {
						out, cur = append(out, cur), []any{}
					}
					cur = append(cur, e)
					if name == "array_reverse_split" && i < len(l)-1 && truthy(flags[i]) {
						out, cur = append(out, cur), []any{}
					}
				}
				if len(l) > 0 {
					out = append(out, cur)
				}
				return out
			}), nil
		}, true
	case "array_filter":
		return func() (Expr, error) {
			// array_filter(arr, conditions): the elements whose condition
			// holds.
			a, err := arrayAndFlags(name, args)
			if err != nil {
				return nil, err
			}
			return arrayRow(name, []Expr{a, args[1]}, a.DataType(), false, func(v []any) any {
				if v[0] == nil {
					return nil
				}
				var cond []any
				if v[1] != nil {
					cond = v[1].([]any)
				}
				out := []any{}
				for i, e := range v[0].([]any) {
					if i < len(cond) && truthy(cond[i]) {
						out = append(out, e)
					}
				}
				return out
			}), nil
		}, true
	case "array_sortby":
		return func() (Expr, error) {
			// array_sortby(values, keys): values ordered by their keys
			// ascending, NULL keys first; a NULL key array leaves the
			// values as they are.
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			kt, err := arrayElem(name, args[1])
			if err != nil {
				return nil, err
			}
			a := asList(args[0], et)
			return arrayRow(name, []Expr{a, asList(args[1], kt)}, a.DataType(), false, func(v []any) any {
				if v[0] == nil {
					return nil
				}
				l := v[0].([]any)
				if v[1] == nil {
					return l
				}
				keys := v[1].([]any)
				if len(keys) != len(l) {
					return errorf(ErrType, "%s: the values and keys have different lengths (%d and %d)", name, len(l), len(keys))
				}
				idx := make([]any, len(l))
				for i := range idx {
					idx[i] = []any{keys[i], int64(i)}
				}
				st := arrow.StructOf(arrow.Field{Name: "k", Type: kt, Nullable: true}, arrow.Field{Name: "i", Type: Int64T()})
				sortElems(idx, st, false)
				out := make([]any, len(l))
				for i, p := range idx {
					out[i] = l[p.([]any)[1].(int64)]
				}
				return out
			}), nil
		}, true
	case "array_apply":
		return func() (Expr, error) {
			// array_apply(arr, op, v): the elements e for which e op v holds.
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			var op string
			lit, ok := args[1].(*Literal)
			if ok {
				op, ok = lit.Value.(string)
			}
			if !ok {
				return nil, errorf(ErrType, "%s: the operator must be a constant string", name)
			}
			cmpOp, ok := map[string]CmpOp{"=": Eq, "!=": Ne, "<>": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge}[strings.TrimSpace(op)]
			if !ok {
				return nil, errorf(ErrType, "%s: operator %q is not one of =, !=, <, <=, >, >=", name, op)
			}
			a, x, t, err := arrayAndValue(name, args[0], args[2])
			if err != nil {
				return nil, err
			}
			return arrayRow(name, []Expr{a, x}, a.DataType(), true, func(v []any) any {
				out := []any{}
				for _, e := range v[0].([]any) {
					if e != nil && holds(cmpOp, compareAny(e, v[1], t)) {
						out = append(out, e)
					}
				}
				return out
			}), nil
		}, true
	case "array_zip":
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			fields := make([]arrow.Field, len(args))
			cargs := make([]Expr, len(args))
			for i, a := range args {
				et, err := arrayElem(name, a)
				if err != nil {
					return nil, err
				}
				if isNull(et) {
					et = Int64T()
				}
				cargs[i] = asList(a, et)
				fields[i] = arrow.Field{Name: fmt.Sprintf("col%d", i+1), Type: et, Nullable: true}
			}
			return arrayRow(name, cargs, listOf(arrow.StructOf(fields...)), true, func(v []any) any {
				n := len(v[0].([]any))
				for _, x := range v[1:] {
					if len(x.([]any)) != n {
						return errorf(ErrType, "%s: the arrays have different lengths", name)
					}
				}
				out := make([]any, n)
				for i := range out {
					row := make([]any, len(v))
					for j, x := range v {
						row[j] = x.([]any)[i]
					}
					out[i] = row
				}
				return out
			}), nil
		}, true
	case "array_enumerate":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			return arrayRow(name, []Expr{a}, listOf(Int64T()), true, func(v []any) any {
				out := make([]any, len(v[0].([]any)))
				for i := range out {
					out[i] = int64(i + 1)
				}
				return out
			}), nil
		}), true
	case "array_enumerate_uniq":
		return func() (Expr, error) {
			// Each position numbers the occurrences so far of its element
			// (of its tuple of elements, over several arrays of one length).
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			for _, a := range args {
				if _, err := arrayElem(name, a); err != nil {
					return nil, err
				}
			}
			return arrayRow(name, args, listOf(Int64T()), true, func(v []any) any {
				n := len(v[0].([]any))
				for _, x := range v[1:] {
					if len(x.([]any)) != n {
						return errorf(ErrType, "%s: the arrays have different lengths", name)
					}
				}
				seen := map[string]int64{}
				out := make([]any, n)
				for i := range out {
					key := make([]any, len(v))
					for j, x := range v {
						key[j] = x.([]any)[i]
					}
					k := fmt.Sprintf("%#v", key)
					seen[k]++
					out[i] = seen[k]
				}
				return out
			}), nil
		}, true
	case "array_shuffle", "shuffle":
		return func() (Expr, error) {
			// With a seed the order is reproducible; without one it differs
			// from call to call, as in Doris.
			if err := arity(name, args, 1, 2); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			cargs := []Expr{asList(args[0], et)}
			if len(args) == 2 {
				cargs = append(cargs, coerce(args[1], Int64T()))
			}
			return arrayRow(name, cargs, cargs[0].DataType(), true, func(v []any) any {
				l := append([]any{}, v[0].([]any)...)
				var r *rand.Rand
				if len(v) == 2 {
					s := uint64(v[1].(int64))
					r = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
				} else {
					r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
				}
				r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
				return l
			}), nil
		}, true
	case "array_flatten":
		return one(func(a Expr, et arrow.DataType) (Expr, error) {
			inner, ok := et.(arrow.ListLikeType)
			if !ok {
				return nil, errorf(ErrType, "%s(%s): elements of type %s are not arrays", name, args[0], TypeName(et))
			}
			return arrayRow(name, []Expr{a}, listOf(inner.Elem()), true, func(v []any) any {
				out := []any{}
				for _, e := range v[0].([]any) {
					if e != nil {
						out = append(out, e.([]any)...)
					}
				}
				return out
			}), nil
		}), true
	case "trim_array":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			et, err := arrayElem(name, args[0])
			if err != nil {
				return nil, err
			}
			a := asList(args[0], et)
			return arrayRow(name, []Expr{a, coerce(args[1], Int64T())}, a.DataType(), true, func(v []any) any {
				l, k := v[0].([]any), v[1].(int64)
				if k < 0 || k > int64(len(l)) {
					return errorf(ErrType, "%s: size must be between 0 and the array's cardinality %d: %d", name, len(l), k)
				}
				return append([]any{}, l[:int64(len(l))-k]...)
			}), nil
		}, true
	case "array_except_all":
		return func() (Expr, error) {
			// Multiset difference: each element of arr2 removes one equal
			// element (NULL equal to NULL) of arr1, in arr1's order.
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			cargs, _, err := arraysCommon(name, args)
			if err != nil {
				return nil, err
			}
			return arrayRow(name, cargs, cargs[0].DataType(), true, func(v []any) any {
				remove := map[any]int{}
				for _, e := range v[1].([]any) {
					remove[elemKey(e)]++
				}
				out := []any{}
				for _, e := range v[0].([]any) {
					if k := elemKey(e); remove[k] > 0 {
						remove[k]--
						continue
					}
					out = append(out, e)
				}
				return out
			}), nil
		}, true
	case "array_cross_product", "cross_product":
		return func() (Expr, error) {
			// Two three-element vectors; the result is ARRAY<FLOAT> as in
			// Doris, NULL elements are an error.
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			cargs := make([]Expr, 2)
			for i, a := range args {
				et, err := arrayElem(name, a)
				if err != nil {
					return nil, err
				}
				if err := numericElem(name, a, et); err != nil {
					return nil, err
				}
				cargs[i] = asList(a, Float64T())
			}
			return arrayRow(name, cargs, listOf(arrow.PrimitiveTypes.Float32), true, func(v []any) any {
				x, y := v[0].([]any), v[1].([]any)
				if len(x) != 3 || len(y) != 3 {
					return errorf(ErrType, "%s: both arrays must have 3 elements (got %d and %d)", name, len(x), len(y))
				}
				var a, b [3]float64
				for i := range 3 {
					if x[i] == nil || y[i] == nil {
						return errorf(ErrType, "%s: the arrays cannot have NULL elements", name)
					}
					a[i], b[i] = x[i].(float64), y[i].(float64)
				}
				return []any{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
			}), nil
		}, true
	case "multi_search_all_positions", "multi_match_any":
		return func() (Expr, error) {
			// multi_search_all_positions(s, [needles]): the 1-based
			// character position of each needle in s (0 when absent);
			// multi_match_any(s, [patterns]): whether any regular
			// expression matches s.
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			if _, err := arrayElem(name, args[1]); err != nil {
				return nil, err
			}
			cargs := []Expr{coerce(args[0], StringT()), asList(args[1], StringT())}
			if name == "multi_match_any" {
				return arrayRow(name, cargs, BoolT(), true, func(v []any) any {
					for _, p := range v[1].([]any) {
						if p == nil {
							continue
						}
						re, err := regexp.Compile(p.(string))
						if err != nil {
							return errorf(ErrType, "%s: pattern %q: %v", name, p, err)
						}
						if re.MatchString(v[0].(string)) {
							return true
						}
					}
					return false
				}), nil
			}
			return arrayRow(name, cargs, listOf(Int64T()), true, func(v []any) any {
				s := v[0].(string)
				l := v[1].([]any)
				out := make([]any, len(l))
				for i, n := range l {
					if n == nil {
						continue
					}
					if at := strings.Index(s, n.(string)); at >= 0 {
						out[i] = int64(utf8.RuneCountInString(s[:at]) + 1)
					} else {
						out[i] = int64(0)
					}
				}
				return out
			}), nil
		}, true
	case "array_contains_all":
		return func() (Expr, error) {
			// Whether arr2 occurs in arr1 as a contiguous run (NULL equal
			// to NULL); an empty arr2 always does.
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			cargs, t, err := arraysCommon(name, args)
			if err != nil {
				return nil, err
			}
			return arrayRow(name, cargs, BoolT(), true, func(v []any) any {
				a, b := v[0].([]any), v[1].([]any)
				for i := 0; i+len(b) <= len(a); i++ {
					match := true
					for j := range b {
						if !elemEqual(a[i+j], b[j], t) {
							match = false
							break
						}
					}
					if match {
						return true
					}
				}
				return false
			}), nil
		}, true
	}
	return nil, false
}

// maxArrayElems bounds the arrays array_with_constant and array_range build
// from a count, so one call cannot exhaust memory.
const maxArrayElems = 1_000_000

// distinctElems appends to out the elements of l not seen yet (one NULL
// kept), in their order.
func distinctElems(out, l []any, seen map[any]bool) []any {
	if out == nil {
		out = []any{}
	}
	for _, e := range l {
		k := hashKey(e)
		if e == nil {
			k = nullKey{}
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

type nullKey struct{}

// elemKey is the map key of an element, NULL included.
func elemKey(e any) any {
	if e == nil {
		return nullKey{}
	}
	return hashKey(e)
}

func keysOf(l []any) map[any]bool {
	m := map[any]bool{}
	for _, e := range l {
		if e == nil {
			m[nullKey{}] = true
		} else {
			m[hashKey(e)] = true
		}
	}
	return m
}

// setOp is array_union, array_intersect and array_except: distinct
// elements, in the order they first occur in the first array (then the
// next). Doris leaves the order unspecified.
func setOp(name string, v []any) any {
	switch name {
	case "array_union":
		out, seen := []any{}, map[any]bool{}
		for _, x := range v {
			out = distinctElems(out, x.([]any), seen)
		}
		return out
	case "array_except":
		return distinctElems(nil, v[0].([]any), keysOf(v[1].([]any)))
	}
	cand := distinctElems(nil, v[0].([]any), map[any]bool{})
	for _, x := range v[1:] {
		in := keysOf(x.([]any))
		kept := []any{}
		for _, e := range cand {
			k := hashKey(e)
			if e == nil {
				k = nullKey{}
			}
			if in[k] {
				kept = append(kept, e)
			}
		}
		cand = kept
	}
	return cand
}

// overlap is arrays_overlap: true on a common non-NULL element, else NULL
// when either side has a NULL element, else false.
func overlap(a, b []any, t arrow.DataType) any {
	hasNull := false
	for _, x := range a {
		if x == nil {
			hasNull = true
			continue
		}
		for _, y := range b {
			if y != nil && compareAny(x, y, t) == 0 {
				return true
			}
		}
	}
	for _, y := range b {
		if y == nil {
			hasNull = true
		}
	}
	if hasNull {
		return nil
	}
	return false
}

// divRound divides a decimal by a count, rounding half away from zero.
func divRound(x decimal128.Num, n int64) decimal128.Num {
	q, r := x.Div(decimal128.FromI64(n))
	if r.Abs().Mul(decimal128.FromI64(2)).Cmp(decimal128.FromI64(n)) >= 0 {
		if x.Sign() < 0 {
			return q.Sub(decimal128.FromI64(1))
		}
		return q.Add(decimal128.FromI64(1))
	}
	return q
}

func zeroOf(t arrow.DataType) any {
	switch {
	case isFloat(t):
		return float64(0)
	case isDecimal(t):
		return decimal128.Num{}
	}
	return int64(0)
}

// arrayRange is array_range / sequence: [start, end) by step over
// integers (NULL for a negative bound or a step below 1), or over
// DATETIMEs by step units (DAY unless given: the binder passes
// INTERVAL n unit as the arguments n, 'unit').
func arrayRange(name string, args []Expr) (Expr, error) {
	if err := arity(name, args, 1, 4); err != nil {
		return nil, err
	}
	if len(args) >= 2 && (isTemporal(args[0].DataType()) || isTemporal(args[1].DataType()) || isString(args[0].DataType())) {
		cargs := []Expr{coerce(args[0], DatetimeT()), coerce(args[1], DatetimeT())}
		unit := "DAY"
		if len(args) >= 3 {
			cargs = append(cargs, coerce(args[2], Int64T()))
		}
		if len(args) == 4 {
			l, ok := args[3].(*Literal)
			if ok {
				unit, ok = l.Value.(string)
			}
			unit = strings.ToUpper(unit)
			switch unit {
			case "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND":
			default:
				ok = false
			}
			if !ok {
				return nil, errorf(ErrType, "%s: the step unit must be one of YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND", name)
			}
		}
		// The elements keep the start's DATETIME precision (a string or a
		// DATE start gives DATETIME(0), as Doris's signature does).
		rt := arrow.DataType(&arrow.TimestampType{Unit: arrow.Second})
		if ts, ok := args[0].DataType().(*arrow.TimestampType); ok {
			rt = ts
		}
		return arrayRow(name, cargs, listOf(rt), true, func(v []any) any {
			start, end := v[0].(arrow.Timestamp), v[1].(arrow.Timestamp)
			step := int64(1)
			if len(v) == 3 {
				step = v[2].(int64)
			}
			if step <= 0 {
				return nil
			}
			t0 := time.UnixMicro(int64(start)).UTC()
			// Month-based steps count whole months between the bounds
			// (Doris's manual: from 2022-05-15 12:00 to 2022-07-17 12:00
			// by MONTH is two elements).
			months := int64(-1)
			switch unit {
			case "MONTH":
				months = wholeMonths(t0, time.UnixMicro(int64(end)).UTC())
			case "QUARTER":
				months = wholeMonths(t0, time.UnixMicro(int64(end)).UTC()) / 3
			case "YEAR":
				months = wholeMonths(t0, time.UnixMicro(int64(end)).UTC()) / 12
			}
			out := []any{}
			// Each element is start + i steps, so a month step from the
			// 31st does not drift to the 28th.
			for i := int64(0); ; i++ {
				if months >= 0 && i*step >= months {
					break
				}
				t := addInterval(t0, i*step, unit)
				if us := t.UnixMicro(); us >= int64(end) || t.Year() > 9999 {
					break
				}
				if len(out) >= maxArrayElems {
					return errorf(ErrTooLarge, "%s: more than %d elements", name, maxArrayElems)
				}
				out = append(out, fromWall(t))
			}
			return out
		}), nil
	}
	if len(args) > 3 {
		return nil, errorf(ErrType, "%s: an INTERVAL step needs DATETIME bounds", name)
	}
	cargs := make([]Expr, len(args))
	for i, a := range args {
		if !isInt(a.DataType()) && !isNull(a.DataType()) && a.DataType().ID() != arrow.BOOL {
			return nil, errorf(ErrType, "%s: argument %s is %s, not an integer", name, a, TypeName(a.DataType()))
		}
		cargs[i] = coerce(a, Int64T())
	}
	return arrayRow(name, cargs, listOf(Int64T()), true, func(v []any) any {
		start, end, step := int64(0), v[0].(int64), int64(1)
		if len(v) >= 2 {
			start, end = v[0].(int64), v[1].(int64)
		}
		if len(v) == 3 {
			step = v[2].(int64)
		}
		if start < 0 || end < 0 || step <= 0 {
			return nil
		}
		if end > start && (end-start)/step > maxArrayElems {
			return errorf(ErrTooLarge, "%s: more than %d elements", name, maxArrayElems)
		}
		out := []any{}
		for i := start; i < end; i += step {
			out = append(out, i)
		}
		return out
	}), nil
}

// wholeMonths is the number of whole months from a to b (0 when b is not
// after a).
func wholeMonths(a, b time.Time) int64 {
	m := int64(b.Year()-a.Year())*12 + int64(b.Month()-a.Month())
	if b.Day() < a.Day() || (b.Day() == a.Day() && b.Sub(time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)) < a.Sub(time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC))) {
		m--
	}
	return max(m, 0)
}
