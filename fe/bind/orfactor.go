package bind

import "github.com/inlet-db/inlet/fe/sql"

// factorOrs rewrites each WHERE conjunct of the form
// (A AND B1) OR (A AND B2) OR … into A AND (B1 OR B2 OR …), the conjuncts
// A common to every branch (compared by their text) taken out. Kleene's
// three-valued AND and OR distribute over each other, so the rewrite keeps
// every row's truth value, NULL included. A common equality then becomes a
// join's hash key instead of leaving the whole OR as the condition of a
// nested-loop join (TPC-H Q19: p_partkey = l_partkey in every branch). A
// branch left with nothing makes the OR true given A: A alone remains.
func factorOrs(where sql.Expr) sql.Expr {
	if where == nil {
		return nil
	}
	var out []sql.Expr
	changed := false
	for _, c := range conjuncts(where) {
		f := factorOr(c)
		changed = changed || len(f) != 1 || f[0] != c
		out = append(out, f...)
	}
	if !changed {
		return where
	}
	return andSQL(out)
}

func disjuncts(e sql.Expr) []sql.Expr {
	if be, ok := e.(*sql.BinaryExpr); ok && be.Op == "OR" {
		return append(disjuncts(be.L), disjuncts(be.R)...)
	}
	return []sql.Expr{e}
}

func factorOr(c sql.Expr) []sql.Expr {
	branches := disjuncts(c)
	if len(branches) < 2 {
		return []sql.Expr{c}
	}
	sets := make([][]sql.Expr, len(branches))
	for i, br := range branches {
		sets[i] = conjuncts(br)
	}
	in := func(set []sql.Expr, key string) bool {
		for _, e := range set {
			if e.String() == key {
				return true
			}
		}
		return false
	}
	var common []sql.Expr
	seen := map[string]bool{}
	for _, e := range sets[0] {
		key := e.String()
		if seen[key] {
			continue
		}
		everywhere := true
		for _, set := range sets[1:] {
			everywhere = everywhere && in(set, key)
		}
		if everywhere {
			seen[key] = true
			common = append(common, e)
		}
	}
	if len(common) == 0 {
		return []sql.Expr{c}
	}
	var rest sql.Expr
	for _, set := range sets {
		var left []sql.Expr
		for _, e := range set {
			if !seen[e.String()] {
				left = append(left, e)
			}
		}
		if len(left) == 0 {
			return common // this branch is A alone: the OR adds nothing
		}
		br := andSQL(left)
		if rest == nil {
			rest = br
		} else {
			rest = &sql.BinaryExpr{Op: "OR", L: rest, R: br}
		}
	}
	return append(common, rest)
}
