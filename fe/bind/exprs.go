package bind

import (
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// children lists the direct sub-expressions of an AST expression (not
// descending into subqueries).
func children(e sql.Expr) []sql.Expr {
	switch n := e.(type) {
	case *sql.UnaryExpr:
		return []sql.Expr{n.X}
	case *sql.BinaryExpr:
		return []sql.Expr{n.L, n.R}
	case *sql.IsExpr:
		return []sql.Expr{n.X}
	case *sql.Between:
		return []sql.Expr{n.X, n.Lo, n.Hi}
	case *sql.InExpr:
		return append([]sql.Expr{n.X}, n.List...)
	case *sql.LikeExpr:
		out := []sql.Expr{n.X, n.Pattern}
		if n.Escape != nil {
			out = append(out, n.Escape)
		}
		return out
	case *sql.Case:
		var out []sql.Expr
		if n.Operand != nil {
			out = append(out, n.Operand)
		}
		for _, w := range n.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if n.Else != nil {
			out = append(out, n.Else)
		}
		return out
	case *sql.Cast:
		return []sql.Expr{n.X}
	case *sql.FuncCall:
		if n.Over == nil {
			return n.Args
		}
		// A window's PARTITION BY and ORDER BY are part of the call: an
		// aggregate there (rank() OVER (ORDER BY sum(x))) is one of the
		// block's aggregates.
		out := append([]sql.Expr{}, n.Args...)
		out = append(out, n.Over.PartitionBy...)
		for _, o := range n.Over.OrderBy {
			out = append(out, o.Expr)
		}
		return out
	case *sql.Index:
		return []sql.Expr{n.X, n.Index}
	case *sql.Field:
		return []sql.Expr{n.X}
	case *sql.Row:
		return n.Items
	case *sql.Quantified:
		return []sql.Expr{n.X}
	case *sql.Interval:
		return []sql.Expr{n.Value}
	case *sql.Lambda:
		return []sql.Expr{n.Body}
	}
	return nil
}

func containsAgg(e sql.Expr) bool {
	if e == nil {
		return false
	}
	if fc, ok := e.(*sql.FuncCall); ok && isAggName(fc.Name) && fc.Over == nil {
		return true
	}
	for _, c := range children(e) {
		if containsAgg(c) {
			return true
		}
	}
	return false
}

// BindExpr binds a scalar expression with no columns in scope (SET values,
// INSERT VALUES rows, SELECT without FROM).
func (b *Binder) BindExpr(e sql.Expr) (expr.Expr, error) {
	return b.bindExpr(e, &scope{}, nil)
}

// bindExprUnfolded binds e; bindExpr (fold.go) folds what it returns.
func (b *Binder) bindExprUnfolded(e sql.Expr, sc *scope, st *aggState) (expr.Expr, error) {
	if fc, ok := e.(*sql.FuncCall); ok && isGroupingName(fc.Name) && fc.Over == nil {
		_, k, err := b.groupingCall(fc, st)
		if err != nil {
			return nil, err
		}
		c, ok := st.grouping.keys[k]
		if !ok {
			return nil, errorf(ErrAnalysis, "%s not collected", fc)
		}
		i := st.grouping.nGroups + 1 + c
		return expr.Col(i, st.out[i].Name, st.out[i].Type), nil
	}
	if st != nil {
		if fc, ok := e.(*sql.FuncCall); ok && isAggName(fc.Name) && fc.Over == nil {
			call, err := b.bindAggCall(fc, st.input, nil)
			if err != nil {
				return nil, err
			}
			i, ok := st.aggKeys[call.String()]
			if !ok {
				return nil, errorf(ErrAnalysis, "aggregate %s not collected", call)
			}
			k := len(st.groups) + i
			col := expr.Col(k, st.out[k].Name, st.out[k].Type)
			if n, ok := collectMaxSize(fc); ok {
				// collect_list(x, max_size): the collected array cut to
				// max_size (which elements Doris keeps is left open).
				return expr.Func("array_slice", col, expr.Int(1), expr.Int(n))
			}
			return col, nil
		}
		if _, lit := e.(*sql.Literal); !lit && !containsAgg(e) {
			if be, err := b.bindExpr(e, st.input, nil); err == nil {
				if i, ok := st.groupKeys[be.String()]; ok {
					return expr.Col(i, st.out[i].Name, st.out[i].Type), nil
				}
			}
			if cr, ok := e.(*sql.ColumnRef); ok {
				// Select aliases of group keys and names of group outputs.
				if i, err := sc.resolve(cr.Parts); err == nil && i < len(st.groups) {
					return expr.Col(i, st.out[i].Name, st.out[i].Type), nil
				}
				// In HAVING (b.aliases set) a name that is not a group
				// key is a select alias before it is a table column, as
				// Doris binds it (GROUP BY columns, then the aggregate's
				// output, then its input).
				if a, ok := b.aliases[strings.ToLower(cr.Parts[0])]; ok && len(cr.Parts) == 1 {
					saved := b.aliases
					b.aliases = nil // an alias does not refer to itself
					x, aerr := b.bindExpr(a, sc, st)
					b.aliases = saved
					return x, aerr
				}
				if _, err := st.input.resolve(cr.Parts); err != nil {
					return nil, err
				}
				return nil, notInAggOutput(cr.Parts[len(cr.Parts)-1])
			}
		}
	}
	bind := func(x sql.Expr) (expr.Expr, error) { return b.bindExpr(x, sc, st) }
	switch n := e.(type) {
	case *sql.ColumnRef:
		i, err := sc.resolve(n.Parts)
		if err != nil {
			// s.f may be a struct field of column s.
			if len(n.Parts) >= 2 {
				if j, err2 := sc.resolve(n.Parts[:1]); err2 == nil && sc.cols[j].Type.ID() == arrow.STRUCT {
					var x expr.Expr = expr.Col(j, sc.cols[j].Name, sc.cols[j].Type)
					for _, f := range n.Parts[1:] {
						if x, err2 = expr.Field(x, f); err2 != nil {
							return nil, err2
						}
					}
					return x, nil
				}
			}
			return nil, err
		}
		return expr.Col(i, sc.refName(i), sc.cols[i].Type), nil
	case *sql.Literal:
		return literal(n)
	case *sql.Variable:
		if n.Scope == sql.ScopeUser {
			return expr.Null(expr.StringT()), nil
		}
		if b.sess.Var == nil {
			return nil, errorf(ErrAnalysis, "Unknown system variable '%s'", n.Name)
		}
		v, err := b.sess.Var(n.Name, n.Scope == sql.ScopeGlobal)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case int64:
			return expr.Int(x), nil
		case string:
			return expr.Str(x), nil
		}
		return nil, errorf(ErrAnalysis, "variable %s has type %T", n.Name, v)
	case *sql.UnaryExpr:
		if lit, ok := n.X.(*sql.Literal); ok && n.Op == "-" && lit.Kind == sql.LitInt {
			// -2^127 is a LARGEINT literal although 2^127 is not one.
			if _, err := strconv.ParseInt(lit.Value, 10, 64); err != nil {
				if l, ok := expr.LargeInt("-" + lit.Value); ok {
					return l, nil
				}
			}
		}
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		switch n.Op {
		case "-":
			return expr.Neg(x)
		case "+":
			return x, nil
		case "NOT", "!":
			if x, err = asBool(x); err != nil {
				return nil, err
			}
			return expr.Not(x)
		}
		return nil, errorf(ErrUnsupported, "operator %s", n.Op)
	case *sql.BinaryExpr:
		return b.bindBinary(n, sc, st)
	case *sql.Quantified:
		x, err := b.expandQuantified(n)
		if err != nil {
			return nil, err
		}
		return bind(x)
	case *sql.IsExpr:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		switch n.What {
		case "NULL", "UNKNOWN":
			return expr.IsNull(x, n.Not), nil
		case "TRUE", "FALSE":
			if x, err = asBool(x); err != nil {
				return nil, err
			}
			c, err := expr.Cmp(expr.NullSafeEq, x, expr.Bool(n.What == "TRUE"))
			if err != nil || !n.Not {
				return c, err
			}
			return expr.Not(c)
		}
		return nil, errorf(ErrUnsupported, "IS %s", n.What)
	case *sql.Between:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		lo, err := bind(n.Lo)
		if err != nil {
			return nil, err
		}
		hi, err := bind(n.Hi)
		if err != nil {
			return nil, err
		}
		return expr.Between(x, lo, hi, n.Not)
	case *sql.InExpr:
		if _, ok := rowIn(n); ok {
			x, err := b.expandRowIn(n)
			if err != nil {
				return nil, err
			}
			return bind(x)
		}
		if n.Query != nil {
			if e, ok := b.subqueryCol(n, sc, st); ok {
				return e, nil
			}
			return nil, errorf(ErrUnsupported, "IN (subquery) here (supported in WHERE and in the select list of a query without aggregation)")
		}
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		list := make([]expr.Expr, len(n.List))
		for i, a := range n.List {
			if list[i], err = bind(a); err != nil {
				return nil, err
			}
		}
		return expr.In(x, list, n.Not)
	case *sql.LikeExpr:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		p, err := bind(n.Pattern)
		if err != nil {
			return nil, err
		}
		if n.Op == "REGEXP" {
			r, err := expr.Func("regexp", x, p)
			if err != nil || !n.Not {
				return r, err
			}
			return expr.Not(r)
		}
		esc := '\\'
		if n.Escape != nil {
			l, ok := n.Escape.(*sql.Literal)
			if !ok || l.Kind != sql.LitString || utf8.RuneCountInString(l.Value) != 1 {
				return nil, errorf(ErrAnalysis, "ESCAPE must be a one-character string")
			}
			esc, _ = utf8.DecodeRuneInString(l.Value)
		}
		return expr.Like(x, p, esc, n.Not)
	case *sql.Case:
		var operand, els expr.Expr
		var err error
		if n.Operand != nil {
			if operand, err = bind(n.Operand); err != nil {
				return nil, err
			}
		}
		whens := make([]expr.When, len(n.Whens))
		for i, w := range n.Whens {
			c, err := bind(w.Cond)
			if err != nil {
				return nil, err
			}
			r, err := bind(w.Result)
			if err != nil {
				return nil, err
			}
			whens[i] = expr.When{Cond: c, Then: r}
		}
		if n.Else != nil {
			if els, err = bind(n.Else); err != nil {
				return nil, err
			}
		}
		return expr.Case(operand, whens, els)
	case *sql.Cast:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		t, _, err := ColumnType(n.Type)
		if err != nil {
			return nil, err
		}
		return expr.Cast(x, t)
	case *sql.FuncCall:
		return b.bindFunc(n, sc, st)
	case *sql.Index:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		k, err := bind(n.Index)
		if err != nil {
			return nil, err
		}
		return expr.Element(x, k)
	case *sql.Field:
		x, err := bind(n.X)
		if err != nil {
			return nil, err
		}
		return expr.Field(x, n.Name)
	case *sql.Subquery:
		if e, ok := b.subqueryCol(n, sc, st); ok {
			return e, nil
		}
		return nil, errorf(ErrUnsupported, "a scalar subquery here (supported in WHERE and in the select list of a query without aggregation)")
	case *sql.Exists:
		if e, ok := b.subqueryCol(n, sc, st); ok {
			return e, nil
		}
		return nil, errorf(ErrUnsupported, "EXISTS here (supported in WHERE and in the select list of a query without aggregation)")
	case *sql.Param:
		if n.Index >= len(b.sess.Args) {
			return nil, errorf(ErrAnalysis, "placeholder %d has no value", n.Index+1)
		}
		switch v := b.sess.Args[n.Index].(type) {
		case nil:
			return expr.Null(expr.NullT()), nil
		case int64:
			return expr.Int(v), nil
		case uint64:
			if v <= 1<<63-1 {
				return expr.Int(int64(v)), nil
			}
			return expr.Decimal(strconv.FormatUint(v, 10))
		case float64:
			return expr.Float(v), nil
		case string:
			return expr.Str(v), nil
		case ParamDecimal:
			return literal(&sql.Literal{Kind: sql.LitDecimal, Value: string(v)})
		case ParamDate:
			return expr.Lit(string(v), expr.Date32T())
		case ParamDatetime:
			return expr.Lit(string(v), expr.DatetimeT())
		}
		return nil, errorf(ErrAnalysis, "placeholder %d has a value of an unsupported type", n.Index+1)
	case *sql.DefaultExpr:
		return nil, errorf(ErrUnsupported, "DEFAULT here")
	case *sql.Lambda:
		// Also what MySQL's JSON operator col->'$.path' parses as.
		return nil, errorf(ErrAnalysis, "lambda %s is allowed only as the first argument of an array function (array_map, array_filter, ...)", e)
	}
	return nil, errorf(ErrUnsupported, "expression %s", e)
}

func literal(n *sql.Literal) (expr.Expr, error) {
	switch n.Kind {
	case sql.LitNull:
		return expr.Null(expr.NullT()), nil
	case sql.LitBool:
		return expr.Bool(strings.EqualFold(n.Value, "TRUE")), nil
	case sql.LitInt:
		if v, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			return expr.Int(v), nil
		}
		// Past BIGINT an integer is LARGEINT while it fits 128 bits, as
		// Doris types it.
		if l, ok := expr.LargeInt(n.Value); ok {
			return l, nil
		}
		if len(n.Value) <= 38 {
			return expr.Decimal(n.Value)
		}
		f, _ := strconv.ParseFloat(n.Value, 64)
		return expr.Float(f), nil
	case sql.LitDecimal:
		digits := strings.TrimLeft(strings.Replace(n.Value, ".", "", 1), "0")
		if len(digits) <= 38 {
			return expr.Decimal(n.Value)
		}
		f, _ := strconv.ParseFloat(n.Value, 64)
		return expr.Float(f), nil
	case sql.LitFloat:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, errorf(ErrAnalysis, "bad number %s", n.Value)
		}
		return expr.Float(f), nil
	case sql.LitString:
		return expr.Str(n.Value), nil
	case sql.LitHex:
		b, err := hex.DecodeString(n.Value)
		if err != nil {
			return nil, errorf(ErrAnalysis, "bad hex literal")
		}
		return expr.Str(string(b)), nil
	case sql.LitDate:
		return expr.Lit(n.Value, expr.Date32T())
	case sql.LitDatetime:
		return expr.Lit(n.Value, expr.DatetimeT())
	}
	return nil, errorf(ErrUnsupported, "literal %s", n)
}

// foldsCase reports a reference to a column compared without regard to
// case (Column.FoldCase).
func foldsCase(e sql.Expr, sc *scope) bool {
	c, ok := e.(*sql.ColumnRef)
	if !ok || sc == nil {
		return false
	}
	i, err := sc.resolve(c.Parts)
	return err == nil && sc.cols[i].FoldCase
}

// lowerBoth compares two text operands case-insensitively by comparing
// their lower-case forms; other operand types are left alone.
func lowerBoth(l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	if l.DataType().ID() != arrow.STRING || r.DataType().ID() != arrow.STRING {
		return l, r, nil
	}
	ll, err := expr.Func("lower", l)
	if err != nil {
		return nil, nil, err
	}
	rl, err := expr.Func("lower", r)
	return ll, rl, err
}

func (b *Binder) bindBinary(n *sql.BinaryExpr, sc *scope, st *aggState) (expr.Expr, error) {
	// date +/- INTERVAL n unit
	if iv, ok := n.R.(*sql.Interval); ok && (n.Op == "+" || n.Op == "-") {
		d, err := b.bindExpr(n.L, sc, st)
		if err != nil {
			return nil, err
		}
		v, err := b.bindExpr(iv.Value, sc, st)
		if err != nil {
			return nil, err
		}
		return expr.DateArith(d, v, iv.Unit, n.Op == "-")
	}
	if iv, ok := n.L.(*sql.Interval); ok && n.Op == "+" {
		d, err := b.bindExpr(n.R, sc, st)
		if err != nil {
			return nil, err
		}
		v, err := b.bindExpr(iv.Value, sc, st)
		if err != nil {
			return nil, err
		}
		return expr.DateArith(d, v, iv.Unit, false)
	}
	l, err := b.bindExpr(n.L, sc, st)
	if err != nil {
		return nil, err
	}
	r, err := b.bindExpr(n.R, sc, st)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case "=", "!=", "<=>":
		if foldsCase(n.L, sc) || foldsCase(n.R, sc) {
			if l, r, err = lowerBoth(l, r); err != nil {
				return nil, err
			}
		}
	}
	switch n.Op {
	case "+":
		return expr.Arith(expr.Add, l, r)
	case "-":
		return expr.Arith(expr.Sub, l, r)
	case "*":
		return expr.Arith(expr.Mul, l, r)
	case "/":
		return expr.Arith(expr.Div, l, r)
	case "%":
		return expr.Arith(expr.Mod, l, r)
	case "DIV":
		return expr.Arith(expr.IntDiv, l, r)
	case "=":
		return expr.Cmp(expr.Eq, l, r)
	case "!=":
		return expr.Cmp(expr.Ne, l, r)
	case "<":
		return expr.Cmp(expr.Lt, l, r)
	case "<=":
		return expr.Cmp(expr.Le, l, r)
	case ">":
		return expr.Cmp(expr.Gt, l, r)
	case ">=":
		return expr.Cmp(expr.Ge, l, r)
	case "<=>":
		return expr.Cmp(expr.NullSafeEq, l, r)
	case "AND", "OR", "XOR":
		if l, err = asBool(l); err != nil {
			return nil, err
		}
		if r, err = asBool(r); err != nil {
			return nil, err
		}
		switch n.Op {
		case "AND":
			return expr.And(l, r)
		case "OR":
			return expr.Or(l, r)
		}
		return expr.Cmp(expr.Ne, l, r)
	}
	return nil, errorf(ErrUnsupported, "operator %s", n.Op)
}

func (b *Binder) bindFunc(n *sql.FuncCall, sc *scope, st *aggState) (expr.Expr, error) {
	name := strings.ToLower(n.Name)
	if n.Over != nil {
		if i, ok := b.windows[n]; ok && i < len(sc.cols) && sc.cols[i].Qualifier == windowQualifier {
			return expr.Col(i, sc.cols[i].Name, sc.cols[i].Type), nil
		}
		return nil, errorf(ErrUnsupported, "window function %s here (supported in the select list and ORDER BY)", name)
	}
	if isAggName(name) {
		return nil, errorf(ErrAnalysis, "aggregate %s is not allowed here", name)
	}
	s := b.sess
	noArgs := func(v expr.Expr) (expr.Expr, error) {
		if len(n.Args) != 0 {
			return nil, errorf(ErrAnalysis, "%s takes no arguments", name)
		}
		return v, nil
	}
	switch name {
	case "database", "schema":
		if s.CurrentDB == "" {
			return noArgs(expr.Null(expr.StringT()))
		}
		return noArgs(expr.Str(s.CurrentDB))
	case "current_catalog":
		return noArgs(expr.Str(s.CurrentCatalog))
	case "user", "session_user", "system_user":
		return noArgs(expr.Str(s.User + "@%"))
	case "current_user":
		return noArgs(expr.Str("'" + s.User + "'@'%'"))
	case "connection_id":
		return noArgs(expr.Int(s.ConnectionID))
	case "version":
		return noArgs(expr.Str(s.Version))
	case "last_query_id":
		// Doris: the id of the session's previous query; NULL before any.
		if s.LastQueryID == "" {
			return noArgs(expr.Null(expr.StringT()))
		}
		return noArgs(expr.Str(s.LastQueryID))
	case "last_insert_id", "found_rows", "row_count":
		return noArgs(expr.Int(0))
	}
	if len(n.Args) > 0 {
		if lam, ok := n.Args[0].(*sql.Lambda); ok {
			return b.bindLambdaCall(name, lam, n.Args[1:], sc, st)
		}
	}
	for _, a := range n.Args {
		if _, ok := a.(*sql.Lambda); ok {
			return nil, errorf(ErrAnalysis, "%s: a lambda must be the first argument", name)
		}
	}
	switch name {
	case "date_add", "adddate", "date_sub", "subdate":
		// DATE_ADD(d, INTERVAL n unit) is d + INTERVAL n unit.
		if len(n.Args) == 2 {
			if iv, ok := n.Args[1].(*sql.Interval); ok {
				d, err := b.bindExpr(n.Args[0], sc, st)
				if err != nil {
					return nil, err
				}
				v, err := b.bindExpr(iv.Value, sc, st)
				if err != nil {
					return nil, err
				}
				return expr.DateArith(d, v, iv.Unit, strings.HasSuffix(name, "sub"))
			}
		}
	case "date_floor", "date_ceil":
		// DATE_FLOOR(d, INTERVAL n unit) is date_floor(d, n, 'unit').
		if len(n.Args) == 2 {
			if iv, ok := n.Args[1].(*sql.Interval); ok {
				d, err := b.bindExpr(n.Args[0], sc, st)
				if err != nil {
					return nil, err
				}
				v, err := b.bindExpr(iv.Value, sc, st)
				if err != nil {
					return nil, err
				}
				return expr.Func(name, d, v, expr.Str(iv.Unit))
			}
		}
	case "array_range", "sequence":
		// ARRAY_RANGE(start, end, INTERVAL n unit) is array_range(start,
		// end, n, 'unit').
		if len(n.Args) == 3 {
			if iv, ok := n.Args[2].(*sql.Interval); ok {
				args := make([]expr.Expr, 0, 4)
				for _, a := range []sql.Expr{n.Args[0], n.Args[1], iv.Value} {
					x, err := b.bindExpr(a, sc, st)
					if err != nil {
						return nil, err
					}
					args = append(args, x)
				}
				return expr.Func(name, append(args, expr.Str(iv.Unit))...)
			}
		}
	case "timestampdiff", "timestampadd":
		// The first argument is a unit keyword, not a column.
		if len(n.Args) == 3 {
			if u, ok := unitName(n.Args[0]); ok {
				if name == "timestampadd" {
					v, err := b.bindExpr(n.Args[1], sc, st)
					if err != nil {
						return nil, err
					}
					d, err := b.bindExpr(n.Args[2], sc, st)
					if err != nil {
						return nil, err
					}
					return expr.DateArith(d, v, u, false)
				}
				args := []expr.Expr{expr.Str(u), nil, nil}
				for i, a := range n.Args[1:] {
					x, err := b.bindExpr(a, sc, st)
					if err != nil {
						return nil, err
					}
					args[i+1] = x
				}
				return expr.Func(name, args...)
			}
		}
	}
	args := make([]expr.Expr, len(n.Args))
	for i, a := range n.Args {
		x, err := b.bindExpr(a, sc, st)
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	return expr.Func(name, args...)
}

// unitName reads a bare date unit (DAY, SQL_TSI_DAY, or 'day') given as a
// function argument.
func unitName(e sql.Expr) (string, bool) {
	var u string
	switch n := e.(type) {
	case *sql.ColumnRef:
		if len(n.Parts) != 1 {
			return "", false
		}
		u = n.Parts[0]
	case *sql.Literal:
		if n.Kind != sql.LitString {
			return "", false
		}
		u = n.Value
	default:
		return "", false
	}
	u = strings.TrimPrefix(strings.ToUpper(u), "SQL_TSI_")
	return u, expr.DiffUnit(u)
}

// LiteralValue evaluates a bound constant expression's Go value, for SET.
func LiteralValue(e expr.Expr) (any, bool) {
	if l, ok := e.(*expr.Literal); ok {
		return l.Value, true
	}
	return nil, false
}

// BindOver binds an expression over the given columns (SHOW ... WHERE).
func (b *Binder) BindOver(e sql.Expr, cols []Column) (expr.Expr, error) {
	x, err := b.bindExpr(e, &scope{cols: cols}, nil)
	if err != nil {
		return nil, err
	}
	return asBool(x)
}
