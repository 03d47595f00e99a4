package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// Doris's statistical aggregates. The binder keeps the name as written
// (so the column is named stddev(x), as in Doris); the planner maps every
// alias to the executor's function. All take a number and return DOUBLE.
var statAggNames = map[string]bool{
	"stddev": true, "std": true, "stddev_pop": true, "stddev_samp": true,
	"variance": true, "var_pop": true, "variance_pop": true, "var_samp": true, "variance_samp": true,
}

func isStatAggName(name string) bool { return statAggNames[strings.ToLower(name)] }

// bindStatArg casts a statistical aggregate's argument to DOUBLE.
func bindStatArg(name string, arg expr.Expr) (expr.Expr, error) {
	t := arg.DataType()
	switch {
	case isIntegral(t), t.ID() == arrow.DECIMAL128, t.ID() == arrow.FLOAT32, t.ID() == arrow.FLOAT64,
		t.ID() == arrow.STRING, t.ID() == arrow.NULL:
	default:
		return nil, errorf(ErrAnalysis, "%s does not accept %s", name, expr.TypeName(t))
	}
	if t.ID() == arrow.FLOAT64 {
		return arg, nil
	}
	return expr.Cast(arg, expr.Float64T())
}
