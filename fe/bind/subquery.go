package bind

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// subqueryQualifier marks the hidden columns scalar subqueries add to a
// SELECT block's scope; stars skip them.
const subqueryQualifier = "\x00subquery"

// bindSubquery binds an uncorrelated subquery in a fresh block scope.
func (b *Binder) bindSubquery(q sql.Query) (Plan, error) {
	saved := b.need
	defer func() { b.need = saved }()
	p, err := b.BindQuery(q)
	if err != nil {
		return nil, errorf(ErrUnsupported, "subquery (correlated subqueries are not supported): %v", err)
	}
	return p, nil
}

// planSubqueries turns the uncorrelated subqueries of a WHERE clause into
// joins: [NOT] IN (subquery) and [NOT] EXISTS conjuncts become semi, anti
// or null-aware anti joins; scalar subqueries (in WHERE and, for blocks
// without aggregation, the select list) become a LEFT JOIN with a one-row
// plan, referenced through b.scalars. It returns the new input and the
// WHERE conjuncts that remain.
func (b *Binder) planSubqueries(input Plan, where sql.Expr, items []*sql.SelectItem, allowItems bool) (Plan, []sql.Expr, error) {
	var rest []sql.Expr
	if where != nil {
		for _, c := range conjuncts(where) {
			not := false
			x := c
			if u, ok := x.(*sql.UnaryExpr); ok && (u.Op == "NOT" || u.Op == "!") {
				not, x = true, u.X
			}
			switch n := x.(type) {
			case *sql.InExpr:
				if n.Query == nil || containsSubquery(n.X) {
					break
				}
				sub, err := b.bindSubquery(n.Query)
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
				sub, err := b.bindSubquery(n.Query)
				if err != nil {
					return nil, nil, err
				}
				kind := LeftSemiJoin
				if not {
					kind = LeftAntiJoin
				}
				input = &Join{Kind: kind, Left: input, Right: sub, Out: input.Columns()}
				continue
			}
			rest = append(rest, c)
		}
	}
	var scalars []*sql.Subquery
	var find func(e sql.Expr)
	find = func(e sql.Expr) {
		if e == nil {
			return
		}
		if s, ok := e.(*sql.Subquery); ok {
			scalars = append(scalars, s)
			return
		}
		for _, c := range children(e) {
			find(c)
		}
	}
	for _, c := range rest {
		find(c)
	}
	if allowItems {
		for _, it := range items {
			find(it.Expr)
		}
	}
	for _, s := range scalars {
		sub, err := b.bindSubquery(s.Query)
		if err != nil {
			return nil, nil, err
		}
		sc := sub.Columns()
		if len(sc) != 1 {
			return nil, nil, errorf(ErrAnalysis, "scalar subquery must return one column, it returns %d", len(sc))
		}
		if !atMostOneRow(sub) {
			return nil, nil, errorf(ErrUnsupported, "scalar subquery that may return more than one row (aggregate it or add LIMIT 1)")
		}
		left := input.Columns()
		out := append(append([]Column{}, left...), Column{Name: sc[0].Name, Qualifier: subqueryQualifier, Type: sc[0].Type, Nullable: true})
		input = &Join{Kind: LeftJoin, Left: input, Right: sub, Out: out}
		if b.scalars == nil {
			b.scalars = map[*sql.Subquery]int{}
		}
		b.scalars[s] = len(out) - 1
	}
	return input, rest, nil
}

func containsSubquery(e sql.Expr) bool {
	switch x := e.(type) {
	case *sql.Subquery, *sql.Exists:
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
	}
	return false
}
