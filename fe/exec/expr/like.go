package expr

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// LikeExpr is s [NOT] LIKE pattern [ESCAPE c]: % matches any run of
// characters, _ one character, the escape character makes the next one
// literal. Matching is case-sensitive, by characters (UTF-8), as in Doris.
type LikeExpr struct {
	Arg, Pattern Expr
	Escape       rune
	Negated      bool
	compiled     []likeTok // set when Pattern is a constant
}

// Like builds s LIKE pattern; escape 0 means the default backslash.
func Like(s, pattern Expr, escape rune, not bool) (Expr, error) {
	if escape == 0 {
		escape = '\\'
	}
	if !isString(s.DataType()) && !isNull(s.DataType()) {
		s = coerce(s, StringT())
	}
	if !isString(pattern.DataType()) && !isNull(pattern.DataType()) {
		return nil, errorf(ErrType, "LIKE pattern %s is %s, not a string", pattern, TypeName(pattern.DataType()))
	}
	l := &LikeExpr{Arg: coerce(s, StringT()), Pattern: coerce(pattern, StringT()), Escape: escape, Negated: not}
	if lit, ok := l.Pattern.(*Literal); ok && lit.Value != nil {
		l.compiled = compileLike(lit.Value.(string), escape)
	}
	return l, nil
}

func (l *LikeExpr) DataType() arrow.DataType { return BoolT() }
func (l *LikeExpr) Children() []Expr         { return []Expr{l.Arg, l.Pattern} }
func (l *LikeExpr) String() string {
	kw := " LIKE "
	if l.Negated {
		kw = " NOT LIKE "
	}
	return l.Arg.String() + kw + l.Pattern.String()
}

func (l *LikeExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	sa, err := l.Arg.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer sa.Release()
	pa, err := l.Pattern.Eval(env, batch)
	if err != nil {
		return nil, err
	}
	defer pa.Release()
	ss, ps := sa.(*array.String), pa.(*array.String)
	n := ss.Len()
	out := make([]bool, n)
	valid := bothValid(ss, ps)
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			continue
		}
		toks := l.compiled
		if toks == nil {
			toks = compileLike(ps.Value(i), l.Escape)
		}
		out[i] = likeMatch(ss.Value(i), toks) != l.Negated
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}

type likeTok struct {
	kind byte // 'l' literal text, '_' one char, '%' any run
	text string
}

func compileLike(p string, esc rune) []likeTok {
	toks := []likeTok{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeTok{kind: 'l', text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		i += w
		switch {
		case r == esc && i < len(p):
			r2, w2 := utf8.DecodeRuneInString(p[i:])
			i += w2
			lit.WriteRune(r2)
		case r == '%':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeTok{kind: '%'})
			}
		case r == '_':
			flush()
			toks = append(toks, likeTok{kind: '_'})
		default:
			lit.WriteRune(r)
		}
	}
	flush()
	return toks
}

// likeMatch matches s against compiled tokens with backtracking limited to
// the last %, which is linear for patterns without _ after %.
func likeMatch(s string, toks []likeTok) bool {
	if len(toks) == 0 {
		return s == ""
	}
	switch t := toks[0]; t.kind {
	case 'l':
		if !strings.HasPrefix(s, t.text) {
			return false
		}
		return likeMatch(s[len(t.text):], toks[1:])
	case '_':
		if s == "" {
			return false
		}
		_, w := utf8.DecodeRuneInString(s)
		return likeMatch(s[w:], toks[1:])
	default: // '%'
		rest := toks[1:]
		if len(rest) == 0 {
			return true
		}
		if rest[0].kind == 'l' && len(rest) == 1 {
			return strings.HasSuffix(s, rest[0].text)
		}
		for i := 0; i <= len(s); {
			if rest[0].kind == 'l' {
				k := strings.Index(s[i:], rest[0].text)
				if k < 0 {
					return false
				}
				i += k
			}
			if likeMatch(s[i:], rest) {
				return true
			}
			if i == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return false
	}
}

// regexpFunc builds REGEXP/RLIKE and regexp_extract; constant patterns are
// compiled once, at bind time, so a bad pattern is a bind error.
func regexpMatch(s, pattern Expr) (Expr, error) {
	s, pattern = coerce(s, StringT()), coerce(pattern, StringT())
	var re *regexp.Regexp
	if lit, ok := pattern.(*Literal); ok && lit.Value != nil {
		var err error
		if re, err = regexp.Compile(lit.Value.(string)); err != nil {
			return nil, errorf(ErrType, "regexp pattern %s: %v", lit, err)
		}
	}
	return &rowFunc{name: "regexp", args: []Expr{s, pattern}, ret: BoolT(), strict: true,
		show: func() string { return s.String() + " REGEXP " + pattern.String() },
		fn: func(_ *Env, v []any) any {
			r := re
			if r == nil {
				var err error
				if r, err = regexp.Compile(v[1].(string)); err != nil {
					return nil
				}
			}
			return r.MatchString(v[0].(string))
		}}, nil
}

func regexpExtract(args []Expr) (Expr, error) {
	if len(args) != 3 {
		return nil, errorf(ErrArity, "regexp_extract(str, pattern, index) takes 3 arguments, got %d", len(args))
	}
	s, p, idx := coerce(args[0], StringT()), coerce(args[1], StringT()), coerce(args[2], Int64T())
	var re *regexp.Regexp
	if lit, ok := p.(*Literal); ok && lit.Value != nil {
		var err error
		if re, err = regexp.Compile(lit.Value.(string)); err != nil {
			return nil, errorf(ErrType, "regexp_extract pattern %s: %v", lit, err)
		}
	}
	return &rowFunc{name: "regexp_extract", args: []Expr{s, p, idx}, ret: StringT(), strict: true,
		fn: func(_ *Env, v []any) any {
			r := re
			if r == nil {
				var err error
				if r, err = regexp.Compile(v[1].(string)); err != nil {
					return nil
				}
			}
			m := r.FindStringSubmatch(v[0].(string))
			k := v[2].(int64)
			if m == nil || k < 0 || int(k) >= len(m) {
				return ""
			}
			return m[k]
		}}, nil
}
