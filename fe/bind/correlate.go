package bind

import (
	"errors"
	"strconv"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Decorrelation. A correlated subquery never runs per row. Its FROM is
// bound once, with the WHERE conjuncts that read only its own columns as a
// filter ("local"); the conjuncts that also read the enclosing query's
// columns ("correlation") become the condition of a join between the
// enclosing input and that FROM: an equality of an outer expression and an
// inner one is a hash key, anything else a join filter.
//
//   - In WHERE, [NOT] EXISTS and IN are semi and anti joins under that
//     condition (IN adds outer = item).
//   - Elsewhere the input first gets a row number, so equal rows stay
//     apart; it is LEFT JOINed to the FROM (plus a marker column that is
//     TRUE on every inner row, so NULL-extended rows are told apart), and
//     grouped back by every input column. The subquery's value comes from
//     aggregates over each group: EXISTS is count(marker) > 0; a scalar
//     subquery's aggregates see their argument only where the marker is
//     set, so count(*) of no rows is 0 and sum of none is NULL, as if run
//     alone; IN counts the rows whose comparison is TRUE and those where it
//     is NULL, which gives SQL's three-valued answer (TRUE if any is TRUE,
//     else NULL if any row was compared, else FALSE).
//
// Names in a correlated subquery resolve among its own FROM first, then in
// the enclosing query (scope.inner). This file decorrelates blocks of the
// form SELECT … FROM … WHERE … with an equality correlation; GROUP BY,
// HAVING, DISTINCT, LIMIT, nested subqueries, correlations without an
// equality and scalar aggregates (planExprSubqueries tries the domain
// first for those: it hashes only the outer keys' rows of the FROM) go
// over the domain of correlation values (lateral.go). Before that, an
// avg, min or max over the one table the enclosing rows already hold
// every matching row of (TPC-H Q17) is a window over those rows
// (winvalue.go). Nothing runs per row.

// subqueryColName names the value column of a subquery at position i of
// its block's input. Each name is distinct: bound expressions compare (and
// aggregates and sort keys are matched) by their text, so two subqueries
// must never print alike.
func subqueryColName(i int) string { return "subquery#" + strconv.Itoa(i) }

// markerName names the marker column; no SQL name can reach it.
const markerName = "\x00marker"

// rowIDName names the row number decorrelation groups by.
const rowIDName = "\x00rowid"

// innerBlock is a correlated subquery's FROM, bound.
type innerBlock struct {
	sel *sql.Select // nil for an uncorrelated subquery bound whole
	// plan is the FROM with the local conjuncts applied, then the marker.
	plan   Plan
	marker int
	corr   []sql.Expr
	// keys pair enclosing expressions with the plan's columns (a lateral
	// plan's domain, lateral.go).
	keys [][2]expr.Expr
	// agg is set when the select list aggregates: without GROUP BY the
	// block then yields exactly one row, whatever matches.
	agg bool
}

// checkItems binds the select list of an EXISTS subquery over the join's
// columns, so a wrong name is an error even though no value is used.
func (b *Binder) checkItems(ib *innerBlock, js *scope) error {
	for _, it := range ib.sel.Items {
		if _, star := it.Expr.(*sql.Star); star || containsAgg(it.Expr) {
			continue
		}
		if _, err := b.bindExpr(it.Expr, js, nil); err != nil {
			return err
		}
	}
	return nil
}

// addRowID numbers the input rows in a hidden column.
func addRowID(input Plan) (Plan, int) {
	cols := input.Columns()
	out := append(append([]Column{}, cols...), Column{Name: rowIDName, Qualifier: subqueryQualifier, Type: expr.Int64T()})
	return &Window{Input: input, Frame: FrameDefault, Calls: []WindowCall{{Func: "row_number", Type: expr.Int64T()}}, Out: out}, len(cols)
}

// withMarker appends the marker column to p.
func withMarker(p Plan) (Plan, int) {
	cols := p.Columns()
	sc := &scope{cols: cols}
	exprs := make([]expr.Expr, len(cols)+1)
	for i, c := range cols {
		exprs[i] = expr.Col(i, sc.refName(i), c.Type)
	}
	exprs[len(cols)] = expr.Bool(true)
	out := append(append([]Column{}, cols...), Column{Name: markerName, Type: expr.BoolT(), Nullable: true})
	return &Project{Input: p, Exprs: exprs, Out: out}, len(cols)
}

// bindInner binds the FROM and local conjuncts of a correlated subquery.
func (b *Binder) bindInner(q sql.Query) (*innerBlock, error) {
	sel, ok := q.(*sql.Select)
	if !ok || sel.With != nil || sel.From == nil || len(sel.GroupBy) > 0 || sel.Grouping != sql.GroupPlain || sel.Having != nil || sel.Distinct || sel.Limit != nil {
		return nil, errorf(ErrUnsupported, "this correlated subquery (only SELECT … FROM … WHERE … without GROUP BY, HAVING, DISTINCT or LIMIT is decorrelated)")
	}
	p, where, err := b.bindBlockFrom(sel)
	if err != nil {
		return nil, err
	}
	local, corr, _, err := b.splitBlockWhere(where, &scope{cols: p.Columns()}, false)
	if err != nil {
		return nil, err
	}
	if p, err = filterBy(p, local); err != nil {
		return nil, err
	}
	p, m := withMarker(p)
	ib := &innerBlock{sel: sel, plan: p, marker: m, corr: corr}
	for _, it := range sel.Items {
		ib.agg = ib.agg || containsAgg(it.Expr)
	}
	return ib, nil
}

// bindBlockFrom binds the FROM of a correlated subquery block, with the
// columns its whole text needs, and moves the WHERE conjuncts that read
// only its own columns into its joins as a top-level FROM's are (join
// order by estimates, equalities as hash keys, single-input conditions
// below the joins): the block is joined before it is decorrelated, so
// without this its tables were crossed and filtered only above the last
// join. It returns the plan and the WHERE conjuncts left: the correlated
// ones, those with subqueries, and any that bind nowhere.
func (b *Binder) bindBlockFrom(sel *sql.Select) (Plan, sql.Expr, error) {
	for _, it := range sel.Items {
		if fc, ok := it.Expr.(*sql.FuncCall); ok && fc.Over != nil {
			return nil, nil, errorf(ErrUnsupported, "a window function in a correlated subquery")
		}
	}
	saved := b.need
	b.need = collectNeed(sel)
	defer func() { b.need = saved }()
	where := factorOrs(sel.Where)
	p, w, ok, err := b.reorderJoins(sel.From, where)
	if err == nil && !ok {
		if p, err = b.bindFrom(sel.From); err == nil {
			p, w, err = b.pushWhere(p, where)
		}
	}
	if errors.Is(err, ErrUnknownColumn) {
		// The FROM binds on its own, before the enclosing query is in
		// scope: a derived table (or WITH) reading it lands here.
		return nil, nil, errorf(ErrUnsupported, "a correlated subquery whose FROM (a derived table, WITH or ON condition) reads the enclosing query (%v)", err)
	}
	return p, w, err
}

// splitBlockWhere binds the WHERE conjuncts of a correlated block over its
// own columns (in): those that bind are local; those naming a column in
// is missing (an enclosing one) come back unbound in corr. A conjunct with
// a subquery is refused, or with keepSub returned unbound in sub.
func (b *Binder) splitBlockWhere(where sql.Expr, in *scope, keepSub bool) (local []expr.Expr, corr, sub []sql.Expr, err error) {
	if where == nil {
		return nil, nil, nil, nil
	}
	for _, c := range conjuncts(where) {
		if containsSubquery(c) {
			if !keepSub {
				return nil, nil, nil, errorf(ErrUnsupported, "a subquery inside a correlated subquery")
			}
			sub = append(sub, c)
			continue
		}
		if containsAgg(c) {
			return nil, nil, nil, errorf(ErrAnalysis, "aggregate functions are not allowed in WHERE")
		}
		e, err := b.bindExpr(c, in, nil)
		if errors.Is(err, ErrUnknownColumn) {
			corr = append(corr, c)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if e, err = asBool(e); err != nil {
			return nil, nil, nil, err
		}
		local = append(local, e)
	}
	return local, corr, sub, nil
}

// filterBy puts the conjunction of conds over p (p itself when none).
func filterBy(p Plan, conds []expr.Expr) (Plan, error) {
	if len(conds) == 0 {
		return p, nil
	}
	c, err := andAll(conds)
	if err != nil {
		return nil, err
	}
	return &Filter{Input: p, Cond: c}, nil
}

// oneItem returns the single select item of a subquery block.
func oneItem(sel *sql.Select, what string) (sql.Expr, error) {
	if len(sel.Items) != 1 {
		return nil, errorf(ErrAnalysis, "%s must return one column, it returns %d", what, len(sel.Items))
	}
	if _, star := sel.Items[0].Expr.(*sql.Star); star {
		return nil, errorf(ErrUnsupported, "%s with * in a correlated subquery", what)
	}
	return sel.Items[0].Expr, nil
}

// correlatedJoin joins x with the inner block under its correlation and
// the extra condition (bound over x's columns then the block's). It
// returns the join and the scope of its columns (inner names first).
func (b *Binder) correlatedJoin(kind JoinKind, x Plan, ib *innerBlock, extra []expr.Expr, extraKeys [][2]expr.Expr) (*Join, *scope, error) {
	xc, ic := x.Columns(), ib.plan.Columns()
	jcols := append([]Column{}, xc...)
	for _, c := range ic {
		if kind == LeftJoin {
			c.Nullable = true
		}
		jcols = append(jcols, c)
	}
	js := &scope{cols: jcols, inner: len(xc)}
	j := &Join{Kind: kind, Left: x, Right: ib.plan, Out: jcols}
	outer, inner := &scope{cols: xc}, &scope{cols: ic}
	var resid []expr.Expr
	if err := addDomainKeys(j, ib.keys); err != nil {
		return nil, nil, err
	}
	for _, k := range extraKeys {
		if err := j.addEq(k[0], k[1]); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range ib.corr {
		if b.correlationKey(j, c, outer, inner) {
			continue
		}
		e, err := b.bindExpr(c, js, nil)
		if err != nil {
			return nil, nil, err
		}
		if e, err = asBool(e); err != nil {
			return nil, nil, err
		}
		resid = append(resid, e)
	}
	resid = append(resid, extra...)
	if len(resid) > 0 {
		r, err := andAll(resid)
		if err != nil {
			return nil, nil, err
		}
		j.Residual = r
	}
	if kind != LeftJoin {
		j.Out = xc
	}
	return j, js, nil
}

// correlationKey adds c as a hash key pair of j when it is outer = inner:
// one side reads only the enclosing query (and no name of it resolves in
// the subquery), the other only the subquery.
func (b *Binder) correlationKey(j *Join, c sql.Expr, outer, inner *scope) bool {
	be, ok := c.(*sql.BinaryExpr)
	if !ok || be.Op != "=" {
		return false
	}
	for _, lr := range [][2]sql.Expr{{be.L, be.R}, {be.R, be.L}} {
		if _, err := b.bindExpr(lr[0], inner, nil); err == nil {
			continue
		}
		le, lerr := b.bindExpr(lr[0], outer, nil)
		re, rerr := b.bindExpr(lr[1], inner, nil)
		if lerr == nil && rerr == nil && len(columnsOf(le, nil)) > 0 && len(columnsOf(re, nil)) > 0 && j.addEq(le, re) == nil {
			return true
		}
	}
	return false
}

// semiJoinCorrelated plans a WHERE conjunct [NOT] EXISTS (correlated) or
// x IN (correlated) as a semi or anti join. ok is false when the caller
// should decorrelate it as an expression instead.
func (b *Binder) semiJoinCorrelated(input Plan, q sql.Query, inX sql.Expr, kind JoinKind) (Plan, bool, error) {
	if needsLateral(q, false) {
		return b.semiJoinLateral(input, q, inX, kind)
	}
	if thetaOnly(q) {
		// Over the distinct correlation values rather than every row;
		// shapes the domain path refuses keep the row-wise join below.
		if p, ok, err := b.semiJoinLateral(input, q, inX, kind); err == nil {
			return p, ok, nil
		}
	}
	ib, err := b.bindInner(q)
	if err != nil {
		return nil, false, err
	}
	var keys [][2]expr.Expr
	var extra []expr.Expr
	if inX != nil {
		item, err := oneItem(ib.sel, "IN subquery")
		if err != nil {
			return nil, false, err
		}
		xc := input.Columns()
		l, err := b.bindExpr(inX, &scope{cols: xc}, nil)
		if err != nil {
			return nil, false, err
		}
		if r, err := b.bindExpr(item, &scope{cols: ib.plan.Columns()}, nil); err == nil && len(columnsOf(l, nil)) > 0 && len(columnsOf(r, nil)) > 0 {
			keys = append(keys, [2]expr.Expr{l, r})
		} else {
			r, err := b.bindExpr(item, &scope{cols: append(append([]Column{}, xc...), ib.plan.Columns()...), inner: len(xc)}, nil)
			if err != nil {
				return nil, false, err
			}
			eq, err := expr.Cmp(expr.Eq, l, r)
			if err != nil {
				return nil, false, err
			}
			extra = append(extra, eq)
		}
	}
	j, js, err := b.correlatedJoin(kind, input, ib, extra, keys)
	if err != nil {
		return nil, false, err
	}
	if inX == nil {
		if err := b.checkItems(ib, js); err != nil {
			return nil, false, err
		}
		if ib.agg {
			// EXISTS over an aggregate is always TRUE: one row comes back.
			if kind == LeftSemiJoin {
				return input, true, nil
			}
			return &Filter{Input: input, Cond: expr.Bool(false)}, true, nil
		}
	}
	return j, true, nil
}

// decorrelate adds the value of the subquery expression e (a scalar
// subquery, EXISTS or IN (subquery)) to every row of input, which carries
// a row number, and records its column in b.scalars.
func (b *Binder) decorrelate(input Plan, e sql.Expr) (Plan, error) {
	xc := input.Columns()
	nx := len(xc)
	var q sql.Query
	switch n := e.(type) {
	case *sql.Subquery:
		q = n.Query
	case *sql.Exists:
		q = n.Query
	case *sql.InExpr:
		q = n.Query
	}
	var ib *innerBlock
	if in, ok := e.(*sql.InExpr); ok {
		if sub, err := b.bindSubquery(in.Query); err == nil {
			if len(sub.Columns()) != 1 {
				return nil, errorf(ErrAnalysis, "IN subquery must return one column, it returns %d", len(sub.Columns()))
			}
			p, m := withMarker(sub)
			ib = &innerBlock{plan: p, marker: m}
		} else if !errors.Is(err, ErrUnknownColumn) {
			return nil, err
		}
	}
	if ib == nil {
		_, scalar := e.(*sql.Subquery)
		_, isIn := e.(*sql.InExpr)
		lateral := needsLateral(q, scalar)
		if !isIn && !lateral && thetaOnly(q) {
			if p, err := b.lateralValue(input, e, q); err == nil {
				return p, nil
			}
		}
		if lateral {
			if !isIn {
				return b.lateralValue(input, e, q)
			}
			lp, err := b.bindLateral(input, q)
			if err != nil {
				return nil, err
			}
			if lp.nItems != 1 {
				return nil, errorf(ErrAnalysis, "IN subquery must return one column, it returns %d", lp.nItems)
			}
			if lp.aggNoGroup {
				return nil, errorf(ErrUnsupported, "IN over a correlated aggregate subquery with HAVING, LIMIT or a nested subquery")
			}
			p, m := withMarker(lp.plan)
			ib = &innerBlock{plan: p, marker: m, keys: lp.keys}
		} else {
			var err error
			if ib, err = b.bindInner(q); err != nil {
				return nil, err
			}
		}
	}
	jscope := func() []Column {
		return append(append([]Column{}, xc...), ib.plan.Columns()...)
	}
	mk := expr.Col(nx+ib.marker, markerName, expr.BoolT())
	st := &aggState{groupKeys: map[string]int{}, aggKeys: map[string]int{}}
	var j *Join
	var value func(post *scope) (expr.Expr, error)
	switch n := e.(type) {
	case *sql.Exists:
		var err error
		if j, st.input, err = b.correlatedJoin(LeftJoin, input, ib, nil, nil); err != nil {
			return nil, err
		}
		if err := b.checkItems(ib, st.input); err != nil {
			return nil, err
		}
		st.addAgg("\x00exists", AggCall{Func: AggCount, Arg: mk, Type: expr.Int64T()})
		always := ib.agg // an aggregate yields one row: EXISTS is TRUE
		value = func(*scope) (expr.Expr, error) {
			if always {
				return expr.Bool(true), nil
			}
			return expr.Cmp(expr.Gt, expr.Col(nx, "count", expr.Int64T()), expr.Int(0))
		}
	case *sql.InExpr:
		l, err := b.bindExpr(n.X, &scope{cols: xc}, nil)
		if err != nil {
			return nil, err
		}
		var r expr.Expr
		if ib.sel == nil {
			c := ib.plan.Columns()[0]
			r = expr.Col(nx, c.Name, c.Type)
		} else {
			item, err := oneItem(ib.sel, "IN subquery")
			if err != nil {
				return nil, err
			}
			if r, err = b.bindExpr(item, &scope{cols: jscope(), inner: nx}, nil); err != nil {
				return nil, err
			}
		}
		eq, err := expr.Cmp(expr.Eq, l, r)
		if err != nil {
			return nil, err
		}
		notFalse, err := expr.Or(eq, expr.IsNull(eq, false))
		if err != nil {
			return nil, err
		}
		if j, st.input, err = b.correlatedJoin(LeftJoin, input, ib, []expr.Expr{notFalse}, nil); err != nil {
			return nil, err
		}
		trueRow, err := expr.Case(nil, []expr.When{{Cond: eq, Then: mk}}, nil)
		if err != nil {
			return nil, err
		}
		st.addAgg("\x00compared", AggCall{Func: AggCount, Arg: mk, Type: expr.Int64T()})
		st.addAgg("\x00true", AggCall{Func: AggCount, Arg: trueRow, Type: expr.Int64T()})
		not := n.Not
		value = func(*scope) (expr.Expr, error) {
			anyTrue, err := expr.Cmp(expr.Gt, expr.Col(nx+1, "true", expr.Int64T()), expr.Int(0))
			if err != nil {
				return nil, err
			}
			anyCompared, err := expr.Cmp(expr.Gt, expr.Col(nx, "compared", expr.Int64T()), expr.Int(0))
			if err != nil {
				return nil, err
			}
			v, err := expr.Case(nil, []expr.When{{Cond: anyTrue, Then: expr.Bool(true)}, {Cond: anyCompared, Then: expr.Null(expr.BoolT())}}, expr.Bool(false))
			if err != nil || !not {
				return v, err
			}
			return expr.Not(v)
		}
	case *sql.Subquery:
		item, err := oneItem(ib.sel, "scalar subquery")
		if err != nil {
			return nil, err
		}
		if !containsAgg(item) {
			return nil, errorf(ErrUnsupported, "a correlated scalar subquery without an aggregate (it may return more than one row)")
		}
		if j, st.input, err = b.correlatedJoin(LeftJoin, input, ib, nil, nil); err != nil {
			return nil, err
		}
		if err := b.collectMarkedAggs(item, st, mk); err != nil {
			return nil, err
		}
		value = func(post *scope) (expr.Expr, error) { return b.bindExpr(item, post, st) }
	}
	// Group back to one row per input row: every input column is a key
	// (the row number makes each group one input row).
	groups := make([]expr.Expr, nx)
	gcols := make([]Column, nx)
	for i, c := range xc {
		g := expr.Col(i, st.input.refName(i), c.Type)
		groups[i] = g
		st.groupKeys[g.String()] = i
		gcols[i] = c
	}
	st.groups = groups
	st.out = append(gcols, st.out...)
	agg := &Aggregate{Input: j, Groups: groups, Aggs: st.aggs, Out: st.out}
	post := &scope{cols: st.out}
	v, err := value(post)
	if err != nil {
		return nil, err
	}
	exprs := make([]expr.Expr, nx+1)
	out := make([]Column, nx+1)
	for i, c := range xc {
		exprs[i] = expr.Col(i, post.refName(i), c.Type)
		out[i] = c
	}
	exprs[nx] = v
	out[nx] = Column{Name: subqueryColName(nx), Qualifier: subqueryQualifier, Type: v.DataType(), Nullable: true}
	b.scalars[e] = nx
	return &Project{Input: agg, Exprs: exprs, Out: out}, nil
}

// addAgg adds an aggregate under a key (bindExpr finds aggregates of the
// select list by the text of their unmarked call).
func (st *aggState) addAgg(key string, call AggCall) {
	if _, dup := st.aggKeys[key]; dup {
		return
	}
	st.aggKeys[key] = len(st.aggs)
	st.aggs = append(st.aggs, call)
	st.out = append(st.out, Column{Name: call.String(), Type: call.Type, Nullable: call.Func != AggCount})
}

// collectMarkedAggs collects the aggregates of a scalar subquery's item,
// each seeing its argument only on rows where the marker is set.
func (b *Binder) collectMarkedAggs(e sql.Expr, st *aggState, mk expr.Expr) error {
	if e == nil {
		return nil
	}
	if fc, ok := e.(*sql.FuncCall); ok && isAggName(fc.Name) && fc.Over == nil {
		call, err := b.bindAggCall(fc, st.input, nil)
		if err != nil {
			return err
		}
		key := call.String()
		if call.Arg == nil {
			call.Arg = mk // count(*) counts inner rows
		} else {
			a, err := expr.Case(nil, []expr.When{{Cond: expr.IsNull(mk, false), Then: expr.Null(call.Arg.DataType())}}, call.Arg)
			if err != nil {
				return err
			}
			call.Arg = a
		}
		st.addAgg(key, call)
		return nil
	}
	for _, c := range children(e) {
		if err := b.collectMarkedAggs(c, st, mk); err != nil {
			return err
		}
	}
	return nil
}

// inByHash adds the value of an uncorrelated x [NOT] IN (subquery) to every
// input row without a nested loop: a LEFT JOIN on x = v with the distinct
// non-NULL values v of the subquery (so no row repeats) tells whether x is
// found, and one row of counts over the subquery, read a second time,
// tells whether it is empty or holds a NULL: TRUE when found, else FALSE
// when the subquery is empty, else NULL when x is NULL or the subquery
// holds a NULL, else FALSE.
func (b *Binder) inByHash(input Plan, n *sql.InExpr, sub Plan) (Plan, error) {
	sc := sub.Columns()
	if len(sc) != 1 {
		return nil, errorf(ErrAnalysis, "IN subquery must return one column, it returns %d", len(sc))
	}
	again, err := b.bindSubquery(n.Query)
	if err != nil {
		return nil, err
	}
	xc := input.Columns()
	nx := len(xc)
	l, err := b.bindExpr(n.X, &scope{cols: xc}, nil)
	if err != nil {
		return nil, err
	}
	v := expr.Col(0, sc[0].Name, sc[0].Type)
	distinct := &Aggregate{Input: &Filter{Input: sub, Cond: expr.IsNull(v, true)}, Groups: []expr.Expr{v},
		Out: []Column{{Name: sc[0].Name, Type: sc[0].Type, Nullable: true}}}
	found, m := withMarker(distinct)
	fc := found.Columns()
	jcols := append([]Column{}, xc...)
	for _, c := range fc {
		c.Nullable = true
		jcols = append(jcols, c)
	}
	j := &Join{Kind: LeftJoin, Left: input, Right: found, Out: jcols}
	if err := j.addEq(l, expr.Col(0, fc[0].Name, fc[0].Type)); err != nil {
		return nil, err
	}
	counts := &Aggregate{Input: again, Aggs: []AggCall{{Func: AggCount, Type: expr.Int64T()}, {Func: AggCount, Arg: v, Type: expr.Int64T()}},
		Out: []Column{{Name: "count(*)", Type: expr.Int64T()}, {Name: "count(v)", Type: expr.Int64T()}}}
	all := append(append([]Column{}, jcols...), counts.Out...)
	withCounts := &Join{Kind: LeftJoin, Left: j, Right: counts, Out: all}
	mk := expr.Col(nx+m, markerName, expr.BoolT())
	rows := expr.Col(len(jcols), "count(*)", expr.Int64T())
	nonNull := expr.Col(len(jcols)+1, "count(v)", expr.Int64T())
	empty, err := expr.Cmp(expr.Eq, rows, expr.Int(0))
	if err != nil {
		return nil, err
	}
	hasNull, err := expr.Cmp(expr.Lt, nonNull, rows)
	if err != nil {
		return nil, err
	}
	unknown, err := expr.Or(expr.IsNull(l, false), hasNull)
	if err != nil {
		return nil, err
	}
	val, err := expr.Case(nil, []expr.When{
		{Cond: expr.IsNull(mk, true), Then: expr.Bool(true)},
		{Cond: empty, Then: expr.Bool(false)},
		{Cond: unknown, Then: expr.Null(expr.BoolT())},
	}, expr.Bool(false))
	if err != nil {
		return nil, err
	}
	if n.Not {
		if val, err = expr.Not(val); err != nil {
			return nil, err
		}
	}
	ac := &scope{cols: all}
	exprs := make([]expr.Expr, nx+1)
	out := make([]Column, nx+1)
	for i, c := range xc {
		exprs[i] = expr.Col(i, ac.refName(i), c.Type)
		out[i] = c
	}
	exprs[nx] = val
	out[nx] = Column{Name: subqueryColName(nx), Qualifier: subqueryQualifier, Type: expr.BoolT(), Nullable: true}
	b.scalars[n] = nx
	return &Project{Input: withCounts, Exprs: exprs, Out: out}, nil
}
