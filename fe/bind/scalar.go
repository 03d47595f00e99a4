package bind

import (
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// BindScalarOver binds an expression of any type over the given columns
// (Stream Load's derived columns: `v=cast(x as int)` over the source
// columns of a load). Aggregates and subqueries are errors, as in a WHERE.
func (b *Binder) BindScalarOver(e sql.Expr, cols []Column) (expr.Expr, error) {
	return b.bindExpr(e, &scope{cols: cols}, nil)
}
