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
	compiled     *likePattern // set when Pattern is a constant
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
	if l.compiled != nil {
		// A constant pattern: no column of it per batch (Q13's NOT LIKE
		// built one of 1.5 M copies).
		ss := sa.(*array.String)
		n := ss.Len()
		b := array.NewBooleanBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
		nulls := ss.NullN() > 0
		for i := range n {
			if nulls && ss.IsNull(i) {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			b.UnsafeAppend(likeMatch(ss.Value(i), l.compiled) != l.Negated)
		}
		return b.NewArray(), nil
	}
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
		pat := l.compiled
		if pat == nil {
			pat = compileLike(ps.Value(i), l.Escape)
		}
		out[i] = likeMatch(ss.Value(i), pat) != l.Negated
	}
	b := array.NewBooleanBuilder(env.Mem)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}

// likePattern is a compiled LIKE pattern: a sequence of units (a literal
// character, _ or %), plus a shortcut when the pattern is only literal text
// with % at its ends.
type likePattern struct {
	units []likeUnit
	// simple: no _ and no inner %; lit is the text, with prefix/suffix %.
	simple               bool
	lit                  string
	anyPrefix, anySuffix bool
	// segs: no _ but inner %s (Q13's '%special%requests%'): the literal
	// runs between the %s, found in order by substring search.
	segs []string
}

type likeUnit struct {
	kind byte // 'l' literal character, '_' one character, '%' any run
	r    rune
}

func compileLike(p string, esc rune) *likePattern {
	lp := &likePattern{}
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		i += w
		switch {
		case r == esc && i < len(p):
			r2, w2 := utf8.DecodeRuneInString(p[i:])
			i += w2
			lp.units = append(lp.units, likeUnit{kind: 'l', r: r2})
		case r == '%':
			if n := len(lp.units); n == 0 || lp.units[n-1].kind != '%' {
				lp.units = append(lp.units, likeUnit{kind: '%'})
			}
		case r == '_':
			lp.units = append(lp.units, likeUnit{kind: '_'})
		default:
			lp.units = append(lp.units, likeUnit{kind: 'l', r: r})
		}
	}
	u := lp.units
	lp.anyPrefix = len(u) > 0 && u[0].kind == '%'
	lp.anySuffix = len(u) > 1 && u[len(u)-1].kind == '%'
	inner := u
	if lp.anyPrefix {
		inner = inner[1:]
	}
	if lp.anySuffix {
		inner = inner[:len(inner)-1]
	}
	lp.simple = true
	var sb strings.Builder
	for _, x := range inner {
		if x.kind != 'l' {
			lp.simple = false
			break
		}
		sb.WriteRune(x.r)
	}
	lp.lit = sb.String()
	if !lp.simple {
		lp.segs = percentSegments(u)
	}
	return lp
}

// percentSegments returns the literal runs of a pattern of literals and
// % only (nil if it has a _), the first and last possibly empty (the
// pattern starts or ends with %).
func percentSegments(u []likeUnit) []string {
	segs := []string{}
	var sb strings.Builder
	for _, x := range u {
		switch x.kind {
		case '_':
			return nil
		case '%':
			segs = append(segs, sb.String())
			sb.Reset()
		default:
			sb.WriteRune(x.r)
		}
	}
	return append(segs, sb.String())
}

// segmentsMatch matches s against first%mid...%last: s starts with the
// first run and ends with the last, and the others occur in order
// between them without overlapping. Taking each run's leftmost
// occurrence leaves the most room for the rest, so it finds a match if
// there is one. Bytes stand for characters: a UTF-8 run found in UTF-8
// text starts and ends on character boundaries.
func segmentsMatch(s string, segs []string) bool {
	first, last := segs[0], segs[len(segs)-1]
	if !strings.HasPrefix(s, first) {
		return false
	}
	pos := len(first)
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s[pos:], seg)
		if i < 0 {
			return false
		}
		pos += i + len(seg)
	}
	return len(s)-len(last) >= pos && strings.HasSuffix(s, last)
}

// likeMatch reports whether s matches the pattern. The general case is the
// classic wildcard walk that backtracks only to the last %, so it takes
// O(len(s)·len(pattern)) time at worst.
func likeMatch(s string, p *likePattern) bool {
	if p.simple {
		switch {
		case p.anyPrefix && p.anySuffix:
			return strings.Contains(s, p.lit)
		case p.anyPrefix:
			return strings.HasSuffix(s, p.lit)
		case p.anySuffix:
			return strings.HasPrefix(s, p.lit)
		}
		return s == p.lit
	}
	if p.segs != nil {
		return segmentsMatch(s, p.segs)
	}
	u := p.units
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		r, w := utf8.DecodeRuneInString(s[si:])
		if pi < len(u) && (u[pi].kind == '_' || (u[pi].kind == 'l' && u[pi].r == r)) {
			si += w
			pi++
			continue
		}
		if pi < len(u) && u[pi].kind == '%' {
			star, mark = pi, si
			pi++
			continue
		}
		if star >= 0 {
			// Let the last % swallow one more character and retry.
			_, mw := utf8.DecodeRuneInString(s[mark:])
			mark += mw
			si, pi = mark, star+1
			continue
		}
		return false
	}
	for pi < len(u) && u[pi].kind == '%' {
		pi++
	}
	return pi == len(u)
}

// regexpFunc builds REGEXP/RLIKE and regexp_extract; constant patterns are
// compiled once, at bind time, so a bad pattern is a bind error.
func regexpMatch(s, pattern Expr) (Expr, error) {
	s, pattern = coerce(s, StringT()), coerce(pattern, StringT())
	re, err := constRegexp("regexp", pattern)
	if err != nil {
		return nil, err
	}
	return &rowFunc{name: "regexp", args: []Expr{s, pattern}, ret: BoolT(), strict: true,
		show: func() string { return s.String() + " REGEXP " + pattern.String() },
		fn: func(_ *Env, v []any) any {
			r := rowRegexp(re, v[1].(string))
			if r == nil {
				return nil
			}
			return r.MatchString(v[0].(string))
		}}, nil
}

func regexpExtract(args []Expr) (Expr, error) {
	if len(args) != 3 {
		return nil, errorf(ErrArity, "regexp_extract(str, pattern, index) takes 3 arguments, got %d", len(args))
	}
	s, p, idx := coerce(args[0], StringT()), coerce(args[1], StringT()), coerce(args[2], Int64T())
	re, err := constRegexp("regexp_extract", p)
	if err != nil {
		return nil, err
	}
	return &rowFunc{name: "regexp_extract", args: []Expr{s, p, idx}, ret: StringT(), strict: true,
		fn: func(_ *Env, v []any) any {
			r := rowRegexp(re, v[1].(string))
			if r == nil {
				return nil
			}
			m := r.FindStringSubmatch(v[0].(string))
			k := v[2].(int64)
			if m == nil || k < 0 || int(k) >= len(m) {
				return ""
			}
			return m[k]
		}}, nil
}

// constRegexp compiles a pattern that is a non-NULL literal once, at bind
// time, where a bad one is an error naming the function; for any other
// pattern it returns nil and each row compiles its own (rowRegexp).
func constRegexp(fn string, pattern Expr) (*regexp.Regexp, error) {
	lit, ok := pattern.(*Literal)
	if !ok || lit.Value == nil {
		return nil, nil
	}
	re, err := regexp.Compile(lit.Value.(string))
	if err != nil {
		return nil, errorf(ErrType, "%s pattern %s: %v", fn, lit, err)
	}
	return re, nil
}

// rowRegexp returns the bind-time re, or else the row's pattern compiled;
// nil when that does not compile, which makes the row's result NULL.
func rowRegexp(re *regexp.Regexp, pattern string) *regexp.Regexp {
	if re != nil {
		return re
	}
	r, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return r
}
