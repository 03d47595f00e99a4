package sql

// Walk visits n and its descendants depth-first in source order. fn is called
// for every statement, query, FROM entry (TableExpr) and expression; when it
// returns false the node's children are skipped. Helper structs (select items,
// ORDER BY keys, CTEs, window specs, types) are not passed to fn, but the
// nodes inside them are. Subqueries are visited too: the binder tells them
// apart by the *Subquery, *Exists, *InExpr and *Quantified nodes around
// them.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || isNilNode(n) || !fn(n) {
		return
	}
	w := func(c Node) {
		if c != nil && !isNilNode(c) {
			Walk(c, fn)
		}
	}
	exprs := func(list []Expr) {
		for _, e := range list {
			w(e)
		}
	}
	order := func(items []*OrderItem) {
		for _, o := range items {
			w(o.Expr)
		}
	}
	with := func(wi *With) {
		if wi != nil {
			for _, c := range wi.CTEs {
				w(c.Query)
			}
		}
	}
	switch n := n.(type) {
	case *Select:
		with(n.With)
		for _, it := range n.Items {
			w(it.Expr)
		}
		w(n.From)
		w(n.Where)
		exprs(n.GroupBy)
		w(n.Having)
		for _, nw := range n.Windows {
			exprs(nw.Spec.PartitionBy)
			order(nw.Spec.OrderBy)
		}
		order(n.OrderBy)
	case *SetOp:
		with(n.With)
		w(n.Left)
		w(n.Right)
		order(n.OrderBy)
	case *DerivedTable:
		w(n.Query)
	case *Join:
		w(n.Left)
		w(n.Right)
		w(n.On)
	case *Set:
		for _, a := range n.Assignments {
			w(a.Value)
		}
	case *Show:
		w(n.Where)
	case *Explain:
		w(n.Stmt)
	case *CreateTable:
		for _, c := range n.Columns {
			w(c.Default)
		}
		w(n.AsQuery)
	case *Insert:
		for _, row := range n.Rows {
			exprs(row)
		}
		w(n.Query)
	case *Delete:
		w(n.Where)
	case *Update:
		for _, a := range n.Set {
			w(a.Value)
		}
		w(n.Where)
	case *Interval:
		w(n.Value)
	case *UnaryExpr:
		w(n.X)
	case *BinaryExpr:
		w(n.L)
		w(n.R)
	case *IsExpr:
		w(n.X)
	case *Between:
		w(n.X)
		w(n.Lo)
		w(n.Hi)
	case *Quantified:
		w(n.X)
		w(n.Query)
	case *InExpr:
		w(n.X)
		exprs(n.List)
		w(n.Query)
	case *LikeExpr:
		w(n.X)
		w(n.Pattern)
		w(n.Escape)
	case *Exists:
		w(n.Query)
	case *Subquery:
		w(n.Query)
	case *Case:
		w(n.Operand)
		for _, c := range n.Whens {
			w(c.Cond)
			w(c.Result)
		}
		w(n.Else)
	case *Cast:
		w(n.X)
	case *FuncCall:
		exprs(n.Args)
		order(n.OrderBy)
		if n.Over != nil {
			exprs(n.Over.PartitionBy)
			order(n.Over.OrderBy)
			if f := n.Over.Frame; f != nil {
				for _, b := range []*FrameBound{f.Start, f.End} {
					if b != nil {
						w(b.Offset)
					}
				}
			}
		}
	case *Index:
		w(n.X)
		w(n.Index)
	case *Field:
		w(n.X)
	case *Row:
		exprs(n.Items)
	case *Lambda:
		w(n.Body)
	}
}

// isNilNode reports a typed nil inside the interface (e.g. a nil *Select
// stored in Query), which Walk treats as absent.
func isNilNode(n Node) bool {
	switch n := n.(type) {
	case *Select:
		return n == nil
	case *SetOp:
		return n == nil
	case *TableRef:
		return n == nil
	case *DerivedTable:
		return n == nil
	case *Join:
		return n == nil
	}
	return false
}
