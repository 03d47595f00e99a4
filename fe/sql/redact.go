package sql

import (
	"errors"
	"strings"
)

// maskedValue replaces a secret in the Near text of a syntax error; the
// same text catalog.MaskedValue shows (fe/sql imports no catalog package).
const maskedValue = "*XXX"

// secretWords is the list catalog.IsSecret uses: a string literal assigned
// to a property whose name contains one of them is a secret.
var secretWords = []string{"password", "passwd", "pwd", "secret", "key", "token", "credential", "jaas", "private"}

// redact hides secret string literals in the Near text of a syntax error, so
// a statement such as CREATE CATALOG c PROPERTIES('type'='fluss'
// 'x.password'='…') that fails to parse does not echo the password. Only the
// error path pays for it: src is lexed again here.
func redact(src string, err error) error {
	var se *SyntaxError
	if !errors.As(err, &se) || se.Near == "" {
		return err
	}
	spans := secretSpans(src)
	if len(spans) == 0 {
		return err
	}
	lo, hi := se.Pos, se.Pos+len(se.Near)
	var b strings.Builder
	at := lo // next byte of src to copy
	for _, s := range spans {
		if s.hi <= lo || s.lo >= hi {
			continue
		}
		from, to := max(s.lo, lo), min(s.hi, hi)
		b.WriteString(src[at:from])
		b.WriteString(maskedValue)
		at = to
	}
	if at == lo {
		return err
	}
	b.WriteString(src[at:hi])
	out := *se
	out.Near = b.String()
	return &out
}

// span is a byte range [lo, hi) of the statement: the inside of a string
// literal (quotes excluded), or to the end of input for an unterminated one.
type span struct{ lo, hi int }

// secretSpans finds the string literals of src that hold secrets: the value
// of a property whose name says so ('x.password' = '…'), the password of
// IDENTIFIED BY '…' and PASSWORD('…'), and any literal whose text itself
// carries a password (a JAAS line, user:password@ in a URI). An unterminated
// literal after such a name is a secret up to the end of input.
func secretSpans(src string) []span {
	var out []span
	var toks []token
	l := lexer{src: src}
	for {
		t, err := l.next()
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Pos >= len(src) {
				break
			}
			if c := src[se.Pos]; c == '\'' || c == '"' {
				t = token{kind: tString, text: src[se.Pos+1:], pos: se.Pos, end: len(src)}
				if secretLiteral(toks, t) {
					out = append(out, span{se.Pos + 1, len(src)})
				}
				break
			}
			l.i = se.Pos + 1 // skip a character the lexer refuses
			continue
		}
		if t.kind == tEOF {
			break
		}
		if t.kind == tString && secretLiteral(toks, t) {
			out = append(out, span{t.pos + 1, t.end - 1})
		}
		toks = append(toks, t)
	}
	return out
}

// secretLiteral decides for string token t following toks.
func secretLiteral(toks []token, t token) bool {
	if secretText(t.text) {
		return true
	}
	n := len(toks)
	if n < 2 {
		return false
	}
	prev, name := toks[n-1], toks[n-2]
	switch {
	case prev.kind == tOp && prev.text == "=":
		return name.kind != tOp && secretName(name.text)
	case prev.kind == tWord && strings.EqualFold(prev.text, "BY"):
		return name.kind == tWord && strings.EqualFold(name.text, "IDENTIFIED")
	case prev.kind == tOp && prev.text == "(":
		return name.kind == tWord && strings.EqualFold(name.text, "PASSWORD")
	}
	return false
}

func secretName(n string) bool {
	n = strings.ToLower(n)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretText reports a literal that carries a password whatever it is
// assigned to: "password=" (or :) inside it, or a URI with user:password@.
func secretText(v string) bool {
	l := strings.ToLower(v)
	for _, w := range []string{"password", "passwd", "secret"} {
		for i := 0; ; {
			k := strings.Index(l[i:], w)
			if k < 0 {
				break
			}
			rest := strings.TrimLeft(l[i+k+len(w):], " \t\"'")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
				return true
			}
			i += k + len(w)
		}
	}
	for rest := v; ; {
		k := strings.Index(rest, "://")
		if k < 0 {
			return false
		}
		auth := rest[k+3:]
		if end := strings.IndexAny(auth, "/?#"); end >= 0 {
			auth = auth[:end]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 && strings.IndexByte(auth[:at], ':') >= 0 {
			return true
		}
		rest = rest[k+3:]
	}
}
