package physical

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// physicalMore builds the operators that read their whole input:
// aggregation, joins, sorting and union.
//
// The "server:" prefix of the internal errors below predates this package;
// it is kept so the texts users may see did not change with the move.
func (b *builder) physicalMore(ctx context.Context, p bind.Plan) (exec.Operator, error) {
	switch n := p.(type) {
	case *bind.Aggregate:
		names := make([]string, len(n.Groups))
		for i := range n.Groups {
			names[i] = n.Out[i].Name
		}
		aggs := make([]exec.AggCall, len(n.Aggs))
		for i, a := range n.Aggs {
			c := exec.AggCall{Arg: a.Arg, Distinct: a.Distinct, Name: n.Out[len(n.Groups)+i].Name}
			switch a.Func {
			case bind.AggCount:
				c.Func = exec.Count
				if a.Arg == nil {
					c.Func = exec.CountStar
				}
			case bind.AggSum:
				c.Func = exec.Sum
			case bind.AggMin:
				c.Func = exec.Min
			case bind.AggMax:
				c.Func = exec.Max
			case bind.AggAvg:
				c.Func = exec.Avg
			case bind.AggAny:
				c.Func = exec.AnyValue
			case bind.AggGroupConcat:
				c.Func, c.Sep, c.SepSet = exec.GroupConcat, a.Sep, true
			default:
				f, ok := exec.StatAggByName(string(a.Func))
				if !ok {
					return nil, errorf(ErrNotSupported, "aggregate function %s is not supported", a.Func)
				}
				c.Func = f
			}
			aggs[i] = c
		}
		// Over a table the BEs read, they aggregate next to the readers.
		if op, ok, err := b.pushedAggregate(ctx, n, names, aggs); err != nil {
			return nil, err
		} else if ok {
			return conform(op, n.Out)
		}
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		op, err := exec.NewHashAggregate(in, n.Groups, names, aggs, exec.AggSingle)
		if err != nil {
			return nil, err
		}
		if groups, ok := b.cfg.Estimates[n]; ok {
			op.SetEstimate(groups)
		}
		return conform(op, n.Out)
	case *bind.Sort:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		return exec.NewSort(in, sortKeys(n.Keys))
	case *bind.Union:
		ins := make([]exec.Operator, len(n.Inputs))
		for i, c := range n.Inputs {
			op, err := b.physical(ctx, c)
			if err != nil {
				return nil, err
			}
			ins[i] = op
		}
		u, err := exec.NewUnion(ins, false)
		if err != nil {
			return nil, err
		}
		return conform(u, n.Out)
	case *bind.Join:
		return b.join(ctx, n)
	case *bind.AssertOneRow:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		return exec.NewAssertOneRow(in, n.Keys...), nil
	case *bind.Repeat:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(n.Out))
		for i, c := range n.Out {
			names[i] = c.Name
		}
		return exec.NewRepeat(in, n.Sets, names)
	case *bind.Window:
		in, err := b.physical(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		calls := make([]exec.WindowCall, len(n.Calls))
		for i, c := range n.Calls {
			f, ok := windowFunc(c.Func, c.Star)
			if !ok {
				return nil, errorf(ErrNotSupported, "window function %s", c.Func)
			}
			calls[i] = exec.WindowCall{Func: f, Arg: c.Arg, Name: n.Out[len(n.Out)-len(n.Calls)+i].Name, Offset: c.Offset, Default: c.Default, IgnoreNulls: c.IgnoreNulls}
		}
		w, err := exec.NewWindow(in, n.PartitionBy, sortKeys(n.OrderBy), calls)
		if err != nil {
			return nil, err
		}
		switch n.Frame {
		case bind.FrameRowsToCurrent:
			w.Frame = exec.FrameRowsToCurrent
		case bind.FrameWholePartition:
			w.Frame = exec.FrameWholePartition
		case bind.FrameRows:
			// Both packages mark an unbounded end with MaxInt64.
			w.Frame, w.RowsFrom, w.RowsTo = exec.FrameRows, n.RowsFrom, n.RowsTo
		case bind.FrameRange:
			w.Frame, w.RangeFrom, w.RangeTo = exec.FrameRange, n.RangeFrom, n.RangeTo
		}
		return conform(w, n.Out)
	}
	return nil, fmt.Errorf("server: unknown plan node %T", p)
}

func sortKeys(keys []bind.SortKey) []exec.SortKey {
	out := make([]exec.SortKey, len(keys))
	for i, k := range keys {
		out[i] = exec.SortKey{Expr: k.Expr, Desc: k.Desc, Nulls: exec.NullsLast}
		if k.NullsFirst {
			out[i].Nulls = exec.NullsFirst
		}
	}
	return out
}

// conform casts an operator's output to the types the binder promised, so
// later expressions (bound against the plan) find the types they expect.
func conform(op exec.Operator, want []bind.Column) (exec.Operator, error) {
	got := op.Schema()
	if got.NumFields() != len(want) {
		return nil, fmt.Errorf("server: operator yields %d columns, plan expects %d", got.NumFields(), len(want))
	}
	same := true
	exprs := make([]expr.Expr, len(want))
	names := make([]string, len(want))
	for i, c := range want {
		names[i] = c.Name
		var e expr.Expr = expr.Col(i, got.Field(i).Name, got.Field(i).Type)
		if !arrow.TypeEqual(got.Field(i).Type, c.Type) {
			same = false
			ce, err := expr.Cast(e, c.Type)
			if err != nil {
				return nil, fmt.Errorf("server: column %s: %w", c.Name, err)
			}
			e = ce
		}
		exprs[i] = e
	}
	if same {
		return op, nil
	}
	return exec.NewProject(op, exprs, names)
}

// join maps a bound join onto the executor's hash join. Joins without an
// equality key (CROSS JOIN, ON with only inequalities) run as the
// executor's keyless join, which bounds the pairs one probe step makes;
// RIGHT JOIN runs as a LEFT JOIN with the inputs swapped.
func (b *builder) join(ctx context.Context, n *bind.Join) (exec.Operator, error) {
	if b.buildPreserved(n) {
		return b.rightOuter(ctx, n)
	}
	if n.BuildLeft && (n.Kind == bind.LeftSemiJoin || n.Kind == bind.LeftAntiJoin) && len(n.LeftKeys) > 0 {
		return b.rightSemi(ctx, n)
	}
	rfs := b.planFilters(n)
	prfs := b.planProbeFilters(n)
	left, err := b.physical(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := b.physical(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	lk, rk := n.LeftKeys, n.RightKeys
	var typ exec.JoinType
	switch n.Kind {
	case bind.InnerJoin, bind.CrossJoin:
		typ = exec.InnerJoin
	case bind.LeftJoin:
		typ = exec.LeftOuterJoin
	case bind.LeftSemiJoin:
		typ = exec.LeftSemiJoin
	case bind.LeftAntiJoin:
		typ = exec.LeftAntiJoin
	case bind.NullAwareAntiJoin:
		typ = exec.NullAwareLeftAntiJoin
	case bind.RightJoin:
		if n.Residual != nil {
			return nil, errorf(ErrNotSupported, "RIGHT JOIN with a non-equality ON condition; write it as a LEFT JOIN")
		}
		j, err := exec.NewHashJoin(right, left, exec.LeftOuterJoin, rk, lk, nil)
		if err != nil {
			return nil, err
		}
		// Back to left columns then right columns.
		js := j.Schema()
		nl, nr := len(n.Left.Columns()), len(n.Right.Columns())
		exprs := make([]expr.Expr, 0, nl+nr)
		names := make([]string, 0, nl+nr)
		for i := 0; i < nl; i++ {
			f := js.Field(nr + i)
			exprs, names = append(exprs, expr.Col(nr+i, f.Name, f.Type)), append(names, f.Name)
		}
		for i := 0; i < nr; i++ {
			f := js.Field(i)
			exprs, names = append(exprs, expr.Col(i, f.Name, f.Type)), append(names, f.Name)
		}
		p, err := exec.NewProject(j, exprs, names)
		if err != nil {
			return nil, err
		}
		return conform(p, n.Out)
	case bind.FullJoin:
		return b.fullJoin(left, right, n, lk, rk)
	default:
		return nil, errorf(ErrNotSupported, "%s is not supported by the executor", n.Kind)
	}
	residual := n.Residual
	if typ == exec.LeftSemiJoin || typ == exec.LeftAntiJoin || typ == exec.NullAwareLeftAntiJoin {
		right, rk, residual = narrowBuild(right, len(n.Left.Columns()), rk, residual)
	}
	j, err := exec.NewHashJoin(left, right, typ, lk, rk, residual)
	if err != nil {
		return nil, err
	}
	if err := j.AddRuntimeFilters(rfs...); err != nil {
		return nil, err
	}
	if err := j.AddProbeSideFilters(prfs...); err != nil {
		return nil, err
	}
	return conform(j, n.Out)
}

// fullJoin runs as one hash join that builds the right input once and,
// after the left input ends, emits the right rows nothing matched: each
// input is read once, so a live table cannot show two different states.
func (b *builder) fullJoin(left, right exec.Operator, n *bind.Join, lk, rk []expr.Expr) (exec.Operator, error) {
	j, err := exec.NewHashJoin(left, right, exec.FullOuterJoin, lk, rk, n.Residual)
	if err != nil {
		return nil, err
	}
	return conform(j, n.Out)
}

// Building a LEFT JOIN's preserved side. The executor hashes a join's
// right input: a LEFT JOIN of a small table with a large one (TPC-H Q13:
// 150 K customers, 1.5 M orders; Q20: 80 K partsupp rows, 870 K lineitems)
// would hash the large side. Where the right side is estimated at
// outerFlipMin times the left or more, the join runs as the executor's
// RIGHT OUTER JOIN of the swapped inputs instead: the small preserved side
// builds, the large side streams and meets runtime filters of the build
// keys (a row without a match is dropped by the join anyway), and the
// build rows no pair matched come out last with NULLs.
const (
	outerFlipMin     = 4
	outerFlipMinRows = 10000
)

// buildPreserved says whether LEFT JOIN n should build its left input.
func (b *builder) buildPreserved(n *bind.Join) bool {
	if n.Kind != bind.LeftJoin || len(n.LeftKeys) == 0 || len(n.LeftKeys) != len(n.RightKeys) {
		return false
	}
	l, lok := b.cfg.Estimates[n.Left]
	r, rok := b.cfg.Estimates[n.Right]
	return lok && rok && r >= outerFlipMinRows && r >= outerFlipMin*l
}

// rightOuter builds LEFT JOIN n as the right outer join of its swapped
// inputs, with the columns put back in n's order. A residual reading only
// right columns filters the right input first: a right row failing it can
// match nothing, and the left rows that then match nothing are kept as
// unmatched all the same.
func (b *builder) rightOuter(ctx context.Context, n *bind.Join) (exec.Operator, error) {
	swapped := &bind.Join{Kind: bind.InnerJoin, Left: n.Right, Right: n.Left, LeftKeys: n.RightKeys, RightKeys: n.LeftKeys}
	rfs := b.planFilters(swapped)
	left, err := b.physical(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := b.physical(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	nl, nr := len(n.Left.Columns()), len(n.Right.Columns())
	residual := n.Residual
	if residual != nil {
		rightOnly := true
		for _, c := range exprColumns(residual) {
			rightOnly = rightOnly && c >= nl
		}
		if rightOnly {
			pred, ok := expr.MapColumns(residual, func(c *expr.ColumnRef) expr.Expr { return expr.Col(c.Index-nl, c.Name, c.Type) })
			if !ok {
				return nil, errorf(ErrNotSupported, "LEFT JOIN condition %s", residual)
			}
			if right, err = exec.NewFilter(right, pred); err != nil {
				return nil, err
			}
			residual = nil
		} else {
			// Swapped inputs: right columns first.
			pred, ok := expr.MapColumns(residual, func(c *expr.ColumnRef) expr.Expr {
				if c.Index < nl {
					return expr.Col(c.Index+nr, c.Name, c.Type)
				}
				return expr.Col(c.Index-nl, c.Name, c.Type)
			})
			if !ok {
				return nil, errorf(ErrNotSupported, "LEFT JOIN condition %s", residual)
			}
			residual = pred
		}
	}
	j, err := exec.NewHashJoin(right, left, exec.RightOuterJoin, n.RightKeys, n.LeftKeys, residual)
	if err != nil {
		return nil, err
	}
	if err := j.AddRuntimeFilters(rfs...); err != nil {
		return nil, err
	}
	js := j.Schema()
	exprs := make([]expr.Expr, 0, nl+nr)
	names := make([]string, 0, nl+nr)
	for i := 0; i < nl; i++ {
		f := js.Field(nr + i)
		exprs, names = append(exprs, expr.Col(nr+i, f.Name, f.Type)), append(names, f.Name)
	}
	for i := 0; i < nr; i++ {
		f := js.Field(i)
		exprs, names = append(exprs, expr.Col(i, f.Name, f.Type)), append(names, f.Name)
	}
	p, err := exec.NewProject(j, exprs, names)
	if err != nil {
		return nil, err
	}
	return conform(p, n.Out)
}

// rightSemi builds semi or anti join n, which the optimiser marked
// BuildLeft (fe/opt semi.go), as the executor's RIGHT SEMI or RIGHT ANTI
// JOIN of the swapped inputs: n's left side is hashed, its right side
// streams. Every probe row without a match counts for nothing, in the
// anti join too, so the streamed side takes runtime filters of the hashed
// side's keys (those of an inner join of the swapped inputs).
func (b *builder) rightSemi(ctx context.Context, n *bind.Join) (exec.Operator, error) {
	swapped := &bind.Join{Kind: bind.InnerJoin, Left: n.Right, Right: n.Left, LeftKeys: n.RightKeys, RightKeys: n.LeftKeys}
	rfs := b.planFilters(swapped)
	left, err := b.physical(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := b.physical(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	nl := len(n.Left.Columns())
	// The streamed side's columns are not output: only what its keys and
	// the residual read is carried.
	right, rk, residual := narrowBuild(right, nl, n.RightKeys, n.Residual)
	nr := right.Schema().NumFields()
	rightOnly := residual != nil
	if residual != nil {
		for _, c := range exprColumns(residual) {
			rightOnly = rightOnly && c >= nl
		}
	}
	switch {
	case rightOnly:
		// A condition on the streamed side alone filters it first: a row
		// failing it matches nothing.
		pred, ok := expr.MapColumns(residual, func(c *expr.ColumnRef) expr.Expr { return expr.Col(c.Index-nl, c.Name, c.Type) })
		if !ok {
			return nil, errorf(ErrNotSupported, "%s condition %s", n.Kind, residual)
		}
		if right, err = exec.NewFilter(right, pred); err != nil {
			return nil, err
		}
		residual = nil
	case residual != nil:
		// Swapped inputs: right columns first.
		pred, ok := expr.MapColumns(residual, func(c *expr.ColumnRef) expr.Expr {
			if c.Index < nl {
				return expr.Col(c.Index+nr, c.Name, c.Type)
			}
			return expr.Col(c.Index-nl, c.Name, c.Type)
		})
		if !ok {
			return nil, errorf(ErrNotSupported, "%s condition %s", n.Kind, residual)
		}
		residual = pred
	}
	typ := exec.RightSemiJoin
	if n.Kind == bind.LeftAntiJoin {
		typ = exec.RightAntiJoin
	}
	j, err := exec.NewHashJoin(right, left, typ, rk, n.LeftKeys, residual)
	if err != nil {
		return nil, err
	}
	if err := j.AddRuntimeFilters(rfs...); err != nil {
		return nil, err
	}
	return conform(j, n.Out)
}

// exprColumns lists the input columns e reads.
func exprColumns(e expr.Expr) []int {
	if c, ok := e.(*expr.ColumnRef); ok {
		return []int{c.Index}
	}
	var out []int
	for _, k := range e.Children() {
		out = append(out, exprColumns(k)...)
	}
	return out
}

// windowFunc is the executor's function for a bound window call's name;
// COUNT(*) is a function of its own.
func windowFunc(name string, star bool) (exec.WindowFunc, bool) {
	if name == "count" && star {
		return exec.WinCountStar, true
	}
	f, ok := map[string]exec.WindowFunc{
		"row_number":  exec.RowNumber,
		"rank":        exec.Rank,
		"dense_rank":  exec.DenseRank,
		"count":       exec.WinCount,
		"sum":         exec.WinSum,
		"avg":         exec.WinAvg,
		"min":         exec.WinMin,
		"max":         exec.WinMax,
		"lag":         exec.Lag,
		"lead":        exec.Lead,
		"first_value": exec.FirstValue,
		"last_value":  exec.LastValue,
		"nth_value":   exec.NthValue,
	}[name]
	if !ok {
		return exec.WindowFuncByName(name) // stddev/variance, ntile, percent_rank, cume_dist
	}
	return f, ok
}

// narrowBuild projects the build side of a semi or anti join (whose
// output is the probe side's columns alone; or the streamed side of a
// right semi or anti join, rightSemi) to the columns its keys and
// residual read, so the hash table holds only those; nl is the number of
// probe columns, which the residual reads first. It returns the inputs
// unchanged when every column is read or an expression cannot be moved.
func narrowBuild(right exec.Operator, nl int, rk []expr.Expr, residual expr.Expr) (exec.Operator, []expr.Expr, expr.Expr) {
	rs := right.Schema()
	used := make([]bool, rs.NumFields())
	var mark func(e expr.Expr, off int)
	mark = func(e expr.Expr, off int) {
		if c, ok := e.(*expr.ColumnRef); ok {
			if i := c.Index - off; i >= 0 && i < len(used) {
				used[i] = true
			}
			return
		}
		for _, k := range e.Children() {
			mark(k, off)
		}
	}
	for _, k := range rk {
		mark(k, 0)
	}
	if residual != nil {
		mark(residual, nl)
	}
	pos := make([]int, len(used)) // old build position → new
	var exprs []expr.Expr
	var names []string
	for i, u := range used {
		pos[i] = -1
		if u {
			f := rs.Field(i)
			pos[i] = len(exprs)
			exprs, names = append(exprs, expr.Col(i, f.Name, f.Type)), append(names, f.Name)
		}
	}
	if len(exprs) == len(used) || len(exprs) == 0 {
		return right, rk, residual
	}
	moved := func(off int) func(c *expr.ColumnRef) expr.Expr {
		return func(c *expr.ColumnRef) expr.Expr {
			if c.Index < off {
				return c // a probe column of the residual
			}
			return expr.Col(pos[c.Index-off]+off, c.Name, c.DataType())
		}
	}
	nrk := make([]expr.Expr, len(rk))
	for i, k := range rk {
		m, ok := expr.MapColumns(k, moved(0))
		if !ok {
			return right, rk, residual
		}
		nrk[i] = m
	}
	nres := residual
	if residual != nil {
		var ok bool
		if nres, ok = expr.MapColumns(residual, moved(nl)); !ok {
			return right, rk, residual
		}
	}
	in := right
	if inner, ok := right.(*exec.Project); ok {
		// One projection instead of two: pick the inner one's outputs.
		for i, e := range exprs {
			exprs[i] = inner.Exprs[e.(*expr.ColumnRef).Index]
		}
		in = inner.Input
	}
	p, err := exec.NewProject(in, exprs, names)
	if err != nil {
		return right, rk, residual
	}
	return p, nrk, nres
}
