package sql

import (
	"math"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF     tokKind = iota
	tWord            // unquoted identifier or keyword
	tQuoted          // `backquoted` identifier; text is the decoded name
	tString          // '...' or "..."; text is the decoded value
	tInt             // 123
	tDecimal         // 1.5, .5, 1.
	tFloat           // 1e10, 1.5E-3
	tHex             // 0x1F or X'1F'; text is the hex digits
	tOp              // punctuation and operators
)

// token is one lexeme. A /*+ ... */ hint comment is not a token of its own:
// it is attached to the token that follows it, because Doris only gives it
// meaning right after a statement keyword and ignores it elsewhere.
type token struct {
	text string
	pos  int // byte offset of the first byte
	end  int // byte offset just past the last byte
	// hintPos and hintEnd delimit the body of a /*+ ... */ comment just
	// before this token (src[hintPos:hintEnd]); hintEnd is 0 when there is none.
	hintPos, hintEnd int32
	kind             tokKind
}

func (t *token) hasHint() bool { return t.hintEnd > 0 }

// lex splits src into tokens, ending with a tEOF token.
func lex(src string) ([]token, error) {
	if len(src) > math.MaxInt32 {
		return nil, newSyntaxError(src, 0, "statement of %d bytes is too long", len(src))
	}
	l := lexer{src: src}
	toks := make([]token, 0, len(src)/3+4)
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}

type lexer struct {
	src string
	i   int
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skip passes whitespace and comments. It returns the body of the last
// /*+ hint */ comment seen, if any.
func (l *lexer) skip() (hintPos, hintEnd int, err error) {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '#' || (c == '-' && strings.HasPrefix(l.src[l.i:], "--")):
			// Doris treats "--" as a comment start even without a following
			// space (unlike MySQL), and so do we.
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case c == '/' && strings.HasPrefix(l.src[l.i:], "/*"):
			start := l.i
			end := strings.Index(l.src[l.i+2:], "*/")
			if end < 0 {
				return 0, 0, newSyntaxError(l.src, start, "unterminated comment")
			}
			if l.i+2 < len(l.src) && l.src[l.i+2] == '+' {
				hintPos, hintEnd = start+3, l.i+2+end
			}
			l.i += 2 + end + 2
		default:
			return hintPos, hintEnd, nil
		}
	}
	return hintPos, hintEnd, nil
}

func (l *lexer) next() (token, error) {
	hintPos, hintEnd, err := l.skip()
	if err != nil {
		return token{}, err
	}
	t, err := l.scan()
	if err != nil {
		return token{}, err
	}
	t.hintPos, t.hintEnd = int32(hintPos), int32(hintEnd)
	return t, nil
}

// threeCharOps and twoCharOps are tried longest first.
var threeCharOps = [...]string{"<=>"}
var twoCharOps = [...]string{"<=", ">=", "<>", "!=", "<<", ">>", "&&", "||", "@@", ":=", "->"}

func (l *lexer) scan() (token, error) {
	src := l.src
	start := l.i
	if l.i >= len(src) {
		return token{kind: tEOF, pos: start, end: start}, nil
	}
	c := src[l.i]
	switch {
	case (c == 'x' || c == 'X') && l.i+1 < len(src) && src[l.i+1] == '\'':
		l.i += 2
		j := l.i
		for j < len(src) && isHexDigit(src[j]) {
			j++
		}
		if j >= len(src) || src[j] != '\'' {
			return token{}, newSyntaxError(src, start, "malformed hexadecimal literal")
		}
		digits := src[l.i:j]
		if len(digits)%2 != 0 {
			return token{}, newSyntaxError(src, start, "hexadecimal literal needs an even number of digits")
		}
		l.i = j + 1
		return token{kind: tHex, text: strings.ToUpper(digits), pos: start, end: l.i}, nil
	case c == '0' && l.i+2 < len(src) && src[l.i+1] == 'x' && isHexDigit(src[l.i+2]):
		// Only a lower-case 0x starts a number, as in MySQL: 0X1 is a name.
		j := l.i + 2
		for j < len(src) && isHexDigit(src[j]) {
			j++
		}
		if j < len(src) && isIdentChar(src[j]) {
			break // an identifier such as 0xabcz, handled below
		}
		l.i = j
		return token{kind: tHex, text: strings.ToUpper(src[start+2 : j]), pos: start, end: j}, nil
	case isDigit(c) || (c == '.' && l.i+1 < len(src) && isDigit(src[l.i+1])):
		return l.number()
	}
	switch {
	case isIdentStart(c) || isDigit(c):
		j := l.i
		for j < len(src) && isIdentChar(src[j]) {
			j++
		}
		if !utf8.ValidString(src[start:j]) {
			return token{}, newSyntaxError(src, start, "identifier is not valid UTF-8")
		}
		l.i = j
		return token{kind: tWord, text: src[start:j], pos: start, end: j}, nil
	case c == '`':
		var b strings.Builder
		j := l.i + 1
		for {
			k := strings.IndexByte(src[j:], '`')
			if k < 0 {
				return token{}, newSyntaxError(src, start, "unterminated quoted identifier")
			}
			b.WriteString(src[j : j+k])
			j += k + 1
			if j < len(src) && src[j] == '`' {
				b.WriteByte('`')
				j++
				continue
			}
			break
		}
		l.i = j
		if b.Len() == 0 {
			return token{}, newSyntaxError(src, start, "empty quoted identifier")
		}
		// A name is text: invalid UTF-8 would be stored as U+FFFD and no
		// longer match what the user typed.
		if !utf8.ValidString(b.String()) {
			return token{}, newSyntaxError(src, start, "identifier is not valid UTF-8")
		}
		return token{kind: tQuoted, text: b.String(), pos: start, end: j}, nil
	case c == '\'' || c == '"':
		return l.str(c)
	}
	for _, op := range threeCharOps {
		if strings.HasPrefix(src[l.i:], op) {
			l.i += len(op)
			return token{kind: tOp, text: op, pos: start, end: l.i}, nil
		}
	}
	for _, op := range twoCharOps {
		if strings.HasPrefix(src[l.i:], op) {
			l.i += len(op)
			return token{kind: tOp, text: op, pos: start, end: l.i}, nil
		}
	}
	if strings.IndexByte("=<>!+-*/%&|^~(),.;[]:?@{}", c) >= 0 {
		l.i++
		return token{kind: tOp, text: src[start:l.i], pos: start, end: l.i}, nil
	}
	return token{}, newSyntaxError(src, start, "unexpected character %q", rune(c))
}

func (l *lexer) number() (token, error) {
	src := l.src
	start := l.i
	j := l.i
	kind := tInt
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		kind = tDecimal
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			kind = tFloat
			j = k
		}
	}
	if kind == tInt && j < len(src) && isIdentStart(src[j]) {
		// MySQL allows identifiers that start with digits (e.g. 1abc).
		for j < len(src) && isIdentChar(src[j]) {
			j++
		}
		if !utf8.ValidString(src[start:j]) {
			return token{}, newSyntaxError(src, start, "identifier is not valid UTF-8")
		}
		l.i = j
		return token{kind: tWord, text: src[start:j], pos: start, end: j}, nil
	}
	l.i = j
	return token{kind: kind, text: src[start:j], pos: start, end: j}, nil
}

// str decodes a quoted string with MySQL escapes: a doubled quote stands for
// itself, a backslash escapes the next character (\n, \t, \0, ... as in MySQL;
// \% and \_ keep their backslash so LIKE patterns still see it).
func (l *lexer) str(q byte) (token, error) {
	src := l.src
	start := l.i
	j := l.i + 1
	var b strings.Builder
	for {
		if j >= len(src) {
			return token{}, newSyntaxError(src, start, "unterminated string literal")
		}
		c := src[j]
		switch {
		case c == q:
			if j+1 < len(src) && src[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			l.i = j + 1
			return token{kind: tString, text: b.String(), pos: start, end: l.i}, nil
		case c == '\\':
			if j+1 >= len(src) {
				return token{}, newSyntaxError(src, start, "unterminated string literal")
			}
			e := src[j+1]
			switch e {
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'Z':
				b.WriteByte(0x1a)
			case '%', '_':
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
}
