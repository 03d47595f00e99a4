package bind

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Doris's statistical and other aggregates beyond count/sum/min/max/avg.
// The binder keeps the name as written (so the column is named
// stddev(x), as in Doris); the planner maps every alias to the executor's
// function (exec.StatAggByName). A function of two arguments gets one
// argument, a STRUCT of both (argPack), which is what the executor's
// accumulators read; constant parameters (percentile's p, topn's n) ride
// in it as constant fields.
var statAggNames = map[string]bool{
	"stddev": true, "std": true, "stddev_pop": true, "stddev_samp": true,
	"variance": true, "var_pop": true, "variance_pop": true, "var_samp": true, "variance_samp": true,
	"kurt": true, "kurt_pop": true, "kurtosis": true, "skew": true, "skew_pop": true, "skewness": true,
	"covar": true, "covar_pop": true, "covar_samp": true, "corr": true, "regr_slope": true, "regr_intercept": true,
	"percentile": true, "percentile_approx": true, "median": true,
	"min_by": true, "max_by": true, "avg_weighted": true, "approx_count_distinct": true, "ndv": true,
	"group_bit_and": true, "group_bit_or": true, "group_bit_xor": true, "bool_and": true, "bool_or": true,
	"sum0": true, "topn": true,
	"collect_list": true, "group_array": true, "collect_set": true, "group_uniq_array": true, "array_agg": true,
	"retention": true, "window_funnel": true, "map_agg": true, "group_array_intersect": true,
	"topn_array": true, "topn_weighted": true, "count_by_enum": true, "percentile_approx_weighted": true,
	"histogram": true, "hist": true, "linear_histogram": true, "sequence_match": true, "sequence_count": true,
}

// statAggArity is the least and most arguments of the statistical
// aggregates that take more than one; every other takes exactly one.
var statAggArity = map[string][2]int{
	"covar": {2, 2}, "covar_pop": {2, 2}, "covar_samp": {2, 2}, "corr": {2, 2}, "regr_slope": {2, 2},
	"regr_intercept": {2, 2}, "percentile": {2, 2}, "percentile_approx": {2, 3}, "min_by": {2, 2},
	"max_by": {2, 2}, "avg_weighted": {2, 2}, "topn": {2, 3},
	"collect_list": {1, 2}, "group_array": {1, 2}, "collect_set": {1, 2}, "group_uniq_array": {1, 2},
	"retention": {1, 32}, "window_funnel": {4, 67}, "map_agg": {2, 2},
	"topn_array": {2, 3}, "topn_weighted": {3, 4}, "count_by_enum": {1, 64}, "percentile_approx_weighted": {3, 4},
	"histogram": {1, 3}, "hist": {1, 3}, "linear_histogram": {2, 3}, "sequence_match": {3, 34}, "sequence_count": {3, 34},
}

// collectMaxSize reads the max_size of collect_list(x, max_size) and
// collect_set(x, max_size); ok is false for the one-argument forms.
func collectMaxSize(fc *sql.FuncCall) (int64, bool) {
	switch strings.ToLower(fc.Name) {
	case "collect_list", "group_array", "collect_set", "group_uniq_array":
	default:
		return 0, false
	}
	if len(fc.Args) != 2 {
		return 0, false
	}
	n, _ := numericConstant(fc.Args[1])
	return int64(n), true
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

// bindStatAggCall binds the aggregates of statAggNames (call has Func and
// Distinct set).
func (b *Binder) bindStatAggCall(call AggCall, fc *sql.FuncCall, in *scope, st *aggState) (AggCall, error) {
	name := string(call.Func)
	if fc.Star {
		return call, errorf(ErrAnalysis, "%s(*)", name)
	}
	for _, a := range fc.Args {
		if st == nil && containsAgg(a) {
			return call, errorf(ErrAnalysis, "nested aggregate in %s", name)
		}
	}
	nargs, ok := statAggArity[name]
	if !ok {
		nargs = [2]int{1, 1}
	}
	if len(fc.Args) < nargs[0] || len(fc.Args) > nargs[1] {
		if nargs[0] == nargs[1] {
			return call, errorf(ErrAnalysis, "%s takes %d argument(s), got %d", name, nargs[0], len(fc.Args))
		}
		return call, errorf(ErrAnalysis, "%s takes %d to %d arguments, got %d", name, nargs[0], nargs[1], len(fc.Args))
	}
	if fc.Distinct && nargs[0] > 1 {
		return call, errorf(ErrUnsupported, "DISTINCT in %s", name)
	}
	arg, err := b.bindExpr(fc.Args[0], in, st)
	if err != nil {
		return call, err
	}
	t := arg.DataType()
	double := func(e expr.Expr) (expr.Expr, error) { return bindStatArg(name, e) }
	switch name {
	case "covar", "covar_pop", "covar_samp", "corr", "regr_slope", "regr_intercept", "avg_weighted":
		second, err := b.bindExpr(fc.Args[1], in, st)
		if err != nil {
			return call, err
		}
		x, err := double(arg)
		if err != nil {
			return call, err
		}
		y, err := double(second)
		if err != nil {
			return call, err
		}
		call.Arg, call.Type = newArgPack(x, y), expr.Float64T()
	case "percentile", "percentile_approx":
		x, err := double(arg)
		if err != nil {
			return call, err
		}
		p, ok := numericConstant(fc.Args[1])
		if !ok || p < 0 || p > 1 {
			return call, errorf(ErrAnalysis, "%s: the percentile must be a constant between 0 and 1, got %v", name, fc.Args[1])
		}
		if len(fc.Args) == 3 { // the t-digest compression: accepted, not needed here
			if _, ok := numericConstant(fc.Args[2]); !ok {
				return call, errorf(ErrAnalysis, "%s: the compression must be a numeric constant, got %v", name, fc.Args[2])
			}
		}
		call.Arg, call.Type = newArgPack(x, expr.Float(p)), expr.Float64T()
	case "topn":
		x, err := expr.Cast(arg, expr.StringT())
		if err != nil {
			return call, err
		}
		n, ok := numericConstant(fc.Args[1])
		if !ok || n < 1 || n != float64(int64(n)) {
			return call, errorf(ErrAnalysis, "topn: the count must be a positive integer constant, got %v", fc.Args[1])
		}
		call.Arg, call.Type = newArgPack(x, expr.Int(int64(n))), expr.StringT()
	case "min_by", "max_by":
		by, err := b.bindExpr(fc.Args[1], in, st)
		if err != nil {
			return call, err
		}
		if t.ID() == arrow.NULL {
			if arg, err = expr.Cast(arg, expr.StringT()); err != nil {
				return call, err
			}
		}
		if by.DataType().ID() == arrow.NULL {
			if by, err = expr.Cast(by, expr.StringT()); err != nil {
				return call, err
			}
		}
		call.Arg, call.Type = newArgPack(arg, by), arg.DataType()
	case "approx_count_distinct", "ndv":
		call.Arg, call.Type = arg, expr.Int64T()
	case "group_bit_and", "group_bit_or", "group_bit_xor":
		if !isIntegral(t) || t.ID() == arrow.UINT64 {
			return call, errorf(ErrAnalysis, "%s takes an integer, not %s", name, expr.TypeName(t))
		}
		if call.Arg, err = expr.Cast(arg, expr.Int64T()); err != nil {
			return call, err
		}
		call.Type = t
		if t.ID() == arrow.BOOL {
			call.Type = expr.Int64T()
		}
	case "retention":
		// Its conditions ride in one STRUCT of BOOLEANs, in order.
		conds := make([]expr.Expr, len(fc.Args))
		for i, a := range fc.Args {
			c := arg
			if i > 0 {
				if c, err = b.bindExpr(a, in, st); err != nil {
					return call, err
				}
			}
			if conds[i], err = asBool(c); err != nil {
				return call, err
			}
		}
		call.Arg, call.Type = newArgPack(conds...), arrow.ListOf(expr.BoolT())
	case "group_array_intersect":
		if t.ID() != arrow.LIST {
			return call, errorf(ErrAnalysis, "group_array_intersect takes an array, not %s", expr.TypeName(t))
		}
		call.Arg, call.Type = arg, t
	case "map_agg":
		v, err := b.bindExpr(fc.Args[1], in, st)
		if err != nil {
			return call, err
		}
		// An untyped NULL key or value takes a type a MAP can hold.
		if t.ID() == arrow.NULL {
			if arg, err = expr.Cast(arg, expr.StringT()); err != nil {
				return call, err
			}
		}
		if v.DataType().ID() == arrow.NULL {
			if v, err = expr.Cast(v, expr.StringT()); err != nil {
				return call, err
			}
		}
		call.Arg, call.Type = newArgPack(arg, v), arrow.MapOf(arg.DataType(), v.DataType())
	case "window_funnel":
		// (window, mode, t, c1..cn) ride in one STRUCT: the window in
		// seconds and the mode's name as constants, the time as a
		// DATETIME, the conditions as BOOLEANs.
		w, ok := numericConstant(fc.Args[0])
		if !ok || w < 0 || w != float64(int64(w)) {
			return call, errorf(ErrAnalysis, "window_funnel: the window must be a non-negative integer constant (seconds), got %v", fc.Args[0])
		}
		lit, ok := fc.Args[1].(*sql.Literal)
		mode := ""
		if ok && lit.Kind == sql.LitString {
			mode = strings.ToLower(lit.Value)
		}
		switch mode {
		case "default", "deduplication", "fixed", "increase":
		default:
			return call, errorf(ErrAnalysis, "window_funnel: the mode must be 'default', 'deduplication', 'fixed' or 'increase', got %v", fc.Args[1])
		}
		ts, err := b.bindExpr(fc.Args[2], in, st)
		if err != nil {
			return call, err
		}
		switch ts.DataType().ID() {
		case arrow.TIMESTAMP, arrow.DATE32:
		default:
			if ts, err = expr.Cast(ts, expr.DatetimeT()); err != nil {
				return call, err
			}
		}
		packed := []expr.Expr{expr.Int(int64(w)), expr.Str(mode), ts}
		for _, a := range fc.Args[3:] {
			c, err := b.bindExpr(a, in, st)
			if err != nil {
				return call, err
			}
			if c, err = asBool(c); err != nil {
				return call, err
			}
			packed = append(packed, c)
		}
		call.Arg, call.Type = newArgPack(packed...), arrow.PrimitiveTypes.Int32
	case "topn_array", "topn_weighted":
		// The space_expand_rate is accepted and not needed: the counts
		// here are exact.
		x := arg
		if t.ID() == arrow.NULL {
			if x, err = expr.Cast(arg, expr.StringT()); err != nil {
				return call, err
			}
		}
		packed := []expr.Expr{x}
		ni := 1
		if name == "topn_weighted" {
			w, err := b.bindExpr(fc.Args[1], in, st)
			if err != nil {
				return call, err
			}
			if w, err = double(w); err != nil {
				return call, err
			}
			packed, ni = append(packed, w), 2
		}
		n, ok := numericConstant(fc.Args[ni])
		if !ok || n < 1 || n != float64(int64(n)) {
			return call, errorf(ErrAnalysis, "%s: the count must be a positive integer constant, got %v", name, fc.Args[ni])
		}
		if len(fc.Args) > ni+1 {
			if r, ok := numericConstant(fc.Args[ni+1]); !ok || r < 1 || r != float64(int64(r)) {
				return call, errorf(ErrAnalysis, "%s: space_expand_rate must be a positive integer constant, got %v", name, fc.Args[ni+1])
			}
		}
		call.Arg, call.Type = newArgPack(append(packed, expr.Int(int64(n)))...), arrow.ListOf(x.DataType())
	case "count_by_enum":
		cols := make([]expr.Expr, len(fc.Args))
		for i, a := range fc.Args {
			c := arg
			if i > 0 {
				if c, err = b.bindExpr(a, in, st); err != nil {
					return call, err
				}
			}
			if cols[i], err = expr.Cast(c, expr.StringT()); err != nil {
				return call, err
			}
		}
		call.Arg, call.Type = newArgPack(cols...), expr.StringT()
	case "percentile_approx_weighted":
		x, err := double(arg)
		if err != nil {
			return call, err
		}
		w, err := b.bindExpr(fc.Args[1], in, st)
		if err != nil {
			return call, err
		}
		if w, err = double(w); err != nil {
			return call, err
		}
		p, ok := numericConstant(fc.Args[2])
		if !ok || p < 0 || p > 1 {
			return call, errorf(ErrAnalysis, "%s: the percentile must be a constant between 0 and 1, got %v", name, fc.Args[2])
		}
		if len(fc.Args) == 4 { // the t-digest compression: accepted, not needed here
			if l, isLit := fc.Args[3].(*sql.Literal); isLit && l.Kind == sql.LitNull {
				// Doris skips every row with a NULL argument, so a NULL
				// compression leaves no row: the result is NULL.
				x = expr.Null(expr.Float64T())
			} else if _, ok := numericConstant(fc.Args[3]); !ok {
				return call, errorf(ErrAnalysis, "%s: the compression must be a numeric constant, got %v", name, fc.Args[3])
			}
		}
		call.Arg, call.Type = newArgPack(x, w, expr.Float(p)), expr.Float64T()
	case "histogram", "hist":
		x := arg
		switch {
		case t.ID() == arrow.NULL:
			if x, err = expr.Cast(arg, expr.StringT()); err != nil {
				return call, err
			}
		case t.ID() == arrow.LIST || t.ID() == arrow.MAP || t.ID() == arrow.STRUCT:
			return call, errorf(ErrAnalysis, "%s does not accept %s", name, expr.TypeName(t))
		}
		n := 128.0
		if len(fc.Args) == 3 {
			// The older form histogram(x, sample_rate, max_buckets): Doris
			// samples by a seeded random below rate 1, which Inlet does not
			// reproduce.
			if r, ok := numericConstant(fc.Args[1]); !ok || r != 1 {
				return call, errorf(ErrUnsupported, "%s: a sample rate other than 1, got %v", name, fc.Args[1])
			}
		}
		if len(fc.Args) >= 2 {
			last := fc.Args[len(fc.Args)-1]
			v, ok := numericConstant(last)
			if !ok || v < 1 || v != float64(int64(v)) {
				return call, errorf(ErrAnalysis, "%s: the bucket count must be a positive integer constant, got %v", name, last)
			}
			n = v
		}
		call.Arg, call.Type = newArgPack(x, expr.Int(int64(n))), expr.StringT()
	case "linear_histogram":
		x := arg
		if t.ID() == arrow.BOOL {
			if x, err = expr.Cast(arg, expr.Int64T()); err != nil {
				return call, err
			}
		}
		if x, err = double(x); err != nil {
			return call, err
		}
		iv, ok := numericConstant(fc.Args[1])
		if !ok || iv <= 0 {
			return call, errorf(ErrAnalysis, "linear_histogram: interval should be larger than 0 (a numeric constant), got %v", fc.Args[1])
		}
		off := 0.0
		if len(fc.Args) == 3 {
			if off, ok = numericConstant(fc.Args[2]); !ok || off < 0 || off >= iv {
				return call, errorf(ErrAnalysis, "linear_histogram: offset should be in [0, interval) (a numeric constant), got %v", fc.Args[2])
			}
		}
		call.Arg, call.Type = newArgPack(x, expr.Float(iv), expr.Float(off)), expr.StringT()
	case "sequence_match", "sequence_count":
		lit, ok := fc.Args[0].(*sql.Literal)
		if !ok || lit.Kind != sql.LitString {
			return call, errorf(ErrAnalysis, "%s: the pattern must be a constant string, got %v", name, fc.Args[0])
		}
		if _, err := expr.ParseSequencePattern(lit.Value, len(fc.Args)-2); err != nil {
			return call, errorf(ErrAnalysis, "%s: %s", name, strings.TrimPrefix(err.Error(), expr.ErrType.Error()+": "))
		}
		ts, err := b.bindExpr(fc.Args[1], in, st)
		if err != nil {
			return call, err
		}
		switch ts.DataType().ID() {
		case arrow.TIMESTAMP, arrow.DATE32:
		default:
			if ts, err = expr.Cast(ts, expr.DatetimeT()); err != nil {
				return call, err
			}
		}
		packed := []expr.Expr{expr.Str(lit.Value), ts}
		for _, a := range fc.Args[2:] {
			c, err := b.bindExpr(a, in, st)
			if err != nil {
				return call, err
			}
			if c, err = asBool(c); err != nil {
				return call, err
			}
			packed = append(packed, c)
		}
		call.Arg, call.Type = newArgPack(packed...), expr.BoolT()
		if name == "sequence_count" {
			call.Type = expr.Int64T()
		}
	case "bool_and", "bool_or":
		if call.Arg, err = asBool(arg); err != nil {
			return call, err
		}
		call.Type = expr.BoolT()
	case "sum0":
		sum, err := b.bindAggCall(&sql.FuncCall{Name: "sum", Args: fc.Args, Distinct: fc.Distinct}, in, st)
		if err != nil {
			return call, err
		}
		call.Arg, call.Type = sum.Arg, sum.Type
	case "collect_list", "group_array", "collect_set", "group_uniq_array", "array_agg":
		if len(fc.Args) == 2 {
			if n, ok := numericConstant(fc.Args[1]); !ok || n < 0 || n != float64(int64(n)) {
				return call, errorf(ErrAnalysis, "%s: max_size must be a non-negative integer constant, got %v", name, fc.Args[1])
			}
		}
		if t.ID() == arrow.NULL {
			if arg, err = expr.Cast(arg, expr.Int64T()); err != nil {
				return call, err
			}
		}
		call.Arg, call.Type = arg, arrow.ListOf(arg.DataType())
	default: // stddev/variance, kurt, skew, median
		if call.Arg, err = double(arg); err != nil {
			return call, err
		}
		call.Type = expr.Float64T()
	}
	return call, nil
}

// numericConstant reads a numeric literal (optionally negated).
func numericConstant(e sql.Expr) (float64, bool) {
	neg := false
	if u, ok := e.(*sql.UnaryExpr); ok && u.Op == "-" {
		neg, e = true, u.X
	}
	lit, ok := e.(*sql.Literal)
	if !ok || (lit.Kind != sql.LitInt && lit.Kind != sql.LitDecimal && lit.Kind != sql.LitFloat) {
		return 0, false
	}
	v, err := strconv.ParseFloat(lit.Value, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// argPack evaluates its arguments into one STRUCT column (fields a0, a1,
// ...): the single argument the executor's two-argument aggregates read.
type argPack struct {
	args []expr.Expr
	typ  *arrow.StructType
}

func newArgPack(args ...expr.Expr) *argPack {
	fs := make([]arrow.Field, len(args))
	for i, a := range args {
		fs[i] = arrow.Field{Name: "a" + strconv.Itoa(i), Type: a.DataType(), Nullable: true}
	}
	return &argPack{args: args, typ: arrow.StructOf(fs...)}
}

func (p *argPack) DataType() arrow.DataType { return p.typ }
func (p *argPack) Children() []expr.Expr    { return p.args }

func (p *argPack) String() string {
	s := make([]string, len(p.args))
	for i, a := range p.args {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

func (p *argPack) Eval(env *expr.Env, batch arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, 0, len(p.args))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	names := make([]string, len(p.args))
	for i, a := range p.args {
		c, err := a.Eval(env, batch)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
		names[i] = p.typ.Field(i).Name
	}
	return array.NewStructArray(cols, names)
}

// expandAggForms rewrites, in place, the aggregates Doris defines as a
// combination of Inlet's: percentile_array(x, [p1, ..., pn]) is
// array(percentile(x, p1), ..., percentile(x, pn)), the exact percentiles
// of x at each constant p (Doris's PERCENTILE_ARRAY). The select list keeps
// its written text, so the column is still named percentile_array(...).
func expandAggForms(n *sql.Select) {
	var walk func(e sql.Expr)
	walk = func(e sql.Expr) {
		if e == nil {
			return
		}
		if fc, ok := e.(*sql.FuncCall); ok && fc.Over == nil && strings.EqualFold(fc.Name, "percentile_array") && len(fc.Args) == 2 {
			if ps, ok := fc.Args[1].(*sql.FuncCall); ok && strings.EqualFold(ps.Name, "array") && len(ps.Args) > 0 {
				calls := make([]sql.Expr, len(ps.Args))
				for i, p := range ps.Args {
					calls[i] = &sql.FuncCall{Name: "percentile", Args: []sql.Expr{fc.Args[0], p}}
				}
				fc.Name, fc.Args, fc.Distinct = "array", calls, false
			}
		}
		for _, c := range children(e) {
			walk(c)
		}
	}
	for _, it := range n.Items {
		walk(it.Expr)
	}
	walk(n.Having)
	for _, o := range n.OrderBy {
		walk(o.Expr)
	}
}
