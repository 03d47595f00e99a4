package sql

import (
	"strconv"
	"strings"
)

// Parse parses exactly one statement. A trailing semicolon is allowed;
// anything after it is an error (use ParseAll for scripts). The returned
// error is a *SyntaxError (errors.Is(err, ErrSyntax)) or ErrEmptyQuery.
func Parse(sql string) (Statement, error) {
	stmts, err := parse(sql, false)
	if err != nil {
		return nil, err
	}
	return stmts[0], nil
}

// ParseAll parses a script of statements separated by semicolons, as sent
// by a client with CLIENT_MULTI_STATEMENTS. Empty statements between
// semicolons are skipped; input without any statement is ErrEmptyQuery.
func ParseAll(sql string) ([]Statement, error) {
	return parse(sql, true)
}

// ParseExpr parses a single scalar expression, e.g. a pushed-down filter
// kept as text.
func ParseExpr(sql string) (e Expr, err error) {
	defer func() { err = redact(sql, err) }()
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	defer p.recover(&err)
	if p.tok().kind == tEOF {
		return nil, ErrEmptyQuery
	}
	e = p.expr()
	if p.tok().kind != tEOF {
		p.failExpected("end of expression")
	}
	return e, nil
}

func parse(sql string, multi bool) (stmts []Statement, err error) {
	defer func() { err = redact(sql, err) }()
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	defer p.recover(&err)
	for {
		for p.acceptOp(";") {
		}
		if p.tok().kind == tEOF {
			break
		}
		if len(stmts) > 0 && !multi {
			// Users see this text: a client sent a script without
			// CLIENT_MULTI_STATEMENTS, which would have split it.
			p.fail("only one statement is allowed per query; to send several separated by ';', enable the client's multi-statement option (CLIENT_MULTI_STATEMENTS, e.g. go-sql-driver multiStatements=true, JDBC allowMultiQueries=true)")
		}
		stmts = append(stmts, p.statement())
		if p.tok().kind != tEOF && !p.isOp(";") {
			p.failExpected("end of statement")
		}
	}
	if len(stmts) == 0 {
		return nil, ErrEmptyQuery
	}
	return stmts, nil
}

// parser is a recursive-descent parser over a fully lexed token slice.
// Internally a syntax error unwinds with panic(bailout{...}); only Parse,
// ParseAll and ParseExpr recover it, so no panic escapes the package.
type parser struct {
	src    string
	toks   []token
	i      int
	depth  int
	params int
}

type bailout struct{ err *SyntaxError }

func newParser(src string) (*parser, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	return &parser{src: src, toks: toks}, nil
}

func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bailout)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

func (p *parser) tok() *token { return &p.toks[p.i] }

// peek returns the token n places ahead (the final EOF when past the end).
func (p *parser) peek(n int) *token {
	if p.i+n >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[p.i+n]
}

func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) failAt(pos int, format string, args ...any) {
	panic(bailout{newSyntaxError(p.src, pos, format, args...)})
}

func (p *parser) fail(format string, args ...any) {
	p.failAt(p.tok().pos, format, args...)
}

func (p *parser) failExpected(what string) {
	p.fail("expected %s, found %s", what, describe(p.tok()))
}

func describe(t *token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string literal"
	case tQuoted:
		return "identifier `" + t.text + "`"
	default:
		return "'" + t.text + "'"
	}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("statement nested too deeply (more than %d levels)", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

func isWord(t *token, kw string) bool {
	return t.kind == tWord && strings.EqualFold(t.text, kw)
}

func (p *parser) isKw(kw string) bool { return isWord(p.tok(), kw) }

// isKwSeq reports whether the next tokens are the given keywords.
func (p *parser) isKwSeq(kws ...string) bool {
	for i, kw := range kws {
		if !isWord(p.peek(i), kw) {
			return false
		}
	}
	return true
}

// acceptKw consumes the keyword sequence if all of it is next.
func (p *parser) acceptKw(kws ...string) bool {
	if !p.isKwSeq(kws...) {
		return false
	}
	p.i += len(kws)
	return true
}

func (p *parser) expectKw(kws ...string) {
	for _, kw := range kws {
		if !p.acceptKw(kw) {
			p.failExpected(kw)
		}
	}
}

func (p *parser) isOp(op string) bool {
	t := p.tok()
	return t.kind == tOp && t.text == op
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) {
	if !p.acceptOp(op) {
		p.failExpected("'" + op + "'")
	}
}

// reserved words cannot be unquoted identifiers or aliases.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ALL ALTER AND ANTI AS ASC BETWEEN BY CASE CAST CREATE CROSS
		DELETE DESC DESCRIBE DISTINCT DIV DROP ELSE END EXCEPT EXISTS EXPLAIN FALSE FOR FROM FULL
		GROUP HAVING IN INNER INSERT INTERSECT INTERVAL INTO IS JOIN LATERAL LEFT LIKE LIMIT
		MINUS MOD NATURAL NOT NULL ON OR ORDER OUTER OVER PARTITION QUALIFY REGEXP RIGHT RLIKE
		SELECT SEMI SET SHOW TABLESAMPLE THEN TRUE UNION UPDATE USE USING VALUES WHEN WHERE
		WINDOW WITH XOR`) {
		reserved[w] = true
	}
}

// niladic functions may be called without parentheses, so a column with one
// of these names must be quoted.
var niladic = map[string]bool{
	"CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true,
	"CURRENT_USER": true, "LOCALTIME": true, "LOCALTIMESTAMP": true,
	"UTC_DATE": true, "UTC_TIME": true, "UTC_TIMESTAMP": true,
}

// reservedFuncs are reserved words that may still name a function when
// followed by '(' (MySQL allows LEFT(s, n), IF(c, a, b), ...).
var reservedFuncs = map[string]bool{
	"LEFT": true, "RIGHT": true, "IF": true, "MOD": true, "INSERT": true, "REPLACE": true,
}

func isReserved(w string) bool { return reserved[keyword(w)] }

// keywords interns the upper-case spelling of every word the expression
// parser switches on.
var keywords = map[string]string{}

func init() {
	add := func(w string) { keywords[w] = w }
	for w := range reserved {
		add(w)
	}
	for w := range niladic {
		add(w)
	}
	for w := range reservedFuncs {
		add(w)
	}
	for _, w := range strings.Fields("DATE TIMESTAMP DATETIME EXTRACT TRIM SUBSTRING SUBSTR POSITION CONVERT") {
		add(w)
	}
}

// keyword returns the upper-case spelling of w if it is a known keyword and
// "" otherwise, without allocating: keyword checks run for every word, and
// strings.ToUpper would allocate for each lower-case one.
func keyword(w string) string {
	var buf [24]byte
	if len(w) > len(buf) {
		return ""
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	return keywords[string(buf[:len(w)])]
}

// isIdentTok reports whether t can be an identifier (quoted, or an
// unreserved word).
func isIdentTok(t *token) bool {
	return t.kind == tQuoted || (t.kind == tWord && !isReserved(t.text))
}

// ident consumes an identifier.
func (p *parser) ident() string {
	t := p.tok()
	if !isIdentTok(t) {
		p.failExpected("identifier")
	}
	p.i++
	return t.text
}

// anyIdent consumes an identifier where reserved words are allowed too
// (after a dot, as in MySQL).
func (p *parser) anyIdent() string {
	t := p.tok()
	if t.kind != tQuoted && t.kind != tWord {
		p.failExpected("identifier")
	}
	p.i++
	return t.text
}

// name parses [ctl.][db.]obj with at most max parts.
func (p *parser) name(max int) Name {
	start := p.tok().pos
	n := Name{p.ident()}
	for p.isOp(".") {
		p.i++
		n = append(n, p.anyIdent())
	}
	if len(n) > max {
		p.failAt(start, "name %s has %d parts, at most %d allowed", n.String(), len(n), max)
	}
	return n
}

func (p *parser) identList() []string {
	p.expectOp("(")
	var out []string
	for {
		out = append(out, p.ident())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

func (p *parser) stringLit() string {
	t := p.tok()
	if t.kind != tString {
		p.failExpected("string literal")
	}
	p.i++
	return t.text
}

func (p *parser) intLit() int64 {
	t := p.tok()
	if t.kind != tInt {
		p.failExpected("integer")
	}
	v, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		p.fail("integer %s out of range", t.text)
	}
	p.i++
	return v
}

// properties parses ( 'k' = 'v', ... ). Keys may also be bare words; values
// may be numbers or TRUE/FALSE, kept as their text.
func (p *parser) properties() []Property {
	p.expectOp("(")
	props := []Property{}
	if p.acceptOp(")") {
		return props
	}
	for {
		var k string
		switch t := p.tok(); t.kind {
		case tString, tQuoted:
			k = t.text
			p.i++
		case tWord:
			k = p.dottedWord()
		default:
			p.failExpected("property name")
		}
		p.expectOp("=")
		var v string
		switch t := p.tok(); t.kind {
		case tString, tInt, tDecimal, tFloat:
			v = t.text
			p.i++
		case tWord:
			if !isWord(t, "TRUE") && !isWord(t, "FALSE") {
				p.failExpected("property value")
			}
			v = strings.ToLower(t.text)
			p.i++
		default:
			p.failExpected("property value")
		}
		props = append(props, Property{Key: k, Value: v})
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return props
}

// dottedWord reads word(.word)* as one string, for bare property keys.
func (p *parser) dottedWord() string {
	s := p.anyIdent()
	for p.isOp(".") && p.peek(1).kind == tWord {
		p.i++
		s += "." + p.anyIdent()
	}
	return s
}

// ---------------------------------------------------------------------------
// Statements

func (p *parser) statement() Statement {
	t := p.tok()
	if t.kind == tOp && t.text == "(" {
		return p.query()
	}
	if t.kind != tWord {
		p.failExpected("a statement")
	}
	switch strings.ToUpper(t.text) {
	case "SELECT", "WITH":
		return p.query()
	case "SET":
		return p.set()
	case "USE":
		p.i++
		n := p.name(2)
		if len(n) == 2 {
			return &Use{Catalog: n[0], Database: n[1]}
		}
		return &Use{Database: n[0]}
	case "SWITCH":
		p.i++
		return &Switch{Catalog: p.ident()}
	case "SHOW":
		return p.show()
	case "ANALYZE":
		p.i++
		p.expectKw("TABLE")
		a := &Analyze{Table: p.name(3)}
		if p.isOp("(") {
			a.Columns = p.identList()
		}
		// WITH SYNC, WITH SAMPLE ROWS n, ...: collection is always full
		// and synchronous here, so the options change nothing.
		for p.acceptKw("WITH") {
			for p.tok().kind == tWord || p.tok().kind == tInt {
				p.i++
			}
		}
		return a
	case "DESC", "DESCRIBE":
		p.i++
		if p.isKw("SELECT") || p.isKw("WITH") {
			return &Explain{Stmt: p.query()}
		}
		return &Describe{Table: p.name(3)}
	case "EXPLAIN":
		return p.explain()
	case "CREATE":
		return p.create()
	case "ALTER":
		return p.alter()
	case "REFRESH":
		return p.refresh()
	case "DROP":
		return p.drop()
	case "INSERT":
		return p.insert()
	case "DELETE":
		return p.deleteStmt()
	case "UPDATE":
		return p.updateStmt()
	case "GRANT", "REVOKE":
		return p.grant()
	case "KILL":
		p.i++
		k := &Kill{}
		if p.acceptKw("QUERY") {
			k.Query = true
		} else {
			p.acceptKw("CONNECTION")
		}
		k.ID = p.intLit()
		return k
	case "BEGIN":
		p.i++
		p.acceptKw("WORK")
		return &Txn{Kind: TxnBegin}
	case "START":
		p.i++
		p.expectKw("TRANSACTION")
		return &Txn{Kind: TxnBegin}
	case "COMMIT":
		p.i++
		p.acceptKw("WORK")
		return &Txn{Kind: TxnCommit}
	case "ROLLBACK":
		p.i++
		p.acceptKw("WORK")
		return &Txn{Kind: TxnRollback}
	}
	p.fail("unsupported statement %s", describe(t))
	return nil
}

func (p *parser) explain() Statement {
	p.i++
	e := &Explain{}
	switch {
	case p.acceptKw("VERBOSE"):
		e.Level = ExplainVerbose
	case p.acceptKw("GRAPH"):
		e.Level = ExplainGraph
	case p.acceptKw("TREE"):
		e.Level = ExplainTree
	}
	switch {
	case p.isKw("SELECT") || p.isKw("WITH") || p.isOp("("):
		e.Stmt = p.query()
	case p.isKw("INSERT"):
		e.Stmt = p.insert()
	default:
		p.failExpected("SELECT or INSERT after EXPLAIN")
	}
	return e
}

func (p *parser) set() Statement {
	p.i++ // SET
	if p.acceptKw("PASSWORD") {
		return p.setPassword()
	}
	if p.acceptKw("NAMES") {
		s := &SetNames{}
		s.Charset = p.charsetName()
		if p.acceptKw("COLLATE") {
			s.Collate = p.charsetName()
		}
		return s
	}
	if p.acceptKw("CHARACTER", "SET") || p.acceptKw("CHARSET") {
		return &SetNames{Charset: p.charsetName(), CharacterSet: true}
	}
	if p.isKw("TRANSACTION") || p.isKwSeq("SESSION", "TRANSACTION") || p.isKwSeq("GLOBAL", "TRANSACTION") || p.isKwSeq("LOCAL", "TRANSACTION") {
		return p.setTransaction()
	}
	s := &Set{}
	scope := ScopeNone
	for {
		a := &Assignment{}
		switch {
		case p.acceptKw("GLOBAL"):
			scope = ScopeGlobal
		case p.acceptKw("SESSION"), p.acceptKw("LOCAL"):
			scope = ScopeSession
		}
		a.Scope = scope
		switch {
		case p.isOp("@@"):
			p.i++
			v := p.sysVar()
			a.Scope, a.Name = v.Scope, v.Name
			if a.Scope == ScopeNone {
				a.Scope = scope
			}
		case p.isOp("@"):
			p.i++
			a.Scope, a.Name = ScopeUser, p.userVarName()
		default:
			a.Name = strings.ToLower(p.varName())
		}
		if !p.acceptOp("=") && !p.acceptOp(":=") {
			p.failExpected("'='")
		}
		switch {
		case p.acceptKw("DEFAULT"):
			a.Default = true
		case p.isKw("ON") || p.isKw("ALL"):
			a.Value = &Literal{Kind: LitString, Value: strings.ToUpper(p.advance().text)}
		default:
			a.Value = p.expr()
		}
		s.Assignments = append(s.Assignments, a)
		if !p.acceptOp(",") {
			return s
		}
	}
}

func (p *parser) setTransaction() Statement {
	st := &SetTransaction{}
	switch {
	case p.acceptKw("GLOBAL"):
		st.Scope = ScopeGlobal
	case p.acceptKw("SESSION"), p.acceptKw("LOCAL"):
		st.Scope = ScopeSession
	}
	p.expectKw("TRANSACTION")
	for {
		switch {
		case st.IsolationLevel == "" && p.acceptKw("ISOLATION", "LEVEL"):
			switch {
			case p.acceptKw("READ", "UNCOMMITTED"):
				st.IsolationLevel = "READ UNCOMMITTED"
			case p.acceptKw("READ", "COMMITTED"):
				st.IsolationLevel = "READ COMMITTED"
			case p.acceptKw("REPEATABLE", "READ"):
				st.IsolationLevel = "REPEATABLE READ"
			case p.acceptKw("SERIALIZABLE"):
				st.IsolationLevel = "SERIALIZABLE"
			default:
				p.failExpected("isolation level")
			}
		case !st.ReadOnly && !st.ReadWrite && p.acceptKw("READ", "ONLY"):
			st.ReadOnly = true
		case !st.ReadOnly && !st.ReadWrite && p.acceptKw("READ", "WRITE"):
			st.ReadWrite = true
		default:
			p.failExpected("ISOLATION LEVEL, READ ONLY or READ WRITE")
		}
		if !p.acceptOp(",") {
			return st
		}
	}
}

// varName reads a system variable name; reserved words are allowed since the
// '=' that follows makes them unambiguous.
func (p *parser) varName() string {
	s := p.anyIdent()
	for p.isOp(".") {
		p.i++
		s += "." + p.anyIdent()
	}
	return s
}

func (p *parser) charsetName() string {
	t := p.tok()
	switch {
	case isWord(t, "DEFAULT"):
		p.i++
		return ""
	case t.kind == tString || t.kind == tQuoted || t.kind == tWord:
		p.i++
		return strings.ToLower(t.text)
	}
	p.failExpected("character set name")
	return ""
}

// sysVar parses what follows "@@": [GLOBAL.|SESSION.|LOCAL.]name.
func (p *parser) sysVar() *Variable {
	v := &Variable{}
	if p.peek(1).kind == tOp && p.peek(1).text == "." {
		switch {
		case p.isKw("GLOBAL"):
			v.Scope = ScopeGlobal
			p.i += 2
		case p.isKw("SESSION"), p.isKw("LOCAL"):
			v.Scope = ScopeSession
			p.i += 2
		}
	}
	v.Name = strings.ToLower(p.varName())
	return v
}

func (p *parser) userVarName() string {
	t := p.tok()
	if t.kind == tWord || t.kind == tQuoted || t.kind == tString {
		p.i++
		return t.text
	}
	p.failExpected("user variable name")
	return ""
}

// likeOrWhere parses an optional LIKE 'pattern' or WHERE expr.
func (p *parser) likeOrWhere(s *Show) {
	switch {
	case p.acceptKw("LIKE"):
		s.Like, s.HasLike = p.stringLit(), true
	case p.acceptKw("WHERE"):
		s.Where = p.expr()
	}
}

func (p *parser) fromName(s *Show, max int) {
	if p.acceptKw("FROM") || p.acceptKw("IN") {
		s.From = p.name(max)
	}
}

func (p *parser) show() Statement {
	p.i++ // SHOW
	if p.acceptKw("GRANTS") {
		return p.showGrants(false)
	}
	if p.acceptKw("ALL", "GRANTS") {
		return p.showGrants(true)
	}
	s := &Show{}
	if p.acceptKw("FULL") {
		s.Full = true
	}
	switch {
	case p.acceptKw("GLOBAL"):
		s.Scope = ScopeGlobal
	case p.acceptKw("SESSION"), p.acceptKw("LOCAL"):
		s.Scope = ScopeSession
	}
	kwt := p.tok()
	switch {
	case p.acceptKw("CATALOGS"):
		s.Kind = ShowCatalogs
		p.likeOrWhere(s)
	case p.acceptKw("CREATE", "CATALOG"):
		s.Kind = ShowCreateCatalog
		s.Name = p.name(1)
	case p.acceptKw("CREATE", "DATABASE"), p.acceptKw("CREATE", "SCHEMA"):
		s.Kind = ShowCreateDatabase
		s.Name = p.name(2)
	case p.acceptKw("CREATE", "TABLE"):
		s.Kind = ShowCreateTable
		s.Name = p.name(3)
	case p.acceptKw("CREATE", "VIEW"):
		s.Kind = ShowCreateView
		s.Name = p.name(3)
	case p.acceptKw("DATABASES"), p.acceptKw("SCHEMAS"):
		s.Kind = ShowDatabases
		p.fromName(s, 1)
		p.likeOrWhere(s)
	case p.acceptKw("TABLES"):
		s.Kind = ShowTables
		p.fromName(s, 2)
		p.likeOrWhere(s)
	case p.acceptKw("TABLE", "STATS"):
		s.Kind = ShowTableStats
		s.Name = p.name(3)
	case p.acceptKw("COLUMN", "STATS"), p.acceptKw("COLUMN", "CACHED", "STATS"):
		s.Kind = ShowColumnStats
		s.Name = p.name(3)
		if p.isOp("(") {
			s.Columns = p.identList()
		}
	case p.acceptKw("TABLE", "STATUS"):
		s.Kind = ShowTableStatus
		p.fromName(s, 2)
		p.likeOrWhere(s)
	case p.acceptKw("PARTITIONS"):
		s.Kind = ShowPartitions
		if !p.acceptKw("FROM") && !p.acceptKw("IN") {
			p.failExpected("FROM")
		}
		s.Name = p.name(3)
		p.likeOrWhere(s)
	case p.acceptKw("COLUMNS"), p.acceptKw("FIELDS"):
		s.Kind = ShowColumns
		if !p.acceptKw("FROM") && !p.acceptKw("IN") {
			p.failExpected("FROM")
		}
		s.Name = p.name(3)
		p.fromName(s, 2)
		p.likeOrWhere(s)
	case p.acceptKw("VARIABLES"):
		s.Kind = ShowVariables
		p.likeOrWhere(s)
	case p.acceptKw("STATUS"):
		s.Kind = ShowStatus
		p.likeOrWhere(s)
	case p.acceptKw("WARNINGS"), p.acceptKw("ERRORS"):
		s.Kind = ShowWarnings
		if isWord(kwt, "ERRORS") {
			s.Kind = ShowErrors
		}
		if p.isKw("LIMIT") {
			s.Limit = p.limit()
		}
	case p.acceptKw("COLLATION"):
		s.Kind = ShowCollation
		p.likeOrWhere(s)
	case p.acceptKw("CHARACTER", "SET"), p.acceptKw("CHARSET"):
		s.Kind = ShowCharset
		p.likeOrWhere(s)
	case p.acceptKw("ENGINES"), p.acceptKw("STORAGE", "ENGINES"):
		s.Kind = ShowEngines
	case p.acceptKw("PROCESSLIST"):
		s.Kind = ShowProcesslist
	case p.acceptKw("FRONTENDS"):
		s.Kind = ShowFrontends
	case p.acceptKw("BACKENDS"):
		s.Kind = ShowBackends
	case p.acceptKw("PROC"):
		s.Kind = ShowProc
		if p.tok().kind != tString {
			p.failExpected("a proc path string such as '/backends'")
		}
		s.Path = p.stringLit()
	case p.acceptKw("QUERY", "PROFILE"):
		s.Kind = ShowQueryProfile
		if p.tok().kind == tString {
			s.Path = p.stringLit()
		}
	default:
		p.failAt(kwt.pos, "unsupported SHOW statement: SHOW %s", kwt.text)
	}
	if s.Scope != ScopeNone && s.Kind != ShowVariables && s.Kind != ShowStatus {
		p.failAt(kwt.pos, "GLOBAL/SESSION only applies to SHOW VARIABLES and SHOW STATUS")
	}
	if s.Full && s.Kind != ShowTables && s.Kind != ShowColumns && s.Kind != ShowProcesslist {
		p.failAt(kwt.pos, "FULL only applies to SHOW TABLES, SHOW COLUMNS and SHOW PROCESSLIST")
	}
	return s
}

func (p *parser) ifNotExists() bool { return p.acceptKw("IF", "NOT", "EXISTS") }

func (p *parser) create() Statement {
	p.i++ // CREATE
	switch {
	case p.acceptKw("CATALOG"):
		return p.createCatalog()
	case p.acceptKw("USER"):
		return p.createUser()
	case p.acceptKw("DATABASE"), p.acceptKw("SCHEMA"):
		c := &CreateDatabase{IfNotExists: p.ifNotExists()}
		c.Name = p.name(2)
		if p.acceptKw("PROPERTIES") {
			c.Properties = p.properties()
		}
		return c
	case p.acceptKw("EXTERNAL", "TABLE"):
		return p.createTable(true)
	case p.acceptKw("TABLE"):
		return p.createTable(false)
	case p.acceptKw("VIEW"):
		return p.createView(false)
	case p.acceptKw("OR", "REPLACE", "VIEW"):
		return p.createView(true)
	}
	p.fail("unsupported CREATE statement: expected CATALOG, DATABASE or TABLE, found %s", describe(p.tok()))
	return nil
}

func (p *parser) createCatalog() Statement {
	c := &CreateCatalog{IfNotExists: p.ifNotExists()}
	c.Name = p.ident()
	if p.acceptKw("WITH", "RESOURCE") {
		c.Resource = p.ident()
	}
	var seenProps bool
	for {
		switch {
		case !c.HasComment && p.acceptKw("COMMENT"):
			c.Comment, c.HasComment = p.stringLit(), true
		case !seenProps && p.acceptKw("PROPERTIES"):
			c.Properties, seenProps = p.properties(), true
		default:
			if !seenProps && c.Resource == "" {
				p.failExpected("PROPERTIES")
			}
			return c
		}
	}
}

func (p *parser) alter() Statement {
	p.i++ // ALTER
	if p.acceptKw("USER") {
		return p.alterUser()
	}
	if !p.acceptKw("CATALOG") {
		p.fail("unsupported ALTER statement: only ALTER CATALOG and ALTER USER are supported, found %s", describe(p.tok()))
	}
	a := &AlterCatalog{Name: p.ident()}
	switch {
	case p.acceptKw("SET", "PROPERTIES"):
		a.Action = AlterCatalogSetProperties
		a.Properties = p.properties()
	case p.acceptKw("RENAME"):
		a.Action = AlterCatalogRename
		a.NewName = p.ident()
	case p.acceptKw("MODIFY", "COMMENT"):
		a.Action = AlterCatalogModifyComment
		a.Comment = p.stringLit()
	default:
		p.failExpected("SET PROPERTIES, RENAME or MODIFY COMMENT")
	}
	return a
}

func (p *parser) refresh() Statement {
	p.i++ // REFRESH
	r := &Refresh{}
	switch {
	case p.acceptKw("CATALOG"):
		r.Kind, r.Name = ObjCatalog, p.name(1)
	case p.acceptKw("DATABASE"), p.acceptKw("SCHEMA"):
		r.Kind, r.Name = ObjDatabase, p.name(2)
	case p.acceptKw("TABLE"):
		r.Kind, r.Name = ObjTable, p.name(3)
	default:
		p.failExpected("CATALOG, DATABASE or TABLE")
	}
	if p.acceptKw("PROPERTIES") {
		r.Properties = p.properties()
	}
	return r
}

func (p *parser) drop() Statement {
	p.i++ // DROP
	if p.acceptKw("USER") {
		return p.dropUser()
	}
	d := &Drop{}
	switch {
	case p.acceptKw("CATALOG"):
		d.Kind = ObjCatalog
	case p.acceptKw("DATABASE"), p.acceptKw("SCHEMA"):
		d.Kind = ObjDatabase
	case p.acceptKw("TABLE"):
		d.Kind = ObjTable
	case p.acceptKw("VIEW"):
		d.Kind = ObjView
	default:
		p.failExpected("CATALOG, DATABASE, TABLE or VIEW")
	}
	d.IfExists = p.acceptKw("IF", "EXISTS")
	d.Name = p.name([...]int{1, 2, 3, 3}[d.Kind])
	d.Force = p.acceptKw("FORCE")
	return d
}

func (p *parser) createTable(external bool) Statement {
	c := &CreateTable{External: external, IfNotExists: p.ifNotExists()}
	c.Name = p.name(3)
	if p.isOp("(") && !p.startsQuery(1) {
		p.i++
		for {
			if p.isKw("CONSTRAINT") && isWord(p.peek(2), "PRIMARY") && isWord(p.peek(3), "KEY") {
				p.i += 2 // CONSTRAINT name: the name has no use here
			}
			switch {
			case p.isKwSeq("PRIMARY", "KEY"):
				// MySQL's table constraint PRIMARY KEY (cols): the
				// table's PRIMARY KEY, as if written after the list.
				p.i += 2
				if c.Keys != nil {
					p.fail("multiple primary keys")
				}
				c.Keys = &KeysDesc{Kind: PrimaryKey, Columns: p.identList()}
			case p.isKw("UNIQUE"):
				// Doris has no UNIQUE constraint besides the UNIQUE KEY
				// model, and accepting one unenforced would let
				// duplicates in silently.
				p.fail("UNIQUE constraints in CREATE TABLE are not supported; use the UNIQUE KEY(...) model or PRIMARY KEY")
			case p.isKw("INDEX") || p.isKw("KEY") || p.isKw("CONSTRAINT") || p.isKw("FOREIGN") || p.isKw("CHECK"):
				p.fail("index and constraint definitions in CREATE TABLE are not supported")
			default:
				c.Columns = append(c.Columns, p.columnDef())
				if p.acceptKw("PRIMARY", "KEY") {
					// MySQL's column-level PRIMARY KEY: the table's PRIMARY
					// KEY (col), as if written after the column list.
					if c.Keys != nil {
						p.fail("multiple primary keys")
					}
					c.Keys = &KeysDesc{Kind: PrimaryKey, Columns: []string{c.Columns[len(c.Columns)-1].Name}}
				}
				if p.isKw("UNIQUE") {
					p.fail("column %s: UNIQUE constraints are not supported; use the UNIQUE KEY(%s) model or PRIMARY KEY", c.Columns[len(c.Columns)-1].Name, c.Columns[len(c.Columns)-1].Name)
				}
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	seen := map[string]bool{}
	if c.Keys != nil {
		seen["KEY"] = true
	}
	once := func(clause string) {
		if seen[clause] {
			p.fail("duplicate %s clause", clause)
		}
		seen[clause] = true
	}
	for {
		switch {
		case p.acceptKw("ENGINE"):
			once("ENGINE")
			p.acceptOp("=")
			c.Engine = strings.ToLower(p.ident())
		case p.isKwSeq("DUPLICATE", "KEY") || p.isKwSeq("UNIQUE", "KEY") || p.isKwSeq("AGGREGATE", "KEY") || p.isKwSeq("PRIMARY", "KEY"):
			once("KEY")
			kind := map[string]KeysKind{"DUPLICATE": DuplicateKey, "UNIQUE": UniqueKey, "AGGREGATE": AggregateKey, "PRIMARY": PrimaryKey}[strings.ToUpper(p.tok().text)]
			p.i += 2
			c.Keys = &KeysDesc{Kind: kind, Columns: p.identList()}
		case p.acceptKw("COMMENT"):
			once("COMMENT")
			c.Comment, c.HasComment = p.stringLit(), true
		case p.isKwSeq("PARTITION", "BY") || p.isKwSeq("AUTO", "PARTITION"):
			p.fail("PARTITION BY in CREATE TABLE is not supported")
		case p.acceptKw("DISTRIBUTED", "BY"):
			once("DISTRIBUTED BY")
			d := &Distribution{}
			switch {
			case p.acceptKw("HASH"):
				d.Columns = p.identList()
			case p.acceptKw("RANDOM"):
				d.Random = true
			default:
				p.failExpected("HASH or RANDOM")
			}
			if p.acceptKw("BUCKETS") {
				if p.acceptKw("AUTO") {
					d.Auto = true
				} else {
					d.Buckets = p.intLit()
				}
			}
			c.Distribution = d
		case p.acceptKw("PROPERTIES"):
			once("PROPERTIES")
			c.Properties = p.properties()
		case p.acceptKw("AS"):
			c.AsQuery = p.query()
			return c
		default:
			if len(c.Columns) == 0 {
				p.failExpected("column definitions or AS SELECT")
			}
			return c
		}
	}
}

// startsQuery reports whether the token n ahead (after any extra opening
// parentheses) starts a query.
func (p *parser) startsQuery(n int) bool {
	for p.peek(n).kind == tOp && p.peek(n).text == "(" {
		n++
	}
	return isWord(p.peek(n), "SELECT") || isWord(p.peek(n), "WITH")
}

var aggTypes = map[string]bool{
	"SUM": true, "MIN": true, "MAX": true, "REPLACE": true, "REPLACE_IF_NOT_NULL": true,
	"HLL_UNION": true, "BITMAP_UNION": true, "QUANTILE_UNION": true, "GENERIC": true,
}

func (p *parser) columnDef() *ColumnDef {
	c := &ColumnDef{Name: p.ident()}
	c.Type = p.dataType()
	for {
		t := p.tok()
		switch {
		case t.kind == tWord && aggTypes[strings.ToUpper(t.text)] && c.AggType == "":
			c.AggType = strings.ToUpper(t.text)
			p.i++
		case c.Null == NullUnspecified && p.acceptKw("NOT", "NULL"):
			c.Null = NotNull
		case c.Null == NullUnspecified && p.acceptKw("NULL"):
			c.Null = Nullable
		case !c.AutoIncrement && p.acceptKw("AUTO_INCREMENT"):
			c.AutoIncrement = true
		case c.Default == nil && p.acceptKw("DEFAULT"):
			c.Default = p.unary()
		case c.OnUpdate == nil && p.acceptKw("ON", "UPDATE"):
			c.OnUpdate = p.unary()
		case !c.HasComment && p.acceptKw("COMMENT"):
			c.Comment, c.HasComment = p.stringLit(), true
		default:
			return c
		}
	}
}

func (p *parser) insert() Statement {
	p.i++ // INSERT
	ins := &Insert{}
	ins.Hints = p.hints()
	switch {
	case p.acceptKw("INTO"):
		p.acceptKw("TABLE")
	case p.acceptKw("OVERWRITE"):
		ins.Overwrite = true
		p.expectKw("TABLE")
	default:
		p.failExpected("INTO or OVERWRITE")
	}
	ins.Table = p.name(3)
	if p.isKw("PARTITION") {
		p.fail("INSERT ... PARTITION is not supported")
	}
	if p.acceptKw("WITH", "LABEL") {
		ins.Label = p.ident()
	}
	if p.isOp("(") && !p.startsQuery(1) {
		p.i++
		if !p.acceptOp(")") {
			for {
				ins.Columns = append(ins.Columns, p.ident())
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
		}
	}
	if p.acceptKw("VALUES") || p.acceptKw("VALUE") {
		for {
			p.expectOp("(")
			row := []Expr{}
			if !p.acceptOp(")") {
				for {
					if p.acceptKw("DEFAULT") {
						row = append(row, &DefaultExpr{})
					} else {
						row = append(row, p.expr())
					}
					if !p.acceptOp(",") {
						break
					}
				}
				p.expectOp(")")
			}
			ins.Rows = append(ins.Rows, row)
			if !p.acceptOp(",") {
				return ins
			}
		}
	}
	if p.isKw("SELECT") || p.isKw("WITH") || p.isOp("(") {
		ins.Query = p.query()
		return ins
	}
	p.failExpected("VALUES or SELECT")
	return nil
}

// hints parses the /*+ ... */ comment attached to the current token, if
// any, returning the SET_VAR assignments (nil when there are none). Other
// hint names are accepted and ignored, as Doris does.
func (p *parser) hints() map[string]string {
	t := p.tok()
	if !t.hasHint() {
		return nil
	}
	base := int(t.hintPos)
	toks, err := lex(p.src[base:t.hintEnd])
	if err != nil {
		se := err.(*SyntaxError)
		p.failAt(base+se.Pos, "in hint: %s", se.Msg)
	}
	for i := range toks {
		toks[i].pos += base
		toks[i].end += base
		toks[i].hintEnd = 0
	}
	hp := &parser{src: p.src, toks: toks}
	var out map[string]string
	for hp.tok().kind != tEOF {
		if hp.acceptOp(",") {
			continue
		}
		nameTok := hp.tok()
		if nameTok.kind != tWord {
			hp.failExpected("hint name")
		}
		hp.i++
		if !strings.EqualFold(nameTok.text, "SET_VAR") {
			if hp.isOp("(") {
				hp.skipParens()
			}
			continue
		}
		hp.expectOp("(")
		for {
			k := strings.ToLower(hp.varName())
			hp.expectOp("=")
			v := hp.tok()
			neg := ""
			if v.kind == tOp && v.text == "-" {
				neg = "-"
				hp.i++
				v = hp.tok()
			}
			switch v.kind {
			case tString, tInt, tDecimal, tFloat:
			case tWord:
				if neg != "" {
					hp.failExpected("number")
				}
			default:
				hp.failExpected("hint value")
			}
			hp.i++
			if out == nil {
				out = map[string]string{}
			}
			out[k] = neg + v.text
			if !hp.acceptOp(",") {
				break
			}
		}
		hp.expectOp(")")
	}
	return out
}

// skipParens skips a balanced parenthesized group.
func (p *parser) skipParens() {
	depth := 0
	for {
		t := p.advance()
		switch {
		case t.kind == tEOF:
			p.failAt(t.pos, "unbalanced parentheses in hint")
		case t.kind == tOp && t.text == "(":
			depth++
		case t.kind == tOp && t.text == ")":
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// String renders a name with each part quoted as needed.
func (n Name) String() string {
	var b strings.Builder
	for i, part := range n {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteIdent(part))
	}
	return b.String()
}
