package sql

// DELETE and UPDATE (Doris: DELETE FROM on every internal table, UPDATE on
// UNIQUE KEY tables). Kept apart from parser.go so that the statements can
// grow without touching the shared parser file more than its dispatch.

// Delete is DELETE FROM table [alias] [WHERE cond].
type Delete struct {
	Table Name
	Alias string
	// Using are the tables of DELETE ... USING (Doris 2.x, UNIQUE KEY
	// tables only): the target's rows that join a row of them under
	// Where are deleted. Nil when absent.
	Using TableExpr
	Where Expr // nil when absent
}

// SetColumn is one col = value of UPDATE ... SET; Value is a *DefaultExpr
// for DEFAULT.
type SetColumn struct {
	Column string
	Value  Expr
}

// Update is UPDATE table [alias] SET col = value [, ...] [FROM tables]
// [WHERE cond].
type Update struct {
	Table Name
	Alias string
	Set   []SetColumn
	// From are the tables of UPDATE ... FROM (Doris 2.x): the values and
	// the condition may read them. Nil when absent.
	From  TableExpr
	Where Expr // nil when absent
}

func (*Delete) stmt() {}
func (*Update) stmt() {}

func (n *Delete) String() string { return nodeString(n) }
func (n *Update) String() string { return nodeString(n) }

func (n *Delete) format(p *printer) {
	p.w("DELETE FROM ")
	p.w(n.Table.String())
	if n.Alias != "" {
		p.w(" ")
		p.ident(n.Alias)
	}
	if n.Using != nil {
		p.w(" USING ")
		n.Using.format(p)
	}
	if n.Where != nil {
		p.w(" WHERE ")
		n.Where.format(p)
	}
}

func (n *Update) format(p *printer) {
	p.w("UPDATE ")
	p.w(n.Table.String())
	if n.Alias != "" {
		p.w(" ")
		p.ident(n.Alias)
	}
	p.w(" SET ")
	for i, a := range n.Set {
		if i > 0 {
			p.w(", ")
		}
		p.ident(a.Column)
		p.w(" = ")
		a.Value.format(p)
	}
	if n.From != nil {
		p.w(" FROM ")
		n.From.format(p)
	}
	if n.Where != nil {
		p.w(" WHERE ")
		n.Where.format(p)
	}
}

// alias reads an optional table alias ([AS] name) that is not one of the
// keywords that may follow.
func (p *parser) dmlAlias(next ...string) string {
	if p.acceptKw("AS") {
		return p.ident()
	}
	for _, kw := range next {
		if p.isKw(kw) {
			return ""
		}
	}
	if isIdentTok(p.tok()) {
		return p.ident()
	}
	return ""
}

func (p *parser) deleteStmt() Statement {
	p.i++ // DELETE
	p.expectKw("FROM")
	d := &Delete{Table: p.name(3)}
	if p.isKw("PARTITION") || p.isKw("PARTITIONS") {
		p.fail("DELETE ... PARTITION is not supported")
	}
	d.Alias = p.dmlAlias("WHERE", "USING")
	if p.acceptKw("USING") {
		d.Using = p.from()
	}
	if p.acceptKw("WHERE") {
		d.Where = p.expr()
	}
	return d
}

func (p *parser) updateStmt() Statement {
	p.i++ // UPDATE
	u := &Update{Table: p.name(3)}
	u.Alias = p.dmlAlias("SET")
	p.expectKw("SET")
	for {
		col := p.name(4)
		a := SetColumn{Column: col[len(col)-1]}
		p.expectOp("=")
		if p.acceptKw("DEFAULT") {
			a.Value = &DefaultExpr{}
		} else {
			a.Value = p.expr()
		}
		u.Set = append(u.Set, a)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		u.From = p.from()
	}
	if p.acceptKw("WHERE") {
		u.Where = p.expr()
	}
	return u
}
