package sql

import "strings"

// Operator precedence, lowest first, as in MySQL. The printer uses the same
// table (exprPrec) to decide where parentheses are needed.
const (
	precOr      = 1
	precXor     = 2
	precAnd     = 3
	precNot     = 4
	precBetween = 5
	precCmp     = 6 // = <=> != < <= > >= IS LIKE REGEXP IN
	precBitOr   = 7
	precBitAnd  = 8
	precShift   = 9
	precAdd     = 10
	precMul     = 11
	precBitXor  = 12
	precUnary   = 13
	precPrimary = 20
)

var binaryPrec = map[string]int{
	"OR": precOr, "XOR": precXor, "AND": precAnd,
	"=": precCmp, "<=>": precCmp, "!=": precCmp, "<": precCmp, "<=": precCmp, ">": precCmp, ">=": precCmp,
	"|": precBitOr, "&": precBitAnd, "<<": precShift, ">>": precShift,
	"+": precAdd, "-": precAdd, "*": precMul, "/": precMul, "DIV": precMul, "%": precMul,
	"^": precBitXor,
}

// binaryOpAt returns the canonical binary operator at the current token.
func (p *parser) binaryOpAt() (string, bool) {
	t := p.tok()
	switch t.kind {
	case tOp:
		switch t.text {
		case "||":
			return "OR", true
		case "&&":
			return "AND", true
		case "<>":
			return "!=", true
		}
		if _, ok := binaryPrec[t.text]; ok {
			return t.text, true
		}
	case tWord:
		switch w := keyword(t.text); w {
		case "OR", "XOR", "AND", "DIV":
			return w, true
		case "MOD":
			return "%", true
		}
	}
	return "", false
}

func (p *parser) expr() Expr { return p.exprPrec(0) }

// exprPrec parses an expression whose operators bind at least as tightly as
// minPrec (precedence climbing).
func (p *parser) exprPrec(minPrec int) Expr {
	p.enter()
	defer p.leave()
	var left Expr
	if p.isKw("NOT") {
		p.i++
		left = &UnaryExpr{Op: "NOT", X: p.exprPrec(precBetween)}
	} else {
		left = p.unary()
	}
	for {
		if op, ok := p.binaryOpAt(); ok {
			prec := binaryPrec[op]
			if prec < minPrec {
				return left
			}
			p.i++
			if prec == precCmp && (p.isKw("ANY") || p.isKw("SOME") || p.isKw("ALL")) && p.peek(1).kind == tOp && p.peek(1).text == "(" {
				switch op {
				case "=", "!=", "<", "<=", ">", ">=":
				default:
					p.fail("%s cannot compare with %s (subquery)", op, strings.ToUpper(p.tok().text))
				}
				if !p.startsQuery(2) {
					p.fail("%s (...) needs a subquery", strings.ToUpper(p.tok().text))
				}
				q := &Quantified{X: left, Op: op, All: p.isKw("ALL")}
				p.i += 2
				q.Query = p.query()
				p.expectOp(")")
				left = q
				continue
			}
			left = &BinaryExpr{Op: op, L: left, R: p.exprPrec(prec + 1)}
			continue
		}
		not := false
		if p.isKw("NOT") {
			nx := p.peek(1)
			if !isWord(nx, "IN") && !isWord(nx, "BETWEEN") && !isWord(nx, "LIKE") && !isWord(nx, "REGEXP") && !isWord(nx, "RLIKE") {
				return left
			}
			not = true
		}
		kw := p.peek(0)
		if not {
			kw = p.peek(1)
		}
		switch {
		case isWord(kw, "BETWEEN"):
			if precBetween < minPrec {
				return left
			}
			p.skipNot(not)
			b := &Between{X: left, Not: not, Lo: p.exprPrec(precBitOr)}
			p.expectKw("AND")
			b.Hi = p.exprPrec(precBitOr)
			left = b
		case isWord(kw, "IS") && !not:
			if precCmp < minPrec {
				return left
			}
			p.i++
			is := &IsExpr{X: left, Not: p.acceptKw("NOT")}
			t := p.tok()
			w := strings.ToUpper(t.text)
			if t.kind != tWord || (w != "NULL" && w != "TRUE" && w != "FALSE" && w != "UNKNOWN") {
				p.failExpected("NULL, TRUE, FALSE or UNKNOWN")
			}
			p.i++
			is.What = w
			left = is
		case isWord(kw, "IN"):
			if precCmp < minPrec {
				return left
			}
			p.skipNot(not)
			in := &InExpr{X: left, Not: not}
			p.expectOp("(")
			if p.startsQuery(0) {
				in.Query = p.query()
			} else {
				in.List = p.exprList()
			}
			p.expectOp(")")
			left = in
		case isWord(kw, "LIKE"), isWord(kw, "REGEXP"), isWord(kw, "RLIKE"):
			if precCmp < minPrec {
				return left
			}
			p.skipNot(not)
			l := &LikeExpr{X: left, Not: not, Op: "LIKE", Pattern: p.exprPrec(precBitOr)}
			if !isWord(kw, "LIKE") {
				l.Op = "REGEXP"
			} else if p.acceptKw("ESCAPE") {
				l.Escape = p.exprPrec(precBitOr)
			}
			left = l
		default:
			return left
		}
	}
}

// skipNot consumes the NOT (if any) and the keyword after it.
func (p *parser) skipNot(not bool) {
	if not {
		p.i++
	}
	p.i++
}

// unary parses prefix -, +, ~, ! and then a postfix expression.
func (p *parser) unary() Expr {
	if t := p.tok(); t.kind == tOp {
		switch t.text {
		case "-", "+", "~", "!":
			p.enter()
			defer p.leave()
			p.i++
			return &UnaryExpr{Op: t.text, X: p.unary()}
		}
	}
	return p.postfix(p.primary())
}

// postfix parses element access x[i] and field access x[i].f.
func (p *parser) postfix(x Expr) Expr {
	for {
		switch {
		case p.isOp("["):
			p.i++
			x = &Index{X: x, Index: p.expr()}
			p.expectOp("]")
		case p.isOp(".") && (p.peek(1).kind == tWord || p.peek(1).kind == tQuoted):
			switch x.(type) {
			case *ColumnRef, *Literal:
				// A path was consumed whole by primary; a literal has no fields.
				return x
			}
			p.i++
			x = &Field{X: x, Name: p.anyIdent()}
		default:
			return x
		}
	}
}

// charsetIntroducers are the _charset prefixes MySQL accepts before a string
// literal that clients send.
var charsetIntroducers = map[string]bool{
	"_binary": true, "_utf8mb4": true, "_utf8mb3": true, "_utf8": true, "_latin1": true, "_ascii": true,
}

var intervalUnits = map[string]bool{
	"MICROSECOND": true, "MILLISECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true,
	"DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

func (p *parser) primary() Expr {
	t := p.tok()
	if nx := p.peek(1); (t.kind == tWord || t.kind == tQuoted) && nx.kind == tOp && nx.text == "->" {
		// x -> body: a one-parameter lambda.
		p.enter()
		defer p.leave()
		name := p.anyIdent()
		p.i++
		return &Lambda{Params: []string{name}, Body: p.expr()}
	}
	switch t.kind {
	case tInt:
		p.i++
		return &Literal{Kind: LitInt, Value: t.text}
	case tDecimal:
		p.i++
		return &Literal{Kind: LitDecimal, Value: t.text}
	case tFloat:
		p.i++
		return &Literal{Kind: LitFloat, Value: t.text}
	case tHex:
		p.i++
		return &Literal{Kind: LitHex, Value: t.text}
	case tString:
		p.i++
		s := t.text
		// Adjacent strings concatenate, as in MySQL: 'a' 'b' is 'ab'.
		for p.tok().kind == tString {
			s += p.advance().text
		}
		return &Literal{Kind: LitString, Value: s}
	case tQuoted:
		if nx := p.peek(1); nx.kind == tOp && nx.text == "(" {
			return p.funcCall()
		}
		return p.columnPath()
	case tOp:
		switch t.text {
		case "?":
			p.i++
			p.params++
			return &Param{Index: p.params - 1}
		case "@@":
			p.i++
			return p.sysVar()
		case "@":
			p.i++
			return &Variable{Scope: ScopeUser, Name: p.userVarName()}
		case "(":
			p.enter()
			defer p.leave()
			if n := p.lambdaParamsAhead(); n > 0 {
				var params []string
				p.i++
				for k := 0; k < n; k++ {
					params = append(params, p.anyIdent())
					p.acceptOp(",")
				}
				p.expectOp(")")
				p.expectOp("->")
				return &Lambda{Params: params, Body: p.expr()}
			}
			if p.startsQuery(1) && !p.parenExprAhead() {
				p.i++
				q := p.query()
				p.expectOp(")")
				return &Subquery{Query: q}
			}
			p.i++
			items := p.exprList()
			p.expectOp(")")
			if len(items) == 1 {
				return items[0]
			}
			return &Row{Items: items}
		case "[":
			// Doris's array literal [a, b, ...] is array(a, b, ...).
			p.enter()
			defer p.leave()
			p.i++
			var items []Expr
			if !p.isOp("]") {
				items = p.exprList()
			}
			p.expectOp("]")
			return &FuncCall{Name: "array", Args: items, Brackets: true}
		}
	case tWord:
		return p.wordPrimary(t)
	}
	p.failExpected("expression")
	return nil
}

// lambdaParamsAhead counts the names of a lambda's parameter list at the
// current '(' — (x, y) -> — or gives 0 when the tokens are not one.
func (p *parser) lambdaParamsAhead() int {
	n := 0
	for k := 1; ; k += 2 {
		t := p.peek(k)
		if t.kind != tWord && t.kind != tQuoted {
			return 0
		}
		n++
		sep := p.peek(k + 1)
		if sep.kind != tOp {
			return 0
		}
		switch sep.text {
		case ",":
			continue
		case ")":
			if arrow := p.peek(k + 2); arrow.kind == tOp && arrow.text == "->" {
				return n
			}
		}
		return 0
	}
}

// parenExprAhead reports whether "((SELECT ...) ...)" at the current '(' is
// an expression that merely starts with a subquery, e.g. ((SELECT 1) + 1).
// It finds the ')' matching the first nested '(' and checks that the
// next token closes the outer group or continues a query.
func (p *parser) parenExprAhead() bool {
	if t := p.peek(1); t.kind != tOp || t.text != "(" {
		return false
	}
	depth := 0
	for n := 1; ; n++ {
		t := p.peek(n)
		if t.kind == tEOF {
			return false
		}
		if t.kind != tOp {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				nx := p.peek(n + 1)
				if nx.kind == tOp && nx.text == ")" {
					return false
				}
				if isWord(nx, "UNION") || isWord(nx, "EXCEPT") || isWord(nx, "INTERSECT") || isWord(nx, "MINUS") || isWord(nx, "ORDER") || isWord(nx, "LIMIT") {
					return false
				}
				return true
			}
		}
	}
}

func (p *parser) columnPath() Expr {
	c := &ColumnRef{Parts: []string{p.advance().text}}
	for p.isOp(".") {
		nx := p.peek(1)
		if nx.kind == tOp && nx.text == "*" {
			p.fail("'*' is only allowed in a select list")
		}
		p.i++
		c.Parts = append(c.Parts, p.anyIdent())
	}
	return c
}

func (p *parser) wordPrimary(t *token) Expr {
	w := keyword(t.text) // "" for ordinary names
	next := p.peek(1)
	// A character set introducer before a string ('_binary'…', as
	// go-sql-driver writes []byte arguments when it interpolates them) only
	// says how to read the bytes; they are the literal's value either way.
	if (next.kind == tString || next.kind == tHex) && charsetIntroducers[strings.ToLower(t.text)] {
		p.i++
		return p.primary()
	}
	nextIsParen := next.kind == tOp && next.text == "("
	switch w {
	case "NULL":
		p.i++
		return &Literal{Kind: LitNull}
	case "TRUE", "FALSE":
		p.i++
		return &Literal{Kind: LitBool, Value: w}
	case "DATE", "TIMESTAMP", "DATETIME":
		if next.kind == tString {
			p.i += 2
			k := LitDatetime
			if w == "DATE" {
				k = LitDate
			}
			return &Literal{Kind: k, Value: next.text}
		}
	case "INTERVAL":
		p.i++
		iv := &Interval{Value: p.expr()}
		u := p.tok()
		if u.kind != tWord || !intervalUnits[strings.ToUpper(u.text)] {
			p.failExpected("interval unit (DAY, HOUR, ...)")
		}
		p.i++
		iv.Unit = strings.ToUpper(u.text)
		return iv
	case "CASE":
		return p.caseExpr()
	case "CAST":
		if nextIsParen {
			p.i += 2
			c := &Cast{X: p.expr()}
			p.expectKw("AS")
			c.Type = p.dataType()
			p.expectOp(")")
			return c
		}
	case "CONVERT":
		// MySQL's CONVERT(x, type) is CAST(x AS type), which JDBC drivers'
		// metadata queries use; CONVERT(x USING charset) changes nothing
		// here, where every string is utf8mb4.
		if nextIsParen {
			p.i += 2
			x := p.expr()
			if p.acceptKw("USING") {
				p.charsetName()
				p.expectOp(")")
				return x
			}
			p.expectOp(",")
			c := &Cast{X: x, Type: p.dataType()}
			p.expectOp(")")
			return c
		}
	case "EXISTS":
		p.i++
		p.expectOp("(")
		e := &Exists{Query: p.query()}
		p.expectOp(")")
		return e
	case "TRIM", "SUBSTRING", "SUBSTR", "POSITION":
		if nextIsParen {
			if e := p.specialCall(t, w); e != nil {
				return e
			}
		}
	case "EXTRACT":
		if nextIsParen && p.peek(2).kind == tWord && isWord(p.peek(3), "FROM") {
			p.i += 2
			unit := strings.ToUpper(p.advance().text)
			p.i++ // FROM
			x := p.expr()
			p.expectOp(")")
			return &FuncCall{Name: t.text, Args: []Expr{&Literal{Kind: LitString, Value: unit}, x}}
		}
	}
	if nextIsParen && (!reserved[w] || reservedFuncs[w]) {
		return p.funcCall()
	}
	if niladic[w] {
		p.i++
		return &FuncCall{Name: t.text}
	}
	if !reserved[w] {
		return p.columnPath()
	}
	p.failExpected("expression")
	return nil
}

// specialCall parses the SQL-standard argument forms MySQL and Doris accept
// and stores them as ordinary calls:
//
//	TRIM([BOTH|LEADING|TRAILING] [x] FROM s) -> trim|ltrim|rtrim(s[, x])
//	SUBSTRING(s FROM a [FOR b])              -> substring(s, a[, b])
//	POSITION(x IN s)                         -> locate(x, s)
//
// It returns nil (consuming nothing) when the call uses plain commas.
func (p *parser) specialCall(t *token, w string) Expr {
	start := p.i
	p.i += 2 // name (
	switch w {
	case "TRIM":
		name := "trim"
		switch {
		case p.acceptKw("BOTH"):
		case p.acceptKw("LEADING"):
			name = "ltrim"
		case p.acceptKw("TRAILING"):
			name = "rtrim"
		}
		explicit := p.i > start+2
		if p.acceptKw("FROM") {
			s := p.expr()
			p.expectOp(")")
			return &FuncCall{Name: name, Args: []Expr{s}}
		}
		x := p.expr()
		if !p.acceptKw("FROM") {
			if explicit {
				p.failExpected("FROM")
			}
			p.i = start
			return nil
		}
		s := p.expr()
		p.expectOp(")")
		return &FuncCall{Name: name, Args: []Expr{s, x}}
	case "SUBSTRING", "SUBSTR":
		s := p.expr()
		if !p.acceptKw("FROM") {
			p.i = start
			return nil
		}
		args := []Expr{s, p.expr()}
		if p.acceptKw("FOR") {
			args = append(args, p.expr())
		}
		p.expectOp(")")
		return &FuncCall{Name: t.text, Args: args}
	case "POSITION":
		x := p.exprPrec(precBitOr)
		if !p.acceptKw("IN") {
			p.i = start
			return nil
		}
		s := p.expr()
		p.expectOp(")")
		return &FuncCall{Name: "locate", Args: []Expr{x, s}}
	}
	p.i = start
	return nil
}

func (p *parser) caseExpr() Expr {
	p.i++ // CASE
	c := &Case{}
	if !p.isKw("WHEN") {
		c.Operand = p.expr()
	}
	for p.acceptKw("WHEN") {
		w := &When{Cond: p.expr()}
		p.expectKw("THEN")
		w.Result = p.expr()
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		p.failExpected("WHEN")
	}
	if p.acceptKw("ELSE") {
		c.Else = p.expr()
	}
	p.expectKw("END")
	return c
}

func (p *parser) funcCall() Expr {
	f := &FuncCall{Name: p.advance().text}
	p.i++ // (
	switch {
	case p.isOp("*"):
		p.i++
		f.Star = true
	case p.isOp(")"):
	default:
		if p.acceptKw("DISTINCT") {
			f.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		f.Args = p.exprList()
		if p.acceptKw("ORDER", "BY") {
			f.OrderBy = p.orderItems()
		}
		if p.acceptKw("SEPARATOR") {
			f.Args = append(f.Args, &Literal{Kind: LitString, Value: p.stringLit()})
		}
		p.nullTreatment(f)
	}
	p.expectOp(")")
	p.nullTreatment(f)
	if p.acceptKw("OVER") {
		f.Over = p.windowSpec()
	}
	return f
}

// nullTreatment reads an optional IGNORE NULLS or RESPECT NULLS.
func (p *parser) nullTreatment(f *FuncCall) {
	switch {
	case p.acceptKw("IGNORE", "NULLS"):
		f.IgnoreNulls = true
	case p.acceptKw("RESPECT", "NULLS"):
	}
}

func (p *parser) windowSpec() *WindowSpec {
	if isIdentTok(p.tok()) {
		return &WindowSpec{Name: p.ident()} // OVER w
	}
	p.expectOp("(")
	w := &WindowSpec{}
	if isIdentTok(p.tok()) && !p.isKw("PARTITION") && !p.isKw("ORDER") && !p.isKw("ROWS") && !p.isKw("RANGE") {
		w.Name = p.ident() // OVER (w ORDER BY ...)
	}
	if p.acceptKw("PARTITION", "BY") {
		w.PartitionBy = p.exprList()
	}
	if p.acceptKw("ORDER", "BY") {
		w.OrderBy = p.orderItems()
	}
	var unit FrameUnit
	switch {
	case p.acceptKw("ROWS"):
		unit = FrameRows
		w.Frame = &Frame{Unit: unit}
	case p.acceptKw("RANGE"):
		unit = FrameRange
		w.Frame = &Frame{Unit: unit}
	}
	if w.Frame != nil {
		if p.acceptKw("BETWEEN") {
			w.Frame.Start = p.frameBound()
			p.expectKw("AND")
			w.Frame.End = p.frameBound()
		} else {
			w.Frame.Start = p.frameBound()
		}
	}
	p.expectOp(")")
	return w
}

func (p *parser) frameBound() *FrameBound {
	switch {
	case p.acceptKw("UNBOUNDED", "PRECEDING"):
		return &FrameBound{Kind: UnboundedPreceding}
	case p.acceptKw("UNBOUNDED", "FOLLOWING"):
		return &FrameBound{Kind: UnboundedFollowing}
	case p.acceptKw("CURRENT", "ROW"):
		return &FrameBound{Kind: CurrentRow}
	}
	b := &FrameBound{Offset: p.exprPrec(precBitOr)}
	switch {
	case p.acceptKw("PRECEDING"):
		b.Kind = Preceding
	case p.acceptKw("FOLLOWING"):
		b.Kind = Following
	default:
		p.failExpected("PRECEDING or FOLLOWING")
	}
	return b
}

// dataType parses a type name with optional (params), UNSIGNED, and
// <...> for ARRAY, MAP and STRUCT.
func (p *parser) dataType() *DataType {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind != tWord {
		p.failExpected("type name")
	}
	p.i++
	dt := &DataType{Name: strings.ToUpper(t.text)}
	switch dt.Name {
	case "INTEGER":
		dt.Name = "INT"
	case "BOOL":
		dt.Name = "BOOLEAN"
	case "SIGNED", "UNSIGNED":
		p.acceptKw("INTEGER")
		p.acceptKw("INT")
	case "ARRAY":
		p.expectOp("<")
		dt.Elems = []*DataType{p.dataType()}
		p.closeAngle()
		return dt
	case "MAP":
		p.expectOp("<")
		k := p.dataType()
		p.expectOp(",")
		dt.Elems = []*DataType{k, p.dataType()}
		p.closeAngle()
		return dt
	case "STRUCT":
		p.expectOp("<")
		for {
			f := &StructField{Name: p.anyIdent()}
			p.acceptOp(":")
			f.Type = p.dataType()
			if p.acceptKw("COMMENT") {
				f.Comment, f.HasComment = p.stringLit(), true
			}
			dt.Fields = append(dt.Fields, f)
			if !p.acceptOp(",") {
				break
			}
		}
		p.closeAngle()
		return dt
	}
	if p.isOp("(") {
		p.i++
		for {
			dt.Params = append(dt.Params, p.intLit())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	if dt.Name != "SIGNED" && dt.Name != "UNSIGNED" && p.acceptKw("UNSIGNED") {
		dt.Unsigned = true
	}
	return dt
}

// closeAngle consumes a '>' that closes a type argument list; a '>>' token
// (ARRAY<ARRAY<INT>>) is split into two.
func (p *parser) closeAngle() {
	t := p.tok()
	if t.kind == tOp && t.text == ">>" {
		t.text = ">"
		t.pos++
		return
	}
	if t.kind == tOp && t.text == ">=" {
		t.text = "="
		t.pos++
		return
	}
	p.expectOp(">")
}
