package minifluss

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Scenario lexer: SQL-ish tokens. Identifiers may be `back-quoted`; strings
// are 'single-quoted' with '' as the escape; X'0a0b' is a string of those
// bytes; -- starts a comment to the end of the line.

type tokKind int

const (
	tkEOF tokKind = iota
	tkIdent
	tkString
	tkNumber
	tkPunct
)

type token struct {
	kind tokKind
	text string
	line int
	pos  int // byte offset in the file
}

func (t token) String() string {
	switch t.kind {
	case tkEOF:
		return "end of file"
	case tkString:
		return fmt.Sprintf("'%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func lexScenario(src string) ([]token, error) {
	var out []token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case (c == 'X' || c == 'x') && i+1 < len(src) && src[i+1] == '\'':
			// X'0a0b': a byte string, as in Flink SQL (BINARY/BYTES values).
			st := i
			j := strings.IndexByte(src[i+2:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("line %d: unterminated X'...' literal", line)
			}
			b, err := hex.DecodeString(src[i+2 : i+2+j])
			if err != nil {
				return nil, fmt.Errorf("line %d: X'%s' is not hex: %v", line, src[i+2:i+2+j], err)
			}
			out = append(out, token{tkString, string(b), line, st})
			i += j + 3
		case c == '\'':
			st, stLine := i, line
			var b strings.Builder
			i++
			for {
				if i >= len(src) {
					return nil, fmt.Errorf("line %d: unterminated string starting at byte %d", stLine, st)
				}
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					i++
					break
				}
				if src[i] == '\n' {
					line++
				}
				b.WriteByte(src[i])
				i++
			}
			out = append(out, token{tkString, b.String(), stLine, st})
		case c == '`':
			st := i
			j := strings.IndexByte(src[i+1:], '`')
			if j < 0 {
				return nil, fmt.Errorf("line %d: unterminated `identifier`", line)
			}
			out = append(out, token{tkIdent, src[i+1 : i+1+j], line, st})
			i += j + 2
		case c >= '0' && c <= '9' || (c == '-' || c == '+') && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' && !prevIsValue(out):
			st := i
			i++
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '.' || src[i] == 'e' || src[i] == 'E' ||
				(src[i] == '-' || src[i] == '+') && (src[i-1] == 'e' || src[i-1] == 'E')) {
				i++
			}
			out = append(out, token{tkNumber, src[st:i], line, st})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			st := i
			for i < len(src) && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			out = append(out, token{tkIdent, src[st:i], line, st})
		case strings.IndexByte("(),;.=<>[]:*", c) >= 0:
			out = append(out, token{tkPunct, string(c), line, i})
			i++
		default:
			return nil, fmt.Errorf("line %d: unexpected character %q", line, c)
		}
	}
	out = append(out, token{tkEOF, "", line, len(src)})
	return out, nil
}

// prevIsValue tells a binary minus from a sign: after a value a '-' is not a sign.
func prevIsValue(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	p := toks[len(toks)-1]
	return p.kind == tkNumber || p.kind == tkString || p.kind == tkIdent || p.text == ")" || p.text == "]"
}
