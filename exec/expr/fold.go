package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// volatile names functions whose value changes from row to row (or keeps
// state between rows, as rand(seed) does): they are never folded, and so
// neither is anything above them.
var volatile = map[string]bool{
	"rand": true, "random": true, "uuid": true, "uuid_numeric": true, "random_bytes": true,
	"array_shuffle": true, "shuffle": true,
}

// foldableNullary are the functions without arguments that are true
// constants. Every other one without arguments reads the statement
// (now(), curdate(), unix_timestamp(), ...) or is random, and stays as it
// is: the fold may run at bind time with an instant other than the one the
// statement is evaluated with.
var foldableNullary = map[string]bool{"pi": true, "e": true}

// Fold replaces every subtree of e whose operands are all literals by the
// literal of its value, computed once with the real kernels over a one-row
// batch. The result has e's type and gives the same rows as e. A subtree
// is left as it is when its evaluation fails (overflow, a string over the
// limit, ...), so the error surfaces only when rows are evaluated, exactly
// as without folding; when it is volatile (rand, uuid); when it reads the
// statement's instant; and when it is a node this package does not know
// (aggregate argument packs and other markers of the planner), which is
// not descended either. env supplies the allocator of the one-row
// evaluation and the session time zone; nothing it allocates outlives the
// call.
func Fold(env *Env, e Expr) Expr {
	if env == nil || env.Mem == nil || e == nil {
		return e
	}
	return fold(env, e)
}

func fold(env *Env, e Expr) Expr {
	switch e.(type) {
	case *Literal, *ColumnRef:
		return e
	}
	kids := e.Children()
	folded := make([]Expr, len(kids))
	changed := false
	for i, k := range kids {
		folded[i] = fold(env, k)
		changed = changed || folded[i] != k
	}
	n := e
	if changed {
		var ok bool
		if n, ok = withChildren(e, folded); !ok {
			return e
		}
	}
	if !foldable(n, folded) {
		return n
	}
	if l, ok := foldValue(env, n); ok {
		return l
	}
	return n
}

// foldable reports whether n itself may be replaced by its value once its
// operands (kids) are known.
func foldable(n Expr, kids []Expr) bool {
	for _, k := range kids {
		if _, ok := k.(*Literal); !ok {
			return false
		}
	}
	switch x := n.(type) {
	case *ArithExpr, *CastExpr, *LogicExpr, *NotExpr, *IsNullExpr, *InExpr, *CmpExpr, *CaseExpr, *LikeExpr:
		return true
	case *rowFunc:
		name := strings.ToLower(x.name)
		if volatile[name] || jsonOut[x.name] {
			// A JSON result is known as JSON by its node (isJSONExpr):
			// as a string literal it would be quoted by its parent.
			return false
		}
		return len(kids) > 0 || foldableNullary[name]
	}
	return false
}

// withChildren rebuilds n over kids (same order as n.Children()); ok is
// false for node kinds it does not know.
func withChildren(n Expr, kids []Expr) (Expr, bool) {
	switch x := n.(type) {
	case *ArithExpr:
		c := *x
		c.L, c.R = kids[0], kids[1]
		return &c, true
	case *CastExpr:
		c := *x
		c.Arg = kids[0]
		return &c, true
	case *LogicExpr:
		c := *x
		c.Args = kids
		return &c, true
	case *NotExpr:
		return &NotExpr{Arg: kids[0]}, true
	case *IsNullExpr:
		c := *x
		c.Arg = kids[0]
		return &c, true
	case *CmpExpr:
		c := *x
		c.L, c.R = kids[0], kids[1]
		return &c, true
	case *LikeExpr:
		c := *x
		c.Arg, c.Pattern = kids[0], kids[1]
		c.compiled = nil
		if lit, ok := c.Pattern.(*Literal); ok && lit.Value != nil {
			c.compiled = compileLike(lit.Value.(string), c.Escape)
		}
		return &c, true
	case *InExpr:
		if len(x.Children()) != len(kids) {
			return nil, false
		}
		c := *x
		c.Arg = kids[0]
		return &c, true
	case *CaseExpr:
		if len(x.Children()) != len(kids) {
			return nil, false
		}
		c := *x
		c.Whens = make([]When, len(x.Whens))
		for i := range x.Whens {
			c.Whens[i] = When{Cond: kids[2*i], Then: kids[2*i+1]}
		}
		if x.Else != nil {
			c.Else = kids[2*len(x.Whens)]
		}
		return &c, true
	case *pruneExpr:
		return &pruneExpr{arg: kids[0], to: x.to}, true
	case *rowFunc:
		c := *x
		c.args = kids
		return &c, true
	}
	return nil, false
}

// foldValue evaluates n over one row of no columns and returns its value as
// a literal of n's exact type, if that value survives the round trip.
func foldValue(env *Env, n Expr) (*Literal, bool) {
	t := n.DataType()
	if !scalarType(t) {
		return nil, false
	}
	batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer batch.Release()
	arr, err := n.Eval(env, batch)
	if err != nil {
		return nil, false
	}
	defer arr.Release()
	if arr.Len() != 1 || !arrow.TypeEqual(arr.DataType(), t) {
		return nil, false
	}
	if arr.IsNull(0) {
		return Null(t), true
	}
	l, err := Lit(Getter(arr)(0), t)
	if err != nil || !arrow.TypeEqual(l.Type, t) {
		return nil, false
	}
	// The literal must rebuild the very value the kernels produced.
	back := constArray(env.Mem, t, l.Value, 1)
	defer back.Release()
	if !array.Equal(arr, back) {
		return nil, false
	}
	return l, true
}

// scalarType: the folds keep to the types whose literals print and compare
// plainly; nested values stay as they are.
func scalarType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.STRING, arrow.LARGE_STRING, arrow.DATE32, arrow.TIMESTAMP:
		return true
	}
	return false
}

// MapColumns rebuilds e with every column reference replaced by f's
// result (a planner moving an expression onto other input positions). ok
// is false when e holds a node kind that cannot be rebuilt.
func MapColumns(e Expr, f func(*ColumnRef) Expr) (Expr, bool) {
	switch x := e.(type) {
	case *ColumnRef:
		return f(x), true
	case *Literal:
		return e, true
	}
	kids := e.Children()
	if len(kids) == 0 {
		return nil, false // a node of columns this package cannot see
	}
	mapped := make([]Expr, len(kids))
	for i, k := range kids {
		m, ok := MapColumns(k, f)
		if !ok {
			return nil, false
		}
		mapped[i] = m
	}
	return withChildren(e, mapped)
}

// Volatile reports whether e calls a function whose value changes from row
// to row (rand, uuid, ...): a plan that computes e twice sees other values.
func Volatile(e Expr) bool {
	if f, ok := e.(*rowFunc); ok && volatile[strings.ToLower(f.name)] {
		return true
	}
	for _, c := range e.Children() {
		if Volatile(c) {
			return true
		}
	}
	return false
}
