package bind

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// aggState maps expressions of an aggregating SELECT onto the Aggregate's
// output: group keys first, then aggregate calls.
type aggState struct {
	input     *scope
	groups    []expr.Expr
	groupKeys map[string]int
	aggs      []AggCall
	aggKeys   map[string]int
	out       []Column
	// post is set once subqueries were planned over the aggregate's
	// output, whose scope then shows their value columns.
	post bool
	// grouping is set for ROLLUP, CUBE and GROUPING SETS.
	grouping *groupingSets
}

type item struct {
	ast   sql.Expr
	name  string
	alias string // explicit alias
	// col >= 0 means a column of the FROM scope chosen by a star.
	col int
}

func (b *Binder) bindSelect(n *sql.Select) (Plan, error) {
	if err := resolveWindows(n); err != nil {
		return nil, err
	}
	expandAggForms(n)
	var input Plan
	lat := b.lateral
	b.lateral = nil
	b.need = collectNeed(n)
	if n.Where != nil && containsAgg(n.Where) {
		return nil, errorf(ErrAnalysis, "aggregate functions are not allowed in WHERE")
	}
	where := b.splitCorrelatedUnions(factorOrs(n.Where))
	reordered := false
	if lat != nil {
		input, where = lat.input, lat.where
	} else if n.From == nil {
		input = &Values{Rows: [][]expr.Expr{{}}}
	} else {
		p, w, ok, err := b.reorderJoins(n.From, where)
		if err != nil {
			return nil, err
		}
		if ok {
			input, where, reordered = p, w, true
		} else if input, err = b.bindFrom(n.From); err != nil {
			return nil, err
		}
	}
	if n.From != nil && !reordered && lat == nil {
		pushPredicates(n.From, input, b.foldWhere(where), b.sessionLoc())
		var err error
		if input, where, err = b.pushWhere(input, where); err != nil {
			return nil, err
		}
	}
	plainItems := len(n.GroupBy) == 0 && n.Having == nil
	for _, it := range n.Items {
		if containsAgg(it.Expr) {
			plainItems = false
		}
	}
	if lat == nil && where != nil && (containsSubquery(where) || itemsHaveSubquery(n)) {
		// Conditions on the FROM rows alone filter them before the semi,
		// anti and decorrelating joins the subqueries become (TPC-H Q4's
		// order dates), not above; a scalar subquery of the select list
		// then sees only the rows WHERE keeps, so its one-row check
		// (AssertOneRow) never fails on a row the statement drops.
		var err error
		if input, where, err = b.filterFirst(input, where); err != nil {
			return nil, err
		}
	}
	fromCols := len(input.Columns())
	input, rest, err := b.planSubqueries(input, where, n.Items, n.OrderBy, plainItems)
	if err != nil {
		return nil, err
	}
	if !plainItems {
		all := []sql.Expr{n.Having}
		for _, it := range n.Items {
			all = append(all, it.Expr)
		}
		for _, o := range n.OrderBy {
			all = append(all, o.Expr)
		}
		if args := aggArgSubqueries(all); len(args) > 0 {
			if input, err = b.planExprSubqueries(input, args, false); err != nil {
				return nil, err
			}
		}
	}
	in := &scope{cols: input.Columns()}
	nd := 0
	if lat != nil {
		// The domain's columns come first; the block's own names win.
		nd = lat.nd
		in.inner = nd
	}
	if len(rest) > 0 {
		var conds []expr.Expr
		for _, w := range rest {
			c, err := b.bindExpr(w, in, nil)
			if err != nil {
				return nil, err
			}
			if c, err = asBool(c); err != nil {
				return nil, err
			}
			conds = append(conds, c)
		}
		c, err := andAll(conds)
		if err != nil {
			return nil, err
		}
		input = &Filter{Input: input, Cond: c}
	}

	items, err := expandStars(n.Items, &scope{cols: in.cols[nd:fromCols]})
	if err != nil {
		return nil, err
	}
	for i := range items {
		if items[i].col >= 0 {
			items[i].col += nd
		}
	}

	hasAgg := len(n.GroupBy) > 0 || n.Having != nil || n.Grouping != sql.GroupPlain
	for _, it := range items {
		if it.ast != nil && containsAgg(it.ast) {
			hasAgg = true
		}
	}
	for _, o := range n.OrderBy {
		if containsAgg(o.Expr) {
			hasAgg = true
		}
	}

	var st *aggState
	post := in
	if hasAgg {
		st, err = b.bindAggregate(n, items, in)
		if err != nil {
			return nil, err
		}
		if nd > 0 {
			if st.grouping != nil {
				return nil, errorf(ErrUnsupported, "ROLLUP, CUBE or GROUPING SETS in a correlated subquery")
			}
			st.prependGroups(in, nd)
		}
		if st.grouping != nil {
			input = st.repeat(input)
		}
		input = &Aggregate{Input: input, Groups: st.groups, Aggs: st.aggs, Out: st.out}
		post = &scope{cols: st.out}
		// Subqueries of the select list and HAVING of an aggregating
		// block see its groups: they are planned over the aggregate.
		var subExprs []sql.Expr
		for _, it := range items {
			if it.ast != nil && containsSubquery(it.ast) {
				subExprs = append(subExprs, it.ast)
			}
		}
		if n.Having != nil && containsSubquery(n.Having) {
			subExprs = append(subExprs, n.Having)
		}
		if len(subExprs) > 0 {
			if input, err = b.planExprSubqueries(input, subExprs, true); err != nil {
				return nil, err
			}
			st.out = input.Columns()
			st.post = true
			post = &scope{cols: st.out}
		}
		if n.Having != nil {
			b.aliases = map[string]sql.Expr{}
			for _, it := range items {
				if it.alias != "" && it.ast != nil {
					b.aliases[strings.ToLower(it.alias)] = it.ast
				}
			}
			c, err := b.bindExpr(n.Having, post, st)
			b.aliases = nil
			if err != nil {
				return nil, err
			}
			if c, err = asBool(c); err != nil {
				return nil, err
			}
			input = &Filter{Input: input, Cond: c}
		}
	}

	// Window functions of the select list and ORDER BY.
	var winExprs []sql.Expr
	for _, it := range items {
		winExprs = append(winExprs, it.ast)
	}
	for _, o := range n.OrderBy {
		winExprs = append(winExprs, o.Expr)
	}
	if input, post, err = b.planWindows(input, post, st, winExprs); err != nil {
		return nil, err
	}

	// Select list.
	exprs := make([]expr.Expr, len(items))
	out := make([]Column, len(items))
	for i, it := range items {
		var e expr.Expr
		if it.col >= 0 {
			if st != nil {
				k := expr.Col(it.col, in.refName(it.col), in.cols[it.col].Type).String()
				gi, ok := st.groupKeys[k]
				if !ok {
					return nil, notInAggOutput(in.cols[it.col].Name)
				}
				e = expr.Col(gi, st.out[gi].Name, st.out[gi].Type)
			} else {
				e = expr.Col(it.col, in.cols[it.col].Name, in.cols[it.col].Type)
			}
			out[i] = Column{Name: it.name, Qualifier: in.cols[it.col].Qualifier, Type: e.DataType(), Nullable: in.cols[it.col].Nullable}
		} else {
			if e, err = b.bindExpr(it.ast, post, st); err != nil {
				return nil, err
			}
			out[i] = Column{Name: it.name, Type: e.DataType(), Nullable: true}
			if cr, ok := e.(*expr.ColumnRef); ok && cr.Index < len(post.cols) {
				out[i].Qualifier = post.cols[cr.Index].Qualifier
				out[i].Nullable = post.cols[cr.Index].Nullable
			}
			if e.DataType().ID() == arrow.NULL {
				// An untyped NULL column is sent as a nullable string.
				if e, err = expr.Cast(e, expr.StringT()); err != nil {
					return nil, err
				}
				out[i].Type = e.DataType()
			}
		}
		exprs[i] = e
	}
	visible := len(exprs)

	// ORDER BY keys: an output ordinal or name, an expression equal to an
	// output, or a hidden extra column computed by the projection.
	var keys []SortKey
	for _, o := range n.OrderBy {
		idx := -1
		if lit, ok := o.Expr.(*sql.Literal); ok && lit.Kind == sql.LitInt {
			k, _ := strconv.Atoi(lit.Value)
			if k < 1 || k > visible {
				return nil, errorf(ErrUnknownColumn, "Unknown column '%d' in 'order clause'", k)
			}
			idx = k - 1
		} else if cr, ok := o.Expr.(*sql.ColumnRef); ok && len(cr.Parts) == 1 {
			for i, it := range items {
				if it.alias != "" && strings.EqualFold(it.alias, cr.Parts[0]) {
					idx = i
					break
				}
			}
		}
		if idx < 0 {
			e, err := b.bindExpr(o.Expr, post, st)
			if err != nil {
				return nil, err
			}
			for i := 0; i < len(exprs); i++ {
				if exprs[i].String() == e.String() {
					idx = i
					break
				}
			}
			if idx < 0 {
				if n.Distinct {
					return nil, errorf(ErrAnalysis, "ORDER BY expression %s is not in the select list of a SELECT DISTINCT", o.Expr)
				}
				exprs = append(exprs, e)
				out = append(out, Column{Name: "__order_" + strconv.Itoa(len(exprs)), Type: e.DataType(), Nullable: true})
				idx = len(exprs) - 1
			}
		}
		keys = append(keys, sortKey(expr.Col(idx, out[idx].Name, out[idx].Type), o))
	}

	if lat != nil {
		return b.lateralTail(n, input, post, st, exprs, out, keys, visible, nd)
	}
	var p Plan = &Project{Input: input, Exprs: exprs, Out: out}
	if n.Distinct {
		p = distinct(p)
	}
	if len(keys) > 0 {
		p = &Sort{Input: p, Keys: keys}
	}
	if len(exprs) > visible {
		final := make([]expr.Expr, visible)
		for i := range final {
			final[i] = expr.Col(i, out[i].Name, out[i].Type)
		}
		p = &Project{Input: p, Exprs: final, Out: out[:visible]}
	}
	if n.Limit != nil {
		p = &Limit{Input: p, Count: n.Limit.Count, Offset: n.Limit.Offset}
	}
	return p, nil
}

func expandStars(items []*sql.SelectItem, in *scope) ([]item, error) {
	var out []item
	for _, it := range items {
		st, ok := it.Expr.(*sql.Star)
		if !ok {
			name := it.Alias
			if name == "" {
				name = exprName(it.Expr)
			}
			out = append(out, item{ast: it.Expr, name: name, alias: it.Alias, col: -1})
			continue
		}
		except := map[string]bool{}
		for _, e := range st.Except {
			except[strings.ToLower(e)] = true
		}
		qual := ""
		if len(st.Qualifier) > 0 {
			qual = st.Qualifier[len(st.Qualifier)-1]
		}
		matched := false
		for i, c := range in.cols {
			if qual != "" && !strings.EqualFold(c.Qualifier, qual) {
				continue
			}
			matched = true
			if except[strings.ToLower(c.Name)] {
				continue
			}
			out = append(out, item{name: c.Name, col: i})
		}
		if qual != "" && !matched {
			return nil, errorf(ErrUnknownColumn, "Unknown table '%s'", qual)
		}
		if qual == "" && len(in.cols) == 0 {
			return nil, errorf(ErrAnalysis, "SELECT * with no tables specified")
		}
	}
	return out, nil
}

// exprName is the column name MySQL gives an unaliased select item.
func exprName(e sql.Expr) string {
	if cr, ok := e.(*sql.ColumnRef); ok {
		return cr.Parts[len(cr.Parts)-1]
	}
	if v, ok := e.(*sql.Variable); ok && v.Scope != sql.ScopeUser {
		switch v.Scope {
		case sql.ScopeGlobal:
			return "@@global." + v.Name
		case sql.ScopeSession:
			return "@@session." + v.Name
		}
		return "@@" + v.Name
	}
	if l, ok := e.(*sql.Literal); ok {
		switch l.Kind {
		case sql.LitString:
			return l.Value
		case sql.LitNull:
			return "NULL"
		}
	}
	return e.String()
}

func (b *Binder) bindAggregate(n *sql.Select, items []item, in *scope) (*aggState, error) {
	st := &aggState{input: in, groupKeys: map[string]int{}, aggKeys: map[string]int{}}
	pos := make([]int, len(n.GroupBy)) // group index of each GROUP BY entry
	for gi, g := range n.GroupBy {
		ast := g
		if lit, ok := g.(*sql.Literal); ok && lit.Kind == sql.LitInt {
			k, _ := strconv.Atoi(lit.Value)
			if k < 1 || k > len(items) {
				return nil, errorf(ErrUnknownColumn, "Unknown column '%d' in 'group statement'", k)
			}
			it := items[k-1]
			if it.col >= 0 {
				ast = &sql.ColumnRef{Parts: []string{in.cols[it.col].Qualifier, in.cols[it.col].Name}}
			} else {
				ast = it.ast
			}
		} else if cr, ok := g.(*sql.ColumnRef); ok && len(cr.Parts) == 1 {
			if _, err := in.resolve(cr.Parts); err != nil {
				for _, it := range items {
					if it.alias != "" && strings.EqualFold(it.alias, cr.Parts[0]) && it.ast != nil {
						ast = it.ast
					}
				}
			}
		}
		if containsAgg(ast) {
			return nil, errorf(ErrAnalysis, "aggregate functions are not allowed in GROUP BY")
		}
		e, err := b.bindExpr(ast, in, nil)
		if err != nil {
			return nil, err
		}
		k := e.String()
		if i, dup := st.groupKeys[k]; dup {
			pos[gi] = i
			continue
		}
		pos[gi] = len(st.groups)
		st.groupKeys[k] = len(st.groups)
		st.groups = append(st.groups, e)
		c := Column{Name: exprName(ast), Type: e.DataType(), Nullable: true}
		if cr, ok := e.(*expr.ColumnRef); ok {
			c.Qualifier = in.cols[cr.Index].Qualifier
			c.Name = in.cols[cr.Index].Name
			c.Nullable = in.cols[cr.Index].Nullable
		}
		st.out = append(st.out, c)
	}
	if n.Grouping != sql.GroupPlain {
		g := &groupingSets{nGroups: len(st.groups), keys: map[string]int{}}
		for _, set := range n.Sets {
			present := make([]bool, len(st.groups))
			for _, k := range set {
				present[pos[k]] = true
			}
			g.sets = append(g.sets, present)
		}
		st.grouping = g
	}
	var collect func(e sql.Expr) error
	collect = func(e sql.Expr) error {
		if e == nil {
			return nil
		}
		if fc, ok := e.(*sql.FuncCall); ok && isGroupingName(fc.Name) && fc.Over == nil {
			return b.collectGrouping(fc, st)
		}
		if fc, ok := e.(*sql.FuncCall); ok && isAggName(fc.Name) && fc.Over == nil {
			call, err := b.bindAggCall(fc, in, nil)
			if err != nil {
				return err
			}
			k := call.String()
			if _, dup := st.aggKeys[k]; !dup {
				st.aggKeys[k] = len(st.aggs)
				st.aggs = append(st.aggs, call)
			}
			return nil
		}
		for _, c := range children(e) {
			if err := collect(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items {
		if err := collect(it.ast); err != nil {
			return nil, err
		}
	}
	if err := collect(n.Having); err != nil {
		return nil, err
	}
	for _, o := range n.OrderBy {
		if err := collect(o.Expr); err != nil {
			return nil, err
		}
	}
	if st.grouping != nil {
		st.addGroupingColumns()
	}
	for _, a := range st.aggs {
		st.out = append(st.out, Column{Name: a.String(), Type: a.Type, Nullable: a.Func != AggCount})
	}
	return st, nil
}

func isAggName(name string) bool {
	switch strings.ToLower(name) {
	case "count", "sum", "min", "max", "avg", "any_value", "any", "group_concat":
		return true
	}
	return isStatAggName(name)
}

func (b *Binder) bindAggCall(fc *sql.FuncCall, in *scope, st *aggState) (AggCall, error) {
	name := strings.ToLower(fc.Name)
	if name == "any" {
		name = "any_value"
	}
	call := AggCall{Func: AggFunc(name), Distinct: fc.Distinct}
	if isStatAggName(name) {
		return b.bindStatAggCall(call, fc, in, st)
	}
	if fc.Star {
		if name != "count" {
			return call, errorf(ErrAnalysis, "%s(*)", name)
		}
		call.Type = expr.Int64T()
		return call, nil
	}
	args := fc.Args
	if call.Func == AggGroupConcat {
		if len(fc.OrderBy) > 0 {
			return call, errorf(ErrUnsupported, "group_concat with ORDER BY")
		}
		call.Sep = ","
		if len(args) == 2 {
			l, ok := args[1].(*sql.Literal)
			if !ok || l.Kind != sql.LitString {
				return call, errorf(ErrAnalysis, "group_concat: the separator must be a string constant")
			}
			call.Sep, args = l.Value, args[:1]
		}
	}
	if call.Func == AggCount && fc.Distinct && len(args) > 1 {
		for _, a := range args {
			if st == nil && containsAgg(a) {
				return call, errorf(ErrAnalysis, "nested aggregate in %s", name)
			}
		}
		arg, err := b.distinctTuple(args, in, st)
		if err != nil {
			return call, err
		}
		call.Arg, call.Type = arg, expr.Int64T()
		return call, nil
	}
	if len(args) != 1 {
		return call, errorf(ErrUnsupported, "%s takes exactly one argument, got %d", name, len(fc.Args))
	}
	// Under a window over an aggregating block (st set), sum(sum(x)) OVER
	// () is fine: the inner call is the block's aggregate.
	for _, a := range fc.Args {
		if st == nil && containsAgg(a) {
			return call, errorf(ErrAnalysis, "nested aggregate in %s", name)
		}
	}
	arg, err := b.bindExpr(args[0], in, st)
	if err != nil {
		return call, err
	}
	t := arg.DataType()
	switch call.Func {
	case AggGroupConcat:
		if arg, err = expr.Cast(arg, expr.StringT()); err != nil {
			return call, err
		}
		call.Type = expr.StringT()
	case AggCount:
		call.Type = expr.Int64T()
	case AggMin, AggMax, AggAny:
		if t.ID() == arrow.NULL {
			t = expr.StringT()
			if arg, err = expr.Cast(arg, t); err != nil {
				return call, err
			}
		}
		call.Type = t
	case AggSum, AggAvg:
		var in arrow.DataType
		switch {
		case isIntegral(t):
			in = expr.Int64T()
		case t.ID() == arrow.DECIMAL128:
			in = t
		case t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 || t.ID() == arrow.STRING || t.ID() == arrow.NULL:
			in = expr.Float64T()
		default:
			return call, errorf(ErrAnalysis, "%s does not accept %s", name, expr.TypeName(t))
		}
		if !arrow.TypeEqual(in, t) {
			if arg, err = expr.Cast(arg, in); err != nil {
				return call, err
			}
		}
		call.Type = in
		if in.ID() == arrow.DECIMAL128 {
			s := in.(*arrow.Decimal128Type).Scale
			if call.Func == AggAvg {
				s = min(max(s, 4), 38)
			}
			call.Type = expr.DecimalT(38, s)
			if call.Func == AggSum && expr.IsLargeInt(in) {
				call.Type = in // sum(LARGEINT) is LARGEINT, as in Doris
			}
		}
		if call.Func == AggAvg && isIntegral(in) {
			call.Type = expr.Float64T()
		}
	}
	call.Arg = arg
	return call, nil
}

func isIntegral(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.BOOL:
		return true
	}
	return false
}

func asBool(e expr.Expr) (expr.Expr, error) {
	if e.DataType().ID() == arrow.BOOL {
		return e, nil
	}
	return expr.Cast(e, expr.BoolT())
}

// distinctTuple is the key count(DISTINCT a, b, ...) counts: NULL when any
// argument is NULL (MySQL counts only rows where all are non-NULL), else
// the arguments' text, each prefixed by its byte length so that different
// tuples never give the same key ('a,b','c' and 'a','b,c' stay apart).
func (b *Binder) distinctTuple(args []sql.Expr, in *scope, st *aggState) (expr.Expr, error) {
	var parts, nulls []expr.Expr
	for _, a := range args {
		e, err := b.bindExpr(a, in, st)
		if err != nil {
			return nil, err
		}
		s, err := expr.Cast(e, expr.StringT())
		if err != nil {
			return nil, err
		}
		n, err := expr.Func("length", s)
		if err != nil {
			return nil, err
		}
		if n, err = expr.Cast(n, expr.StringT()); err != nil {
			return nil, err
		}
		parts = append(parts, n, expr.Str(":"), s)
		nulls = append(nulls, expr.IsNull(e, false))
	}
	key, err := expr.Func("concat", parts...)
	if err != nil {
		return nil, err
	}
	anyNull, err := expr.Or(nulls...)
	if err != nil {
		return nil, err
	}
	return expr.Case(nil, []expr.When{{Cond: anyNull, Then: expr.Null(expr.StringT())}}, key)
}

// notInAggOutput is the error for a column that is neither grouped nor
// aggregated, in Doris's (Nereids) words: the column's own name, without
// its qualifier.
func notInAggOutput(name string) error {
	return errorf(ErrAnalysis, "%s not in aggregate's output", name)
}

// itemsHaveSubquery reports whether n's select list or ORDER BY holds a
// subquery.
func itemsHaveSubquery(n *sql.Select) bool {
	for _, it := range n.Items {
		if containsSubquery(it.Expr) {
			return true
		}
	}
	for _, o := range n.OrderBy {
		if containsSubquery(o.Expr) {
			return true
		}
	}
	return false
}

// filterFirst puts the WHERE conjuncts without subqueries or aggregates
// that bind over input's columns as a Filter over input, and returns the
// conjuncts left.
func (b *Binder) filterFirst(input Plan, where sql.Expr) (Plan, sql.Expr, error) {
	in := &scope{cols: input.Columns()}
	var conds []expr.Expr
	var keep []sql.Expr
	for _, c := range conjuncts(where) {
		if containsSubquery(c) || containsAgg(c) {
			keep = append(keep, c)
			continue
		}
		e, err := b.bindExpr(c, in, nil)
		if err == nil {
			e, err = asBool(e)
		}
		if err != nil {
			keep = append(keep, c)
			continue
		}
		conds = append(conds, e)
	}
	if len(conds) == 0 {
		return input, where, nil
	}
	p, err := filterBy(input, conds)
	return p, andSQL(keep), err
}
