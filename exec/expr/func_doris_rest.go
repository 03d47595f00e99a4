package expr

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// dorisRestFunc holds the last scalar functions of Doris's list: UUIDs as
// LARGEINT, n-gram similarity, the inverted-index tokenizers, the
// "first significant subdomain" of a URL, random bytes, fmt-style FORMAT
// and PARSE_DATA_SIZE. LAST_QUERY_ID is the binder's (it reads the
// session).
func dorisRestFunc(name string, args []Expr) (builder, bool) {
	S := StringT()
	sv := func(v []any, i int) string { return v[i].(string) }
	str := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, fn func(v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return strictFunc(name, args, types, ret, func(_ *Env, v []any) any { return fn(v) }), nil
		}
	}
	switch name {
	case "int_to_uuid":
		// The LARGEINT's 16 bytes, least significant first (as Doris
		// keeps an int128 in memory), in the 8-4-4-4-12 form.
		return str(1, 1, []arrow.DataType{LargeIntT()}, S, func(v []any) any {
			n := v[0].(decimal128.Num)
			var b [16]byte
			binary.LittleEndian.PutUint64(b[:8], n.LowBits())
			binary.LittleEndian.PutUint64(b[8:], uint64(n.HighBits()))
			return uuidText(b)
		}), true
	case "uuid_numeric":
		// A random version-4 UUID as a LARGEINT, the inverse of
		// int_to_uuid's byte order.
		return func() (Expr, error) {
			if err := arity(name, args, 0, 0); err != nil {
				return nil, err
			}
			return &rowFunc{name: name, ret: LargeIntT(), fn: func(_ *Env, _ []any) any {
				var b [16]byte
				_, _ = rand.Read(b[:])
				b[6] = b[6]&0x0f | 0x40
				b[8] = b[8]&0x3f | 0x80
				return decimal128.New(int64(binary.LittleEndian.Uint64(b[8:])), binary.LittleEndian.Uint64(b[:8]))
			}}, nil
		}, true
	case "ngram_search":
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			// Doris requires the pattern and the gram size to be constants.
			if _, ok := args[1].(*Literal); !ok {
				return nil, errorf(ErrType, "ngram_search: the pattern must be a constant")
			}
			gl, ok := coerce(args[2], Int64T()).(*Literal)
			if !ok {
				return nil, errorf(ErrType, "ngram_search: the gram size must be a constant")
			}
			if n, ok := gl.Value.(int64); ok && n <= 0 {
				return nil, errorf(ErrType, "ngram_search: the gram size must be positive, got %d", n)
			}
			return strictFunc(name, args, []arrow.DataType{S, S, Int64T()}, Float64T(), func(_ *Env, v []any) any {
				return ngramSimilarity(sv(v, 0), sv(v, 1), int(v[2].(int64)))
			}), nil
		}, true
	case "first_significant_subdomain", "cut_to_first_significant_subdomain":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			h := urlHost(sv(v, 0))
			start, end, ok := firstSignificantSubdomain(h)
			if !ok {
				return ""
			}
			if name == "first_significant_subdomain" {
				return h[start:end]
			}
			return h[start:]
		}), true
	case "random_bytes":
		return str(1, 1, []arrow.DataType{Int64T()}, S, func(v []any) any {
			n := v[0].(int64)
			if n <= 0 {
				return errorf(ErrType, "random_bytes: argument %d was invalid (the length must be positive)", n)
			}
			if 2+2*n > MaxStringBytes {
				return tooLarge(name, 2+2*n)
			}
			b := make([]byte, n)
			_, _ = rand.Read(b)
			return "0x" + hex.EncodeToString(b)
		}), true
	case "parse_data_size":
		return str(1, 1, []arrow.DataType{S}, Int64T(), func(v []any) any {
			n, err := parseDataSize(sv(v, 0))
			if err != nil {
				return err
			}
			return n
		}), true
	case "format":
		return func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			cargs := make([]Expr, len(args))
			types := make([]arrow.DataType, len(args))
			cargs[0], types[0] = coerce(args[0], S), S
			for i, a := range args[1:] {
				t := a.DataType()
				switch {
				case isInt(t) || isFloat(t) || isString(t):
					cargs[i+1] = a
				case t.ID() == arrow.BOOL:
					cargs[i+1] = coerce(a, Int64T())
				case isDecimal(t) && !IsLargeInt(t):
					// fmt formats Doris's decimals through their double value.
					cargs[i+1] = coerce(a, Float64T())
				default:
					cargs[i+1] = coerce(a, S)
				}
				types[i+1] = cargs[i+1].DataType()
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				out, err := fmtFormat(sv(v, 0), v[1:], types[1:])
				if err != nil {
					return err
				}
				if int64(len(out)) > MaxStringBytes {
					return tooLarge(name, int64(len(out)))
				}
				return out
			}), nil
		}, true
	case "tokenize":
		return func() (Expr, error) {
			if err := arity(name, args, 2, 2); err != nil {
				return nil, err
			}
			lit, ok := coerce(args[1], S).(*Literal)
			if !ok {
				return nil, errorf(ErrType, "tokenize: the properties must be a constant string")
			}
			var tk *tokenizer
			if s, ok := lit.Value.(string); ok {
				var err error
				if tk, err = newTokenizer(s); err != nil {
					return nil, err
				}
			}
			return strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				out := tk.json(sv(v, 0))
				if int64(len(out)) > MaxStringBytes {
					return tooLarge(name, int64(len(out)))
				}
				return out
			}), nil
		}, true
	}
	return nil, false
}

func uuidText(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ngramSimilarity is Doris's NGRAM_SEARCH: 2·|A∩B| / (|A|+|B|) over the
// sets of n-byte grams of the text and the pattern; 0 when either is
// shorter than n.
func ngramSimilarity(text, pattern string, n int) float64 {
	if len(text) < n || len(pattern) < n {
		return 0
	}
	grams := func(s string) map[string]struct{} {
		m := make(map[string]struct{}, len(s)-n+1)
		for i := 0; i+n <= len(s); i++ {
			m[s[i:i+n]] = struct{}{}
		}
		return m
	}
	a, b := grams(text), grams(pattern)
	common := 0
	for g := range b {
		if _, ok := a[g]; ok {
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// firstSignificantSubdomain finds, in a host name, the "first significant
// subdomain" of ClickHouse (whose definition Doris follows): the
// second-level label, unless that label is itself a top-level domain
// name (com, net, org, co, a country code, ...), in which case the
// third-level one ("google" in www.google.com.cn). It returns the label's
// bounds; ok is false for a host without a dot.
func firstSignificantSubdomain(h string) (start, end int, ok bool) {
	last := strings.LastIndexByte(h, '.')
	if last < 0 {
		return 0, 0, false
	}
	second := strings.LastIndexByte(h[:last], '.')
	if second < 0 {
		return 0, last, true
	}
	if tldNames[strings.ToLower(h[second+1:last])] {
		third := strings.LastIndexByte(h[:second], '.')
		return third + 1, second, true
	}
	return second + 1, last, true
}

// tldNames are the top-level domain names a second-level label is checked
// against: the generic ones and every two-letter country code.
var tldNames = func() map[string]bool {
	m := map[string]bool{}
	generic := "com net org edu gov mil int info biz name pro aero coop museum mobi asia tel travel jobs cat xxx post arpa"
	for _, s := range strings.Fields(generic) {
		m[s] = true
	}
	cc := "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz " +
		"ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr " +
		"ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp " +
		"ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz " +
		"na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw " +
		"sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz " +
		"ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw"
	for _, s := range strings.Fields(cc) {
		m[s] = true
	}
	return m
}()

// dataSizeUnits are PARSE_DATA_SIZE's units (case-insensitive), powers of 1024.
var dataSizeUnits = map[string]int{"b": 0, "kb": 1, "mb": 2, "gb": 3, "tb": 4, "pb": 5, "eb": 6, "zb": 7, "yb": 8}

var dataSizeRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]+)\s*$`)

// parseDataSize is PARSE_DATA_SIZE: a decimal number and a unit, the
// bytes it names with the fraction dropped ('2.3MB' is 2411724); anything
// else, or a size beyond BIGINT, is an error as in Doris.
func parseDataSize(s string) (int64, error) {
	bad := func() (int64, error) {
		return 0, errorf(ErrType, "Invalid Input argument %q of function parse_data_size", s)
	}
	m := dataSizeRE.FindStringSubmatch(s)
	if m == nil {
		return bad()
	}
	k, ok := dataSizeUnits[strings.ToLower(m[2])]
	if !ok {
		return bad()
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return bad()
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(10*k))))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() {
		return 0, errorf(ErrOverflow, "parse_data_size: %q does not fit BIGINT", s)
	}
	return q.Int64(), nil
}

// ---- FORMAT: the {fmt} library's replacement fields ----

// fmtFormat formats args as the {fmt} library (C++20 std::format) does:
// "{}" and "{N}" fields with an optional ":spec" of
// [[fill]align][sign][#][0][width][.precision][type]; "{{" and "}}" are
// braces. Integers, doubles and strings are formatted; other values
// arrive as their text.
func fmtFormat(f string, args []any, types []arrow.DataType) (string, error) {
	var b strings.Builder
	next, manual, auto := 0, false, false
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '}' {
			if i+1 < len(f) && f[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", errorf(ErrType, "format: unmatched '}' in format string")
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(f) && f[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(f[i:], '}')
		if end < 0 {
			return "", errorf(ErrType, "format: invalid format string (unterminated field)")
		}
		field := f[i+1 : i+end]
		i += end
		id, spec, _ := strings.Cut(field, ":")
		var idx int
		if id == "" {
			if manual {
				return "", errorf(ErrType, "format: cannot switch from manual to automatic argument indexing")
			}
			auto = true
			idx = next
			next++
		} else {
			n, err := strconv.Atoi(id)
			if err != nil || n < 0 {
				return "", errorf(ErrType, "format: invalid argument index %q", id)
			}
			if auto {
				return "", errorf(ErrType, "format: cannot switch from automatic to manual argument indexing")
			}
			manual = true
			idx = n
		}
		if idx >= len(args) {
			return "", errorf(ErrType, "format: argument %d not found", idx)
		}
		s, err := fmtField(args[idx], types[idx], spec)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		if b.Len() > MaxStringBytes {
			return "", tooLarge("format", int64(b.Len()))
		}
	}
	return b.String(), nil
}

type fmtSpec struct {
	fill       rune
	align      byte // '<', '>', '^' or 0
	sign       byte // '+', '-', ' ' or 0
	alt, zero  bool
	width      int
	prec       int // -1: none
	typ        byte
	hasAnyPrec bool
}

func parseFmtSpec(spec string) (fmtSpec, error) {
	sp := fmtSpec{fill: ' ', prec: -1}
	bad := func() (fmtSpec, error) { return sp, errorf(ErrType, "format: invalid format specifier %q", spec) }
	s := spec
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' }
	if r, n := utf8.DecodeRuneInString(s); n > 0 && n < len(s) && isAlign(s[n]) && r != '{' && r != '}' {
		sp.fill, sp.align, s = r, s[n], s[n+1:]
	} else if len(s) > 0 && isAlign(s[0]) {
		sp.align, s = s[0], s[1:]
	}
	if len(s) > 0 && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		sp.sign, s = s[0], s[1:]
	}
	if len(s) > 0 && s[0] == '#' {
		sp.alt, s = true, s[1:]
	}
	if len(s) > 0 && s[0] == '0' {
		sp.zero, s = true, s[1:]
	}
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 {
		w, err := strconv.Atoi(s[:j])
		if err != nil || w > MaxStringBytes {
			return bad()
		}
		sp.width, s = w, s[j:]
	}
	if len(s) > 0 && s[0] == '.' {
		j = 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 1 {
			return bad()
		}
		p, err := strconv.Atoi(s[1:j])
		if err != nil || p > 1000 {
			return bad()
		}
		sp.prec, sp.hasAnyPrec, s = p, true, s[j:]
	}
	if len(s) > 1 {
		return bad()
	}
	if len(s) == 1 {
		sp.typ = s[0]
	}
	return sp, nil
}

// fmtField formats one argument by its spec.
func fmtField(v any, t arrow.DataType, spec string) (string, error) {
	sp, err := parseFmtSpec(spec)
	if err != nil {
		return "", err
	}
	bad := func() (string, error) {
		return "", errorf(ErrType, "format: invalid format specifier %q for a %s argument", spec, TypeName(t))
	}
	var body, prefix string
	neg, numeric := false, true
	switch x := v.(type) {
	case int64:
		if sp.hasAnyPrec {
			return bad()
		}
		u := uint64(x)
		if x < 0 {
			neg, u = true, uint64(-x)
		}
		switch sp.typ {
		case 0, 'd':
			body = strconv.FormatUint(u, 10)
		case 'x', 'X':
			body = strconv.FormatUint(u, 16)
			if sp.alt {
				prefix = "0x"
			}
			if sp.typ == 'X' {
				body, prefix = strings.ToUpper(body), strings.ToUpper(prefix)
			}
		case 'o':
			body = strconv.FormatUint(u, 8)
			if sp.alt && u != 0 {
				prefix = "0"
			}
		case 'b', 'B':
			body = strconv.FormatUint(u, 2)
			if sp.alt {
				prefix = "0" + string(sp.typ)
			}
		case 'c':
			if u > unicode.MaxRune {
				return bad()
			}
			body, numeric, neg = string(rune(u)), false, false
		default:
			return bad()
		}
	case float64:
		neg = math.Signbit(x) && !math.IsNaN(x)
		a := math.Abs(x)
		switch {
		case math.IsNaN(a):
			body = "nan"
		case math.IsInf(a, 0):
			body = "inf"
		default:
			switch sp.typ {
			case 0:
				if sp.prec < 0 {
					bits := 64
					if t.ID() == arrow.FLOAT32 {
						bits = 32 // {fmt} prints a float by its own shortest digits
					}
					body = fmtShortest(a, bits)
				} else {
					body = strconv.FormatFloat(a, 'g', max(sp.prec, 1), 64)
				}
			case 'g', 'G':
				p := sp.prec
				if p < 0 {
					p = 6
				}
				body = strconv.FormatFloat(a, 'g', max(p, 1), 64)
			case 'f', 'F':
				p := sp.prec
				if p < 0 {
					p = 6
				}
				body = strconv.FormatFloat(a, 'f', p, 64)
			case 'e', 'E':
				p := sp.prec
				if p < 0 {
					p = 6
				}
				body = strconv.FormatFloat(a, 'e', p, 64)
			default:
				return bad()
			}
		}
		if sp.typ == 'G' || sp.typ == 'F' || sp.typ == 'E' {
			body = strings.ToUpper(body)
		}
	case string:
		if sp.typ != 0 && sp.typ != 's' || sp.sign != 0 || sp.alt || sp.zero {
			return bad()
		}
		numeric = false
		body = x
		if sp.prec >= 0 && utf8.RuneCountInString(body) > sp.prec {
			r := []rune(body)
			body = string(r[:sp.prec])
		}
	default:
		return bad()
	}
	sign := ""
	if numeric {
		switch {
		case neg:
			sign = "-"
		case sp.sign == '+':
			sign = "+"
		case sp.sign == ' ':
			sign = " "
		}
	}
	head := sign + prefix
	n := utf8.RuneCountInString(head) + utf8.RuneCountInString(body)
	if sp.width <= n {
		return head + body, nil
	}
	pad := sp.width - n
	if sp.zero && sp.align == 0 && numeric {
		return head + strings.Repeat("0", pad) + body, nil
	}
	align := sp.align
	if align == 0 {
		align = '<'
		if numeric {
			align = '>'
		}
	}
	fill := string(sp.fill)
	switch align {
	case '>':
		return strings.Repeat(fill, pad) + head + body, nil
	case '^':
		return strings.Repeat(fill, pad/2) + head + body + strings.Repeat(fill, pad-pad/2), nil
	}
	return head + body + strings.Repeat(fill, pad), nil
}

// fmtShortest is {fmt}'s default form of a double: the shortest digits
// that read back the same, fixed-point when the decimal exponent is in
// [-4, 16), else d.ddde±XX.
func fmtShortest(a float64, bits int) string {
	e := strconv.FormatFloat(a, 'e', -1, bits)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if a == 0 || (x >= -4 && x < 16) {
		return strconv.FormatFloat(a, 'f', -1, bits)
	}
	return mant + "e" + exp
}

// ---- TOKENIZE ----

// tokenizer is one TOKENIZE property set: the analyzer and its filters.
type tokenizer struct {
	analyzer  string
	lower     bool
	stopwords bool
	positions bool
	replace   *strings.Replacer
}

var tokenizeProp = regexp.MustCompile(`["']([^"']*)["']\s*=\s*["']([^"']*)["']`)

// englishStopwords are Lucene's default English stop words, which Doris's
// unicode and standard analyzers drop unless "stopwords"="none".
var englishStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		englishStopwords[w] = true
	}
}

// newTokenizer reads TOKENIZE's properties ('"parser"="english"',
// '"built_in_analyzer"="standard", "support_phrase"="true"', ...).
// The dictionary analyzers (chinese, ik, icu) and custom analyzers are
// refused by name: Inlet has no dictionary segmenter.
func newTokenizer(props string) (*tokenizer, error) {
	t := &tokenizer{analyzer: "", lower: true}
	kv := map[string]string{}
	for _, m := range tokenizeProp.FindAllStringSubmatch(props, -1) {
		kv[strings.ToLower(strings.TrimSpace(m[1]))] = m[2]
	}
	if a, ok := kv["analyzer"]; ok {
		return nil, errorf(ErrUnsupported, "tokenize: custom analyzer %q (only the built-in english, standard, unicode, basic and none analyzers are available)", a)
	}
	t.analyzer = strings.ToLower(kv["built_in_analyzer"])
	if t.analyzer == "" {
		t.analyzer = strings.ToLower(kv["parser"])
	}
	switch t.analyzer {
	case "english", "standard", "unicode", "basic", "none":
	case "chinese", "ik", "icu":
		return nil, errorf(ErrUnsupported, "tokenize: the %s analyzer (a dictionary segmenter Inlet does not have)", t.analyzer)
	case "":
		return nil, errorf(ErrType, "tokenize: the properties name no parser or built_in_analyzer: %q", props)
	default:
		return nil, errorf(ErrType, "tokenize: unknown analyzer %q", t.analyzer)
	}
	// "none" keeps the text as one keyword, case included.
	t.lower = t.analyzer != "none"
	if v, ok := kv["lower_case"]; ok {
		t.lower = strings.EqualFold(v, "true")
	}
	t.stopwords = (t.analyzer == "unicode" || t.analyzer == "standard") && !strings.EqualFold(kv["stopwords"], "none")
	t.positions = strings.EqualFold(kv["support_phrase"], "true")
	if kv["char_filter_type"] == "char_replace" {
		with, ok := kv["char_filter_replacement"]
		if !ok {
			with = " "
		}
		var pairs []string
		for _, r := range kv["char_filter_pattern"] {
			pairs = append(pairs, string(r), with)
		}
		if len(pairs) > 0 {
			t.replace = strings.NewReplacer(pairs...)
		}
	}
	return t, nil
}

// ideographic runes are single tokens in the unicode, standard and basic
// analyzers (as Lucene's standard tokenizer treats Han and kana).
func ideographic(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func (t *tokenizer) tokens(s string) []string {
	if t.replace != nil {
		s = t.replace.Replace(s)
	}
	var out []string
	emit := func(w string) {
		if w == "" {
			return
		}
		if t.lower {
			w = strings.ToLower(w)
		}
		if t.stopwords && englishStopwords[w] {
			return
		}
		out = append(out, w)
	}
	switch t.analyzer {
	case "none":
		emit(s)
		return out
	case "english":
		// Runs of ASCII letters and digits.
		start := -1
		for i := 0; i <= len(s); i++ {
			word := i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9')
			if word && start < 0 {
				start = i
			} else if !word && start >= 0 {
				emit(s[start:i])
				start = -1
			}
		}
		return out
	}
	// unicode, standard and basic: letters and digits; an ideograph is a
	// token of its own. The word-boundary rules of the unicode and
	// standard tokenizers (UAX #29) also keep '_' inside a word and '.',
	// '\'' and ':' between letters or digits ("hm_bg.jpg", "1.0").
	rs := []rune(s)
	uax := t.analyzer != "basic"
	isWord := func(r rune) bool {
		return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || (uax && r == '_')) && !ideographic(r)
	}
	var cur []rune
	flush := func() {
		emit(string(cur))
		cur = cur[:0]
	}
	for i, r := range rs {
		switch {
		case ideographic(r):
			flush()
			emit(string(r))
		case isWord(r):
			cur = append(cur, r)
		case uax && len(cur) > 0 && (r == '.' || r == '\'' || r == ':' || r == ',') && i+1 < len(rs) && isWord(rs[i+1]):
			prev := cur[len(cur)-1]
			nextR := rs[i+1]
			letters := unicode.IsLetter(prev) && unicode.IsLetter(nextR) && r != ','
			digits := unicode.IsDigit(prev) && unicode.IsDigit(nextR) && r != ':'
			if letters || digits {
				cur = append(cur, r)
			} else {
				flush()
			}
		default:
			flush()
		}
	}
	flush()
	return out
}

// json is TOKENIZE's result: [{"token":"..."}, ...], with "position"
// when support_phrase is on.
func (t *tokenizer) json(s string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, w := range t.tokens(s) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"token":`)
		writeJSONString(&b, w)
		if t.positions {
			b.WriteString(`,"position":`)
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}
