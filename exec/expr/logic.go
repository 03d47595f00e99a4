package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// LogicOp is AND or OR.
type LogicOp int

const (
	AndOp LogicOp = iota
	OrOp
)

// LogicExpr is a Kleene AND/OR over two or more operands: AND is false if
// any operand is false, else NULL if any is NULL; OR is true if any is
// true, else NULL if any is NULL.
type LogicExpr struct {
	Op   LogicOp
	Args []Expr
}

func toBool(e Expr) (Expr, error) {
	t := e.DataType()
	if t.ID() == arrow.BOOL {
		return e, nil
	}
	if isNull(t) || isNumeric(t) || isString(t) {
		return coerce(e, BoolT()), nil
	}
	return nil, errorf(ErrType, "%s of type %s used as a condition", e, TypeName(t))
}

// And is the Kleene conjunction of args (at least one).
func And(args ...Expr) (Expr, error) { return logic(AndOp, args) }

// Or is the Kleene disjunction of args (at least one).
func Or(args ...Expr) (Expr, error) { return logic(OrOp, args) }

func logic(op LogicOp, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, errorf(ErrArity, "AND/OR needs at least one operand")
	}
	out := &LogicExpr{Op: op}
	for _, a := range args {
		b, err := toBool(a)
		if err != nil {
			return nil, err
		}
		// Flatten nested ANDs/ORs of the same kind.
		if l, ok := b.(*LogicExpr); ok && l.Op == op {
			out.Args = append(out.Args, l.Args...)
			continue
		}
		out.Args = append(out.Args, b)
	}
	if len(out.Args) == 1 {
		return out.Args[0], nil
	}
	return out, nil
}

func (l *LogicExpr) DataType() arrow.DataType { return BoolT() }
func (l *LogicExpr) Children() []Expr         { return l.Args }
func (l *LogicExpr) String() string {
	sep := " AND "
	if l.Op == OrOp {
		sep = " OR "
	}
	parts := make([]string, len(l.Args))
	for i, a := range l.Args {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// Eval evaluates the operands in order. Once at least half of the rows
// are decided (FALSE for AND, TRUE for OR), later operands are evaluated
// only on the undecided rows: less work for selective predicates, and, as
// in MySQL's short circuit, guards like b <> 0 AND a DIV b > 1 keep most
// guarded rows away from the guarded operand.
func (l *LogicExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	val := make([]bool, n)
	null := make([]bool, n)
	absorbing := l.Op == OrOp
	for i := range val {
		val[i] = !absorbing
	}
	var open []int // undecided rows, once restricted
	for k, a := range l.Args {
		var rows []int
		if k > 0 {
			rows = open[:0]
			for i := 0; i < n; i++ {
				if val[i] != absorbing || null[i] {
					rows = append(rows, i)
				}
			}
			if len(rows) == 0 {
				break
			}
			if len(rows) > n/2 {
				rows = nil // not worth gathering
			}
			open = rows
		}
		var arr arrow.Array
		var err error
		if rows == nil {
			arr, err = a.Eval(env, batch)
		} else {
			arr, err = evalRows(env, a, batch, rows)
		}
		if err != nil {
			return nil, err
		}
		ba := arr.(*array.Boolean)
		hasNulls := ba.NullN() > 0
		m := ba.Len()
		for j := 0; j < m; j++ {
			i := j
			if rows != nil {
				i = rows[j]
			}
			if val[i] == absorbing && !null[i] {
				continue
			}
			if hasNulls && ba.IsNull(j) {
				null[i] = true
				continue
			}
			if ba.Value(j) == absorbing {
				val[i] = absorbing
				null[i] = false
			}
		}
		arr.Release()
	}
	// A row ends NULL only if no operand decided it.
	valid := make([]bool, n)
	anyNull := false
	for i := range valid {
		if null[i] && val[i] != absorbing {
			anyNull = true
			continue
		}
		valid[i] = true
	}
	if !anyNull {
		valid = nil
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(val, valid)
	return b.NewArray(), nil
}

// NotExpr is Kleene negation: NOT NULL is NULL.
type NotExpr struct{ Arg Expr }

// Not negates e.
func Not(e Expr) (Expr, error) {
	b, err := toBool(e)
	if err != nil {
		return nil, err
	}
	return &NotExpr{Arg: b}, nil
}

func (n *NotExpr) DataType() arrow.DataType { return BoolT() }
func (n *NotExpr) Children() []Expr         { return []Expr{n.Arg} }
func (n *NotExpr) String() string           { return "(NOT " + n.Arg.String() + ")" }
func (n *NotExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arr, err := n.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	ba := arr.(*array.Boolean)
	out := make([]bool, ba.Len())
	for i := range out {
		out[i] = !ba.Value(i)
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, validity(ba))
	return b.NewArray(), nil
}

// IsNullExpr is e IS NULL (or IS NOT NULL when Negated); never NULL.
type IsNullExpr struct {
	Arg     Expr
	Negated bool
}

// IsNull builds e IS NULL, or e IS NOT NULL when not is set.
func IsNull(e Expr, not bool) Expr { return &IsNullExpr{Arg: e, Negated: not} }

func (n *IsNullExpr) DataType() arrow.DataType { return BoolT() }
func (n *IsNullExpr) Children() []Expr         { return []Expr{n.Arg} }
func (n *IsNullExpr) String() string {
	if n.Negated {
		return n.Arg.String() + " IS NOT NULL"
	}
	return n.Arg.String() + " IS NULL"
}
func (n *IsNullExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arr, err := n.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	out := make([]bool, arr.Len())
	// An Arrow NULL-typed array has no validity bitmap, so its IsNull
	// answers false; every one of its values is NULL.
	allNull := arr.DataType().ID() == arrow.NULL
	for i := range out {
		out[i] = (allNull || arr.IsNull(i)) != n.Negated
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, nil)
	return b.NewArray(), nil
}

// Between builds e BETWEEN lo AND hi (NOT BETWEEN when not is set) as
// (e >= lo AND e <= hi), which gives the SQL NULL behaviour.
func Between(e, lo, hi Expr, not bool) (Expr, error) {
	ge, err := Cmp(Ge, e, lo)
	if err != nil {
		return nil, err
	}
	le, err := Cmp(Le, e, hi)
	if err != nil {
		return nil, err
	}
	both, err := And(ge, le)
	if err != nil {
		return nil, err
	}
	if not {
		return Not(both)
	}
	return both, nil
}

// InExpr is e [NOT] IN (constant list), evaluated with a hash set: TRUE on
// a match, else NULL if e or any list item is NULL, else FALSE.
type InExpr struct {
	Arg     Expr
	List    []*Literal
	Negated bool
	set     map[any]struct{}
	hasNull bool
	// ints and strs hold set again, unboxed, for the typed loops over
	// BIGINT and STRING arguments.
	ints map[int64]struct{}
	strs map[string]struct{}
	// floats and decs do the same for DOUBLE/FLOAT and DECIMAL; ints also
	// serves narrow integers, DATE (days) and DATETIME (microseconds).
	floats map[float64]struct{}
	decs   map[decimal128.Num]struct{}
	// probe is the list compiled for the common types (in_kernel.go);
	// nil: the maps above serve.
	probe *inProbe
}

// In builds e IN (list), or NOT IN when not is set. Constant lists use a
// hash set; lists with expressions become a chain of = joined by OR.
func In(e Expr, list []Expr, not bool) (Expr, error) {
	if len(list) == 0 {
		return nil, errorf(ErrArity, "IN needs at least one value")
	}
	t := e.DataType()
	allLit := true
	for _, x := range list {
		var err error
		if t, err = CommonType(t, x.DataType()); err != nil {
			return nil, errorf(ErrType, "%s IN (...): %v", e, err)
		}
		if _, ok := x.(*Literal); !ok {
			allLit = false
		}
	}
	if !allLit || !comparable(t) {
		return inAsOr(e, list, not)
	}
	in := &InExpr{Arg: coerce(e, t), Negated: not, set: map[any]struct{}{}}
	for _, x := range list {
		l, ok := coerce(x, t).(*Literal)
		if !ok {
			// A constant only evaluation can convert (wall-clock time in
			// the session's zone): compare one by one.
			return inAsOr(e, list, not)
		}
		in.List = append(in.List, l)
		if l.Value == nil {
			in.hasNull = true
			continue
		}
		in.set[l.Value] = struct{}{}
	}
	switch t.ID() {
	case arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.DATE32, arrow.TIMESTAMP:
		in.ints = map[int64]struct{}{}
		for v := range in.set {
			switch x := v.(type) {
			case int64:
				in.ints[x] = struct{}{}
			case arrow.Date32:
				in.ints[int64(x)] = struct{}{}
			case arrow.Timestamp:
				in.ints[int64(x)] = struct{}{}
			}
		}
	case arrow.FLOAT64, arrow.FLOAT32:
		in.floats = map[float64]struct{}{}
		for v := range in.set {
			in.floats[v.(float64)] = struct{}{}
		}
	case arrow.DECIMAL128:
		in.decs = map[decimal128.Num]struct{}{}
		for v := range in.set {
			in.decs[v.(decimal128.Num)] = struct{}{}
		}
	case arrow.STRING:
		in.strs = map[string]struct{}{}
		for v := range in.set {
			in.strs[v.(string)] = struct{}{}
		}
	}
	in.probe = compileInProbe(in)
	return in, nil
}

// inAsOr is e IN (list) as a chain of = joined by OR (NOT of it when not).
func inAsOr(e Expr, list []Expr, not bool) (Expr, error) {
	var ors []Expr
	for _, x := range list {
		c, err := Cmp(Eq, e, x)
		if err != nil {
			return nil, err
		}
		ors = append(ors, c)
	}
	o, err := Or(ors...)
	if err != nil {
		return nil, err
	}
	if not {
		return Not(o)
	}
	return o, nil
}

func (n *InExpr) DataType() arrow.DataType { return BoolT() }
func (n *InExpr) Children() []Expr {
	out := []Expr{n.Arg}
	for _, l := range n.List {
		out = append(out, l)
	}
	return out
}
func (n *InExpr) String() string {
	parts := make([]string, len(n.List))
	for i, l := range n.List {
		parts[i] = l.String()
	}
	kw := " IN ("
	if n.Negated {
		kw = " NOT IN ("
	}
	return n.Arg.String() + kw + strings.Join(parts, ", ") + ")"
}

func (n *InExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arr, err := n.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	if out, ok := n.evalProbe(env.Mem, arr); ok {
		return out, nil
	}
	var lookup func(i int) (hit, null bool)
	switch x := arr.(type) {
	case *array.Int64:
		lookup = setLookup(n.ints, x, x.Int64Values())
	case *array.Int32:
		lookup = intLookup(n.ints, x, x.Int32Values(), 1, 1)
	case *array.Int16:
		lookup = intLookup(n.ints, x, x.Int16Values(), 1, 1)
	case *array.Int8:
		lookup = intLookup(n.ints, x, x.Int8Values(), 1, 1)
	case *array.Uint8:
		lookup = intLookup(n.ints, x, x.Uint8Values(), 1, 1)
	case *array.Uint16:
		lookup = intLookup(n.ints, x, x.Uint16Values(), 1, 1)
	case *array.Uint32:
		lookup = intLookup(n.ints, x, x.Uint32Values(), 1, 1)
	case *array.Date32:
		lookup = intLookup(n.ints, x, x.Date32Values(), 1, 1)
	case *array.Timestamp:
		mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
		lookup = intLookup(n.ints, x, x.TimestampValues(), mul, div)
	case *array.Float64:
		lookup = setLookup(n.floats, x, x.Float64Values())
	case *array.Decimal128:
		lookup = setLookup(n.decs, x, x.Values())
	case *array.String:
		if n.strs != nil {
			lookup = func(i int) (bool, bool) {
				if x.IsNull(i) {
					return false, true
				}
				_, hit := n.strs[x.Value(i)]
				return hit, false
			}
		}
	}
	if lookup == nil {
		g := Getter(arr)
		lookup = func(i int) (bool, bool) {
			v := g(i)
			if v == nil {
				return false, true
			}
			_, hit := n.set[v]
			return hit, false
		}
	}
	out := make([]bool, arr.Len())
	valid := make([]bool, arr.Len())
	anyNull := false
	for i := range out {
		hit, null := lookup(i)
		if null {
			anyNull = true
			continue
		}
		if !hit && n.hasNull {
			anyNull = true
			continue
		}
		out[i] = hit != n.Negated
		valid[i] = true
	}
	if !anyNull {
		valid = nil
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}

// intLookup is IN's probe over an integer-valued array (narrow integers,
// DATE days, DATETIME in its unit), each value read as Getter reads it
// (v·mul/div) and looked up unboxed; nil when the set is not an int set.
func intLookup[T int8 | int16 | int32 | uint8 | uint16 | uint32 | arrow.Date32 | arrow.Timestamp](set map[int64]struct{}, a arrow.Array, vs []T, mul, div int64) func(i int) (bool, bool) {
	if set == nil {
		return nil
	}
	return func(i int) (bool, bool) {
		if a.IsNull(i) {
			return false, true
		}
		_, hit := set[int64(vs[i])*mul/div]
		return hit, false
	}
}

// setLookup is IN's probe over an array whose values are the set's keys
// as they are (BIGINT, DOUBLE, DECIMAL); nil when the set is not of that
// kind.
func setLookup[K int64 | float64 | decimal128.Num](set map[K]struct{}, a arrow.Array, vs []K) func(i int) (bool, bool) {
	if set == nil {
		return nil
	}
	return func(i int) (bool, bool) {
		if a.IsNull(i) {
			return false, true
		}
		_, hit := set[vs[i]]
		return hit, false
	}
}
