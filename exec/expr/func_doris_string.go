package expr

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// dorisStringFunc holds the string, URL and regular-expression functions
// of Doris's list. Regular expressions are Go's RE2, the engine family of
// Doris's re2 (no look-around; POSIX classes such as [[:lower:]] work).
func dorisStringFunc(name string, args []Expr) (builder, bool) {
	S, I := StringT(), Int64T()
	sv := func(v []any, i int) string { return v[i].(string) }
	str := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, fn func(v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return strictFunc(name, args, types, ret, func(_ *Env, v []any) any { return fn(v) }), nil
		}
	}
	sized := func(s string) any {
		if int64(len(s)) > MaxStringBytes {
			return tooLarge(name, int64(len(s)))
		}
		return s
	}
	switch name {
	case "regexp_replace", "regexp_replace_one":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			cargs := []Expr{coerce(args[0], S), coerce(args[1], S), coerce(args[2], S)}
			re, err := constRegexp(name, cargs[1])
			if err != nil {
				return nil, err
			}
			all := name == "regexp_replace"
			return strictFunc(name, cargs, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				r := rowRegexp(re, sv(v, 1))
				if r == nil {
					return nil
				}
				if n := replaceBound(r, sv(v, 0), sv(v, 2), all); n > MaxStringBytes {
					return tooLarge(name, n)
				}
				return regexpReplace(r, sv(v, 0), sv(v, 2), all)
			}), nil
		}, true
	case "regexp_extract_all":
		// The first group of every match, as ['a','b']; the empty string
		// when nothing matches or the pattern has no group (Doris manual).
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			cargs := []Expr{coerce(args[0], S), coerce(args[1], S)}
			re, err := constRegexp(name, cargs[1])
			if err != nil {
				return nil, err
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				r := rowRegexp(re, sv(v, 1))
				if r == nil {
					return nil
				}
				if r.NumSubexp() == 0 {
					return ""
				}
				ms := r.FindAllStringSubmatch(sv(v, 0), -1)
				if len(ms) == 0 {
					return ""
				}
				var b strings.Builder
				b.WriteByte('[')
				for i, m := range ms {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteByte('\'')
					b.WriteString(m[1])
					b.WriteByte('\'')
				}
				b.WriteByte(']')
				return sized(b.String())
			}), nil
		}, true
	case "regexp_extract_or_null":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			cargs := []Expr{coerce(args[0], S), coerce(args[1], S), coerce(args[2], I)}
			re, err := constRegexp(name, cargs[1])
			if err != nil {
				return nil, err
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				r := rowRegexp(re, sv(v, 1))
				if r == nil {
					return nil
				}
				m := r.FindStringSubmatch(sv(v, 0))
				k := v[2].(int64)
				if m == nil || k < 0 || k >= int64(len(m)) {
					return nil
				}
				return m[k]
			}), nil
		}, true
	case "char":
		// CHAR(n, ...): each integer's bytes, most significant first, with
		// no leading zero bytes (MySQL); NULL arguments are skipped. A
		// result that is not UTF-8 is NULL.
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, I)
			}
			return &rowFunc{name: name, args: cargs, ret: S, fn: func(_ *Env, v []any) any {
				var b []byte
				for _, x := range v {
					n, ok := x.(int64)
					if !ok {
						continue
					}
					u := uint32(n)
					var tmp []byte
					for u > 0 {
						tmp = append([]byte{byte(u)}, tmp...)
						u >>= 8
					}
					if len(tmp) == 0 {
						tmp = []byte{0}
					}
					b = append(b, tmp...)
				}
				if !utf8.Valid(b) {
					return nil
				}
				return string(b)
			}}, nil
		}, true
	case "format_number":
		// K, M, B, T, Q units with two decimals (Doris manual); below 1000
		// the number as it is.
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{Float64T()}, S, func(_ *Env, v []any) any {
				x := v[0].(float64)
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil
				}
				a := math.Abs(x)
				units := []struct {
					div float64
					u   string
				}{{1e15, "Q"}, {1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}}
				for _, u := range units {
					if a >= u.div {
						return strconv.FormatFloat(x/u.div, 'f', 2, 64) + u.u
					}
				}
				return strconv.FormatFloat(x, 'f', -1, 64)
			}), nil
		}, true
	case "money_format":
		// Two decimals rounded half away from zero, thousands separated by
		// commas.
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			a := args[0]
			t := a.DataType()
			if isFloat(t) {
				return strictFunc(name, args, []arrow.DataType{Float64T()}, S, func(_ *Env, v []any) any {
					x := v[0].(float64)
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil
					}
					n, ok := floatToDecimal(x, 2)
					if !ok {
						return nil
					}
					return groupThousands(n.ToString(2))
				}), nil
			}
			// Integers and decimals: exact, through DECIMAL(38, 2).
			c, err := Cast(a, DecimalT(38, 2))
			if err != nil {
				return nil, err
			}
			return strictFunc(name, []Expr{c}, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				return groupThousands(formatValue(v[0], DecimalT(38, 2)))
			}), nil
		}, true
	case "soundex":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any { return soundex(sv(v, 0)) }), true
	case "levenshtein":
		return str(2, 2, []arrow.DataType{S}, I, func(v []any) any {
			a, b := []rune(sv(v, 0)), []rune(sv(v, 1))
			if int64(len(a))*int64(len(b)) > 1e8 {
				return errorf(ErrTooLarge, "%s: inputs of %d and %d characters are too long", name, len(a), len(b))
			}
			return int64(levenshtein(a, b))
		}), true
	case "overlay":
		// OVERLAY(str, pos, len, new) is MySQL's INSERT: characters pos ..
		// pos+len-1 (1-based) become new; a pos outside the string leaves
		// it as it is; a negative or long len replaces the rest.
		return str(4, 4, []arrow.DataType{S, I, I, S}, S, func(v []any) any {
			rs := []rune(sv(v, 0))
			pos, n := v[1].(int64), v[2].(int64)
			if pos < 1 || pos > int64(len(rs)) {
				return sv(v, 0)
			}
			end := int64(len(rs))
			if n >= 0 && pos-1+n < end {
				end = pos - 1 + n
			}
			return sized(string(rs[:pos-1]) + sv(v, 3) + string(rs[end:]))
		}), true
	case "sub_replace":
		// sub_replace(str, new, start[, len]): characters start ..
		// start+len-1 (0-based; len defaults to new's length) become new;
		// a start or len outside the string is NULL (Doris).
		return str(3, 4, []arrow.DataType{S, S, I, I}, S, func(v []any) any {
			rs, nw := []rune(sv(v, 0)), sv(v, 1)
			start := v[2].(int64)
			n := int64(utf8.RuneCountInString(nw))
			if len(v) == 4 {
				n = v[3].(int64)
			}
			if start < 0 || n < 0 || start > int64(len(rs)) {
				return nil
			}
			end := min(int64(len(rs)), start+n)
			return sized(string(rs[:start]) + nw + string(rs[end:]))
		}), true
	case "count_substrings":
		// Non-overlapping occurrences; an empty pattern counts 0.
		return str(2, 2, []arrow.DataType{S}, I, func(v []any) any {
			if sv(v, 1) == "" {
				return int64(0)
			}
			return int64(strings.Count(sv(v, 0), sv(v, 1)))
		}), true
	case "trim_in", "ltrim_in", "rtrim_in":
		// Removes every character of the set (default: space) from the
		// ends, unlike trim which removes a whole string.
		return str(1, 2, []arrow.DataType{S}, S, func(v []any) any {
			set := " "
			if len(v) == 2 {
				set = sv(v, 1)
			}
			s := sv(v, 0)
			switch name {
			case "ltrim_in":
				return strings.TrimLeft(s, set)
			case "rtrim_in":
				return strings.TrimRight(s, set)
			}
			return strings.Trim(s, set)
		}), true
	case "replace_empty":
		// replace, except that an empty old string inserts new before every
		// character and at the end (replace leaves the string alone).
		return str(3, 3, []arrow.DataType{S}, S, func(v []any) any {
			s, old, nw := sv(v, 0), sv(v, 1), sv(v, 2)
			if old != "" {
				if n := int64(len(s)) + int64(strings.Count(s, old))*max(0, int64(len(nw)-len(old))); n > MaxStringBytes {
					return tooLarge(name, n)
				}
				return strings.ReplaceAll(s, old, nw)
			}
			n := int64(utf8.RuneCountInString(s))
			if size := int64(len(s)) + (n+1)*int64(len(nw)); size > MaxStringBytes {
				return tooLarge(name, size)
			}
			var b strings.Builder
			for _, r := range s {
				b.WriteString(nw)
				b.WriteRune(r)
			}
			b.WriteString(nw)
			return b.String()
		}), true
	case "append_trailing_char_if_absent":
		return str(2, 2, []arrow.DataType{S}, S, func(v []any) any {
			s, c := sv(v, 0), sv(v, 1)
			if strings.HasSuffix(s, c) {
				return s
			}
			return sized(s + c)
		}), true
	case "quote":
		// 'str' with \ and ' escaped; NULL gives the word NULL (MySQL,
		// Doris manual), so the function is not strict.
		return func() (Expr, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return &rowFunc{name: name, args: []Expr{coerce(args[0], S)}, ret: S, fn: func(_ *Env, v []any) any {
				s, ok := v[0].(string)
				if !ok {
					return "NULL"
				}
				var b strings.Builder
				b.WriteByte('\'')
				for i := 0; i < len(s); i++ {
					switch c := s[i]; c {
					case '\\', '\'':
						b.WriteByte('\\')
						b.WriteByte(c)
					case 0:
						b.WriteString(`\0`)
					case 26:
						b.WriteString(`\Z`)
					default:
						b.WriteByte(c)
					}
				}
				b.WriteByte('\'')
				return sized(b.String())
			}}, nil
		}, true
	case "uuid":
		// A random (version 4) UUID per row.
		return func() (Expr, error) {
			if err := arity(name, args, 0, 0); err != nil {
				return nil, err
			}
			return &rowFunc{name: name, ret: S, fn: func(_ *Env, _ []any) any { return newUUID() }}, nil
		}, true
	case "field":
		// FIELD(x, a, b, ...): the 1-based place of the first argument
		// equal to x, 0 when none is (or x is NULL).
		return func() (Expr, error) {
			if err := arity(name, args, 2, -1); err != nil {
				return nil, err
			}
			t := args[0].DataType()
			for _, a := range args[1:] {
				ct, err := CommonType(t, a.DataType())
				if err != nil {
					return nil, errorf(ErrType, "%s: %s and %s are not comparable", name, TypeName(t), TypeName(a.DataType()))
				}
				t = ct
			}
			if t.ID() == arrow.NULL {
				t = S
			}
			cargs := make([]Expr, len(args))
			for i, a := range args {
				cargs[i] = coerce(a, t)
			}
			return &rowFunc{name: name, args: cargs, ret: I, fn: func(_ *Env, v []any) any {
				if v[0] == nil {
					return int64(0)
				}
				for i := 1; i < len(v); i++ {
					if v[i] != nil && compareAny(v[0], v[i], t) == 0 {
						return int64(i)
					}
				}
				return int64(0)
			}}, nil
		}, true
	case "split_by_string":
		// ARRAY<STRING> of the parts between separators; an empty separator
		// splits into characters, an empty string gives [] (Doris).
		return str(2, 2, []arrow.DataType{S}, arrow.ListOf(S), func(v []any) any {
			s, sep := sv(v, 0), sv(v, 1)
			var parts []string
			switch {
			case s == "":
			case sep == "":
				for _, r := range s {
					parts = append(parts, string(r))
				}
			default:
				parts = strings.Split(s, sep)
			}
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out
		}), true
	case "digital_masking":
		// CONCAT(LEFT(s, 3), '****', RIGHT(s, 4)) in characters (Doris manual).
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			rs := []rune(sv(v, 0))
			return string(rs[:min(3, len(rs))]) + "****" + string(rs[max(0, len(rs)-4):])
		}), true
	case "split_by_regexp", "regexp_split_to_array":
		// ARRAY<STRING> of the parts between matches, at most limit parts
		// when limit > 0 (the last keeps the rest); an empty pattern splits
		// into characters, an empty string gives [""] (Doris manual).
		return func() (Expr, error) {
			if err := arity(name, args, 2, 3); err != nil {
				return nil, err
			}
			cargs := []Expr{coerce(args[0], S), coerce(args[1], S)}
			if len(args) == 3 {
				cargs = append(cargs, coerce(args[2], I))
			}
			re, err := constRegexp(name, cargs[1])
			if err != nil {
				return nil, err
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, arrow.ListOf(S), func(_ *Env, v []any) any {
				r := rowRegexp(re, sv(v, 1))
				if r == nil {
					return nil
				}
				limit := -1
				if len(v) == 3 && v[2].(int64) > 0 {
					limit = int(min(v[2].(int64), math.MaxInt32))
				}
				parts := r.Split(sv(v, 0), limit)
				out := make([]any, len(parts))
				for i, p := range parts {
					out[i] = p
				}
				return out
			}), nil
		}, true
	case "compress":
		// MySQL's COMPRESS format, which Doris writes: the length as 4
		// little-endian bytes, then a zlib stream; '' stays ''. (The
		// deflate bytes may differ from Doris's zlib build; uncompress of
		// either gives the text back.)
		return str(1, 1, []arrow.DataType{S}, arrow.BinaryTypes.Binary, func(v []any) any {
			x := sv(v, 0)
			if x == "" {
				return ""
			}
			var b bytes.Buffer
			var n [4]byte
			binary.LittleEndian.PutUint32(n[:], uint32(len(x)))
			b.Write(n[:])
			w := zlib.NewWriter(&b)
			_, _ = w.Write([]byte(x))
			_ = w.Close()
			return b.String()
		}), true
	case "uncompress":
		// NULL for anything that is not COMPRESS output.
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			x := sv(v, 0)
			if x == "" {
				return ""
			}
			if len(x) < 4 {
				return nil
			}
			want := int64(binary.LittleEndian.Uint32([]byte(x[:4])))
			if want > MaxStringBytes {
				return tooLarge(name, want)
			}
			zr, err := zlib.NewReader(strings.NewReader(x[4:]))
			if err != nil {
				return nil
			}
			out, err := io.ReadAll(io.LimitReader(zr, want+1))
			if err != nil || int64(len(out)) != want {
				return nil
			}
			return string(out)
		}), true
	case "parse_url":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 3); err != nil {
				return nil, err
			}
			if l, ok := args[1].(*Literal); ok && l.Value != nil {
				p, _ := l.Value.(string)
				if !urlPart(strings.ToUpper(p)) {
					return nil, errorf(ErrType, "%s: part %s is not one of PROTOCOL, HOST, PATH, REF, AUTHORITY, FILE, USERINFO, PORT, QUERY", name, l)
				}
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				part := strings.ToUpper(sv(v, 1))
				if !urlPart(part) {
					return errorf(ErrType, "%s: part %q is not one of PROTOCOL, HOST, PATH, REF, AUTHORITY, FILE, USERINFO, PORT, QUERY", name, sv(v, 1))
				}
				key := ""
				if len(v) == 3 {
					key = sv(v, 2)
				}
				return parseURLPart(strings.TrimSpace(sv(v, 0)), part, key, len(v) == 3)
			}), nil
		}, true
	case "extract_url_parameter":
		// The raw value of the first name=value pair of the query (or of a
		// fragment holding one), '' when there is none.
		return str(2, 2, []arrow.DataType{S}, S, func(v []any) any {
			u, key := sv(v, 0), sv(v, 1)
			if i := strings.IndexAny(u, "?#"); i >= 0 {
				u = u[i+1:]
			} else {
				return ""
			}
			for _, kv := range strings.FieldsFunc(u, func(r rune) bool { return r == '&' || r == '#' || r == '?' }) {
				k, val, _ := strings.Cut(kv, "=")
				if k == key {
					return val
				}
			}
			return ""
		}), true
	case "url_encode":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any { return sized(formEncode(sv(v, 0))) }), true
	case "url_decode":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			s, err := url.QueryUnescape(sv(v, 0))
			if err != nil {
				return nil
			}
			return s
		}), true
	case "protocol":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			scheme, _, ok := strings.Cut(sv(v, 0), "://")
			if !ok || !validScheme(scheme) {
				return ""
			}
			return scheme
		}), true
	case "domain", "domain_without_www", "top_level_domain":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			h := urlHost(sv(v, 0))
			switch name {
			case "domain_without_www":
				return strings.TrimPrefix(h, "www.")
			case "top_level_domain":
				if i := strings.LastIndexByte(h, '.'); i >= 0 {
					return h[i+1:]
				}
				return ""
			}
			return h
		}), true
	}
	return nil, false
}

// replaceBound is an upper bound of regexpReplace's result size, found
// without building it: the text between matches, plus for each match the
// template's literal bytes and, for each group reference, the match's
// length (a group's text lies within its match). It keeps a statement that
// would build an oversized string from allocating it first; with group
// references it can over-count (a group shorter than its match), so a
// result just under the limit may be refused, never one over it built.
func replaceBound(re *regexp.Regexp, s, repl string, all bool) int64 {
	var lit, refs int64
	for i := 0; i < len(repl); i++ {
		if repl[i] == '\\' && i+1 < len(repl) {
			i++
			if repl[i] >= '0' && repl[i] <= '9' {
				refs++
				continue
			}
		}
		lit++
	}
	if refs == 0 && lit <= 1 {
		return int64(len(s)) * 2 // at most one byte per match, one match per byte
	}
	var total int64
	matches := 0
	re.ReplaceAllStringFunc(s, func(m string) string {
		if !all && matches > 0 {
			return m
		}
		matches++
		total += lit + refs*int64(len(m)) - int64(len(m))
		return ""
	})
	return int64(len(s)) + max(total, 0)
}

// regexpReplace replaces the first or every match; in repl, \0..\9 are
// groups and \\ a backslash (re2's rewrite syntax); another escaped
// character stands for itself.
func regexpReplace(re *regexp.Regexp, s, repl string, all bool) string {
	var tmpl strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '$':
			tmpl.WriteString("$$")
		case c == '\\' && i+1 < len(repl):
			i++
			if d := repl[i]; d >= '0' && d <= '9' {
				tmpl.WriteString("${" + string(d) + "}")
			} else if d == '$' {
				tmpl.WriteString("$$")
			} else {
				tmpl.WriteByte(d)
			}
		default:
			tmpl.WriteByte(c)
		}
	}
	t := tmpl.String()
	if all {
		return re.ReplaceAllString(s, t)
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s
	}
	return s[:loc[0]] + string(re.ExpandString(nil, t, s, loc)) + s[loc[1]:]
}

func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(intPart) {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// soundex is the American Soundex code: the first letter, then the digits
// of the following consonants (adjacent equal codes, and codes separated
// only by h or w, written once), padded with 0 to four characters.
// Characters other than ASCII letters are skipped.
func soundex(s string) string {
	const codes = "01230120022455012623010202" // a..z
	var out []byte
	var last byte
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			continue
		}
		code := codes[c-'a']
		if len(out) == 0 {
			out = append(out, c-'a'+'A')
			last = code
			continue
		}
		switch {
		case c == 'h' || c == 'w':
			continue
		case code == '0':
			last = '0'
		case code != last:
			out = append(out, code)
			last = code
		}
		if len(out) == 4 {
			break
		}
	}
	if len(out) == 0 {
		return ""
	}
	for len(out) < 4 {
		out = append(out, '0')
	}
	return string(out)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func urlPart(p string) bool {
	switch p {
	case "PROTOCOL", "HOST", "PATH", "REF", "AUTHORITY", "FILE", "USERINFO", "PORT", "QUERY":
		return true
	}
	return false
}

// parseURLPart is parse_url's part of u, as java.net.URL names them (Hive
// and Doris follow it); NULL when u does not parse or lacks the part.
func parseURLPart(u, part, key string, withKey bool) any {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return nil
	}
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	switch part {
	case "PROTOCOL":
		return p.Scheme
	case "HOST":
		return opt(p.Hostname())
	case "PATH":
		return p.EscapedPath()
	case "REF":
		return opt(p.EscapedFragment())
	case "AUTHORITY":
		a := p.Host
		if p.User != nil {
			a = p.User.String() + "@" + a
		}
		return opt(a)
	case "FILE":
		if p.RawQuery != "" || p.ForceQuery {
			return p.EscapedPath() + "?" + p.RawQuery
		}
		return p.EscapedPath()
	case "USERINFO":
		if p.User == nil {
			return nil
		}
		return p.User.String()
	case "PORT":
		return opt(p.Port())
	}
	// QUERY
	if !withKey {
		if p.RawQuery == "" && !p.ForceQuery {
			return nil
		}
		return p.RawQuery
	}
	for _, kv := range strings.Split(p.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == key {
			return v
		}
	}
	return nil
}

// formEncode is application/x-www-form-urlencoded as Java's URLEncoder
// writes it (Doris): letters, digits and . - * _ stay, a space becomes +,
// every other byte %XX.
func formEncode(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		}
	}
	return b.String()
}

func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// urlHost is the host of a URL with or without a scheme (ClickHouse's
// domain(), which Doris's follows): after scheme:// (or //) and any
// user@, up to the first / ? # or :port.
func urlHost(u string) string {
	u = strings.TrimSpace(u)
	if scheme, rest, ok := strings.Cut(u, "://"); ok && validScheme(scheme) {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "//")
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if i := strings.IndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	return u
}
