package bind

import (
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Decorrelation over the domain of correlation values. A correlated
// subquery with GROUP BY, HAVING, DISTINCT, LIMIT, a subquery of its own, or
// a scalar subquery without an aggregate is evaluated once for every
// distinct value of the enclosing columns its WHERE reads (the domain D),
// never once per row:
//
//  1. D is the enclosing input grouped by those columns.
//  2. D joins the subquery's FROM under the correlation conjuncts (hash keys
//     for outer = inner, a nested-loop join filter for anything else, which
//     then runs over the distinct values, not every enclosing row).
//  3. The subquery block binds over that join with D's columns added to
//     its grouping and DISTINCT, and its LIMIT becomes a row_number
//     partitioned by them, so each domain value gets its own answer
//     (rows: the items, then D's columns).
//  4. The enclosing input joins that result on D's columns.
//
// Step 4 joins NULL-safely (addDomainKeys): a NULL correlation value is a
// domain value too, answered by the subquery like any other. A domain value
// the FROM has no rows for gets the subquery's answer over no rows: none,
// or for an aggregate without GROUP BY one row, computed by the same block
// over an empty WHERE (so count is 0 and HAVING is applied).

// lateralCtx makes the next bindSelect bind its block over input (D's
// columns, then the FROM) instead of its FROM, grouped by D's columns.
type lateralCtx struct {
	input Plan
	nd    int
	where sql.Expr // WHERE conjuncts left to the block (with subqueries)
}

// lateralPlan is a subquery bound over the domain of its correlation.
type lateralPlan struct {
	sel *sql.Select
	// plan yields the select items, then the domain columns.
	plan   Plan
	nItems int
	// keys pair an enclosing expression with the plan's domain column.
	keys [][2]expr.Expr
	// aggNoGroup: the block aggregates without GROUP BY (one row per
	// domain value that has inner rows; see emptyAnswer for the others).
	aggNoGroup bool
	// oneRow: at most one row per domain value.
	oneRow bool
	// fromCols are the columns of the subquery's FROM (emptyAnswer).
	fromCols []Column
	// pass >= 0 is the column (after the items) telling whether HAVING
	// held, for an aggregate without GROUP BY: its HAVING is evaluated
	// as a value so that a domain value with rows that fail it is told
	// apart from one without rows.
	pass int
}

// needsLateral reports whether a correlated subquery needs the domain
// decorrelation rather than the row-number LEFT JOIN of correlate.go.
func needsLateral(q sql.Query, scalar bool) bool {
	sel, ok := q.(*sql.Select)
	if !ok || sel.With != nil || sel.From == nil {
		return false
	}
	if len(sel.GroupBy) > 0 || sel.Grouping != sql.GroupPlain || sel.Having != nil || sel.Distinct || sel.Limit != nil {
		return true
	}
	if sel.Where != nil {
		for _, c := range conjuncts(sel.Where) {
			if containsSubquery(c) {
				return true
			}
		}
	}
	if scalar && len(sel.Items) == 1 && !containsAgg(sel.Items[0].Expr) {
		return true
	}
	return false
}

// thetaOnly reports whether a correlated subquery's WHERE has comparisons
// but no equality: its correlation cannot be a hash key, so joining the
// distinct correlation values (a nested loop over fewer rows) beats joining
// every enclosing row.
func thetaOnly(q sql.Query) bool {
	sel, ok := q.(*sql.Select)
	if !ok || sel.With != nil || sel.From == nil || sel.Where == nil {
		return false
	}
	cmp := false
	for _, c := range conjuncts(sel.Where) {
		switch n := c.(type) {
		case *sql.BinaryExpr:
			switch n.Op {
			case "=", "<=>":
				return false
			case "<", "<=", ">", ">=", "!=", "<>":
				cmp = true
			}
		case *sql.Between:
			cmp = true
		}
	}
	return cmp
}

// bindLateral binds the correlated subquery q over the domain of x's
// columns its WHERE correlates with.
func (b *Binder) bindLateral(x Plan, q sql.Query) (*lateralPlan, error) {
	leafOnly := b.domainLeafOnly
	b.domainLeafOnly = false // not for the subqueries nested in q
	sel, ok := q.(*sql.Select)
	if !ok || sel.With != nil || sel.From == nil {
		return nil, errorf(ErrUnsupported, "this correlated subquery (a set operation, WITH, or no FROM)")
	}
	from, where, err := b.bindBlockFrom(sel)
	if err != nil {
		return nil, err
	}
	fc := from.Columns()
	xc := x.Columns()
	inner := &scope{cols: fc}
	both := &scope{cols: append(append([]Column{}, xc...), fc...), inner: len(xc)}
	local, corr, rest, err := b.splitBlockWhere(where, inner, true)
	if err != nil {
		return nil, err
	}
	for _, c := range corr {
		// A correlation must bind over the enclosing and inner columns.
		if _, err := b.bindExpr(c, both, nil); err != nil {
			return nil, err
		}
	}
	used := map[int]bool{}
	// Every enclosing column a name anywhere in the block (a nested
	// subquery included) may mean joins the domain; a name that also
	// resolves in a nested FROM only makes the domain finer.
	xs := &scope{cols: xc}
	sql.Walk(sel, func(n sql.Node) bool {
		if cr, ok := n.(*sql.ColumnRef); ok {
			if _, err := inner.resolve(cr.Parts); errors.Is(err, ErrUnknownColumn) {
				if i, err := xs.resolve(cr.Parts); err == nil {
					used[i] = true
				}
			}
		}
		return true
	})
	if len(used) == 0 {
		return nil, errorf(ErrUnsupported, "a correlated subquery with GROUP BY, HAVING, DISTINCT, LIMIT or a nested subquery whose correlation is not in its WHERE")
	}
	if from, err = filterBy(from, local); err != nil {
		return nil, err
	}
	// The domain: the distinct values of the enclosing columns used.
	var groups []expr.Expr
	var dcols []Column
	var xidx []int
	for i := range xc {
		if used[i] {
			groups = append(groups, expr.Col(i, xs.refName(i), xc[i].Type))
			dcols = append(dcols, xc[i])
			xidx = append(xidx, i)
		}
	}
	// The domain's values are taken from a filtered table of x when x
	// reads them from one (a superset of x's, cheaper than x itself).
	src, sidx, ok := domainSource(x, xidx)
	if !ok && leafOnly {
		return nil, errorf(ErrUnsupported, "a correlation domain without a filtered table")
	}
	if !ok {
		// x itself, copied when it can be, for the same reason.
		src, sidx = x, xidx
		if cp, ok := copyTree(x); ok {
			src = cp
		}
	}
	sc := &scope{cols: src.Columns()}
	for k, i := range sidx {
		groups[k] = expr.Col(i, sc.refName(i), sc.cols[i].Type)
	}
	dom := &Aggregate{Input: src, Groups: groups, Out: dcols}
	nd := len(dcols)
	jcols := append(append([]Column{}, dcols...), fc...)
	j := &Join{Kind: InnerJoin, Left: dom, Right: from, Out: jcols}
	ds, js := &scope{cols: dcols}, &scope{cols: jcols, inner: nd}
	var resid []expr.Expr
	for _, c := range corr {
		if b.correlationKey(j, c, ds, inner) {
			continue
		}
		e, err := b.bindExpr(c, js, nil)
		if err != nil {
			return nil, err
		}
		if e, err = asBool(e); err != nil {
			return nil, err
		}
		resid = append(resid, e)
	}
	if len(resid) > 0 {
		r, err := andAll(resid)
		if err != nil {
			return nil, err
		}
		j.Residual = r
	}
	hasAgg := sel.Having != nil
	for _, it := range sel.Items {
		hasAgg = hasAgg || containsAgg(it.Expr)
	}
	aggNoGroup := hasAgg && len(sel.GroupBy) == 0 && sel.Grouping == sql.GroupPlain
	orig := sel
	if aggNoGroup && sel.Having != nil {
		cp := *sel
		cp.Having = nil
		cp.Items = append(append([]*sql.SelectItem{}, sel.Items...), &sql.SelectItem{
			Expr: &sql.Case{Whens: []*sql.When{{Cond: sel.Having, Result: &sql.Literal{Kind: sql.LitBool, Value: "TRUE"}}},
				Else: &sql.Literal{Kind: sql.LitBool, Value: "FALSE"}},
			Alias: "\x00having"})
		sel = &cp
	}
	lc := &lateralCtx{input: j, nd: nd, where: andSQL(rest)}
	saved := b.need
	b.lateral = lc
	b.need = nil
	p, err := b.bindSelect(sel)
	b.need, b.lateral = saved, nil
	if err != nil {
		return nil, err
	}
	lp := &lateralPlan{sel: orig, plan: p, nItems: len(p.Columns()) - nd, pass: -1, fromCols: fc}
	pc := p.Columns()
	for i, xi := range xidx {
		k := len(pc) - nd + i
		lp.keys = append(lp.keys, [2]expr.Expr{expr.Col(xi, xs.refName(xi), xc[xi].Type), expr.Col(k, pc[k].Name, pc[k].Type)})
	}
	if sel != orig {
		lp.nItems--
		lp.pass = lp.nItems
	}
	sel = orig
	lp.aggNoGroup = aggNoGroup
	lp.oneRow = lp.aggNoGroup || (sel.Limit != nil && sel.Limit.Count <= 1) || b.groupedByCorrelation(sel, corr)
	return lp, nil
}

// domainSource finds a part of x whose values of x's columns idx are a
// superset of x's, to compute the correlation domain from: below an inner
// join the side that holds them all, below an outer, semi or anti join its
// preserved left side, through projections of plain columns, row
// numbering and filters over joins. A superset is enough: a domain value
// no row of x has answers a question nobody asks. It is taken only when
// it ends at a filtered table, a small set computed without x's joins
// (Q17's part of one brand and container rather than part joined to
// lineitem), and it is copied, so each scan of x stays read once (a scan
// read twice gets no runtime filter). ok is false otherwise.
func domainSource(x Plan, idx []int) (Plan, []int, bool) {
	idx = append([]int{}, idx...)
	p := x
	for {
		switch n := p.(type) {
		case *Join:
			nl := len(n.Left.Columns())
			left, right := true, true
			for _, i := range idx {
				if i < nl {
					right = false
				} else {
					left = false
				}
			}
			switch {
			case left && n.Kind != RightJoin && n.Kind != FullJoin:
				p = n.Left
			case right && (n.Kind == InnerJoin || n.Kind == CrossJoin):
				p = n.Right
				for k := range idx {
					idx[k] -= nl
				}
			default:
				return nil, nil, false
			}
		case *Project:
			for k, i := range idx {
				cr, ok := n.Exprs[i].(*expr.ColumnRef)
				if !ok {
					return nil, nil, false
				}
				idx[k] = cr.Index
			}
			p = n.Input
		case *Window:
			nin := len(n.Input.Columns())
			for _, i := range idx {
				if i >= nin {
					return nil, nil, false
				}
			}
			p = n.Input
		case *Filter:
			if leaf, ok := copyLeaf(n); ok {
				return leaf, idx, true
			}
			p = n.Input
		default:
			return nil, nil, false
		}
	}
}

// copyLeaf copies a chain of filters and projections over a scan, with a
// scan node of its own; ok is false for anything else.
func copyLeaf(p Plan) (Plan, bool) {
	switch n := p.(type) {
	case *Scan:
		cp := *n
		return &cp, true
	case *Filter:
		in, ok := copyLeaf(n.Input)
		return &Filter{Input: in, Cond: n.Cond}, ok
	case *Project:
		in, ok := copyLeaf(n.Input)
		return &Project{Input: in, Exprs: n.Exprs, Out: n.Out}, ok
	}
	return nil, false
}

// repeatable reports whether p computed twice yields the same set of rows:
// no LIMIT (which rows it keeps may change between runs), no volatile
// function (rand, uuid), and no window function but the numbering ones,
// whose values as a set do not depend on the order of ties.
func repeatable(p Plan) bool {
	var exprs []expr.Expr
	switch n := p.(type) {
	case *Limit:
		return false
	case *Filter:
		exprs = append(exprs, n.Cond)
	case *Project:
		exprs = n.Exprs
	case *Aggregate:
		exprs = n.Groups
		for _, a := range n.Aggs {
			if a.Arg != nil {
				exprs = append(exprs, a.Arg)
			}
		}
	case *Join:
		exprs = append(append(exprs, n.LeftKeys...), n.RightKeys...)
		if n.Residual != nil {
			exprs = append(exprs, n.Residual)
		}
	case *Window:
		for _, c := range n.Calls {
			switch c.Func {
			case "row_number", "rank", "dense_rank":
			default:
				return false
			}
		}
	}
	for _, e := range exprs {
		if expr.Volatile(e) {
			return false
		}
	}
	for _, c := range p.Children() {
		if !repeatable(c) {
			return false
		}
	}
	return true
}

// copyTree copies a plan with nodes of its own (expressions are shared:
// nothing changes them after binding); ok is false for a node it does not
// know.
func copyTree(p Plan) (Plan, bool) {
	kids := p.Children()
	cp := make([]Plan, len(kids))
	for i, k := range kids {
		c, ok := copyTree(k)
		if !ok {
			return nil, false
		}
		cp[i] = c
	}
	switch n := p.(type) {
	case *Scan:
		c := *n
		return &c, true
	case *Values:
		c := *n
		return &c, true
	case *Filter:
		c := *n
		c.Input = cp[0]
		return &c, true
	case *Project:
		c := *n
		c.Input = cp[0]
		return &c, true
	case *Aggregate:
		c := *n
		c.Input = cp[0]
		return &c, true
	case *Join:
		c := *n
		c.Left, c.Right = cp[0], cp[1]
		c.LeftKeys = append([]expr.Expr{}, n.LeftKeys...)
		c.RightKeys = append([]expr.Expr{}, n.RightKeys...)
		return &c, true
	case *Sort:
		c := *n
		c.Input = cp[0]
		return &c, true
	case *Limit:
		c := *n
		c.Input = cp[0]
		return &c, true
	case *Window:
		c := *n
		c.Input = cp[0]
		return &c, true
	}
	return nil, false
}

// groupedByCorrelation reports whether every GROUP BY key of sel is an
// inner column an equality correlation ties to one enclosing value, so a
// domain value has at most one group.
func (b *Binder) groupedByCorrelation(sel *sql.Select, corr []sql.Expr) bool {
	if len(sel.GroupBy) == 0 || sel.Grouping != sql.GroupPlain {
		return false
	}
	tied := map[string]bool{}
	for _, c := range corr {
		be, ok := c.(*sql.BinaryExpr)
		if !ok || be.Op != "=" {
			continue
		}
		for _, e := range []sql.Expr{be.L, be.R} {
			if cr, ok := e.(*sql.ColumnRef); ok {
				tied[cr.Parts[len(cr.Parts)-1]] = true
			}
		}
	}
	for _, g := range sel.GroupBy {
		cr, ok := g.(*sql.ColumnRef)
		if !ok || !tied[cr.Parts[len(cr.Parts)-1]] {
			return false
		}
	}
	return true
}

// joinLateral LEFT JOINs input to the lateral plan (plus a marker) on the
// domain columns; the output is input's columns, then the plan's, then the
// marker.
func joinLateral(input Plan, lp *lateralPlan, right Plan) (*Join, error) {
	xc := input.Columns()
	jcols := append([]Column{}, xc...)
	for _, c := range right.Columns() {
		c.Nullable = true
		jcols = append(jcols, c)
	}
	j := &Join{Kind: LeftJoin, Left: input, Right: right, Out: jcols}
	if err := addDomainKeys(j, lp.keys); err != nil {
		return nil, err
	}
	return j, nil
}

// nullOnEmpty reports whether a select item is NULL over no rows by its
// shape alone: sum, avg, min or max, or arithmetic of such and constants
// (0.2 * avg(l_quantity)).
func nullOnEmpty(e sql.Expr) bool {
	switch n := e.(type) {
	case *sql.FuncCall:
		if n.Over != nil {
			return false
		}
		switch strings.ToLower(n.Name) {
		case "sum", "avg", "min", "max":
			return true
		}
	case *sql.BinaryExpr:
		switch n.Op {
		case "+", "-", "*", "/":
		default:
			return false
		}
		l, r := nullOnEmpty(n.L), nullOnEmpty(n.R)
		_, lc := n.L.(*sql.Literal)
		_, rc := n.R.(*sql.Literal)
		return (l && (r || rc)) || (r && lc)
	}
	return false
}

// emptyAnswer binds the block of an aggregating subquery without GROUP BY
// over no rows: the value a domain value without inner rows
// gets. Its items must not read the enclosing query.
func (b *Binder) emptyAnswer(lp *lateralPlan) (Plan, error) {
	// Bound over an empty input with the FROM's columns, so no table is
	// read for it (WHERE FALSE over the FROM scanned it whole).
	cp := *lp.sel
	cp.Where = nil
	saved := b.need
	b.lateral = &lateralCtx{input: &Values{Out: lp.fromCols}}
	p, err := b.bindSelect(&cp)
	b.need, b.lateral = saved, nil
	if errors.Is(err, ErrUnknownColumn) {
		return nil, errorf(ErrUnsupported, "a correlated aggregate subquery whose select list or HAVING reads the enclosing query")
	}
	return p, err
}

// lateralValue adds the value of the correlated subquery expression e
// (scalar subquery or EXISTS) to every row of input, planned over the
// correlation domain, and records its column in b.scalars.
func (b *Binder) lateralValue(input Plan, e sql.Expr, q sql.Query) (Plan, error) {
	lp, err := b.bindLateral(input, q)
	if err != nil {
		return nil, err
	}
	xc := input.Columns()
	nx := len(xc)
	var right Plan
	_, exists := e.(*sql.Exists)
	if exists && !lp.aggNoGroup {
		// One row per domain value that has an answer row.
		pc := lp.plan.Columns()
		ds := len(pc) - len(lp.keys)
		g := make([]expr.Expr, len(lp.keys))
		for i := range lp.keys {
			g[i] = expr.Col(ds+i, pc[ds+i].Name, pc[ds+i].Type)
		}
		d := &Aggregate{Input: lp.plan, Groups: g, Out: pc[ds:]}
		keys := make([][2]expr.Expr, len(lp.keys))
		for i, k := range lp.keys {
			keys[i] = [2]expr.Expr{k[0], expr.Col(i, pc[ds+i].Name, pc[ds+i].Type)}
		}
		lp = &lateralPlan{sel: lp.sel, plan: d, keys: keys, pass: -1}
		right = d
	} else if exists {
		right = lp.plan // one row per domain value with rows
	} else {
		if lp.nItems != 1 {
			return nil, errorf(ErrAnalysis, "scalar subquery must return one column, it returns %d", lp.nItems)
		}
		right = lp.plan
		if !lp.oneRow {
			// Whether an outer value has two rows is known only when it
			// runs: the plan yields its rows with the domain values last.
			pc := lp.plan.Columns()
			keys := make([]int, len(lp.keys))
			for i := range keys {
				keys[i] = len(pc) - len(lp.keys) + i
			}
			right = &AssertOneRow{Input: lp.plan, Keys: keys}
		}
	}
	right, m := withMarker(right)
	j, err := joinLateral(input, lp, right)
	if err != nil {
		return nil, err
	}
	var p Plan = j
	all := j.Out
	mk := expr.Col(nx+m, markerName, expr.BoolT())
	found := expr.IsNull(mk, true)
	var v expr.Expr
	if exists {
		v = found
		if lp.pass >= 0 {
			v = expr.Col(nx+lp.pass, all[nx+lp.pass].Name, all[nx+lp.pass].Type)
		}
	} else {
		v = expr.Col(nx, all[nx].Name, all[nx].Type)
		if lp.pass >= 0 {
			// Rows that fail HAVING: no answer row, NULL.
			pass := expr.Col(nx+lp.pass, all[nx+lp.pass].Name, all[nx+lp.pass].Type)
			var err error
			if v, err = expr.Case(nil, []expr.When{{Cond: pass, Then: v}}, expr.Null(v.DataType())); err != nil {
				return nil, err
			}
		}
	}
	// A domain value without inner rows: the answer over no rows, unless
	// that is NULL, which the LEFT JOIN gives it already.
	if lp.aggNoGroup && (exists || lp.pass >= 0 || !nullOnEmpty(lp.sel.Items[0].Expr)) {
		empty, err := b.emptyAnswer(lp)
		if err != nil {
			return nil, err
		}
		var ev expr.Expr
		if exists {
			ep, em := withMarker(&Limit{Input: empty, Count: 1})
			empty = ep
			ev = expr.IsNull(expr.Col(len(all)+em, markerName, expr.BoolT()), true)
		} else {
			ec := empty.Columns()
			ev = expr.Col(len(all), ec[0].Name, ec[0].Type)
		}
		withEmpty := append(append([]Column{}, all...), empty.Columns()...)
		for i := len(all); i < len(withEmpty); i++ {
			withEmpty[i].Nullable = true
		}
		p = &Join{Kind: LeftJoin, Left: j, Right: empty, Out: withEmpty}
		if v, err = expr.Case(nil, []expr.When{{Cond: found, Then: v}}, ev); err != nil {
			return nil, err
		}
	}
	ps := &scope{cols: p.Columns()}
	exprs := make([]expr.Expr, nx+1)
	out := make([]Column, nx+1)
	for i, c := range xc {
		exprs[i] = expr.Col(i, ps.refName(i), c.Type)
		out[i] = c
	}
	exprs[nx] = v
	out[nx] = Column{Name: subqueryColName(nx), Qualifier: subqueryQualifier, Type: v.DataType(), Nullable: true}
	b.scalars[e] = nx
	return &Project{Input: p, Exprs: exprs, Out: out}, nil
}

// prependGroups makes the first nd columns of the aggregate's input (the
// correlation domain) its first group keys.
func (st *aggState) prependGroups(in *scope, nd int) {
	keys := make(map[string]int, len(st.groupKeys)+nd)
	for k, v := range st.groupKeys {
		keys[k] = v + nd
	}
	groups := make([]expr.Expr, 0, nd+len(st.groups))
	out := make([]Column, 0, nd+len(st.out))
	for i := 0; i < nd; i++ {
		g := expr.Col(i, in.refName(i), in.cols[i].Type)
		if _, dup := keys[g.String()]; !dup {
			keys[g.String()] = i
		}
		groups = append(groups, g)
		out = append(out, in.cols[i])
	}
	st.groupKeys = keys
	st.groups = append(groups, st.groups...)
	st.out = append(out, st.out...)
}

// lateralTail ends a block bound over a correlation domain: the visible
// items then the domain columns, DISTINCT per domain value, and ORDER BY
// with LIMIT as a row_number partitioned by the domain (ORDER BY alone
// does not change a subquery's answer).
func (b *Binder) lateralTail(n *sql.Select, input Plan, post *scope, st *aggState, exprs []expr.Expr, out []Column, keys []SortKey, visible, nd int) (Plan, error) {
	for i := 0; i < nd; i++ {
		var e expr.Expr
		var c Column
		if st != nil {
			e, c = expr.Col(i, st.out[i].Name, st.out[i].Type), st.out[i]
		} else {
			e, c = expr.Col(i, post.refName(i), post.cols[i].Type), post.cols[i]
		}
		exprs = append(exprs, e)
		out = append(out, c)
	}
	dstart := len(exprs) - nd
	var p Plan = &Project{Input: input, Exprs: exprs, Out: out}
	if n.Distinct {
		p = distinct(p)
	}
	if n.Limit != nil {
		part := make([]expr.Expr, nd)
		for i := range part {
			part[i] = expr.Col(dstart+i, out[dstart+i].Name, out[dstart+i].Type)
		}
		wout := append(append([]Column{}, out...), Column{Name: rowIDName, Qualifier: subqueryQualifier, Type: expr.Int64T()})
		p = &Window{Input: p, PartitionBy: part, OrderBy: keys, Frame: FrameDefault,
			Calls: []WindowCall{{Func: "row_number", Type: expr.Int64T()}}, Out: wout}
		rn := expr.Col(len(out), rowIDName, expr.Int64T())
		lo, err := expr.Cmp(expr.Gt, rn, expr.Int(n.Limit.Offset))
		if err != nil {
			return nil, err
		}
		cond := lo
		if n.Limit.Count >= 0 {
			hi, err := expr.Cmp(expr.Le, rn, expr.Int(n.Limit.Offset+n.Limit.Count))
			if err != nil {
				return nil, err
			}
			if cond, err = expr.And(lo, hi); err != nil {
				return nil, err
			}
		}
		p = &Filter{Input: p, Cond: cond}
	}
	// The visible items, then the domain columns.
	final := make([]expr.Expr, 0, visible+nd)
	fout := make([]Column, 0, visible+nd)
	for i := 0; i < visible; i++ {
		final = append(final, expr.Col(i, out[i].Name, out[i].Type))
		fout = append(fout, out[i])
	}
	for i := dstart; i < dstart+nd; i++ {
		final = append(final, expr.Col(i, out[i].Name, out[i].Type))
		fout = append(fout, out[i])
	}
	return &Project{Input: p, Exprs: final, Out: fout}, nil
}

// semiJoinLateral plans a WHERE conjunct [NOT] EXISTS or x IN over a
// subquery that needs the domain decorrelation as a semi or anti join on
// the domain columns. ok is false when it must be decorrelated as an
// expression instead (an aggregate without GROUP BY answers even for a
// domain value without inner rows).
func (b *Binder) semiJoinLateral(input Plan, q sql.Query, inX sql.Expr, kind JoinKind) (Plan, bool, error) {
	lp, err := b.bindLateral(input, q)
	if err != nil {
		return nil, false, err
	}
	if lp.aggNoGroup {
		if inX != nil {
			return nil, false, errorf(ErrUnsupported, "IN over a correlated aggregate subquery with HAVING, LIMIT or a nested subquery")
		}
		return nil, false, nil
	}
	j := &Join{Kind: kind, Left: input, Right: lp.plan, Out: input.Columns()}
	if err := addDomainKeys(j, lp.keys); err != nil {
		return nil, false, err
	}
	if inX != nil {
		if lp.nItems != 1 {
			return nil, false, errorf(ErrAnalysis, "IN subquery must return one column, it returns %d", lp.nItems)
		}
		l, err := b.bindExpr(inX, &scope{cols: input.Columns()}, nil)
		if err != nil {
			return nil, false, err
		}
		c := lp.plan.Columns()[0]
		if err := j.addEq(l, expr.Col(0, c.Name, c.Type)); err != nil {
			return nil, false, err
		}
	}
	return j, true, nil
}

// addDomainKeys joins on domain columns NULL-safely: a NULL correlation
// value is a domain value like any other (the subquery may well answer for
// it), so each pair becomes two hash keys, "is NULL" and the value with
// NULL replaced by a fixed value of its type.
func addDomainKeys(j *Join, keys [][2]expr.Expr) error {
	for _, k := range keys {
		if err := j.addEq(expr.IsNull(k[0], false), expr.IsNull(k[1], false)); err != nil {
			return err
		}
		l, err := nullFilled(k[0])
		if err != nil {
			return err
		}
		r, err := nullFilled(k[1])
		if err != nil {
			return err
		}
		if err := j.addEq(l, r); err != nil {
			return err
		}
	}
	return nil
}

// nullFilled is COALESCE(e, a fixed non-NULL value of e's type).
func nullFilled(e expr.Expr) (expr.Expr, error) {
	t := e.DataType()
	var fill expr.Expr = expr.Int(0)
	switch t.ID() {
	case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		fill = expr.Str("2000-01-01")
	case arrow.STRING, arrow.LARGE_STRING:
		fill = expr.Str("")
	}
	f, err := expr.Cast(fill, t)
	if err != nil {
		return nil, errorf(ErrUnsupported, "a correlation on a %s column in this subquery", expr.TypeName(t))
	}
	return expr.Coalesce(e, f)
}
