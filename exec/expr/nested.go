package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Element is e[key]: for an ARRAY the 1-based index (negative counts from
// the end, out of range gives NULL), for a MAP the value of the first entry
// whose key equals key (absent gives NULL), for a STRUCT a constant field
// name or 1-based position.
func Element(e, key Expr) (Expr, error) {
	t := e.DataType()
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST:
		elem := t.(arrow.ListLikeType).Elem()
		f := strictFunc("element_at", []Expr{e, key}, []arrow.DataType{nil, Int64T()}, elem, func(_ *Env, v []any) any {
			l, k := v[0].([]any), v[1].(int64)
			if k < 0 {
				k = int64(len(l)) + k + 1
			}
			if k < 1 || k > int64(len(l)) {
				return nil
			}
			return l[k-1]
		})
		f.show = func() string { return e.String() + "[" + key.String() + "]" }
		return f, nil
	case arrow.MAP:
		m := t.(*arrow.MapType)
		kt := m.KeyType()
		f := strictFunc("element_at", []Expr{e, key}, []arrow.DataType{nil, kt}, m.ItemType(), func(_ *Env, v []any) any {
			mv := v[0].(MapValue)
			for i, k := range mv.Keys {
				if k != nil && compareAny(k, v[1], kt) == 0 {
					return mv.Values[i]
				}
			}
			return nil
		})
		f.show = func() string { return e.String() + "[" + key.String() + "]" }
		return f, nil
	case arrow.STRUCT:
		l, ok := key.(*Literal)
		if !ok || l.Value == nil {
			return nil, errorf(ErrType, "struct field of %s must be a constant name or position", e)
		}
		switch k := l.Value.(type) {
		case string:
			return Field(e, k)
		case int64:
			st := t.(*arrow.StructType)
			if k < 1 || int(k) > st.NumFields() {
				return nil, errorf(ErrType, "struct %s has no field %d", e, k)
			}
			return Field(e, st.Field(int(k-1)).Name)
		}
	}
	return nil, errorf(ErrType, "%s of type %s cannot be subscripted", e, TypeName(t))
}

// Field is struct_col.name (case-insensitive match when no exact one).
func Field(e Expr, name string) (Expr, error) {
	st, ok := e.DataType().(*arrow.StructType)
	if !ok {
		return nil, errorf(ErrType, "%s of type %s is not a struct", e, TypeName(e.DataType()))
	}
	idx, found := st.FieldIdx(name)
	if !found {
		for i, f := range st.Fields() {
			if equalFold(f.Name, name) {
				idx, found = i, true
				break
			}
		}
	}
	if !found {
		return nil, errorf(ErrType, "struct %s has no field %q", e, name)
	}
	f := strictFunc("struct_element", []Expr{e}, []arrow.DataType{nil}, st.Field(idx).Type, func(_ *Env, v []any) any {
		return v[0].([]any)[idx]
	})
	f.show = func() string { return "struct_element(" + e.String() + ", '" + st.Field(idx).Name + "')" }
	f.field = st.Field(idx).Name
	return f, nil
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func nestedFunc(name string, args []Expr) (builder, bool) {
	switch name {
	case "element_at":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return Element(args[0], args[1])
		}, true
	case "struct_element":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			return Element(args[0], args[1])
		}, true
	case "size", "array_size", "cardinality", "map_size":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			id := args[0].DataType().ID()
			if id == arrow.NULL {
				return Null(Int64T()), nil
			}
			if id != arrow.LIST && id != arrow.LARGE_LIST && id != arrow.MAP {
				return nil, errorf(ErrType, "%s(%s): argument is %s, not an array or map", name, args[0], TypeName(args[0].DataType()))
			}
			return strictFunc(name, args, []arrow.DataType{nil}, Int64T(), func(_ *Env, v []any) any {
				if m, ok := v[0].(MapValue); ok {
					return int64(len(m.Keys))
				}
				return int64(len(v[0].([]any)))
			}), nil
		}, true
	case "map_keys", "map_values":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			m, ok := args[0].DataType().(*arrow.MapType)
			if !ok {
				return nil, errorf(ErrType, "%s(%s): not a map", name, args[0])
			}
			et := m.KeyType()
			if name == "map_values" {
				et = m.ItemType()
			}
			return strictFunc(name, args, []arrow.DataType{nil}, arrow.ListOf(et), func(_ *Env, v []any) any {
				mv := v[0].(MapValue)
				if name == "map_keys" {
					return append([]any{}, mv.Keys...)
				}
				return append([]any{}, mv.Values...)
			}), nil
		}, true
	case "reverse":
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{nil}, args[0].DataType(), func(_ *Env, v []any) any {
				l := v[0].([]any)
				out := make([]any, len(l))
				for i, x := range l {
					out[len(l)-1-i] = x
				}
				return out
			}), nil
		}, true
	case "array":
		return func() (Expr, error) {
			t := arrow.DataType(NullT())
			for _, a := range args {
				// Doris builds [1, 'a'] as ARRAY<STRING> (ResultType: a
				// string element makes the scalars strings).
				var err error
				if t, err = ResultType(t, a.DataType()); err != nil {
					return nil, errorf(ErrType, "array(...): %v", err)
				}
			}
			// [] and [NULL, ...] keep a NULL element type so that they
			// unify with any array (array_concat(['a'], []) is
			// ARRAY<STRING>), as Doris's ARRAY<NULL_TYPE> does.
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, t)
			}
			return &rowFunc{name: "array", args: cargs, ret: arrow.ListOf(t), fn: func(_ *Env, v []any) any {
				return append([]any{}, v...)
			}}, nil
		}, true
	}
	return nil, false
}
