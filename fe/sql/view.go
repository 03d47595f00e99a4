package sql

// CreateView is CREATE [OR REPLACE] VIEW [IF NOT EXISTS] [[ctl.]db.]name
// [(col, ...)] [COMMENT 'text'] AS query.
type CreateView struct {
	OrReplace   bool
	IfNotExists bool
	Name        Name
	Columns     []string
	Comment     string
	Query       Query
}

func (*CreateView) stmt() {}

// String renders the statement; the query part parses back to an equal
// tree, which is how views are stored.
func (n *CreateView) String() string { return nodeString(n) }

func (n *CreateView) format(p *printer) {
	p.w("CREATE ")
	if n.OrReplace {
		p.w("OR REPLACE ")
	}
	p.w("VIEW ")
	if n.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.w(n.Name.String())
	if n.Columns != nil {
		p.w(" ")
		p.idents(n.Columns)
	}
	if n.Comment != "" {
		p.w(" COMMENT ")
		p.w(quoteString(n.Comment))
	}
	p.w(" AS ")
	n.Query.format(p)
}

// createView parses what follows CREATE [OR REPLACE] VIEW.
func (p *parser) createView(orReplace bool) Statement {
	c := &CreateView{OrReplace: orReplace, IfNotExists: p.ifNotExists()}
	c.Name = p.name(3)
	if p.isOp("(") {
		c.Columns = p.identList()
	}
	if p.acceptKw("COMMENT") {
		c.Comment = p.stringLit()
	}
	p.expectKw("AS")
	c.Query = p.query()
	return c
}
