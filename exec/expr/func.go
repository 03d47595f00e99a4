package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Func builds a call of a named scalar function (case-insensitive), with
// the implicit argument casts Doris applies. Operators with their own
// constructors (Arith, Cmp, And, Like, Case, Cast, DateArith, Element) are
// also reachable here under their function names (if, ifnull, coalesce,
// nullif, date_add, element_at, ...), so the binder can send every call
// node through Func. Unknown names give ErrUnsupported naming the function.
func Func(name string, args ...Expr) (Expr, error) {
	lname := strings.ToLower(name)
	for _, a := range args {
		if a == nil {
			return nil, errorf(ErrType, "%s: nil argument", lname)
		}
		if !supported(a.DataType()) {
			return nil, errorf(ErrUnsupported, "%s(%s): values of type %s", lname, a, a.DataType())
		}
	}
	if f, ok := controlFunc(lname, args); ok {
		return f()
	}
	if f, ok := stringFunc(lname, args); ok {
		return f()
	}
	if f, ok := mathFunc(lname, args); ok {
		return f()
	}
	if f, ok := moreDateFunc(lname, args); ok {
		return f()
	}
	if f, ok := dateFunc(lname, args); ok {
		return f()
	}
	if f, ok := arrayFunc(lname, args); ok {
		return f()
	}
	if f, ok := nestedFunc(lname, args); ok {
		return f()
	}
	if f, ok := mapFunc(lname, args); ok {
		return f()
	}
	if f, ok := extraFunc(lname, args); ok {
		return f()
	}
	if f, ok := dorisFunc(lname, args); ok {
		return f()
	}
	if fam := unsupportedFamily(lname); fam != "" {
		return nil, errorf(ErrUnsupported, "function %s: %s", lname, fam)
	}
	return nil, errorf(ErrUnsupported, "function %s", lname)
}

// unsupportedFamily names the Doris function family a name belongs to when
// Inlet has none of it (their types are not Inlet's), so the refusal says
// why rather than only "unsupported".
func unsupportedFamily(name string) string {
	switch {
	case strings.HasPrefix(name, "st_"):
		return "Doris's GIS functions are not supported (Inlet has no GEOMETRY type)"
	case strings.Contains(name, "bitmap") || name == "intersect_count":
		return "Doris's BITMAP functions are not supported (Inlet has no BITMAP type)"
	case strings.HasPrefix(name, "hll_") || name == "hll_cardinality":
		return "Doris's HLL sketch functions are not supported (Inlet has no HLL type; approx_count_distinct and ndv count exactly)"
	case strings.Contains(name, "quantile_state") || strings.HasPrefix(name, "quantile_"):
		return "Doris's QUANTILE_STATE functions are not supported (Inlet has no QUANTILE_STATE type; percentile and percentile_approx are)"
	}
	return ""
}

func arity(name string, args []Expr, lo, hi int) error {
	if len(args) < lo || (hi >= 0 && len(args) > hi) {
		switch {
		case lo == hi:
			return errorf(ErrArity, "%s takes %d argument(s), got %d", name, lo, len(args))
		case hi < 0:
			return errorf(ErrArity, "%s takes at least %d argument(s), got %d", name, lo, len(args))
		}
		return errorf(ErrArity, "%s takes %d to %d arguments, got %d", name, lo, hi, len(args))
	}
	return nil
}

type builder func() (Expr, error)

func controlFunc(name string, args []Expr) (builder, bool) {
	switch name {
	case "if":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			return If(args[0], args[1], args[2])
		}, true
	case "ifnull", "nvl":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return Coalesce(args...)
		}, true
	case "coalesce":
		return func() (Expr, error) { return Coalesce(args...) }, true
	case "nullif":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return NullIf(args[0], args[1])
		}, true
	case "regexp", "rlike":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return regexpMatch(args[0], args[1])
		}, true
	case "regexp_extract":
		return func() (Expr, error) { return regexpExtract(args) }, true
	}
	return nil, false
}

// strictFunc makes a NULL-in NULL-out row function after casting each
// argument to the matching type in argTypes (the last type repeats).
func strictFunc(name string, args []Expr, argTypes []arrow.DataType, ret arrow.DataType, fn func(env *Env, v []any) any) *rowFunc {
	cargs := make([]Expr, len(args))
	for i, a := range args {
		t := argTypes[min(i, len(argTypes)-1)]
		if t == nil {
			cargs[i] = a
			continue
		}
		cargs[i] = coerce(a, t)
	}
	return &rowFunc{name: name, args: cargs, ret: ret, strict: true, fn: fn}
}
