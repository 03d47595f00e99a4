package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// When is one WHEN cond THEN result arm.
type When struct {
	Cond, Then Expr
}

// CaseExpr is a searched CASE: the first arm whose condition is TRUE (not
// NULL) gives the value, else Else (NULL when absent).
type CaseExpr struct {
	Whens []When
	Else  Expr
	typ   arrow.DataType
	name  string // "CASE", "IF", ... for EXPLAIN
	// rowwise makes Eval assemble the result value by value, as the
	// reference the typed assembly is tested against.
	rowwise bool
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
		if t, err = ResultType(t, w.Then.DataType()); err != nil {
			return nil, errorf(ErrType, "CASE result types: %v", err)
		}
	}
	if els != nil {
		var err error
		if t, err = ResultType(t, els.DataType()); err != nil {
			return nil, errorf(ErrType, "CASE result types: %v", err)
		}
	}
	if !supported(t) {
		return nil, errorf(ErrUnsupported, "CASE over values of type %s", t)
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

// Eval decides the arm of each row first, evaluating a WHEN only on the
// rows no earlier WHEN took, then evaluates each THEN (and ELSE) only on
// its own rows, so an arm's errors (an overflow) cannot come from rows
// that never reach it.
func (c *CaseExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	arm := make([]int, n) // 0 = ELSE, k+1 = WHEN k
	open := make([]int, n)
	for i := range open {
		open[i] = i
	}
	for k, w := range c.Whens {
		if len(open) == 0 {
			break
		}
		cond, err := evalRows(env, w.Cond, batch, open)
		if err != nil {
			return nil, err
		}
		ba := cond.(*array.Boolean)
		rest := make([]int, 0, len(open))
		for j, row := range open {
			if ba.IsValid(j) && ba.Value(j) {
				arm[row] = k + 1
			} else {
				rest = append(rest, row)
			}
		}
		cond.Release()
		open = rest
	}
	// Rows of each arm, and each row's position among them.
	rows := make([][]int, len(c.Whens)+1)
	counts := make([]int, len(rows))
	for _, a := range arm {
		counts[a]++
	}
	for a, k := range counts {
		rows[a] = make([]int, 0, k)
	}
	pos := make([]int, n)
	for i, a := range arm {
		pos[i] = len(rows[a])
		rows[a] = append(rows[a], i)
	}
	getters := make([]func(int) any, len(rows))
	byArm := make([]arrow.Array, len(rows)) // nil: the arm yields NULL
	var results []arrow.Array
	defer func() { releaseAll(results) }()
	for a, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		e := c.Else
		if a > 0 {
			e = c.Whens[a-1].Then
		}
		if e == nil {
			getters[a] = func(int) any { return nil }
			continue
		}
		var r arrow.Array
		var err error
		if _, col := e.(*ColumnRef); col && len(rs) < n {
			// A column cannot fail on rows the arm does not take, so it is
			// read whole instead of gathered: its rows keep their numbers.
			r, err = e.Eval(env, batch)
			for _, row := range rs {
				pos[row] = row
			}
		} else {
			r, err = evalRows(env, e, batch, rs)
		}
		if err != nil {
			return nil, err
		}
		results = append(results, r)
		byArm[a] = r
		getters[a] = Getter(r)
	}
	if !c.rowwise {
		if out, ok := caseAssemble(env, c.typ, arm, pos, byArm); ok {
			return out, nil
		}
		if out, ok := caseAssembleMore(env, c.typ, arm, pos, byArm); ok {
			return out, nil
		}
	}
	b := array.NewBuilder(env.Mem, c.typ)
	defer b.Release()
	b.Reserve(n)
	app := Appender(b)
	for i, a := range arm {
		app(getters[a](pos[i]))
	}
	return b.NewArray(), nil
}

// evalRows evaluates e on the given rows of batch only (all rows when
// rows covers the batch).
func evalRows(env *Env, e Expr, batch arrow.RecordBatch, rows []int) (arrow.Array, error) {
	if len(rows) == int(batch.NumRows()) {
		return e.Eval(env, batch)
	}
	if l, ok := e.(*Literal); ok { // reads no column: nothing to gather
		return constArray(env.Mem, l.Type, l.Value, len(rows)), nil
	}
	sub, err := takeRows(env, batch, rows, referenced(e))
	if err != nil {
		return nil, err
	}
	defer sub.Release()
	return e.Eval(env, sub)
}

// referenced returns the input columns e reads.
func referenced(e Expr) map[int]bool {
	out := map[int]bool{}
	var walk func(Expr)
	walk = func(x Expr) {
		if c, ok := x.(*ColumnRef); ok {
			out[c.Index] = true
		}
		for _, ch := range x.Children() {
			walk(ch)
		}
	}
	walk(e)
	return out
}

// takeRows gathers rows of the columns in cols (nil: all); the other
// columns become zero-copy slices of the right length that nobody reads.
func takeRows(env *Env, batch arrow.RecordBatch, rows []int, cols map[int]bool) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(env.Mem)
	ib.Reserve(len(rows))
	for _, r := range rows {
		ib.UnsafeAppend(int64(r))
	}
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	ctx := compute.WithAllocator(context.Background(), memlimit.Lenient(env.Mem))
	out := make([]arrow.Array, batch.NumCols())
	for i := range out {
		if cols != nil && !cols[i] {
			out[i] = array.NewSlice(batch.Column(i), 0, int64(len(rows)))
			continue
		}
		c, err := compute.TakeArray(ctx, batch.Column(i), idx)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[i] = c
	}
	b := array.NewRecordBatch(batch.Schema(), out, int64(len(rows)))
	releaseAll(out)
	return b, nil
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
		if t, err = ResultType(t, a.DataType()); err != nil {
			return nil, errorf(ErrType, "coalesce: %v", err)
		}
	}
	if !supported(t) {
		return nil, errorf(ErrUnsupported, "coalesce over values of type %s", t)
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
	}, vec: coalesceKernel}, nil
}

// NullIf is NULLIF(a, b): NULL when a = b, else a.
func NullIf(a, b Expr) (Expr, error) {
	t, err := CommonType(a.DataType(), b.DataType())
	if err != nil {
		return nil, errorf(ErrType, "nullif: %v", err)
	}
	if !supported(t) {
		return nil, errorf(ErrUnsupported, "nullif over values of type %s", t)
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
