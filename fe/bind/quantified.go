package bind

import (
	"errors"
	"strconv"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// expandQuantified is what the binder binds in place of x op ANY|ALL (S),
// with MySQL's (and Doris's) NULL semantics: = ANY is IN, <> ALL is NOT
// IN; the others compare x with S's extreme non-NULL value and fall back
// on S's emptiness and NULLs:
//
//	x > ALL (S): TRUE when S is empty; else NULL when x is NULL; else
//	FALSE when some s >= x (x > max(s) fails); else NULL when S holds a
//	NULL; else TRUE.
//	x > ANY (S): FALSE when S is empty; else NULL when x is NULL; else TRUE
//	when some s < x (x > min(s)); else NULL when S holds a NULL; else FALSE.
//
// = ALL fails, and <> ANY holds, when x differs from min(s) or max(s). The
// count(*), count(s), min and max are scalar subqueries over S, so
// correlated S decorrelate as any other scalar subquery. The expansion is
// cached: its subquery nodes are the keys of b.scalars.
func (b *Binder) expandQuantified(q *sql.Quantified) (sql.Expr, error) {
	if e, ok := b.quantified[q]; ok {
		return e, nil
	}
	if err := quantifiedColumns(q); err != nil {
		return nil, err
	}
	if b.quantified == nil {
		b.quantified = map[*sql.Quantified]sql.Expr{}
	}
	e := expandQuantified(q)
	b.quantified[q] = e
	return e, nil
}

func expandQuantified(q *sql.Quantified) sql.Expr {
	switch {
	case q.Op == "=" && !q.All:
		return &sql.InExpr{X: q.X, Query: q.Query}
	case q.Op == "!=" && q.All:
		return &sql.InExpr{X: q.X, Not: true, Query: q.Query}
	}
	lit := func(v bool) sql.Expr {
		if v {
			return &sql.Literal{Kind: sql.LitBool, Value: "TRUE"}
		}
		return &sql.Literal{Kind: sql.LitBool, Value: "FALSE"}
	}
	null := &sql.Literal{Kind: sql.LitNull, Value: "NULL"}
	cnt := &sql.Subquery{Query: overSubquery(q.Query, func(sql.Expr) sql.Expr { return &sql.FuncCall{Name: "count", Star: true} })}
	nn := &sql.Subquery{Query: overSubquery(q.Query, func(v sql.Expr) sql.Expr { return &sql.FuncCall{Name: "count", Args: []sql.Expr{v}} })}
	ext := func(name string) sql.Expr {
		return &sql.Subquery{Query: overSubquery(q.Query, func(v sql.Expr) sql.Expr { return &sql.FuncCall{Name: name, Args: []sql.Expr{v}} })}
	}
	cmp := func(op string, r sql.Expr) sql.Expr { return &sql.BinaryExpr{Op: op, L: q.X, R: r} }
	// decided is the condition that settles the answer as !empty: some
	// non-NULL s makes x op s false (ALL) or true (ANY).
	var decided sql.Expr
	switch q.Op {
	case "=", "!=":
		decided = &sql.BinaryExpr{Op: "OR", L: cmp("!=", ext("min")), R: cmp("!=", ext("max"))}
	case ">", ">=":
		if q.All {
			decided = &sql.UnaryExpr{Op: "NOT", X: cmp(q.Op, ext("max"))}
		} else {
			decided = cmp(q.Op, ext("min"))
		}
	default: // <, <=
		if q.All {
			decided = &sql.UnaryExpr{Op: "NOT", X: cmp(q.Op, ext("min"))}
		} else {
			decided = cmp(q.Op, ext("max"))
		}
	}
	empty := q.All // the answer over no rows
	return &sql.Case{Whens: []*sql.When{
		{Cond: &sql.BinaryExpr{Op: "=", L: cnt, R: &sql.Literal{Kind: sql.LitInt, Value: "0"}}, Result: lit(empty)},
		{Cond: &sql.IsExpr{X: q.X, What: "NULL"}, Result: null},
		{Cond: decided, Result: lit(!empty)},
		{Cond: &sql.BinaryExpr{Op: ">", L: cnt, R: nn}, Result: null},
	}, Else: lit(empty)}
}

// overSubquery is S with its one select item v replaced by agg(v): in
// place when S is a plain block (its DISTINCT and ORDER BY cannot change
// an aggregate over all its rows), else over S as a derived table.
func overSubquery(s sql.Query, agg func(sql.Expr) sql.Expr) sql.Query {
	if sel, ok := plainBlock(s); ok && len(sel.Items) == 1 {
		c := *sel
		c.Distinct, c.OrderBy = false, nil
		c.Items = []*sql.SelectItem{{Expr: agg(sel.Items[0].Expr)}}
		return &c
	}
	return &sql.Select{
		Items: []*sql.SelectItem{{Expr: agg(&sql.ColumnRef{Parts: []string{"__any_all", "v"}})}},
		From:  &sql.DerivedTable{Query: s, Alias: "__any_all", Columns: []string{"v"}},
	}
}

// plainBlock reports whether q is one SELECT block whose rows are its FROM
// rows filtered by WHERE, projected by its items: no WITH, grouping,
// aggregate, window, LIMIT or star. DISTINCT and ORDER BY may be ignored
// by a caller that only asks whether some row qualifies.
func plainBlock(q sql.Query) (*sql.Select, bool) {
	sel, ok := q.(*sql.Select)
	if !ok || sel.With != nil || sel.GroupBy != nil || sel.Grouping != sql.GroupPlain || sel.Having != nil || sel.Limit != nil {
		return nil, false
	}
	for _, it := range sel.Items {
		if _, star := it.Expr.(*sql.Star); star || containsAgg(it.Expr) || hasWindow(it.Expr) {
			return nil, false
		}
	}
	return sel, true
}

// quantifiedColumns checks that S of x op ANY|ALL (S) has one column where
// that shows in its text.
func quantifiedColumns(q *sql.Quantified) error {
	if sel, ok := plainBlock(q.Query); ok && len(sel.Items) != 1 {
		return errorf(ErrAnalysis, "Operand should contain 1 column(s)")
	}
	return nil
}

func hasWindow(e sql.Expr) bool {
	found := false
	sql.Walk(e, func(n sql.Node) bool {
		if fc, ok := n.(*sql.FuncCall); ok && fc.Over != nil {
			found = true
		}
		return !found
	})
	return found
}

// rowIn reports whether e is (x1, ..., xn) [NOT] IN (...) with a row on
// the left, which binds through expandRowIn.
func rowIn(e sql.Expr) (*sql.InExpr, bool) {
	in, ok := e.(*sql.InExpr)
	if !ok {
		return nil, false
	}
	_, row := in.X.(*sql.Row)
	return in, row
}

// expandRowIn is what the binder binds in place of (x1, ..., xn) [NOT] IN
// (...), by MySQL's rules: a row equals another when every pair is equal,
// differs when some pair differs, else is NULL; IN is true when some row
// equals x, else NULL when some comparison is NULL, else false.
//
// Over a list that is the OR of the rows' AND-ed pair equalities. Over a
// subquery S it is two EXISTS over S as a derived table, one for an equal
// row and one for a row no pair of which differs:
//
//	CASE WHEN EXISTS (... c1 = x1 AND ...) THEN TRUE
//	     WHEN EXISTS (... (c1 = x1 OR c1 IS NULL OR x1 IS NULL) AND ...) THEN NULL
//	     ELSE FALSE END
//
// Cached like expandQuantified.
func (b *Binder) expandRowIn(in *sql.InExpr) (sql.Expr, error) {
	if e, ok := b.rowIns[in]; ok {
		return e, nil
	}
	xs := in.X.(*sql.Row).Items
	eqRow := func(ys []sql.Expr, orNull bool) (sql.Expr, error) {
		if len(ys) != len(xs) {
			return nil, errorf(ErrAnalysis, "Operand should contain %d column(s)", len(xs))
		}
		var all sql.Expr
		for i, y := range ys {
			var c sql.Expr = &sql.BinaryExpr{Op: "=", L: xs[i], R: y}
			if orNull {
				c = &sql.BinaryExpr{Op: "OR", L: c, R: &sql.BinaryExpr{Op: "OR",
					L: &sql.IsExpr{X: y, What: "NULL"}, R: &sql.IsExpr{X: xs[i], What: "NULL"}}}
			}
			if all == nil {
				all = c
			} else {
				all = &sql.BinaryExpr{Op: "AND", L: all, R: c}
			}
		}
		return all, nil
	}
	var e sql.Expr
	if in.Query == nil {
		for _, item := range in.List {
			r, ok := item.(*sql.Row)
			if !ok {
				return nil, errorf(ErrAnalysis, "Operand should contain %d column(s)", len(xs))
			}
			c, err := eqRow(r.Items, false)
			if err != nil {
				return nil, err
			}
			if e == nil {
				e = c
			} else {
				e = &sql.BinaryExpr{Op: "OR", L: e, R: c}
			}
		}
	} else {
		// A plain block's rows are tested in its own WHERE, so a
		// correlated S works; any other S is a derived table.
		from, where, ys := sql.TableExpr(nil), sql.Expr(nil), []sql.Expr(nil)
		if sel, ok := plainBlock(in.Query); ok && sel.From != nil {
			from, where = sel.From, sel.Where
			for _, it := range sel.Items {
				ys = append(ys, it.Expr)
			}
		} else {
			cols := make([]string, len(xs))
			ys = make([]sql.Expr, len(xs))
			for i := range xs {
				cols[i] = "c" + strconv.Itoa(i+1)
				ys[i] = &sql.ColumnRef{Parts: []string{"__row_in", cols[i]}}
			}
			from = &sql.DerivedTable{Query: in.Query, Alias: "__row_in", Columns: cols}
		}
		exists := func(orNull bool) (sql.Expr, error) {
			w, err := eqRow(ys, orNull)
			if err != nil {
				return nil, err
			}
			if where != nil {
				w = &sql.BinaryExpr{Op: "AND", L: where, R: w}
			}
			return &sql.Exists{Query: &sql.Select{
				Items: []*sql.SelectItem{{Expr: &sql.Literal{Kind: sql.LitInt, Value: "1"}}},
				From:  from,
				Where: w,
			}}, nil
		}
		eq, err := exists(false)
		if err != nil {
			return nil, err
		}
		maybe, err := exists(true)
		if err != nil {
			return nil, err
		}
		e = &sql.Case{Whens: []*sql.When{
			{Cond: eq, Result: &sql.Literal{Kind: sql.LitBool, Value: "TRUE"}},
			{Cond: maybe, Result: &sql.Literal{Kind: sql.LitNull, Value: "NULL"}},
		}, Else: &sql.Literal{Kind: sql.LitBool, Value: "FALSE"}}
	}
	if in.Not {
		e = &sql.UnaryExpr{Op: "NOT", X: e}
	}
	if b.rowIns == nil {
		b.rowIns = map[*sql.InExpr]sql.Expr{}
	}
	b.rowIns[in] = e
	return e, nil
}

// rowSemiJoin plans a WHERE conjunct (x1, ..., xn) IN (S) over an
// uncorrelated S as a semi join on the n pairs (a row with a NULL pair is
// never in S there, and WHERE drops NULL like false). It reports false for
// NOT IN and correlated S, which bind through expandRowIn.
func (b *Binder) rowSemiJoin(input Plan, in *sql.InExpr, not bool) (Plan, bool, error) {
	if in.Not != not {
		return nil, false, nil
	}
	sub, err := b.bindSubquery(in.Query)
	if errors.Is(err, ErrUnknownColumn) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	xs := in.X.(*sql.Row).Items
	sc := sub.Columns()
	if len(sc) != len(xs) {
		return nil, false, errorf(ErrAnalysis, "Operand should contain %d column(s)", len(xs))
	}
	scope := &scope{cols: input.Columns()}
	var lk, rk []expr.Expr
	for i, x := range xs {
		l, err := b.bindExpr(x, scope, nil)
		if err != nil {
			return nil, false, err
		}
		// The hash join compares both keys in their common type.
		lk, rk = append(lk, l), append(rk, expr.Col(i, sc[i].Name, sc[i].Type))
	}
	return &Join{Kind: LeftSemiJoin, Left: input, Right: sub, LeftKeys: lk, RightKeys: rk, Out: input.Columns()}, true, nil
}
