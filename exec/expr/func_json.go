package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// jsonOut names the functions whose STRING result is JSON text: an argument
// built by one of them is taken as JSON by json_array, json_object and
// json_insert/replace/set (as Doris takes a JSON-typed value), where any
// other string becomes a JSON string. A column declared JSON is a STRING
// column here, so its text nests as a string unless wrapped in json_parse()
// (Doris would nest it as JSON).
var jsonOut = map[string]bool{
	"json_parse": true, "json_parse_error_to_null": true, "json_parse_error_to_value": true,
	"json_extract": true, "jsonb_extract": true, "json_array": true, "json_object": true,
	"json_insert": true, "json_replace": true, "json_set": true, "json_keys": true, "json_search": true,
}

// jsonFunc holds Doris's JSON functions (see func_json_value.go for the
// value model). An invalid JSON document gives NULL (json_parse, which
// Doris makes fail the statement, is the exception); an invalid path fails
// the statement, naming the function and the path, as Doris does.
func jsonFunc(name string, args []Expr) (builder, bool) {
	S, I, B := StringT(), Int64T(), BoolT()
	// doc reads argument i as a JSON document; nil when invalid.
	doc := func(v []any, i int) *jnode {
		n, ok := parseJSON(v[i].(string))
		if !ok {
			return nil
		}
		return n
	}
	// withPath builds a strict function of (json, path[, more...]) whose fn
	// receives the parsed document and path; types are the argument types.
	withPath := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, optionalPath bool,
		fn func(d *jnode, p jpath, v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			pathAt := len(types) - 1 // the path is the last typed argument
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, types[min(i, len(types)-1)])
			}
			var fixed *jpath
			hasPath := len(args) > pathAt
			if hasPath {
				p, err := constPath(name, cargs[pathAt])
				if err != nil {
					return nil, err
				}
				fixed = p
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, ret, func(_ *Env, v []any) any {
				d := doc(v, 0)
				if d == nil {
					return nil
				}
				p := jpath{}
				if hasPath {
					var err error
					if p, err = rowPath(name, fixed, v[pathAt]); err != nil {
						return err
					}
				} else if !optionalPath {
					return nil
				}
				return fn(d, p, v)
			}), nil
		}
	}
	// one is the single value a path names (nil when none; wildcard paths
	// give the array of what they match).
	one := func(d *jnode, p jpath) *jnode {
		m := find(d, p.steps, nil)
		if p.wild {
			if len(m) == 0 {
				return nil
			}
			return &jnode{k: jArr, items: m}
		}
		if len(m) == 0 {
			return nil
		}
		return m[0]
	}
	extractAs := func(ret arrow.DataType, conv func(n *jnode) any) builder {
		return withPath(2, 2, []arrow.DataType{S, S}, ret, false, func(d *jnode, p jpath, _ []any) any {
			n := one(d, p)
			if n == nil {
				return nil
			}
			return conv(n)
		})
	}
	switch name {
	case "json_parse", "jsonb_parse", "json_parse_error_to_null", "jsonb_parse_error_to_null":
		onError := strings.HasSuffix(name, "_to_null")
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				n, ok := parseJSON(v[0].(string))
				if !ok {
					if onError {
						return nil
					}
					return errorf(ErrType, "%s: invalid JSON text %s", name, clip(v[0].(string)))
				}
				return n.text()
			}), nil
		}, true
	case "json_parse_error_to_value", "jsonb_parse_error_to_value":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 2); err != nil {
				return nil, err
			}
			def := Expr(Str("{}"))
			if len(args) == 2 {
				def = coerce(args[1], S)
			}
			return &rowFunc{name: name, args: []Expr{coerce(args[0], S), def}, ret: S, fn: func(_ *Env, v []any) any {
				s, ok := v[0].(string)
				if !ok {
					return nil
				}
				if n, ok := parseJSON(s); ok {
					return n.text()
				}
				d, ok := v[1].(string)
				if !ok {
					return nil
				}
				if n, ok := parseJSON(d); ok {
					return n.text()
				}
				return nil
			}}, nil
		}, true
	case "json_valid":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, I, func(_ *Env, v []any) any {
				if _, ok := parseJSON(v[0].(string)); ok {
					return int64(1)
				}
				return int64(0)
			}), nil
		}, true
	case "json_type", "jsonb_type":
		return withPath(1, 2, []arrow.DataType{S, S}, S, true, func(d *jnode, p jpath, _ []any) any {
			n := one(d, p)
			if n == nil {
				return nil
			}
			switch n.k {
			case jNull:
				return "null"
			case jBool:
				return "bool"
			case jNum:
				return n.num
			case jStr:
				return "string"
			case jArr:
				return "array"
			}
			return "object"
		}), true
	case "json_length":
		return withPath(1, 2, []arrow.DataType{S, S}, I, true, func(d *jnode, p jpath, _ []any) any {
			n := one(d, p)
			if n == nil {
				return nil
			}
			if n.k == jArr || n.k == jObj {
				return int64(len(n.items))
			}
			return int64(1)
		}), true
	case "json_keys":
		return withPath(1, 2, []arrow.DataType{S, S}, S, true, func(d *jnode, p jpath, _ []any) any {
			n := one(d, p)
			if n == nil || n.k != jObj {
				return nil
			}
			out := &jnode{k: jArr}
			for _, k := range n.keys {
				out.items = append(out.items, &jnode{k: jStr, s: k})
			}
			return out.text()
		}), true
	case "json_exists_path", "jsonb_exists_path":
		return withPath(2, 2, []arrow.DataType{S, S}, B, false, func(d *jnode, p jpath, _ []any) any {
			return len(find(d, p.steps, nil)) > 0
		}), true
	case "json_contains":
		return withPath(2, 3, []arrow.DataType{S, S, S}, B, true, func(d *jnode, p jpath, v []any) any {
			cand, ok := parseJSON(v[1].(string))
			if !ok {
				return nil
			}
			n := one(d, p)
			if n == nil {
				return nil
			}
			return containsJSON(n, cand)
		}), true
	case "json_extract", "jsonb_extract":
		return func() (Expr, error) {
			if err := arity(name, args, 2, -1); err != nil {
				return nil, err
			}
			cargs := make([]Expr, len(args))
			fixed := make([]*jpath, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, S)
				if i > 0 {
					p, err := constPath(name, cargs[i])
					if err != nil {
						return nil, err
					}
					fixed[i] = p
				}
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				d := doc(v, 0)
				if d == nil {
					return nil
				}
				if len(v) == 2 {
					p, err := rowPath(name, fixed[1], v[1])
					if err != nil {
						return err
					}
					if n := one(d, p); n != nil {
						return n.text()
					}
					return nil
				}
				// Several paths: every match, in path order, as one array.
				var all []*jnode
				for i := 1; i < len(v); i++ {
					p, err := rowPath(name, fixed[i], v[i])
					if err != nil {
						return err
					}
					all = find(d, p.steps, all)
				}
				if len(all) == 0 {
					return nil
				}
				return (&jnode{k: jArr, items: all}).text()
			}), nil
		}, true
	case "json_extract_string", "jsonb_extract_string", "get_json_string":
		return extractAs(S, func(n *jnode) any {
			if n.k == jStr {
				return n.s
			}
			return n.text()
		}), true
	case "json_extract_isnull", "jsonb_extract_isnull":
		return extractAs(B, func(n *jnode) any { return n.k == jNull }), true
	case "json_extract_bool", "jsonb_extract_bool":
		return extractAs(B, func(n *jnode) any {
			switch n.k {
			case jBool:
				return n.b
			case jNum:
				f, _ := strconv.ParseFloat(n.s, 64)
				return f != 0
			}
			return nil
		}), true
	case "json_extract_int", "jsonb_extract_int", "get_json_int":
		return extractAs(Int32T(), func(n *jnode) any { return jsonInt(n, math.MinInt32, math.MaxInt32) }), true
	case "json_extract_bigint", "jsonb_extract_bigint", "get_json_bigint":
		return extractAs(I, func(n *jnode) any { return jsonInt(n, math.MinInt64, math.MaxInt64) }), true
	case "json_extract_largeint", "jsonb_extract_largeint":
		// LARGEINT: the whole signed 128-bit range; doubles truncated.
		return extractAs(LargeIntT(), func(n *jnode) any {
			if n.k != jNum {
				return nil
			}
			b, ok := new(big.Int).SetString(n.s, 10)
			if !ok {
				f, _ := strconv.ParseFloat(n.s, 64)
				if math.Abs(f) >= 0x1p127 {
					return nil
				}
				b, _ = new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
			}
			if !bigFitsInt128(b) {
				return nil
			}
			return int128FromBig(b)
		}), true
	case "json_extract_double", "jsonb_extract_double", "get_json_double":
		return extractAs(Float64T(), func(n *jnode) any {
			if n.k != jNum {
				return nil
			}
			f, err := strconv.ParseFloat(n.s, 64)
			if err != nil {
				return nil
			}
			return f
		}), true
	case "json_quote":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				return sizedText(name, &jnode{k: jStr, s: v[0].(string)})
			}), nil
		}, true
	case "json_unquote":
		// A JSON string literal is decoded; anything else is returned as
		// it is (Doris's manual: a value that is not a quoted string is
		// left alone).
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				s := v[0].(string)
				if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
					p := &jparser{s: s}
					if d, ok := p.str(); ok && p.i == len(s) {
						return d
					}
				}
				return s
			}), nil
		}, true
	case "json_array":
		return func() (Expr, error) {
			cargs, convs := jsonValueArgs(args)
			return &rowFunc{name: name, args: cargs, ret: S, fn: func(_ *Env, v []any) any {
				out := &jnode{k: jArr, items: make([]*jnode, len(v))}
				for i := range v {
					out.items[i] = convs[i](v[i])
				}
				return sizedText(name, out)
			}}, nil
		}, true
	case "json_object":
		return func() (Expr, error) {
			if len(args)%2 != 0 {
				return nil, errorf(ErrArity, "%s takes key, value pairs, got %d argument(s)", name, len(args))
			}
			cargs, convs := jsonValueArgs(args)
			for i := 0; i < len(args); i += 2 {
				cargs[i] = coerce(args[i], S)
			}
			return &rowFunc{name: name, args: cargs, ret: S, fn: func(_ *Env, v []any) any {
				out := &jnode{k: jObj}
				for i := 0; i < len(v); i += 2 {
					k, ok := v[i].(string)
					if !ok {
						return errorf(ErrType, "%s: key %d is NULL", name, i/2+1)
					}
					out.set(k, convs[i+1](v[i+1]))
				}
				return sizedText(name, out)
			}}, nil
		}, true
	case "json_insert", "jsonb_insert", "json_replace", "jsonb_replace", "json_set", "jsonb_set":
		mode := byte('s')
		switch {
		case strings.HasSuffix(name, "insert"):
			mode = 'i'
		case strings.HasSuffix(name, "replace"):
			mode = 'r'
		}
		return func() (Expr, error) {
			if len(args) < 3 || len(args)%2 != 1 {
				return nil, errorf(ErrArity, "%s takes a document and path, value pairs, got %d argument(s)", name, len(args))
			}
			cargs, convs := jsonValueArgs(args)
			cargs[0] = coerce(args[0], S)
			fixed := make([]*jpath, len(args))
			for i := 1; i < len(args); i += 2 {
				cargs[i] = coerce(args[i], S)
				p, err := constPath(name, cargs[i])
				if err != nil {
					return nil, err
				}
				if p != nil && p.wild {
					return nil, errorf(ErrType, "%s: path %s may not contain * or **", name, cargs[i])
				}
				fixed[i] = p
			}
			return &rowFunc{name: name, args: cargs, ret: S, fn: func(_ *Env, v []any) any {
				s, ok := v[0].(string)
				if !ok {
					return nil
				}
				root, ok := parseJSON(s)
				if !ok {
					return nil
				}
				for i := 1; i < len(v); i += 2 {
					if v[i] == nil {
						return nil
					}
					p, err := rowPath(name, fixed[i], v[i])
					if err != nil {
						return err
					}
					if p.wild {
						return errorf(ErrType, "%s: path %s may not contain * or **", name, v[i])
					}
					root = modify(root, p, convs[i+1](v[i+1]), mode)
				}
				return sizedText(name, root)
			}}, nil
		}, true
	case "json_search":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				var one bool
				switch strings.ToLower(v[1].(string)) {
				case "one":
					one = true
				case "all":
				default:
					return errorf(ErrType, "%s: the one_or_all argument %q is neither 'one' nor 'all'", name, v[1])
				}
				d := doc(v, 0)
				if d == nil {
					return nil
				}
				paths := searchJSON(d, compileLike(v[2].(string), '\\'), "$", nil, one)
				switch len(paths) {
				case 0:
					return nil
				case 1:
					return quoteJSON(paths[0])
				}
				out := &jnode{k: jArr}
				for _, p := range paths {
					out.items = append(out.items, &jnode{k: jStr, s: p})
				}
				return out.text()
			}), nil
		}, true
	}
	return nil, false
}

// jsonInt converts a JSON value as CAST(json AS INT/BIGINT) does: integers
// in range, doubles truncated toward zero when in range, booleans as 1/0;
// anything else is NULL.
func jsonInt(n *jnode, lo, hi int64) any {
	switch n.k {
	case jBool:
		if n.b {
			return int64(1)
		}
		return int64(0)
	case jNum:
		if v, err := strconv.ParseInt(n.s, 10, 64); err == nil {
			if v < lo || v > hi {
				return nil
			}
			return v
		}
		f, err := strconv.ParseFloat(n.s, 64)
		if err != nil || math.IsNaN(f) {
			return nil
		}
		f = math.Trunc(f)
		if f < float64(lo) || f >= float64(hi) {
			return nil
		}
		return int64(f)
	}
	return nil
}

// constPath parses a constant path once, at bind time, where a bad one is
// an error naming the function; other paths are parsed per row.
func constPath(fn string, e Expr) (*jpath, error) {
	l, ok := e.(*Literal)
	if !ok || l.Value == nil {
		return nil, nil
	}
	s, _ := l.Value.(string)
	p, ok := parseJSONPath(s)
	if !ok {
		return nil, errorf(ErrType, "%s: invalid JSON path %s", fn, l)
	}
	return &p, nil
}

func rowPath(fn string, fixed *jpath, v any) (jpath, error) {
	if fixed != nil {
		return *fixed, nil
	}
	s, _ := v.(string)
	p, ok := parseJSONPath(s)
	if !ok {
		return p, errorf(ErrType, "%s: invalid JSON path %q", fn, s)
	}
	return p, nil
}

// jsonValueArgs prepares arguments that become JSON values: the cast each
// needs and the conversion of its canonical value (NULL gives JSON null).
func jsonValueArgs(args []Expr) ([]Expr, []func(any) *jnode) {
	cargs := make([]Expr, len(args))
	convs := make([]func(any) *jnode, len(args))
	for i, a := range args {
		cargs[i], convs[i] = jsonValueArg(a)
	}
	return cargs, convs
}

func jsonValueArg(e Expr) (Expr, func(any) *jnode) {
	null := &jnode{k: jNull}
	t := e.DataType()
	switch {
	case isJSONExpr(e):
		return e, func(v any) *jnode {
			s, ok := v.(string)
			if !ok {
				return null
			}
			if n, ok := parseJSON(s); ok {
				return n
			}
			return &jnode{k: jStr, s: s}
		}
	case isInt(t):
		return coerce(e, Int64T()), func(v any) *jnode {
			x, ok := v.(int64)
			if !ok {
				return null
			}
			return numberNode(strconv.FormatInt(x, 10), true)
		}
	case isFloat(t):
		return coerce(e, Float64T()), func(v any) *jnode {
			x, ok := v.(float64)
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				return null
			}
			return floatNode(x)
		}
	case isDecimal(t):
		// Decimal text keeps its scale's digits as a JSON number.
		return coerce(e, StringT()), func(v any) *jnode {
			s, ok := v.(string)
			if !ok {
				return null
			}
			return &jnode{k: jNum, s: s, num: "double"}
		}
	case t.ID() == arrow.BOOL:
		return e, func(v any) *jnode {
			b, ok := v.(bool)
			if !ok {
				return null
			}
			return &jnode{k: jBool, b: b}
		}
	}
	return coerce(e, StringT()), func(v any) *jnode {
		s, ok := v.(string)
		if !ok {
			return null
		}
		return &jnode{k: jStr, s: s}
	}
}

func isJSONExpr(e Expr) bool {
	f, ok := e.(*rowFunc)
	return ok && jsonOut[f.name]
}

// sizedText is n's text, or the too-large error when it would exceed
// MaxStringBytes.
func sizedText(fn string, n *jnode) any {
	s := n.text()
	if int64(len(s)) > MaxStringBytes {
		return tooLarge(fn, int64(len(s)))
	}
	return s
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}
