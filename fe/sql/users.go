package sql

import "strings"

// This file holds the account statements: CREATE USER, DROP USER, GRANT,
// REVOKE, SET PASSWORD and SHOW [ALL] GRANTS. Their String() prints the
// password of CREATE USER / SET PASSWORD (round trip); callers that show a
// statement's text use MaskSecrets instead.

// UserIdent is a Doris user identity 'name'@'host'; Host "" was not written
// (it means '%').
type UserIdent struct {
	Name, Host string
}

// CreateUser is CREATE USER [IF NOT EXISTS] user [IDENTIFIED BY [PASSWORD] 'p'].
type CreateUser struct {
	IfNotExists bool
	User        UserIdent
	// Password is the cleartext password, or with PasswordHashed the
	// '*HEX' stage-2 hash MySQL's PASSWORD() prints.
	Password       string
	HasPassword    bool
	PasswordHashed bool
	// RequireSSL is MySQL's REQUIRE SSL: the user may only log in over
	// TLS. REQUIRE NONE is the default.
	RequireSSL bool
}

// AlterUser is ALTER USER [IF EXISTS] user [IDENTIFIED BY [PASSWORD] 'p']
// [REQUIRE SSL|NONE]; what is absent is left as it is.
type AlterUser struct {
	IfExists       bool
	User           UserIdent
	Password       string
	HasPassword    bool
	PasswordHashed bool
	// Require is "SSL", "NONE" or "" (unchanged).
	Require string
}

// DropUser is DROP USER [IF EXISTS] user.
type DropUser struct {
	IfExists bool
	User     UserIdent
}

// Grant is GRANT privs ON object TO user, or with Revoke REVOKE privs ON
// object FROM user. Privs are as written (SELECT_PRIV, ALL …); On has 2 or
// 3 parts, each a name or "*".
type Grant struct {
	Revoke bool
	Privs  []string
	On     []string
	User   UserIdent
}

// SetPassword is SET PASSWORD [FOR user] = PASSWORD('p') | '*HEX'.
type SetPassword struct {
	User     *UserIdent // nil: the current user
	Password string
	Hashed   bool // Password is a '*HEX' stage-2 hash
}

// ShowGrants is SHOW [ALL] GRANTS [FOR user].
type ShowGrants struct {
	All  bool
	User *UserIdent
}

func (*CreateUser) stmt()  {}
func (*AlterUser) stmt()   {}
func (*DropUser) stmt()    {}
func (*Grant) stmt()       {}
func (*SetPassword) stmt() {}
func (*ShowGrants) stmt()  {}

func (n *CreateUser) String() string  { return nodeString(n) }
func (n *AlterUser) String() string   { return nodeString(n) }
func (n *DropUser) String() string    { return nodeString(n) }
func (n *Grant) String() string       { return nodeString(n) }
func (n *SetPassword) String() string { return nodeString(n) }
func (n *ShowGrants) String() string  { return nodeString(n) }

// userIdent parses name[@host] where each is a name or a string literal.
func (p *parser) userIdent() UserIdent {
	var u UserIdent
	t := p.tok()
	switch {
	case t.kind == tString:
		u.Name = p.stringLit()
	case isIdentTok(t):
		u.Name = p.anyIdent()
	default:
		p.failExpected("user name")
	}
	if p.acceptOp("@") {
		t := p.tok()
		switch {
		case t.kind == tString:
			u.Host = p.stringLit()
		case isIdentTok(t):
			u.Host = p.anyIdent()
		default:
			p.failExpected("host")
		}
		if u.Host == "" {
			u.Host = "%"
		}
	}
	return u
}

// createUser parses after CREATE USER.
func (p *parser) createUser() Statement {
	c := &CreateUser{IfNotExists: p.ifNotExists()}
	c.User = p.userIdent()
	if p.acceptKw("IDENTIFIED", "BY") {
		c.HasPassword = true
		c.PasswordHashed = p.acceptKw("PASSWORD")
		c.Password = p.stringLit()
	}
	c.RequireSSL = p.require() == "SSL"
	if p.acceptKw("DEFAULT", "ROLE") || p.isKw("PASSWORD_EXPIRE") || p.isKw("FAILED_LOGIN_ATTEMPTS") || p.isKw("COMMENT") {
		p.fail("CREATE USER options (DEFAULT ROLE, password policies, COMMENT) are not supported")
	}
	return c
}

// require parses an optional REQUIRE SSL|NONE: "SSL", "NONE" or "".
func (p *parser) require() string {
	if !p.acceptKw("REQUIRE") {
		return ""
	}
	switch {
	case p.acceptKw("SSL"):
		return "SSL"
	case p.acceptKw("NONE"):
		return "NONE"
	}
	p.fail("only REQUIRE SSL and REQUIRE NONE are supported (no X509, ISSUER, SUBJECT or CIPHER)")
	return ""
}

// alterUser parses after ALTER USER.
func (p *parser) alterUser() Statement {
	a := &AlterUser{IfExists: p.acceptKw("IF", "EXISTS")}
	a.User = p.userIdent()
	if p.acceptKw("IDENTIFIED", "BY") {
		a.HasPassword = true
		a.PasswordHashed = p.acceptKw("PASSWORD")
		a.Password = p.stringLit()
	}
	a.Require = p.require()
	if !a.HasPassword && a.Require == "" {
		p.failExpected("IDENTIFIED BY or REQUIRE")
	}
	return a
}

// dropUser parses after DROP USER.
func (p *parser) dropUser() Statement {
	d := &DropUser{IfExists: p.acceptKw("IF", "EXISTS")}
	d.User = p.userIdent()
	return d
}

// grant parses GRANT … TO user and REVOKE … FROM user.
func (p *parser) grant() Statement {
	g := &Grant{Revoke: p.isKw("REVOKE")}
	p.i++
	for {
		t := p.tok()
		if t.kind != tWord {
			p.failExpected("privilege name")
		}
		p.i++
		g.Privs = append(g.Privs, strings.ToUpper(t.text))
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectKw("ON")
	if p.isKw("RESOURCE") || p.isKw("WORKLOAD") || p.isKw("CLUSTER") || p.isKw("STAGE") || p.isKw("STORAGE") {
		p.fail("GRANT/REVOKE on %s is not supported: only ctl.db.tbl objects", describe(p.tok()))
	}
	start := p.tok().pos
	for {
		if p.acceptOp("*") {
			g.On = append(g.On, "*")
		} else {
			g.On = append(g.On, p.anyIdent())
		}
		if !p.acceptOp(".") {
			break
		}
	}
	if len(g.On) < 2 || len(g.On) > 3 {
		p.failAt(start, "privilege object must be db.tbl or ctl.db.tbl (with * wildcards), found %d part(s)", len(g.On))
	}
	if g.Revoke {
		p.expectKw("FROM")
	} else {
		p.expectKw("TO")
	}
	if p.isKw("ROLE") {
		p.fail("roles are not supported")
	}
	g.User = p.userIdent()
	return g
}

// setPassword parses after SET PASSWORD.
func (p *parser) setPassword() Statement {
	s := &SetPassword{}
	if p.acceptKw("FOR") {
		u := p.userIdent()
		s.User = &u
	}
	p.expectOp("=")
	if p.acceptKw("PASSWORD") {
		p.expectOp("(")
		s.Password = p.stringLit()
		p.expectOp(")")
	} else {
		s.Password, s.Hashed = p.stringLit(), true
	}
	return s
}

// showGrants parses after SHOW [ALL] GRANTS.
func (p *parser) showGrants(all bool) Statement {
	s := &ShowGrants{All: all}
	if p.acceptKw("FOR") {
		u := p.userIdent()
		s.User = &u
	}
	return s
}

func (p *printer) user(u UserIdent) {
	p.w(quoteString(u.Name))
	if u.Host != "" {
		p.w("@")
		p.w(quoteString(u.Host))
	}
}

func (n *CreateUser) format(p *printer) {
	p.w("CREATE USER ")
	if n.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.user(n.User)
	if n.HasPassword {
		p.w(" IDENTIFIED BY ")
		if n.PasswordHashed {
			p.w("PASSWORD ")
		}
		p.w(quoteString(n.Password))
	}
	if n.RequireSSL {
		p.w(" REQUIRE SSL")
	}
}

func (n *AlterUser) format(p *printer) {
	p.w("ALTER USER ")
	if n.IfExists {
		p.w("IF EXISTS ")
	}
	p.user(n.User)
	if n.HasPassword {
		p.w(" IDENTIFIED BY ")
		if n.PasswordHashed {
			p.w("PASSWORD ")
		}
		p.w(quoteString(n.Password))
	}
	if n.Require != "" {
		p.w(" REQUIRE " + n.Require)
	}
}

func (n *DropUser) format(p *printer) {
	p.w("DROP USER ")
	if n.IfExists {
		p.w("IF EXISTS ")
	}
	p.user(n.User)
}

func (n *Grant) format(p *printer) {
	if n.Revoke {
		p.w("REVOKE ")
	} else {
		p.w("GRANT ")
	}
	p.w(strings.Join(n.Privs, ", "))
	p.w(" ON ")
	for i, part := range n.On {
		if i > 0 {
			p.w(".")
		}
		if part == "*" {
			p.w("*")
		} else {
			p.ident(part)
		}
	}
	if n.Revoke {
		p.w(" FROM ")
	} else {
		p.w(" TO ")
	}
	p.user(n.User)
}

func (n *SetPassword) format(p *printer) {
	p.w("SET PASSWORD ")
	if n.User != nil {
		p.w("FOR ")
		p.user(*n.User)
		p.w(" ")
	}
	p.w("= ")
	if n.Hashed {
		p.w(quoteString(n.Password))
		return
	}
	p.w("PASSWORD(")
	p.w(quoteString(n.Password))
	p.w(")")
}

func (n *ShowGrants) format(p *printer) {
	p.w("SHOW ")
	if n.All {
		p.w("ALL ")
	}
	p.w("GRANTS")
	if n.User != nil {
		p.w(" FOR ")
		p.user(*n.User)
	}
}

// MaskSecrets returns src with the secret string literals replaced by
// "*XXX": passwords of IDENTIFIED BY, PASSWORD('…'), SET PASSWORD … = '…',
// and secret catalog properties. Use it wherever a statement's text is shown
// or kept (SHOW PROCESSLIST, profiles, logs).
func MaskSecrets(src string) string {
	spans := secretSpans(src)
	if isSetPassword(src) {
		spans = append(spans, stringSpans(src)...)
	}
	if len(spans) == 0 {
		return src
	}
	var b strings.Builder
	at := 0
	for _, s := range mergeSpans(spans) {
		if s.lo < at {
			continue
		}
		b.WriteString(src[at:s.lo])
		b.WriteString(maskedValue)
		at = s.hi
	}
	b.WriteString(src[at:])
	return b.String()
}

func isSetPassword(src string) bool {
	l := lexer{src: src}
	var words []string
	for len(words) < 2 {
		t, err := l.next()
		if err != nil || t.kind != tWord {
			return false
		}
		words = append(words, strings.ToUpper(t.text))
	}
	return words[0] == "SET" && words[1] == "PASSWORD"
}

// stringSpans finds every string literal of src (quotes excluded); an
// unterminated one runs to the end.
func stringSpans(src string) []span {
	var out []span
	l := lexer{src: src}
	for {
		t, err := l.next()
		if err != nil {
			// A lexing error: hide everything after it rather than guess.
			out = append(out, span{min(l.i, len(src)), len(src)})
			return out
		}
		if t.kind == tEOF {
			return out
		}
		if t.kind == tString && t.end-1 > t.pos+1 {
			out = append(out, span{t.pos + 1, t.end - 1})
		}
	}
}

// mergeSpans sorts spans and joins overlapping ones.
func mergeSpans(in []span) []span {
	s := append([]span(nil), in...)
	for i := 1; i < len(s); i++ { // insertion sort: a handful of spans
		for j := i; j > 0 && s[j].lo < s[j-1].lo; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	var out []span
	for _, x := range s {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}
