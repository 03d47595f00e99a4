package bind

import (
	"errors"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// subqueryQualifier marks the hidden columns scalar subqueries add to a
// SELECT block's scope; stars skip them.
const subqueryQualifier = "\x00subquery"

// bindSubquery binds an uncorrelated subquery in a fresh block scope. An
// error of kind ErrUnknownColumn may mean the subquery is correlated.
func (b *Binder) bindSubquery(q sql.Query) (Plan, error) {
	saved := b.need
	defer func() { b.need = saved }()
	return b.BindQuery(q)
}

// planSubqueries turns the subqueries of a SELECT block into joins, so none
// runs per row:
//   - [NOT] IN (subquery) and [NOT] EXISTS conjuncts of WHERE become semi,
//     anti or null-aware anti joins (correlated ones with the correlation
//     as join keys and filter);
//   - uncorrelated scalar subqueries (in WHERE and, for blocks without
//     aggregation, the select list) become a LEFT JOIN with a one-row plan;
//   - every other subquery (correlated scalar subqueries, EXISTS and IN in
//     any expression position) is decorrelated: the input gets a row
//     number, is LEFT JOINed to the subquery's FROM under the correlation,
//     and is grouped back to one row per input row, with the subquery's
//     value computed by aggregates (see decorrelate).
//
// The value columns are referenced through b.scalars. It returns the new
// input and the WHERE conjuncts that remain.
func (b *Binder) planSubqueries(input Plan, where sql.Expr, items []*sql.SelectItem, order []*sql.OrderItem, allowItems bool) (Plan, []sql.Expr, error) {
	var rest []sql.Expr
	if where != nil {
		for _, c := range conjuncts(where) {
			not := false
			x := c
			if u, ok := x.(*sql.UnaryExpr); ok && (u.Op == "NOT" || u.Op == "!") {
				not, x = true, u.X
			}
			if q, ok := x.(*sql.Quantified); ok {
				var err error
				if x, err = b.expandQuantified(q); err != nil { // = ANY and <> ALL join as IN
					return nil, nil, err
				}
			}
			switch n := x.(type) {
			case *sql.InExpr:
				if n.Query == nil || containsSubquery(n.X) {
					break
				}
				if _, row := rowIn(n); row {
					if p, ok, err := b.rowSemiJoin(input, n, not); err != nil || ok {
						if err != nil {
							return nil, nil, err
						}
						input = p
						continue
					}
					break
				}
				sub, err := b.bindSubquery(n.Query)
				if errors.Is(err, ErrUnknownColumn) {
					if n.Not != not {
						break // NOT IN: decorrelated as an expression below
					}
					p, ok, err := b.semiJoinCorrelated(input, n.Query, n.X, LeftSemiJoin)
					if err != nil {
						return nil, nil, err
					}
					if ok {
						input = p
						continue
					}
					break
				}
				if err != nil {
					return nil, nil, err
				}
				sc := sub.Columns()
				if len(sc) != 1 {
					return nil, nil, errorf(ErrAnalysis, "IN subquery must return one column, it returns %d", len(sc))
				}
				l, err := b.bindExpr(n.X, &scope{cols: input.Columns()}, nil)
				if err != nil {
					return nil, nil, err
				}
				kind := LeftSemiJoin
				if n.Not != not {
					kind = NullAwareAntiJoin
				}
				input = &Join{Kind: kind, Left: input, Right: sub,
					LeftKeys: []expr.Expr{l}, RightKeys: []expr.Expr{expr.Col(0, sc[0].Name, sc[0].Type)}, Out: input.Columns()}
				continue
			case *sql.Exists:
				kind := LeftSemiJoin
				if not {
					kind = LeftAntiJoin
				}
				q := existenceOnly(n.Query)
				sub, err := b.bindSubquery(q)
				if errors.Is(err, ErrUnknownColumn) {
					p, ok, err := b.semiJoinCorrelated(input, q, nil, kind)
					if err != nil {
						return nil, nil, err
					}
					if ok {
						input = p
						continue
					}
					break
				}
				if err != nil {
					return nil, nil, err
				}
				input = &Join{Kind: kind, Left: input, Right: sub, Out: input.Columns()}
				continue
			}
			rest = append(rest, c)
		}
	}
	var exprs []sql.Expr
	exprs = append(exprs, rest...)
	if allowItems {
		for _, it := range items {
			exprs = append(exprs, it.Expr)
		}
		for _, o := range order {
			exprs = append(exprs, o.Expr)
		}
	}
	input, err := b.planExprSubqueries(input, exprs, false)
	return input, rest, err
}

// aggArgSubqueries lists the arguments of aggregate calls in exprs that
// hold subqueries: their values are per input row, so they are planned
// before the aggregation.
func aggArgSubqueries(exprs []sql.Expr) []sql.Expr {
	var out []sql.Expr
	var walk func(e sql.Expr)
	walk = func(e sql.Expr) {
		if e == nil {
			return
		}
		if fc, ok := e.(*sql.FuncCall); ok && isAggName(fc.Name) && fc.Over == nil {
			for _, a := range fc.Args {
				if containsSubquery(a) {
					out = append(out, a)
				}
			}
			return
		}
		for _, c := range children(e) {
			walk(c)
		}
	}
	for _, e := range exprs {
		walk(e)
	}
	return out
}

// planExprSubqueries adds a column to input for every subquery expression
// inside exprs (recorded in b.scalars): uncorrelated scalar subqueries and
// EXISTS by a join with a one-row plan, the rest by decorrelate.
//
// With outsideAggs, subqueries inside aggregate calls are left alone (they
// were planned below the aggregation).
func (b *Binder) planExprSubqueries(input Plan, exprs []sql.Expr, outsideAggs bool) (Plan, error) {
	var subs []sql.Expr
	var find func(e sql.Expr)
	find = func(e sql.Expr) {
		if e == nil {
			return
		}
		if fc, ok := e.(*sql.FuncCall); ok && outsideAggs && isAggName(fc.Name) && fc.Over == nil {
			return
		}
		switch n := e.(type) {
		case *sql.Subquery, *sql.Exists:
			subs = append(subs, e)
			return
		case *sql.Quantified:
			// An error shows again when the expression is bound.
			if x, err := b.expandQuantified(n); err == nil {
				find(x)
			}
			return
		case *sql.InExpr:
			if _, row := rowIn(n); row {
				if x, err := b.expandRowIn(n); err == nil {
					find(x)
				}
				return
			}
			if n.Query != nil {
				find(n.X)
				subs = append(subs, e)
				return
			}
		}
		for _, c := range children(e) {
			find(c)
		}
	}
	for _, e := range exprs {
		find(e)
	}
	if len(subs) == 0 {
		return input, nil
	}
	if b.scalars == nil {
		b.scalars = map[sql.Expr]int{}
	}
	rowID := -1
	for _, e := range subs {
		if s, ok := e.(*sql.Subquery); ok {
			sub, err := b.bindSubquery(s.Query)
			if err == nil {
				if input, err = b.joinScalar(input, sub, e); err != nil {
					return nil, err
				}
				continue
			}
			if !errors.Is(err, ErrUnknownColumn) {
				return nil, err
			}
		}
		if ex, ok := e.(*sql.Exists); ok {
			sub, err := b.bindSubquery(ex.Query)
			if err == nil {
				// Uncorrelated: one row saying whether the subquery has any.
				agg := &Aggregate{Input: &Limit{Input: sub, Count: 1}, Aggs: []AggCall{{Func: AggCount, Type: expr.Int64T()}},
					Out: []Column{{Name: "count(*)", Type: expr.Int64T()}}}
				gt, err := expr.Cmp(expr.Gt, expr.Col(0, "count(*)", expr.Int64T()), expr.Int(0))
				if err != nil {
					return nil, err
				}
				one := &Project{Input: agg, Exprs: []expr.Expr{gt}, Out: []Column{{Name: "exists", Type: expr.BoolT()}}}
				if input, err = b.joinScalar(input, one, e); err != nil {
					return nil, err
				}
				continue
			}
			if !errors.Is(err, ErrUnknownColumn) {
				return nil, err
			}
		}
		if in, ok := e.(*sql.InExpr); ok {
			sub, err := b.bindSubquery(in.Query)
			if err == nil {
				if input, err = b.inByHash(input, in, sub); err != nil {
					return nil, err
				}
				continue
			}
			if !errors.Is(err, ErrUnknownColumn) {
				return nil, err
			}
		}
		if s, ok := e.(*sql.Subquery); ok {
			if p, ok := b.fromlessValue(input, s); ok {
				input = p
				continue
			}
		}
		if s, ok := e.(*sql.Subquery); ok {
			if p, ok := b.windowValue(input, s); ok {
				input = p
				continue
			}
		}
		if s, ok := e.(*sql.Subquery); ok && aggregateValue(s.Query) && repeatable(input) {
			// Over the domain of its correlation values: the subquery's
			// FROM is joined with those values only and aggregated per
			// value, and the input joins that small result; the row-number
			// path would hash all of the FROM and regroup the input. The
			// domain reads the input a second time, so only an input that
			// gives the same rows again goes this way, and only when the
			// domain comes from a filtered table of it: read from a copy
			// of the whole input (Q20's partsupp semi join part) it cost
			// more CPU on TPC-H SF1 than hashing the FROM did.
			b.domainLeafOnly = true
			p, err := b.lateralValue(input, e, s.Query)
			b.domainLeafOnly = false
			if err == nil {
				input = p
				continue
			}
		}
		if rowID < 0 {
			input, rowID = addRowID(input)
		}
		var err error
		if input, err = b.decorrelate(input, e); err != nil {
			return nil, err
		}
	}
	return input, nil
}

// fromlessValue adds the value of a scalar subquery without FROM that
// reads the enclosing query, (SELECT t.a + 1): one row, its item computed
// over each input row. ok is false for any other shape.
func (b *Binder) fromlessValue(input Plan, s *sql.Subquery) (Plan, bool) {
	sel, ok := s.Query.(*sql.Select)
	if !ok || sel.From != nil || sel.With != nil || sel.Where != nil || len(sel.GroupBy) > 0 || sel.Grouping != sql.GroupPlain ||
		sel.Having != nil || sel.Distinct || sel.Limit != nil || len(sel.Items) != 1 {
		return nil, false
	}
	item := sel.Items[0].Expr
	if _, star := item.(*sql.Star); star || containsAgg(item) || containsSubquery(item) {
		return nil, false
	}
	if fc, ok := item.(*sql.FuncCall); ok && fc.Over != nil {
		return nil, false
	}
	cols := input.Columns()
	sc := &scope{cols: cols}
	v, err := b.bindExpr(item, sc, nil)
	if err != nil {
		return nil, false
	}
	exprs := make([]expr.Expr, len(cols)+1)
	for i, c := range cols {
		exprs[i] = expr.Col(i, sc.refName(i), c.Type)
	}
	exprs[len(cols)] = v
	out := append(append([]Column{}, cols...), Column{Name: subqueryColName(len(cols)), Qualifier: subqueryQualifier, Type: v.DataType(), Nullable: true})
	b.scalars[s] = len(cols)
	return &Project{Input: input, Exprs: exprs, Out: out}, true
}

// splitCorrelatedUnions rewrites the WHERE conjuncts [NOT] EXISTS and
// x [NOT] IN over a UNION [ALL] of correlated blocks, which cannot be
// decorrelated whole, into one subquery per block: EXISTS (A UNION B) is
// EXISTS A OR EXISTS B, and x IN (A UNION B) is x IN A OR x IN B, also in
// three-valued logic (TRUE if found in either, NULL if neither finds it and
// either compares NULL); NOT distributes as usual.
func (b *Binder) splitCorrelatedUnions(where sql.Expr) sql.Expr {
	if where == nil || !containsSubquery(where) {
		return where
	}
	branches := func(q sql.Query) (sql.Query, sql.Query, bool) {
		so, ok := q.(*sql.SetOp)
		if !ok || so.Kind != sql.Union || so.With != nil || len(so.OrderBy) > 0 || so.Limit != nil {
			return nil, nil, false
		}
		if _, err := b.bindSubquery(q); !errors.Is(err, ErrUnknownColumn) {
			return nil, nil, false
		}
		return so.Left, so.Right, true
	}
	var split func(e sql.Expr) sql.Expr
	split = func(e sql.Expr) sql.Expr {
		switch n := e.(type) {
		case *sql.Exists:
			if l, r, ok := branches(n.Query); ok {
				return &sql.BinaryExpr{Op: "OR", L: split(&sql.Exists{Query: l}), R: split(&sql.Exists{Query: r})}
			}
		case *sql.InExpr:
			if n.Query == nil {
				break
			}
			if l, r, ok := branches(n.Query); ok {
				op := "OR"
				if n.Not {
					op = "AND"
				}
				return &sql.BinaryExpr{Op: op, L: split(&sql.InExpr{X: n.X, Not: n.Not, Query: l}), R: split(&sql.InExpr{X: n.X, Not: n.Not, Query: r})}
			}
		case *sql.UnaryExpr:
			if x := split(n.X); x != n.X {
				return &sql.UnaryExpr{Op: n.Op, X: x}
			}
		}
		return e
	}
	cs := conjuncts(where)
	changed := false
	for i, c := range cs {
		if x := split(c); x != c {
			cs[i], changed = x, true
		}
	}
	if !changed {
		return where
	}
	return andSQL(cs)
}

// aggregateValue reports whether q is a correlated scalar subquery
// SELECT agg(…) FROM … WHERE … (Q17's and Q2's shape), which the domain
// decorrelation (lateral.go) plans better than the row-number one.
func aggregateValue(q sql.Query) bool {
	sel, ok := q.(*sql.Select)
	return ok && sel.With == nil && sel.From != nil && len(sel.Items) == 1 && containsAgg(sel.Items[0].Expr) &&
		len(sel.GroupBy) == 0 && sel.Grouping == sql.GroupPlain && sel.Having == nil && !sel.Distinct && sel.Limit == nil
}

// joinScalar appends the value of a one-column plan to every input row (a
// LEFT JOIN on nothing), after checking it yields at most one row.
func (b *Binder) joinScalar(input, sub Plan, e sql.Expr) (Plan, error) {
	sc := sub.Columns()
	if len(sc) != 1 {
		return nil, errorf(ErrAnalysis, "scalar subquery must return one column, it returns %d", len(sc))
	}
	if !atMostOneRow(sub) {
		// How many rows it yields is known only when it runs (MySQL and
		// Doris fail then, with 1242), not here.
		sub = &AssertOneRow{Input: sub}
	}
	left := input.Columns()
	out := append(append([]Column{}, left...), Column{Name: subqueryColName(len(left)), Qualifier: subqueryQualifier, Type: sc[0].Type, Nullable: true})
	b.scalars[e] = len(out) - 1
	return &Join{Kind: LeftJoin, Left: input, Right: sub, Out: out}, nil
}

// subqueryCol is the column planSubqueries put a subquery expression's
// value in, when the scope still shows it.
func (b *Binder) subqueryCol(e sql.Expr, sc *scope, st *aggState) (expr.Expr, bool) {
	i, ok := b.scalars[e]
	if !ok || i >= len(sc.cols) || sc.cols[i].Qualifier != subqueryQualifier || (st != nil && !st.post) {
		return nil, false
	}
	return expr.Col(i, sc.cols[i].Name, sc.cols[i].Type), true
}

func containsSubquery(e sql.Expr) bool {
	switch x := e.(type) {
	case *sql.Subquery, *sql.Exists, *sql.Quantified:
		return true
	case *sql.InExpr:
		if x.Query != nil {
			return true
		}
	}
	for _, c := range children(e) {
		if containsSubquery(c) {
			return true
		}
	}
	return false
}

// AssertOneRow passes its input through and fails the statement when the
// input yields a second row (with Keys: a second row of the same values of
// those columns): a scalar subquery the binder cannot prove to yield at
// most one row (per outer row).
type AssertOneRow struct {
	Input Plan
	Keys  []int
}

func (a *AssertOneRow) Columns() []Column { return a.Input.Columns() }
func (a *AssertOneRow) Children() []Plan  { return []Plan{a.Input} }

// atMostOneRow reports whether a plan is sure to yield at most one row.
func atMostOneRow(p Plan) bool {
	switch n := p.(type) {
	case *Aggregate:
		return len(n.Groups) == 0
	case *Limit:
		return n.Count >= 0 && n.Count <= 1 || atMostOneRow(n.Input)
	case *Project:
		return atMostOneRow(n.Input)
	case *Filter:
		return atMostOneRow(n.Input)
	case *Sort:
		return atMostOneRow(n.Input)
	case *Values:
		return len(n.Rows) <= 1
	case *AssertOneRow:
		return len(n.Keys) == 0
	}
	return false
}

// existenceOnly is q for EXISTS: only whether it has rows counts, so a
// plain SELECT * or SELECT of constants (TPC-H Q4 and Q21 write SELECT * of
// lineitem) becomes SELECT 1 and the semi or anti join carries only the
// columns its WHERE reads. GROUP BY or HAVING decide whether there is a
// row and are kept.
func existenceOnly(q sql.Query) sql.Query {
	sel, ok := q.(*sql.Select)
	if !ok || len(sel.GroupBy) > 0 || sel.Having != nil {
		return q
	}
	// Only a bare * or constants: any name in the list must still be
	// checked (a wrong one is an error, as in MySQL).
	for _, it := range sel.Items {
		switch x := it.Expr.(type) {
		case *sql.Star:
			if x.Qualifier != nil || x.Except != nil {
				return q
			}
		case *sql.Literal:
		default:
			return q
		}
	}
	cp := *sel
	cp.Distinct = false
	cp.OrderBy = nil
	cp.Items = []*sql.SelectItem{{Expr: &sql.Literal{Kind: sql.LitInt, Value: "1"}, Text: "1"}}
	return &cp
}
