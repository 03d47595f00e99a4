package sql

import (
	"strconv"
	"strings"
)

// query parses [WITH ...] set-expression [ORDER BY ...] [LIMIT ...].
func (p *parser) query() Query {
	p.enter()
	defer p.leave()
	var with *With
	if p.acceptKw("WITH") {
		with = p.with()
	}
	q := p.setExpr(0)
	if p.isKwSeq("ORDER", "BY") || p.isKw("LIMIT") {
		orderBy, limit := p.orderLimit()
		switch n := q.(type) {
		case *Select:
			p.attachOrderLimit(&n.OrderBy, &n.Limit, orderBy, limit)
		case *SetOp:
			p.attachOrderLimit(&n.OrderBy, &n.Limit, orderBy, limit)
		}
	}
	if with != nil {
		switch n := q.(type) {
		case *Select:
			p.attachWith(&n.With, with)
		case *SetOp:
			p.attachWith(&n.With, with)
		}
	}
	return q
}

// attachOrderLimit gives a query the ORDER BY and LIMIT that follow it; a
// parenthesized query that already has either clause cannot take another.
func (p *parser) attachOrderLimit(dstOrder *[]*OrderItem, dstLimit **Limit, orderBy []*OrderItem, limit *Limit) {
	if (orderBy != nil && *dstOrder != nil) || (limit != nil && *dstLimit != nil) {
		p.fail("a parenthesized query with ORDER BY or LIMIT cannot take another one")
	}
	if orderBy != nil {
		*dstOrder = orderBy
	}
	if limit != nil {
		*dstLimit = limit
	}
}

// attachWith gives a query its WITH clause; it cannot have two.
func (p *parser) attachWith(dst **With, with *With) {
	if *dst != nil {
		p.fail("a query cannot have two WITH clauses")
	}
	*dst = with
}

func (p *parser) with() *With {
	w := &With{Recursive: p.acceptKw("RECURSIVE")}
	for {
		c := &CTE{Name: p.ident()}
		if p.isOp("(") {
			c.Columns = p.identList()
		}
		p.expectKw("AS")
		p.expectOp("(")
		c.Query = p.query()
		p.expectOp(")")
		w.CTEs = append(w.CTEs, c)
		if !p.acceptOp(",") {
			return w
		}
	}
}

func setOpPrec(k SetOpKind) int {
	if k == Intersect {
		return 2
	}
	return 1
}

// setOpAt reports the set operation at the current token.
func (p *parser) setOpAt() (SetOpKind, bool) {
	switch {
	case p.isKw("UNION"):
		return Union, true
	case p.isKw("INTERSECT"):
		return Intersect, true
	case p.isKw("EXCEPT"), p.isKw("MINUS"):
		return Except, true
	}
	return 0, false
}

func (p *parser) setExpr(minPrec int) Query {
	left := p.setTerm()
	for {
		kind, ok := p.setOpAt()
		if !ok || setOpPrec(kind) < minPrec {
			return left
		}
		p.i++
		op := &SetOp{Kind: kind, Left: left}
		if p.acceptKw("ALL") {
			op.All = true
		} else {
			p.acceptKw("DISTINCT")
		}
		op.Right = p.setExpr(setOpPrec(kind) + 1)
		left = op
	}
}

func (p *parser) setTerm() Query {
	if p.acceptOp("(") {
		q := p.query()
		p.expectOp(")")
		return q
	}
	if !p.isKw("SELECT") {
		p.failExpected("SELECT")
	}
	return p.selectBlock()
}

func (p *parser) selectBlock() *Select {
	p.i++ // SELECT
	s := &Select{Hints: p.hints()}
	if p.acceptKw("DISTINCT") || p.acceptKw("DISTINCTROW") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	for {
		s.Items = append(s.Items, p.selectItem())
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		if p.isKw("DUAL") {
			p.i++
		} else {
			s.From = p.from()
		}
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if p.acceptKw("GROUP", "BY") {
		p.groupBy(s)
	}
	if p.acceptKw("HAVING") {
		s.Having = p.expr()
	}
	if p.acceptKw("WINDOW") {
		for {
			w := &NamedWindow{Name: p.ident()}
			p.expectKw("AS")
			if !p.isOp("(") {
				p.failExpected("(")
			}
			w.Spec = p.windowSpec()
			s.Windows = append(s.Windows, w)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.isKw("QUALIFY") {
		p.fail("%s clause is not supported", strings.ToUpper(p.tok().text))
	}
	return s
}

// groupBy parses what follows GROUP BY, in Doris's grammar: ROLLUP(list),
// CUBE(list), GROUPING SETS((list), ...) or a list, optionally WITH
// ROLLUP. A grouping-set form is the whole clause, as in Doris.
func (p *parser) groupBy(s *Select) {
	// add records e in GroupBy once (by its printed form) and returns its
	// index there.
	seen := map[string]int{}
	add := func(e Expr) int {
		k := e.String()
		if i, ok := seen[k]; ok {
			return i
		}
		seen[k] = len(s.GroupBy)
		s.GroupBy = append(s.GroupBy, e)
		return seen[k]
	}
	list := func() []int {
		p.expectOp("(")
		var idx []int
		if !p.isOp(")") {
			for _, e := range p.exprList() {
				idx = append(idx, add(e))
			}
		}
		p.expectOp(")")
		return idx
	}
	switch {
	case (p.isKw("ROLLUP") || p.isKw("CUBE")) && p.peek(1).kind == tOp && p.peek(1).text == "(":
		cube := p.isKw("CUBE")
		at := p.i
		p.i++
		idx := list()
		if cube && len(idx) > maxCube {
			p.i = at
			p.fail("CUBE of %d expressions makes %d grouping sets; at most %d expressions are supported", len(idx), uint64(1)<<min(len(idx), 63), maxCube)
		}
		if cube {
			s.Grouping, s.Sets = GroupCube, cubeSets(idx)
		} else {
			s.Grouping, s.Sets = GroupRollup, rollupSets(idx)
		}
	case p.isKwSeq("GROUPING", "SETS"):
		p.i += 2
		p.expectOp("(")
		s.Grouping = GroupSets
		for {
			if p.isOp("(") {
				s.Sets = append(s.Sets, list())
			} else {
				s.Sets = append(s.Sets, []int{add(p.expr())})
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	default:
		es := p.exprList()
		if !p.acceptKw("WITH", "ROLLUP") {
			s.GroupBy = es // a plain list keeps its duplicates
			return
		}
		var idx []int
		for _, e := range es {
			idx = append(idx, add(e))
		}
		s.Grouping, s.Sets = GroupWithRollup, rollupSets(idx)
	}
	if len(s.GroupBy) > maxGroupingExprs {
		p.fail("Too many sets in GROUP BY clause, the max grouping sets item is %d", maxGroupingExprs)
	}
}

// maxGroupingExprs is Doris's bound on the distinct expressions of grouping
// sets; maxCube bounds CUBE's 2^n sets, each of which repeats every input
// row.
const (
	maxGroupingExprs = 64
	maxCube          = 12
)

// rollupSets are ROLLUP(e1..en)'s sets: (e1..en), (e1..en-1), ..., ().
func rollupSets(idx []int) [][]int {
	sets := make([][]int, 0, len(idx)+1)
	for n := len(idx); n >= 0; n-- {
		sets = append(sets, idx[:n:n])
	}
	return sets
}

// cubeSets are CUBE(e1..en)'s 2^n sets, from all expressions down to none;
// set k leaves out the expressions whose bits are set in k (e1 the
// highest), the order Doris lists them in.
func cubeSets(idx []int) [][]int {
	n := len(idx)
	sets := make([][]int, 0, 1<<n)
	for k := 0; k < 1<<n; k++ {
		var set []int
		for j, i := range idx {
			if k&(1<<(n-1-j)) == 0 {
				set = append(set, i)
			}
		}
		sets = append(sets, set)
	}
	return sets
}

func (p *parser) exprList() []Expr {
	var out []Expr
	for {
		out = append(out, p.expr())
		if !p.acceptOp(",") {
			return out
		}
	}
}

// starAhead reports whether the tokens ahead are name.name...* (a qualified
// star) and returns the number of name parts.
func (p *parser) starAhead() int {
	n := 0
	for {
		t := p.peek(2 * n)
		if t.kind != tWord && t.kind != tQuoted {
			return 0
		}
		if n == 0 && !isIdentTok(t) {
			return 0
		}
		dot := p.peek(2*n + 1)
		if dot.kind != tOp || dot.text != "." {
			return 0
		}
		n++
		if s := p.peek(2 * n); s.kind == tOp && s.text == "*" {
			return n
		}
		if n > maxNameParts {
			return 0
		}
	}
}

func (p *parser) selectItem() *SelectItem {
	start := p.tok().pos
	item := p.selectItemExpr()
	item.Text = p.src[start:p.toks[p.i-1].end]
	item.Alias = p.alias()
	return item
}

func (p *parser) selectItemExpr() *SelectItem {
	if p.isOp("*") {
		p.i++
		return &SelectItem{Expr: p.starExcept(&Star{})}
	}
	if n := p.starAhead(); n > 0 {
		st := &Star{}
		for i := 0; i < n; i++ {
			st.Qualifier = append(st.Qualifier, p.anyIdent())
			p.i++ // '.'
		}
		p.i++ // '*'
		return &SelectItem{Expr: p.starExcept(st)}
	}
	return &SelectItem{Expr: p.expr()}
}

func (p *parser) starExcept(st *Star) *Star {
	// "* EXCEPT (SELECT ...)" is a set operation, not a column list.
	if p.isKw("EXCEPT") && p.peek(1).kind == tOp && p.peek(1).text == "(" && !p.startsQuery(1) {
		p.i++
		st.Except = p.identList()
	}
	return st
}

// alias parses an optional [AS] alias. After AS a string is allowed too,
// as MySQL does for select items.
func (p *parser) alias() string {
	if p.acceptKw("AS") {
		if t := p.tok(); t.kind == tString {
			p.i++
			return t.text
		}
		return p.ident()
	}
	t := p.tok()
	if isIdentTok(t) || t.kind == tString {
		p.i++
		return t.text
	}
	return ""
}

// from parses a FROM list; commas bind looser than JOIN.
func (p *parser) from() TableExpr {
	left := p.joinChain()
	for p.acceptOp(",") {
		left = &Join{Kind: CommaJoin, Left: left, Right: p.joinChain()}
	}
	return left
}

// joinKind consumes the keywords of a join, if one is next.
func (p *parser) joinKind() (JoinKind, bool) {
	switch {
	case p.acceptKw("JOIN"), p.acceptKw("INNER", "JOIN"):
		return InnerJoin, true
	case p.acceptKw("CROSS", "JOIN"):
		return CrossJoin, true
	case p.acceptKw("LEFT", "SEMI", "JOIN"):
		return LeftSemiJoin, true
	case p.acceptKw("LEFT", "ANTI", "JOIN"):
		return LeftAntiJoin, true
	case p.acceptKw("RIGHT", "SEMI", "JOIN"):
		return RightSemiJoin, true
	case p.acceptKw("RIGHT", "ANTI", "JOIN"):
		return RightAntiJoin, true
	case p.acceptKw("LEFT", "JOIN"), p.acceptKw("LEFT", "OUTER", "JOIN"):
		return LeftJoin, true
	case p.acceptKw("RIGHT", "JOIN"), p.acceptKw("RIGHT", "OUTER", "JOIN"):
		return RightJoin, true
	case p.acceptKw("FULL", "JOIN"), p.acceptKw("FULL", "OUTER", "JOIN"):
		return FullJoin, true
	case p.isKw("NATURAL"), p.isKw("STRAIGHT_JOIN"):
		p.fail("%s is not supported", strings.ToUpper(p.tok().text))
	}
	return 0, false
}

func (p *parser) joinChain() TableExpr {
	left := p.tablePrimary()
	for {
		kindPos := p.tok().pos
		kind, ok := p.joinKind()
		if !ok {
			return left
		}
		p.joinHint()
		j := &Join{Kind: kind, Left: left, Right: p.tablePrimary()}
		switch {
		case p.acceptKw("ON"):
			if kind == CrossJoin {
				p.failAt(kindPos, "CROSS JOIN cannot have an ON clause")
			}
			j.On = p.expr()
		case p.acceptKw("USING"):
			if kind == CrossJoin {
				p.failAt(kindPos, "CROSS JOIN cannot have a USING clause")
			}
			j.Using = p.identList()
		default:
			if kind != InnerJoin && kind != CrossJoin {
				p.failExpected("ON or USING")
			}
		}
		left = j
	}
}

// joinHint skips a Doris distribution hint after JOIN ("JOIN [broadcast] t",
// also written /*+ ... */ style as [shuffle]): it only steers Doris's
// planner and never changes the result, so dropping it is safe.
func (p *parser) joinHint() {
	if !p.isOp("[") {
		return
	}
	t := p.peek(1)
	switch {
	case isWord(t, "BROADCAST"), isWord(t, "SHUFFLE"), isWord(t, "BUCKET"), isWord(t, "COLOCATE"):
	default:
		p.failAt(t.pos, "unknown join hint %s: expected BROADCAST, SHUFFLE, BUCKET or COLOCATE", describe(t))
	}
	p.i += 2
	p.expectOp("]")
}

func (p *parser) tablePrimary() TableExpr {
	p.enter()
	defer p.leave()
	if p.isOp("(") {
		if p.startsQuery(1) {
			p.i++
			d := &DerivedTable{Query: p.query()}
			p.expectOp(")")
			d.Alias = p.alias()
			if d.Alias != "" && p.isOp("(") {
				d.Columns = p.identList()
			}
			return d
		}
		p.i++
		t := p.from()
		p.expectOp(")")
		return t
	}
	t := &TableRef{Name: p.name(maxNameParts)}
	if p.isKw("FOR") {
		p.asOf(t)
	}
	if p.isKw("FOR") || p.isKw("PARTITION") || p.isKw("TABLESAMPLE") || p.isKw("LATERAL") {
		p.fail("%s after a table name is not supported", strings.ToUpper(p.tok().text))
	}
	t.Alias = p.tableAlias()
	return t
}

// asOf parses FOR VERSION AS OF <integer | 'tag'> or FOR TIME AS OF
// '<datetime>' (Doris time travel).
func (p *parser) asOf(t *TableRef) {
	switch {
	case p.isKwSeq("FOR", "VERSION"):
		p.i += 2
		p.expectKw("AS", "OF")
		if tok := p.tok(); tok.kind == tString {
			if tok.text == "" {
				p.fail("FOR VERSION AS OF needs a snapshot id or a tag name, found an empty string")
			}
			t.AsOf, t.AsOfValue = AsOfTag, p.stringLit()
			return
		}
		t.AsOf, t.AsOfValue = AsOfVersion, strconv.FormatInt(p.intLit(), 10)
	case p.isKwSeq("FOR", "TIME"):
		p.i += 2
		p.expectKw("AS", "OF")
		t.AsOf, t.AsOfValue = AsOfTime, p.stringLit()
	}
}

// tableAlias is like alias but does not take strings.
func (p *parser) tableAlias() string {
	if p.acceptKw("AS") {
		return p.ident()
	}
	if isIdentTok(p.tok()) {
		return p.advance().text
	}
	return ""
}

// orderLimit parses optional ORDER BY and LIMIT clauses.
func (p *parser) orderLimit() ([]*OrderItem, *Limit) {
	var orderBy []*OrderItem
	var limit *Limit
	if p.acceptKw("ORDER", "BY") {
		orderBy = p.orderItems()
	}
	if p.isKw("LIMIT") {
		limit = p.limit()
	}
	return orderBy, limit
}

func (p *parser) orderItems() []*OrderItem {
	var out []*OrderItem
	for {
		o := &OrderItem{Expr: p.expr()}
		if p.acceptKw("DESC") {
			o.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		switch {
		case p.acceptKw("NULLS", "FIRST"):
			o.Nulls = NullsFirst
		case p.acceptKw("NULLS", "LAST"):
			o.Nulls = NullsLast
		}
		out = append(out, o)
		if !p.acceptOp(",") {
			return out
		}
	}
}

// limit parses LIMIT n [OFFSET m] | LIMIT m, n.
func (p *parser) limit() *Limit {
	p.expectKw("LIMIT")
	l := &Limit{Count: p.intLit()}
	switch {
	case p.acceptOp(","):
		l.Offset, l.Count = l.Count, p.intLit()
	case p.acceptKw("OFFSET"):
		l.Offset = p.intLit()
	}
	return l
}
