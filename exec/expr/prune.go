package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Nested column pruning: a struct column that a query reads only through
// struct_element(col, 'f') (or col.f) chains is scanned as a struct of just
// those fields. The binder finds the paths (StructField), PruneType builds
// the narrower type, and readers narrow what they read with Prune, which
// picks child arrays by field name without copying values.

// StructField reports whether e reads one field of a struct
// (struct_element(x, 'name') or x.name): its operand and the field's name.
func StructField(e Expr) (Expr, string, bool) {
	f, ok := e.(*rowFunc)
	if !ok || f.name != "struct_element" || f.field == "" || len(f.args) != 1 {
		return nil, "", false
	}
	return f.args[0], f.field, true
}

// PruneType narrows t to the given field paths: a struct keeps, in its own
// order, the fields some path starts with, each narrowed to the rest of
// those paths. An empty path (the whole value is read) keeps t as it is.
func PruneType(t arrow.DataType, paths [][]string) arrow.DataType {
	st, ok := t.(*arrow.StructType)
	if !ok || len(paths) == 0 {
		return t
	}
	rest := map[string][][]string{}
	for _, p := range paths {
		if len(p) == 0 {
			return t
		}
		k := strings.ToLower(p[0])
		rest[k] = append(rest[k], p[1:])
	}
	var fields []arrow.Field
	for _, f := range st.Fields() {
		sub, ok := rest[strings.ToLower(f.Name)]
		if !ok {
			continue
		}
		whole := false
		for _, s := range sub {
			whole = whole || len(s) == 0
		}
		if !whole {
			f.Type = PruneType(f.Type, sub)
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return t
	}
	return arrow.StructOf(fields...)
}

// Prunable reports whether Prune can narrow a value of type from to type to:
// structs whose every target field is a source field of the same name,
// itself prunable, or castable when it is not a struct.
func Prunable(from, to arrow.DataType) bool {
	if arrow.TypeEqual(from, to) {
		return true
	}
	fs, ok1 := from.(*arrow.StructType)
	ts, ok2 := to.(*arrow.StructType)
	if !ok1 || !ok2 {
		return from.ID() != arrow.STRUCT && to.ID() != arrow.STRUCT && castable(from, to)
	}
	for _, f := range ts.Fields() {
		i, ok := fs.FieldIdx(f.Name)
		if !ok || !Prunable(fs.Field(i).Type, f.Type) {
			return false
		}
	}
	return true
}

// Prune narrows e's struct value to type to (see Prunable).
func Prune(e Expr, to arrow.DataType) (Expr, error) {
	if arrow.TypeEqual(e.DataType(), to) {
		return e, nil
	}
	if !Prunable(e.DataType(), to) {
		return nil, errorf(ErrType, "cannot prune %s to %s", TypeName(e.DataType()), TypeName(to))
	}
	return &pruneExpr{arg: e, to: to}, nil
}

type pruneExpr struct {
	arg Expr
	to  arrow.DataType
}

func (p *pruneExpr) DataType() arrow.DataType { return p.to }
func (p *pruneExpr) Children() []Expr         { return []Expr{p.arg} }
func (p *pruneExpr) String() string           { return p.arg.String() }

func (p *pruneExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	in, err := p.arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	d, err := pruneData(env, in.Data(), p.to)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// pruneData shares the validity buffer and the kept children of a struct;
// no value is copied, except leaves whose type differs, which are cast.
// The result is a new reference.
func pruneData(env *Env, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	if arrow.TypeEqual(d.DataType(), to) {
		d.Retain()
		return d, nil
	}
	fs, ok1 := d.DataType().(*arrow.StructType)
	ts, ok2 := to.(*arrow.StructType)
	if !ok1 || !ok2 {
		if !Prunable(d.DataType(), to) {
			return nil, fmt.Errorf("%w: cannot prune %s to %s", ErrType, d.DataType(), to)
		}
		in := array.MakeFromData(d)
		defer in.Release()
		out := castArray(env, in, to)
		defer out.Release()
		od := out.Data()
		od.Retain()
		return od, nil
	}
	children := make([]arrow.ArrayData, ts.NumFields())
	release := func() {
		for _, c := range children {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, f := range ts.Fields() {
		j, ok := fs.FieldIdx(f.Name)
		if !ok {
			release()
			return nil, fmt.Errorf("%w: struct %s has no field %q", ErrType, d.DataType(), f.Name)
		}
		c, err := pruneData(env, d.Children()[j], f.Type)
		if err != nil {
			release()
			return nil, err
		}
		children[i] = c
	}
	defer release()
	bufs := d.Buffers()
	return array.NewData(to, d.Len(), bufs[:1], children, d.NullN(), d.Offset()), nil
}
