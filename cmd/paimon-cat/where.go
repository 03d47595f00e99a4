package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/inlet-db/inlet/lake/paimon"
)

// parseWhere parses a small SQL-like filter:
//
//	expr := term { OR term } ; term := factor { AND factor }
//	factor := '(' expr ')' | col op literal | col IS [NOT] NULL | col IN (lit, ...)
//	op := = | != | <> | < | <= | > | >=
//	literal := number | 'string' | true | false
func parseWhere(s string) (*paimon.Predicate, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.toks) {
		return nil, fmt.Errorf("--where: unexpected %q", p.toks[p.i].s)
	}
	return e, nil
}

type tok struct {
	kind byte // 'i' ident/keyword, 'n' number, 's' string, 'o' operator/punct
	s    string
}

func lex(s string) ([]tok, error) {
	var out []tok
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("--where: unterminated string")
			}
			out = append(out, tok{'s', b.String()})
			i = j + 1
		case unicode.IsDigit(c) || c == '-' || c == '.':
			j := i + 1
			for j < len(s) && (unicode.IsDigit(rune(s[j])) || strings.ContainsRune(".eE+-", rune(s[j]))) {
				j++
			}
			out = append(out, tok{'n', s[i:j]})
			i = j
		case unicode.IsLetter(c) || c == '_' || c == '`':
			if c == '`' {
				j := strings.IndexByte(s[i+1:], '`')
				if j < 0 {
					return nil, fmt.Errorf("--where: unterminated identifier")
				}
				out = append(out, tok{'i', s[i+1 : i+1+j]})
				i += j + 2
				continue
			}
			j := i + 1
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || s[j] == '_' || s[j] == '.') {
				j++
			}
			out = append(out, tok{'i', s[i:j]})
			i = j
		default:
			for _, op := range []string{"<=", ">=", "!=", "<>", "=", "<", ">", "(", ")", ","} {
				if strings.HasPrefix(s[i:], op) {
					out = append(out, tok{'o', op})
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("--where: unexpected character %q", c)
		next:
		}
	}
	return out, nil
}

type parser struct {
	toks []tok
	i    int
}

func (p *parser) peekKW(kw string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == 'i' && strings.EqualFold(p.toks[p.i].s, kw)
}

func (p *parser) peekOp(op string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == 'o' && p.toks[p.i].s == op
}

func (p *parser) expr() (*paimon.Predicate, error) {
	t, err := p.term()
	if err != nil {
		return nil, err
	}
	kids := []*paimon.Predicate{t}
	for p.peekKW("or") {
		p.i++
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		kids = append(kids, t)
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return paimon.Or(kids...), nil
}

func (p *parser) term() (*paimon.Predicate, error) {
	f, err := p.factor()
	if err != nil {
		return nil, err
	}
	kids := []*paimon.Predicate{f}
	for p.peekKW("and") {
		p.i++
		f, err := p.factor()
		if err != nil {
			return nil, err
		}
		kids = append(kids, f)
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return paimon.And(kids...), nil
}

func (p *parser) factor() (*paimon.Predicate, error) {
	if p.peekOp("(") {
		p.i++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.peekOp(")") {
			return nil, fmt.Errorf("--where: missing )")
		}
		p.i++
		return e, nil
	}
	if p.i >= len(p.toks) || p.toks[p.i].kind != 'i' {
		return nil, fmt.Errorf("--where: expected a column name")
	}
	col := p.toks[p.i].s
	p.i++
	switch {
	case p.peekKW("is"):
		p.i++
		not := false
		if p.peekKW("not") {
			not = true
			p.i++
		}
		if !p.peekKW("null") {
			return nil, fmt.Errorf("--where: expected NULL after IS")
		}
		p.i++
		if not {
			return paimon.IsNotNull(col), nil
		}
		return paimon.IsNull(col), nil
	case p.peekKW("in"):
		p.i++
		if !p.peekOp("(") {
			return nil, fmt.Errorf("--where: expected ( after IN")
		}
		p.i++
		var vals []any
		for {
			v, err := p.literal()
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			if p.peekOp(",") {
				p.i++
				continue
			}
			if p.peekOp(")") {
				p.i++
				break
			}
			return nil, fmt.Errorf("--where: expected , or ) in IN list")
		}
		return paimon.In(col, vals...), nil
	}
	if p.i >= len(p.toks) || p.toks[p.i].kind != 'o' {
		return nil, fmt.Errorf("--where: expected an operator after %s", col)
	}
	op := p.toks[p.i].s
	p.i++
	v, err := p.literal()
	if err != nil {
		return nil, err
	}
	switch op {
	case "=":
		return paimon.Eq(col, v), nil
	case "!=", "<>":
		return paimon.Ne(col, v), nil
	case "<":
		return paimon.Lt(col, v), nil
	case "<=":
		return paimon.Le(col, v), nil
	case ">":
		return paimon.Gt(col, v), nil
	case ">=":
		return paimon.Ge(col, v), nil
	}
	return nil, fmt.Errorf("--where: unknown operator %q", op)
}

func (p *parser) literal() (any, error) {
	if p.i >= len(p.toks) {
		return nil, fmt.Errorf("--where: expected a literal")
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case 'n':
		return json.Number(t.s), nil
	case 's':
		return t.s, nil
	case 'i':
		switch strings.ToLower(t.s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return nil, fmt.Errorf("--where: bad literal %q", t.s)
}
