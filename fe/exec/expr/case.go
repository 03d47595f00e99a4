package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// When is one WHEN cond THEN result arm.
type When struct {
	Cond, Then Expr
}

// CaseExpr is a searched CASE: the first arm whose condition is TRUE (not
// NULL) gives the value, else Else (NULL when absent). All arms are
// evaluated on the whole batch; their errors are plan errors, so computing
// an unused arm changes no result.
type CaseExpr struct {
	Whens []When
	Else  Expr
	typ   arrow.DataType
	name  string // "CASE", "IF", ... for EXPLAIN
}

// Case builds CASE [operand] WHEN ... THEN ... [ELSE ...] END. With an
// operand, each WHEN value is compared to it with =.
func Case(operand Expr, whens []When, els Expr) (Expr, error) {
	if len(whens) == 0 {
		return nil, errorf(ErrArity, "CASE needs at least one WHEN")
	}
	c := &CaseExpr{name: "CASE"}
	t := arrow.DataType(NullT())
	for _, w := range whens {
		var err error
		if t, err = CommonType(t, w.Then.DataType()); err != nil {
			return nil, errorf(ErrType, "CASE result types: %v", err)
		}
	}
	if els != nil {
		var err error
		if t, err = CommonType(t, els.DataType()); err != nil {
			return nil, errorf(ErrType, "CASE result types: %v", err)
		}
	}
	for _, w := range whens {
		cond := w.Cond
		var err error
		if operand != nil {
			cond, err = Cmp(Eq, operand, w.Cond)
		} else {
			cond, err = toBool(cond)
		}
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond, Then: coerce(w.Then, t)})
	}
	if els != nil {
		c.Else = coerce(els, t)
	}
	c.typ = t
	return c, nil
}

// If is IF(cond, a, b).
func If(cond, a, b Expr) (Expr, error) {
	e, err := Case(nil, []When{{Cond: cond, Then: a}}, b)
	if err != nil {
		return nil, err
	}
	e.(*CaseExpr).name = "if"
	return e, nil
}

func (c *CaseExpr) DataType() arrow.DataType { return c.typ }
func (c *CaseExpr) Children() []Expr {
	var out []Expr
	for _, w := range c.Whens {
		out = append(out, w.Cond, w.Then)
	}
	if c.Else != nil {
		out = append(out, c.Else)
	}
	return out
}
func (c *CaseExpr) String() string {
	if c.name == "if" {
		return "if(" + c.Whens[0].Cond.String() + ", " + c.Whens[0].Then.String() + ", " + c.Else.String() + ")"
	}
	var sb strings.Builder
	sb.WriteString("CASE")
	for _, w := range c.Whens {
		sb.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if c.Else != nil {
		sb.WriteString(" ELSE " + c.Else.String())
	}
	sb.WriteString(" END")
	return sb.String()
}

func (c *CaseExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	chosen := make([]int, n) // arm index+1; 0 = none yet
	var thens []arrow.Array
	defer func() { releaseAll(thens) }()
	for k, w := range c.Whens {
		cond, err := w.Cond.Eval(env, batch)
		if err != nil {
			return nil, err
		}
		ba := cond.(*array.Boolean)
		for i := 0; i < n; i++ {
			if chosen[i] == 0 && ba.IsValid(i) && ba.Value(i) {
				chosen[i] = k + 1
			}
		}
		cond.Release()
		th, err := w.Then.Eval(env, batch)
		if err != nil {
			return nil, err
		}
		thens = append(thens, th)
	}
	var els arrow.Array
	if c.Else != nil {
		var err error
		if els, err = c.Else.Eval(env, batch); err != nil {
			return nil, err
		}
		defer els.Release()
	}
	getters := make([]func(int) any, len(thens))
	for i, t := range thens {
		getters[i] = Getter(t)
	}
	var ge func(int) any
	if els != nil {
		ge = Getter(els)
	}
	b := array.NewBuilder(env.Mem, c.typ)
	defer b.Release()
	b.Reserve(n)
	app := Appender(b)
	for i := 0; i < n; i++ {
		switch {
		case chosen[i] > 0:
			app(getters[chosen[i]-1](i))
		case ge != nil:
			app(ge(i))
		default:
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

// Coalesce returns the first non-NULL argument (IFNULL is the two-argument
// form).
func Coalesce(args ...Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, errorf(ErrArity, "coalesce needs at least one argument")
	}
	t := arrow.DataType(NullT())
	for _, a := range args {
		var err error
		if t, err = CommonType(t, a.DataType()); err != nil {
			return nil, errorf(ErrType, "coalesce: %v", err)
		}
	}
	cargs := make([]Expr, len(args))
	for i, a := range args {
		cargs[i] = coerce(a, t)
	}
	return &rowFunc{name: "coalesce", args: cargs, ret: t, fn: func(_ *Env, v []any) any {
		for _, x := range v {
			if x != nil {
				return x
			}
		}
		return nil
	}}, nil
}

// NullIf is NULLIF(a, b): NULL when a = b, else a.
func NullIf(a, b Expr) (Expr, error) {
	t, err := CommonType(a.DataType(), b.DataType())
	if err != nil {
		return nil, errorf(ErrType, "nullif: %v", err)
	}
	ca, cb := coerce(a, t), coerce(b, t)
	ret := a.DataType()
	return &rowFunc{name: "nullif", args: []Expr{a, ca, cb}, ret: ret,
		show: func() string { return "nullif(" + a.String() + ", " + b.String() + ")" },
		fn: func(_ *Env, v []any) any {
			if v[1] != nil && v[2] != nil && compareAny(v[1], v[2], t) == 0 {
				return nil
			}
			return v[0]
		}}, nil
}
