package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Doris's MAP and STRUCT constructors and MAP predicates. A MAP keeps one
// entry per key: a repeated key keeps its last value, at the place of its
// last occurrence (Doris: map(1, 2, 2, 11, 1, 3) is {2:11, 1:3}). Doris
// also takes a NULL key; Inlet's maps are Arrow maps, whose keys cannot be
// NULL, so a NULL key fails the statement rather than vanish.

var errNullMapKey = errorf(ErrUnsupported, "a MAP key cannot be NULL")

// mapFunc builds map, map_contains_key, map_contains_value, map_entries,
// map_from_arrays, map_concat, struct and named_struct.
func mapFunc(name string, args []Expr) (builder, bool) {
	switch name {
	case "map":
		return func() (Expr, error) {
			if len(args)%2 != 0 {
				return nil, errorf(ErrArity, "map takes key, value pairs, got %d argument(s)", len(args))
			}
			kt, vt := arrow.DataType(NullT()), arrow.DataType(NullT())
			var err error
			for i := 0; i < len(args); i += 2 {
				if kt, err = ResultType(kt, args[i].DataType()); err != nil {
					return nil, errorf(ErrType, "map(...) keys: %v", err)
				}
				if vt, err = ResultType(vt, args[i+1].DataType()); err != nil {
					return nil, errorf(ErrType, "map(...) values: %v", err)
				}
			}
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, [2]arrow.DataType{kt, vt}[i%2])
			}
			return &rowFunc{name: name, args: cargs, ret: arrow.MapOf(kt, vt), fn: func(_ *Env, v []any) any {
				var m MapValue
				for i := 0; i < len(v); i += 2 {
					if v[i] == nil {
						return errNullMapKey
					}
					m = mapPut(m, v[i], v[i+1], kt)
				}
				return m
			}}, nil
		}, true
	case "map_contains_key", "map_contains_value":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			if args[0].DataType().ID() == arrow.NULL {
				return Null(BoolT()), nil
			}
			mt, ok := args[0].DataType().(*arrow.MapType)
			if !ok {
				return nil, errorf(ErrType, "%s(%s): not a map", name, args[0])
			}
			// Keys (values) and the probe compare in their common type, as
			// Doris casts both: 0.11 is not the DECIMAL(2,1) key 0.1.
			kt, vt := mt.KeyType(), mt.ItemType()
			var err error
			if name == "map_contains_value" {
				vt, err = ResultType(vt, args[1].DataType())
			} else {
				kt, err = ResultType(kt, args[1].DataType())
			}
			if err != nil {
				return nil, errorf(ErrType, "%s: %v", name, err)
			}
			et := kt
			if name == "map_contains_value" {
				et = vt
			}
			m, err := Cast(args[0], arrow.MapOf(kt, vt))
			if err != nil {
				return nil, err
			}
			probe := coerce(args[1], et)
			// NULL finds a NULL key or value (Doris: map_contains_value(
			// map(null, 1, 2, null), null) is 1); a NULL map is NULL.
			return &rowFunc{name: name, args: []Expr{m, probe}, ret: BoolT(), fn: func(_ *Env, v []any) any {
				if v[0] == nil {
					return nil
				}
				m := v[0].(MapValue)
				in := m.Keys
				if name == "map_contains_value" {
					in = m.Values
				}
				for _, x := range in {
					if sameValue(x, v[1], et) {
						return true
					}
				}
				return false
			}}, nil
		}, true
	case "map_entries":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			mt, ok := args[0].DataType().(*arrow.MapType)
			if !ok {
				return nil, errorf(ErrType, "%s(%s): not a map", name, args[0])
			}
			st := arrow.StructOf(arrow.Field{Name: "key", Type: mt.KeyType(), Nullable: true}, arrow.Field{Name: "value", Type: mt.ItemType(), Nullable: true})
			return strictFunc(name, args, []arrow.DataType{nil}, arrow.ListOf(st), func(_ *Env, v []any) any {
				m := v[0].(MapValue)
				out := make([]any, len(m.Keys))
				for i := range m.Keys {
					out[i] = []any{m.Keys[i], m.Values[i]}
				}
				return out
			}), nil
		}, true
	case "map_from_arrays":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			kt, ok1 := listElem(args[0].DataType())
			vt, ok2 := listElem(args[1].DataType())
			if !ok1 || !ok2 {
				return nil, errorf(ErrType, "%s(%s, %s): arguments must be arrays", name, args[0], args[1])
			}
			return strictFunc(name, args, []arrow.DataType{nil, nil}, arrow.MapOf(kt, vt), func(_ *Env, v []any) any {
				ks, vs := v[0].([]any), v[1].([]any)
				if len(ks) != len(vs) {
					return nil
				}
				var m MapValue
				for i := range ks {
					if ks[i] == nil {
						return errNullMapKey
					}
					m = mapPut(m, ks[i], vs[i], kt)
				}
				return m
			}), nil
		}, true
	case "map_concat":
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			var kt, vt arrow.DataType = NullT(), NullT()
			for _, a := range args {
				mt, ok := a.DataType().(*arrow.MapType)
				if !ok {
					if a.DataType().ID() == arrow.NULL {
						continue
					}
					return nil, errorf(ErrType, "%s(%s): not a map", name, a)
				}
				var err error
				if kt, err = ResultType(kt, mt.KeyType()); err != nil {
					return nil, errorf(ErrType, "%s keys: %v", name, err)
				}
				if vt, err = ResultType(vt, mt.ItemType()); err != nil {
					return nil, errorf(ErrType, "%s values: %v", name, err)
				}
			}
			rt := arrow.MapOf(kt, vt)
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, rt)
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, rt, func(_ *Env, v []any) any {
				var m MapValue
				for _, x := range v {
					xm := x.(MapValue)
					for i := range xm.Keys {
						m = mapPut(m, xm.Keys[i], xm.Values[i], kt)
					}
				}
				return m
			}), nil
		}, true
	case "struct", "named_struct":
		return func() (Expr, error) {
			var fields []arrow.Field
			var vals []Expr
			if name == "struct" {
				if err := arity(name, args, 1, -1); err != nil {
					return nil, err
				}
				for i, a := range args {
					// Doris names the fields of struct(...) col1, col2, ...
					fields = append(fields, arrow.Field{Name: "col" + strconv.Itoa(i+1), Type: a.DataType(), Nullable: true})
				}
				vals = args
			} else {
				if len(args) == 0 || len(args)%2 != 0 {
					return nil, errorf(ErrArity, "named_struct takes name, value pairs, got %d argument(s)", len(args))
				}
				seen := map[string]bool{}
				for i := 0; i < len(args); i += 2 {
					var s string
					l, ok := args[i].(*Literal)
					if ok {
						s, ok = l.Value.(string)
					}
					if !ok {
						return nil, errorf(ErrType, "named_struct: field name %s must be a constant string", args[i])
					}
					if seen[s] {
						return nil, errorf(ErrType, "named_struct: field name %q given twice", s)
					}
					seen[s] = true
					fields = append(fields, arrow.Field{Name: s, Type: args[i+1].DataType(), Nullable: true})
					vals = append(vals, args[i+1])
				}
			}
			return &rowFunc{name: name, args: vals, ret: arrow.StructOf(fields...), fn: func(_ *Env, v []any) any {
				return append([]any{}, v...)
			}}, nil
		}, true
	}
	return nil, false
}

// mapPut sets key k of m to v: a key already there (NULL matching NULL)
// moves to the end with the new value.
func mapPut(m MapValue, k, v any, kt arrow.DataType) MapValue {
	for i, x := range m.Keys {
		if sameValue(x, k, kt) {
			m.Keys = append(m.Keys[:i:i], m.Keys[i+1:]...)
			m.Values = append(m.Values[:i:i], m.Values[i+1:]...)
			break
		}
	}
	m.Keys = append(m.Keys, k)
	m.Values = append(m.Values, v)
	return m
}

// sameValue is equality with NULL equal to NULL (<=>).
func sameValue(a, b any, t arrow.DataType) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareAny(a, b, t) == 0
}

func listElem(t arrow.DataType) (arrow.DataType, bool) {
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST:
		return t.(arrow.ListLikeType).Elem(), true
	}
	return nil, false
}
