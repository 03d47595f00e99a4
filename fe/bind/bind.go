package bind

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Error kinds.
var (
	ErrUnknownColumn = errors.New("unknown column")
	ErrAmbiguous     = errors.New("ambiguous column")
	ErrUnsupported   = errors.New("not supported")
	ErrAnalysis      = errors.New("analysis error")
	ErrNoDatabase    = errors.New("no database selected")
)

// Resolver finds tables. The session implements it with its current
// catalog and database.
type Resolver interface {
	// ResolveTable resolves a 1-3 part name ([[ctl.]db.]tbl) to a table and
	// the catalog and database it was found in.
	ResolveTable(ctx context.Context, name []string) (catalogName, database string, t catalog.Table, err error)
}

// Session is what binding needs from the session.
type Session struct {
	Resolver Resolver
	// Var returns a session variable (after SET_VAR) as a typed Go value:
	// int64 for integer and boolean variables, string otherwise.
	Var func(name string, global bool) (any, error)
	// Vars is the full set of session values, handed to scans.
	Vars           map[string]string
	CurrentCatalog string
	CurrentDB      string
	User           string
	ConnectionID   int64
	Version        string
	// LastQueryID is the query id of the session's previous statement
	// that had one ("" before the first): LAST_QUERY_ID().
	LastQueryID string
	Now         time.Time
	// Args are the values of '?' placeholders (prepared statements): nil,
	// int64, uint64, float64, string, ParamDecimal, ParamDate or
	// ParamDatetime.
	Args []any
	// Pruned narrows struct columns of table references (nested column
	// pruning), keyed by PruneKey; see NestedPrunes.
	Pruned map[string]arrow.DataType
	// Fold, when set, is the environment constant subtrees of bound
	// expressions are evaluated in once (allocator, session time zone);
	// nil leaves them unfolded.
	Fold *expr.Env
	// Rows estimates a plan's row count (fe/opt's estimator), for choices
	// between equivalent plans (a correlated aggregate as a window over
	// few enclosing rows); nil, or ok false, knows nothing, and the
	// binder then keeps its general plan.
	Rows func(Plan) (float64, bool)
}

// Binder binds the statements of one session.
type Binder struct {
	ctx  context.Context
	sess *Session
	ctes []map[string]*sql.CTE
	// need is the column set of the SELECT block whose FROM is being bound.
	need *need
	// scalars maps subquery expressions (scalar subqueries, EXISTS and
	// IN (subquery) outside WHERE conjuncts) to the input column holding
	// their value.
	scalars map[sql.Expr]int
	// quantified caches the expansion of each x op ANY|ALL (S) (see
	// expandQuantified).
	quantified map[*sql.Quantified]sql.Expr
	// rowIns caches the expansion of each (x, y) IN (...) (expandRowIn).
	rowIns map[*sql.InExpr]sql.Expr
	// windows maps window function calls to the column holding their value.
	windows map[*sql.FuncCall]int
	// aliases are the select-list aliases HAVING may use (MySQL allows it).
	aliases map[string]sql.Expr
	// lateral, when set, is taken by the next bindSelect: the block binds
	// over a correlation domain (lateral.go).
	lateral *lateralCtx
	// domainLeafOnly makes bindLateral refuse a domain it cannot take from
	// a filtered table of the outer query (planExprSubqueries then plans
	// the subquery the row-number way).
	domainLeafOnly bool
	// viewDepth counts the views being bound around the current one.
	viewDepth int
}

// New returns a Binder.
func New(ctx context.Context, s *Session) *Binder {
	return &Binder{ctx: ctx, sess: s}
}

// scope is the set of columns visible to expressions over a plan's output.
type scope struct {
	cols []Column
	// inner > 0 makes cols[inner:] the columns of a correlated subquery's
	// FROM and cols[:inner] those of the enclosing query: a name resolves
	// among the subquery's columns first, as SQL scoping says.
	inner int
}

func (s *scope) resolve(parts []string) (int, error) {
	if s.inner > 0 {
		in := &scope{cols: s.cols[s.inner:]}
		i, err := in.resolve(parts)
		if err == nil {
			return s.inner + i, nil
		}
		if !errors.Is(err, ErrUnknownColumn) {
			return -1, err
		}
		return (&scope{cols: s.cols[:s.inner]}).resolve(parts)
	}
	var name, qual string
	switch len(parts) {
	case 1:
		name = parts[0]
	default:
		// db.t.c or ctl.db.t.c qualify by the last table part.
		name = parts[len(parts)-1]
		qual = parts[len(parts)-2]
	}
	found := -1
	for i, c := range s.cols {
		if c.Qualifier == subqueryQualifier || c.Qualifier == windowQualifier || c.Qualifier == groupingQualifier || !strings.EqualFold(c.Name, name) {
			continue
		}
		if qual != "" && !strings.EqualFold(c.Qualifier, qual) {
			continue
		}
		if found >= 0 {
			return -1, errorf(ErrAmbiguous, "Column '%s' in field list is ambiguous", strings.Join(parts, "."))
		}
		found = i
	}
	if found < 0 {
		return -1, errorf(ErrUnknownColumn, "Unknown column '%s' in 'field list'", strings.Join(parts, "."))
	}
	return found, nil
}

// refName is the name a bound reference to column i shows: the bare name,
// or qualifier.name when another visible column has the same name, so that
// expressions over different columns never print (and key) alike.
func (s *scope) refName(i int) string {
	c := s.cols[i]
	if c.Qualifier == "" || c.Qualifier == subqueryQualifier || c.Qualifier == windowQualifier {
		return c.Name
	}
	for j, o := range s.cols {
		if j != i && strings.EqualFold(o.Name, c.Name) && o.Qualifier != subqueryQualifier && o.Qualifier != windowQualifier {
			return c.Qualifier + "." + c.Name
		}
	}
	return c.Name
}

// BindQuery binds a SELECT or set operation.
func (b *Binder) BindQuery(q sql.Query) (Plan, error) {
	switch n := q.(type) {
	case *sql.Select:
		return b.withCTEs(n.With, func() (Plan, error) { return b.bindSelect(n) })
	case *sql.SetOp:
		return b.withCTEs(n.With, func() (Plan, error) { return b.bindSetOp(n) })
	}
	return nil, errorf(ErrUnsupported, "query %T", q)
}

func (b *Binder) withCTEs(w *sql.With, f func() (Plan, error)) (Plan, error) {
	if w == nil {
		return f()
	}
	if w.Recursive {
		return nil, errorf(ErrUnsupported, "WITH RECURSIVE")
	}
	m := map[string]*sql.CTE{}
	b.ctes = append(b.ctes, m)
	defer func() { b.ctes = b.ctes[:len(b.ctes)-1] }()
	for _, c := range w.CTEs {
		// A CTE sees the ones before it; binding happens at each reference.
		m[strings.ToLower(c.Name)] = c
	}
	return f()
}

func (b *Binder) lookupCTE(name string) *sql.CTE {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c, ok := b.ctes[i][strings.ToLower(name)]; ok {
			return c
		}
	}
	return nil
}

func (b *Binder) bindSetOp(n *sql.SetOp) (Plan, error) {
	if n.Kind != sql.Union && n.All {
		return nil, errorf(ErrUnsupported, "%s ALL", n.Kind)
	}
	l, err := b.BindQuery(n.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.BindQuery(n.Right)
	if err != nil {
		return nil, err
	}
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		return nil, errorf(ErrAnalysis, "%s operands have %d and %d columns", n.Kind, len(lc), len(rc))
	}
	out := make([]Column, len(lc))
	types := make([]arrow.DataType, len(lc))
	for i := range lc {
		t, err := expr.ResultType(lc[i].Type, rc[i].Type)
		if err != nil {
			return nil, errorf(ErrAnalysis, "%s column %d: %v", n.Kind, i+1, err)
		}
		if t.ID() == arrow.NULL {
			t = expr.StringT()
		}
		types[i] = t
		out[i] = Column{Name: lc[i].Name, Type: t, Nullable: lc[i].Nullable || rc[i].Nullable}
	}
	// castTo casts a side to the common types; INTERSECT and EXCEPT also
	// tag each row with its side (1 left, 2 right).
	castTo := func(p Plan, tag int64) (Plan, error) {
		cols := p.Columns()
		exprs := make([]expr.Expr, len(cols))
		pc := make([]Column, len(cols))
		for i, c := range cols {
			var e expr.Expr = expr.Col(i, c.Name, c.Type)
			if !arrow.TypeEqual(c.Type, types[i]) {
				ce, err := expr.Cast(e, types[i])
				if err != nil {
					return nil, err
				}
				e = ce
			}
			exprs[i] = e
			pc[i] = Column{Name: out[i].Name, Type: types[i], Nullable: true}
		}
		if tag > 0 {
			exprs = append(exprs, expr.Int(tag))
			pc = append(pc, Column{Name: "__side", Type: expr.Int64T()})
		}
		return &Project{Input: p, Exprs: exprs, Out: pc}, nil
	}
	var tagL, tagR int64
	if n.Kind != sql.Union {
		tagL, tagR = 1, 2
	}
	if l, err = castTo(l, tagL); err != nil {
		return nil, err
	}
	if r, err = castTo(r, tagR); err != nil {
		return nil, err
	}
	var p Plan
	switch n.Kind {
	case sql.Union:
		p = &Union{Inputs: []Plan{l, r}, Out: out}
		if !n.All {
			p = distinct(p)
		}
	case sql.Intersect, sql.Except:
		// Group the tagged rows by every column (NULLs group together, as
		// set operations require) and keep groups seen on both sides
		// (INTERSECT) or only on the left (EXCEPT).
		all := append(append([]Column{}, out...), Column{Name: "__side", Type: expr.Int64T()})
		u := &Union{Inputs: []Plan{l, r}, Out: all}
		groups := make([]expr.Expr, len(out))
		for i, c := range out {
			groups[i] = expr.Col(i, c.Name, c.Type)
		}
		side := expr.Col(len(out), "__side", expr.Int64T())
		aggOut := append(append([]Column{}, out...), Column{Name: "__min", Type: expr.Int64T()}, Column{Name: "__max", Type: expr.Int64T()})
		agg := &Aggregate{Input: u, Groups: groups, Aggs: []AggCall{
			{Func: AggMin, Arg: side, Type: expr.Int64T()}, {Func: AggMax, Arg: side, Type: expr.Int64T()}}, Out: aggOut}
		minC := expr.Col(len(out), "__min", expr.Int64T())
		maxC := expr.Col(len(out)+1, "__max", expr.Int64T())
		var cond expr.Expr
		if n.Kind == sql.Intersect {
			a, err := expr.Cmp(expr.Eq, minC, expr.Int(1))
			if err != nil {
				return nil, err
			}
			c, err := expr.Cmp(expr.Eq, maxC, expr.Int(2))
			if err != nil {
				return nil, err
			}
			if cond, err = expr.And(a, c); err != nil {
				return nil, err
			}
		} else if cond, err = expr.Cmp(expr.Eq, maxC, expr.Int(1)); err != nil {
			return nil, err
		}
		proj := make([]expr.Expr, len(out))
		for i, c := range out {
			proj[i] = expr.Col(i, c.Name, c.Type)
		}
		p = &Project{Input: &Filter{Input: agg, Cond: cond}, Exprs: proj, Out: out}
	default:
		return nil, errorf(ErrUnsupported, "%s", n.Kind)
	}
	return b.orderLimit(p, nil, n.OrderBy, n.Limit)
}

// distinct groups by every column.
func distinct(p Plan) Plan {
	cols := p.Columns()
	g := make([]expr.Expr, len(cols))
	for i, c := range cols {
		g[i] = expr.Col(i, c.Name, c.Type)
	}
	return &Aggregate{Input: p, Groups: g, Out: cols}
}

// orderLimit applies ORDER BY (over output columns by name or ordinal) and
// LIMIT to a plan.
func (b *Binder) orderLimit(p Plan, _ *scope, order []*sql.OrderItem, lim *sql.Limit) (Plan, error) {
	if len(order) > 0 {
		sc := &scope{cols: p.Columns()}
		keys := make([]SortKey, len(order))
		for i, o := range order {
			var e expr.Expr
			if lit, ok := o.Expr.(*sql.Literal); ok && lit.Kind == sql.LitInt {
				n, _ := strconv.Atoi(lit.Value)
				if n < 1 || n > len(sc.cols) {
					return nil, errorf(ErrUnknownColumn, "Unknown column '%d' in 'order clause'", n)
				}
				e = expr.Col(n-1, sc.cols[n-1].Name, sc.cols[n-1].Type)
			} else {
				var err error
				if e, err = b.bindExpr(o.Expr, sc, nil); err != nil {
					return nil, err
				}
			}
			keys[i] = sortKey(e, o)
		}
		p = &Sort{Input: p, Keys: keys}
	}
	if lim != nil {
		p = &Limit{Input: p, Count: lim.Count, Offset: lim.Offset}
	}
	return p, nil
}

func sortKey(e expr.Expr, o *sql.OrderItem) SortKey {
	k := SortKey{Expr: e, Desc: o.Desc}
	switch o.Nulls {
	case sql.NullsFirst:
		k.NullsFirst = true
	case sql.NullsLast:
		k.NullsFirst = false
	default:
		// Doris: NULLs first ascending, last descending.
		k.NullsFirst = !o.Desc
	}
	return k
}

func (b *Binder) bindFrom(t sql.TableExpr) (Plan, error) {
	switch n := t.(type) {
	case *sql.TableRef:
		return b.bindTableRef(n)
	case *sql.DerivedTable:
		saved := b.need
		p, err := b.BindQuery(n.Query)
		b.need = saved
		if err != nil {
			return nil, err
		}
		return requalify(p, n.Alias, n.Columns)
	case *sql.Join:
		return b.bindJoin(n)
	}
	return nil, errorf(ErrUnsupported, "FROM %T", t)
}

// requalify renames a subplan's columns under a new qualifier.
func requalify(p Plan, alias string, names []string) (Plan, error) {
	cols := p.Columns()
	if len(names) > 0 && len(names) != len(cols) {
		return nil, errorf(ErrAnalysis, "derived table %s has %d columns but %d names", alias, len(cols), len(names))
	}
	out := make([]Column, len(cols))
	exprs := make([]expr.Expr, len(cols))
	for i, c := range cols {
		out[i] = c
		out[i].Qualifier = alias
		if len(names) > 0 {
			out[i].Name = names[i]
		}
		exprs[i] = expr.Col(i, c.Name, c.Type)
	}
	return &Project{Input: p, Exprs: exprs, Out: out}, nil
}

func (b *Binder) bindTableRef(n *sql.TableRef) (Plan, error) {
	alias := n.Alias
	if len(n.Name) == 1 {
		if c := b.lookupCTE(n.Name[0]); c != nil {
			if n.AsOf != sql.AsOfNone {
				return nil, errorf(ErrUnsupported, "time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on WITH %s; it applies to Paimon catalog tables and to a Fluss table's tbl$lake", c.Name)
			}
			// Bind the CTE without itself in view (no recursion).
			saved := b.ctes
			b.ctes = nil
			for _, m := range saved {
				if m[strings.ToLower(c.Name)] == c {
					break
				}
				b.ctes = append(b.ctes, m)
			}
			savedNeed := b.need
			p, err := b.BindQuery(c.Query)
			b.ctes, b.need = saved, savedNeed
			if err != nil {
				return nil, fmt.Errorf("WITH %s: %w", c.Name, err)
			}
			if alias == "" {
				alias = c.Name
			}
			return requalify(p, alias, c.Columns)
		}
	}
	if b.sess.Resolver == nil {
		return nil, errorf(ErrAnalysis, "no catalog to resolve %s", strings.Join(n.Name, "."))
	}
	if vr, ok := b.sess.Resolver.(ViewResolver); ok {
		v, err := vr.ResolveView(b.ctx, n.Name)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if n.AsOf != sql.AsOfNone {
				return nil, errorf(ErrUnsupported, "time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on view %s", v.Name)
			}
			return b.bindView(v, alias)
		}
	}
	ctl, db, t, err := b.sess.Resolver.ResolveTable(b.ctx, n.Name)
	if err != nil {
		return nil, err
	}
	travel, err := b.timeTravel(n, t)
	if err != nil {
		return nil, err
	}
	if alias == "" {
		alias = t.Name()
	}
	s := t.Schema()
	if sa, ok := t.(catalog.SchemaAsOf); ok && travel != nil {
		// A snapshot older than an added column has no such column.
		if s, err = sa.SchemaAsOf(b.ctx, travel); err != nil {
			return nil, err
		}
	}
	var out []Column
	var proj []int
	var pruned map[int]arrow.DataType
	for i, c := range s.Columns {
		if !b.need.keeps(alias, c.Name) {
			continue
		}
		if c.Unsupported {
			return nil, errorf(ErrUnsupported, "column '%s' of table %s has a type this engine cannot read (%s); select the other columns, e.g. SELECT * EXCEPT(%s)", c.Name, t.Name(), c.TypeName, c.Name)
		}
		typ := c.Type
		if pt, ok := b.sess.Pruned[PruneKey(ctl, db, t.Name(), alias, c.Name)]; ok {
			typ = pt
			if pruned == nil {
				pruned = map[int]arrow.DataType{}
			}
			pruned[len(out)] = pt
		}
		fold := false
		if cf, ok := t.(CaseFolder); ok && typ.ID() == arrow.STRING {
			fold = cf.FoldsCase(c.Name)
		}
		out = append(out, Column{Name: c.Name, Qualifier: alias, Type: typ, Nullable: c.Nullable, FoldCase: fold})
		proj = append(proj, i)
	}
	if len(proj) == 0 {
		// count(*) and friends still need the row count: scan one readable
		// column.
		for i, c := range s.Columns {
			if !c.Unsupported {
				out, proj = []Column{{Name: c.Name, Qualifier: alias, Type: c.Type, Nullable: c.Nullable}}, []int{i}
				break
			}
		}
	}
	return &Scan{Catalog: ctl, Database: db, Table: t, Projection: proj, Out: out, Vars: b.sess.Vars, Pruned: pruned, TimeTravel: travel}, nil
}

func (b *Binder) bindJoin(n *sql.Join) (Plan, error) {
	l, err := b.bindFrom(n.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.bindFrom(n.Right)
	if err != nil {
		return nil, err
	}
	kind := n.Kind
	switch kind {
	case sql.RightSemiJoin, sql.RightAntiJoin:
		// The right side's rows with (or without) a match on the left:
		// the left semi (anti) join of the swapped inputs, as Doris
		// answers it. The optimiser chooses which side the executor
		// hashes (Join.BuildLeft).
		l, r = r, l
		kind = map[sql.JoinKind]sql.JoinKind{sql.RightSemiJoin: sql.LeftSemiJoin, sql.RightAntiJoin: sql.LeftAntiJoin}[kind]
	}
	j := &Join{Left: l, Right: r}
	switch kind {
	case sql.InnerJoin:
		j.Kind = InnerJoin
	case sql.LeftJoin:
		j.Kind = LeftJoin
	case sql.RightJoin:
		j.Kind = RightJoin
	case sql.FullJoin:
		j.Kind = FullJoin
	case sql.CrossJoin, sql.CommaJoin:
		j.Kind = CrossJoin
	case sql.LeftSemiJoin:
		j.Kind = LeftSemiJoin
	case sql.LeftAntiJoin:
		j.Kind = LeftAntiJoin
	default:
		return nil, errorf(ErrUnsupported, "%s", n.Kind)
	}
	lc, rc := l.Columns(), r.Columns()
	all := append(append([]Column{}, lc...), rc...)
	for i := range all {
		outer := (i < len(lc) && (j.Kind == RightJoin || j.Kind == FullJoin)) ||
			(i >= len(lc) && (j.Kind == LeftJoin || j.Kind == FullJoin))
		if outer {
			all[i].Nullable = true
		}
	}
	if j.Kind == LeftSemiJoin || j.Kind == LeftAntiJoin {
		j.Out = lc
	} else {
		j.Out = all
	}
	ls, rs, both := &scope{cols: lc}, &scope{cols: rc}, &scope{cols: all}
	var residual []expr.Expr
	var residualAST []sql.Expr
	addEq := j.addEq
	for _, u := range n.Using {
		li, err := ls.resolve([]string{u})
		if err != nil {
			return nil, err
		}
		ri, err := rs.resolve([]string{u})
		if err != nil {
			return nil, err
		}
		if err := addEq(expr.Col(li, lc[li].Name, lc[li].Type), expr.Col(ri, rc[ri].Name, rc[ri].Type)); err != nil {
			return nil, err
		}
	}
	if n.On != nil {
		for _, c := range conjuncts(n.On) {
			if be, ok := c.(*sql.BinaryExpr); ok && be.Op == "=" {
				le, lerr := b.bindExpr(be.L, ls, nil)
				re, rerr := b.bindExpr(be.R, rs, nil)
				if lerr == nil && rerr == nil {
					if err := addEq(le, re); err != nil {
						return nil, err
					}
					continue
				}
				le, lerr = b.bindExpr(be.R, ls, nil)
				re, rerr = b.bindExpr(be.L, rs, nil)
				if lerr == nil && rerr == nil {
					if err := addEq(le, re); err != nil {
						return nil, err
					}
					continue
				}
			}
			e, err := b.bindExpr(c, both, nil)
			if err != nil {
				return nil, err
			}
			residual = append(residual, e)
			residualAST = append(residualAST, c)
		}
	}
	if len(residual) > 0 {
		if j.Residual, err = andAll(residual); err != nil {
			return nil, err
		}
	}
	if j.Kind == RightJoin && len(residualAST) > 0 {
		return b.rightAsLeft(j, residualAST)
	}
	if j.Kind == CrossJoin && (len(j.LeftKeys) > 0 || j.Residual != nil) {
		j.Kind = InnerJoin
	}
	return j, nil
}

// rightAsLeft plans a RIGHT JOIN whose ON has a non-equality condition as
// the LEFT JOIN with its inputs swapped (the condition bound again over
// the swapped columns), then puts the columns back in the RIGHT JOIN's
// order.
func (b *Binder) rightAsLeft(j *Join, residual []sql.Expr) (Plan, error) {
	lc, rc := j.Left.Columns(), j.Right.Columns()
	sw := append([]Column{}, rc...)
	for _, c := range lc {
		c.Nullable = true
		sw = append(sw, c)
	}
	var conds []expr.Expr
	for _, c := range residual {
		e, err := b.bindExpr(c, &scope{cols: sw}, nil)
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	cond, err := andAll(conds)
	if err != nil {
		return nil, err
	}
	lj := &Join{Kind: LeftJoin, Left: j.Right, Right: j.Left, LeftKeys: j.RightKeys, RightKeys: j.LeftKeys, Residual: cond, Out: sw}
	exprs := make([]expr.Expr, 0, len(sw))
	for i := range lc {
		exprs = append(exprs, expr.Col(len(rc)+i, sw[len(rc)+i].Name, sw[len(rc)+i].Type))
	}
	for i := range rc {
		exprs = append(exprs, expr.Col(i, sw[i].Name, sw[i].Type))
	}
	return &Project{Input: lj, Exprs: exprs, Out: j.Out}, nil
}

// addEq adds the key pair le = re, each bound over its own side, compared
// in their common type.
func (j *Join) addEq(le, re expr.Expr) error {
	t, err := expr.CommonType(le.DataType(), re.DataType())
	if err != nil {
		return errorf(ErrAnalysis, "join keys %s and %s: %v", le, re, err)
	}
	if !arrow.TypeEqual(le.DataType(), t) {
		if le, err = expr.Cast(le, t); err != nil {
			return err
		}
	}
	if !arrow.TypeEqual(re.DataType(), t) {
		if re, err = expr.Cast(re, t); err != nil {
			return err
		}
	}
	j.LeftKeys = append(j.LeftKeys, le)
	j.RightKeys = append(j.RightKeys, re)
	return nil
}

// andSQL is the conjunction of conds, left to right (nil when there are
// none): the inverse of conjuncts.
func andSQL(conds []sql.Expr) sql.Expr {
	var w sql.Expr
	for _, c := range conds {
		if w == nil {
			w = c
		} else {
			w = &sql.BinaryExpr{Op: "AND", L: w, R: c}
		}
	}
	return w
}

func conjuncts(e sql.Expr) []sql.Expr {
	if be, ok := e.(*sql.BinaryExpr); ok && be.Op == "AND" {
		return append(conjuncts(be.L), conjuncts(be.R)...)
	}
	return []sql.Expr{e}
}

func andAll(es []expr.Expr) (expr.Expr, error) {
	if len(es) == 1 {
		return es[0], nil
	}
	return expr.And(es...)
}

// kindError carries an error kind without repeating it in the text users
// see; errors.Is still finds the kind.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Placeholder values a client sent with a type a string would lose, in
// canonical text: DECIMAL ("-12.50"), DATE ("2024-01-05") and DATETIME
// ("2024-01-05 10:00:00.5").
type (
	ParamDecimal  string
	ParamDate     string
	ParamDatetime string
)
