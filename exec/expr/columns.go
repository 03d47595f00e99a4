package expr

import "sort"

// Columns returns the input columns e reads, ascending, so an operator
// can gather only those rows of a batch that an expression needs.
func Columns(e Expr) []int {
	m := referenced(e)
	out := make([]int, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// Conjuncts splits e into the operands of its top-level AND (e itself
// when it is no AND). A row passes e exactly when every conjunct is TRUE
// there: a FALSE or NULL conjunct makes the AND FALSE or NULL, which a
// filter drops alike, so a filter may test them one after another on the
// rows still left.
func Conjuncts(e Expr) []Expr {
	if l, ok := e.(*LogicExpr); ok && l.Op == AndOp {
		var out []Expr
		for _, a := range l.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}
