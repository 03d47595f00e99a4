package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Inlet has no JSON column type: JSON, JSONB and VARIANT columns are STRING
// (fe/bind types.go), and every JSON function takes and returns STRING
// holding JSON text. Functions that build JSON return it normalised: no
// insignificant white space, object members in document order (a repeated
// key keeps its first place and its last value, as MySQL), integers in
// decimal, other numbers as the shortest float64 text.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

// jnode is one parsed JSON value. For numbers s is the normalised text and
// numKind says int (fits INT), bigint, largeint or double (Doris's JSONB
// number types, which json_type reports).
type jnode struct {
	k     jkind
	b     bool
	s     string
	num   string // "int", "bigint", "largeint", "double"
	keys  []string
	items []*jnode
}

// maxJSONDepth bounds nesting so a hostile document cannot exhaust the
// stack; a deeper one is invalid JSON.
const maxJSONDepth = 512

type jparser struct {
	s   string
	i   int
	err bool
}

// parseJSON reads a whole JSON document (RFC 8259, surrounding white space
// allowed); ok is false for anything else.
func parseJSON(s string) (*jnode, bool) {
	p := &jparser{s: s}
	n := p.value(0)
	p.ws()
	if p.err || p.i != len(p.s) {
		return nil, false
	}
	return n, true
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) fail() *jnode { p.err = true; return nil }

func (p *jparser) lit(word string) bool {
	if strings.HasPrefix(p.s[p.i:], word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jparser) value(depth int) *jnode {
	if depth > maxJSONDepth {
		return p.fail()
	}
	p.ws()
	if p.i >= len(p.s) {
		return p.fail()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		n := &jnode{k: jObj}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return p.fail()
			}
			k, ok := p.str()
			if !ok {
				return p.fail()
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return p.fail()
			}
			p.i++
			v := p.value(depth + 1)
			if p.err {
				return nil
			}
			n.set(k, v)
			p.ws()
			if p.i >= len(p.s) {
				return p.fail()
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == '}' {
				p.i++
				return n
			}
			return p.fail()
		}
	case c == '[':
		p.i++
		n := &jnode{k: jArr}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n
		}
		for {
			v := p.value(depth + 1)
			if p.err {
				return nil
			}
			n.items = append(n.items, v)
			p.ws()
			if p.i >= len(p.s) {
				return p.fail()
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				return n
			}
			return p.fail()
		}
	case c == '"':
		s, ok := p.str()
		if !ok {
			return p.fail()
		}
		return &jnode{k: jStr, s: s}
	case c == 't':
		if p.lit("true") {
			return &jnode{k: jBool, b: true}
		}
	case c == 'f':
		if p.lit("false") {
			return &jnode{k: jBool}
		}
	case c == 'n':
		if p.lit("null") {
			return &jnode{k: jNull}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return p.fail()
}

// set adds member k, or replaces the value of an existing k in place.
func (n *jnode) set(k string, v *jnode) {
	for i, have := range n.keys {
		if have == k {
			n.items[i] = v
			return
		}
	}
	n.keys = append(n.keys, k)
	n.items = append(n.items, v)
}

func (n *jnode) get(k string) (*jnode, int) {
	for i, have := range n.keys {
		if have == k {
			return n.items[i], i
		}
	}
	return nil, -1
}

func (p *jparser) number() *jnode {
	start := p.i
	digits := func() int {
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		return p.i - j
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if digits() == 0 || (p.s[intStart] == '0' && p.i-intStart > 1) {
		return p.fail()
	}
	integer := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		integer = false
		if digits() == 0 {
			return p.fail()
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		integer = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.fail()
		}
	}
	if n := numberNode(p.s[start:p.i], integer); n != nil {
		return n
	}
	return p.fail()
}

// numberNode normalises valid number text: integers that fit LARGEINT
// keep their digits, anything else is a double (NULL-free: ±Inf from an
// out-of-range exponent is refused, as simdjson refuses it).
func numberNode(text string, integer bool) *jnode {
	if integer {
		if v, err := strconv.ParseInt(text, 10, 64); err == nil {
			kind := "bigint"
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				kind = "int"
			}
			return &jnode{k: jNum, s: strconv.FormatInt(v, 10), num: kind}
		}
		if b, ok := new(big.Int).SetString(text, 10); ok && bigFitsInt128(b) {
			return &jnode{k: jNum, s: b.String(), num: "largeint"}
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil
	}
	return floatNode(f)
}

func floatNode(f float64) *jnode {
	if f == 0 {
		f = 0 // -0 prints as 0
	}
	return &jnode{k: jNum, s: strconv.FormatFloat(f, 'g', -1, 64), num: "double"}
}

// str reads a JSON string at p.i (which is '"').
func (p *jparser) str() (string, bool) {
	p.i++
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			return s, true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		p.i++
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return "", false
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; a lone half becomes U+FFFD.
				if strings.HasPrefix(p.s[p.i:], "\\u") {
					save := p.i
					p.i += 2
					r2, ok := p.hex4()
					if !ok {
						return "", false
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
					} else {
						p.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// text is n's normalised JSON text.
func (n *jnode) text() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *jnode) write(b *strings.Builder) {
	switch n.k {
	case jNull:
		b.WriteString("null")
	case jBool:
		if n.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case jNum:
		b.WriteString(n.s)
	case jStr:
		writeJSONString(b, n.s)
	case jArr:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case jObj:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			n.items[i].write(b)
		}
		b.WriteByte('}')
	}
}

func writeJSONString(b *strings.Builder, s string) {
	const hexd = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// quoteJSON is s as a JSON string literal.
func quoteJSON(s string) string {
	var b strings.Builder
	writeJSONString(&b, s)
	return b.String()
}

// equalJSON compares two values as JSON (numbers by value, objects
// regardless of member order).
func equalJSON(a, b *jnode) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case jNull:
		return true
	case jBool:
		return a.b == b.b
	case jNum:
		if a.s == b.s {
			return true
		}
		x, err1 := strconv.ParseFloat(a.s, 64)
		y, err2 := strconv.ParseFloat(b.s, 64)
		return err1 == nil && err2 == nil && x == y
	case jStr:
		return a.s == b.s
	case jArr:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !equalJSON(a.items[i], b.items[i]) {
				return false
			}
		}
		return true
	}
	if len(a.keys) != len(b.keys) {
		return false
	}
	for i, k := range a.keys {
		v, _ := b.get(k)
		if v == nil || !equalJSON(a.items[i], v) {
			return false
		}
	}
	return true
}

// containsJSON is MySQL's JSON_CONTAINS rule, which Doris follows: a scalar
// contains an equal scalar; an array contains a candidate array when it
// contains every element of it, and a non-array candidate when some element
// contains it; an object contains a candidate object when every candidate
// member is contained in the member of the same key.
func containsJSON(doc, cand *jnode) bool {
	switch doc.k {
	case jArr:
		if cand.k == jArr {
			for _, c := range cand.items {
				if !containsJSON(doc, c) {
					return false
				}
			}
			return true
		}
		for _, d := range doc.items {
			if containsJSON(d, cand) {
				return true
			}
		}
		return false
	case jObj:
		if cand.k != jObj {
			return false
		}
		for i, k := range cand.keys {
			v, _ := doc.get(k)
			if v == nil || !containsJSON(v, cand.items[i]) {
				return false
			}
		}
		return true
	}
	return equalJSON(doc, cand)
}

// ---- paths ----

type jstepKind uint8

const (
	stKey      jstepKind = iota // .key
	stIndex                     // [n], [last], [last-n]
	stAnyKey                    // .*
	stAnyIndex                  // [*]
	stDeep                      // ** (this value and every value below it)
)

type jstep struct {
	kind     jstepKind
	key      string
	idx      int
	fromLast bool
}

type jpath struct {
	steps []jstep
	wild  bool
}

// parseJSONPath reads a Doris JSON path: $ then any of .key, ."quoted key",
// .*, [n], [last], [last-n], [*] and ** (Doris manual, JSON_EXTRACT).
func parseJSONPath(s string) (jpath, bool) {
	var p jpath
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "$") {
		return p, false
	}
	i := 1
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "**"):
			i += 2
			p.steps = append(p.steps, jstep{kind: stDeep})
			p.wild = true
			if i >= len(s) { // ** must lead somewhere
				return p, false
			}
		case s[i] == '.':
			i++
			if i >= len(s) {
				return p, false
			}
			switch {
			case s[i] == '[':
				// "$.[0]" is "$[0]": Doris's own tests write array steps so.
			case s[i] == '*':
				i++
				p.steps = append(p.steps, jstep{kind: stAnyKey})
				p.wild = true
			case s[i] == '"':
				j := i + 1
				var b strings.Builder
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' && j+1 < len(s) {
						j++
					}
					b.WriteByte(s[j])
					j++
				}
				if j >= len(s) {
					return p, false
				}
				p.steps = append(p.steps, jstep{kind: stKey, key: b.String()})
				i = j + 1
			default:
				j := i
				for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != '*' && s[j] != ' ' {
					j++
				}
				if j == i {
					return p, false
				}
				p.steps = append(p.steps, jstep{kind: stKey, key: s[i:j]})
				i = j
			}
		case s[i] == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return p, false
			}
			in := strings.TrimSpace(s[i+1 : i+j])
			i += j + 1
			switch {
			case in == "*":
				p.steps = append(p.steps, jstep{kind: stAnyIndex})
				p.wild = true
			case strings.HasPrefix(in, "last"):
				rest := strings.TrimSpace(in[4:])
				k := 0
				if rest != "" {
					if rest[0] != '-' {
						return p, false
					}
					n, err := strconv.Atoi(strings.TrimSpace(rest[1:]))
					if err != nil || n < 0 {
						return p, false
					}
					k = n
				}
				p.steps = append(p.steps, jstep{kind: stIndex, idx: k, fromLast: true})
			default:
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 || in[0] == '+' {
					return p, false
				}
				p.steps = append(p.steps, jstep{kind: stIndex, idx: n})
			}
		default:
			return p, false
		}
	}
	return p, true
}

func (st jstep) index(n int) int {
	if st.fromLast {
		return n - 1 - st.idx
	}
	return st.idx
}

// find appends every value the steps reach from n, in document order.
func find(n *jnode, steps []jstep, out []*jnode) []*jnode {
	if len(steps) == 0 {
		return append(out, n)
	}
	st, rest := steps[0], steps[1:]
	switch st.kind {
	case stKey:
		if n.k == jObj {
			if v, _ := n.get(st.key); v != nil {
				out = find(v, rest, out)
			}
		}
	case stIndex:
		if n.k == jArr {
			if i := st.index(len(n.items)); i >= 0 && i < len(n.items) {
				out = find(n.items[i], rest, out)
			}
		}
	case stAnyKey:
		if n.k == jObj {
			for _, v := range n.items {
				out = find(v, rest, out)
			}
		}
	case stAnyIndex:
		if n.k == jArr {
			for _, v := range n.items {
				out = find(v, rest, out)
			}
		}
	case stDeep:
		out = find(n, rest, out)
		if n.k == jArr || n.k == jObj {
			for _, v := range n.items {
				out = find(v, steps, out)
			}
		}
	}
	return out
}

// modify applies json_insert (mode 'i'), json_replace ('r') or json_set
// ('s') of v at the path p (no wildcards) to root, returning the new root.
// Every step but the last must exist; the last one adds a member, or an
// array element past the end (a non-array is first wrapped in an array,
// as MySQL and Doris do).
func modify(root *jnode, p jpath, v *jnode, mode byte) *jnode {
	if len(p.steps) == 0 {
		if mode == 'i' {
			return root
		}
		return v
	}
	parent := []*jnode{root}
	for _, st := range p.steps[:len(p.steps)-1] {
		parent = find(parent[0], []jstep{st}, nil)
		if len(parent) == 0 {
			return root
		}
	}
	// The parent is replaced in its own parent when it must be wrapped, so
	// keep a setter for it.
	last := p.steps[len(p.steps)-1]
	par := parent[0]
	switch last.kind {
	case stKey:
		if par.k != jObj {
			return root
		}
		_, at := par.get(last.key)
		switch {
		case at >= 0 && mode != 'i':
			par.items[at] = v
		case at < 0 && mode != 'r':
			par.keys = append(par.keys, last.key)
			par.items = append(par.items, v)
		}
	case stIndex:
		if par.k != jArr {
			i := last.index(1)
			if i == 0 {
				if mode != 'i' {
					return replaceNode(root, par, v)
				}
				return root
			}
			if mode == 'r' || i < 0 {
				return root
			}
			wrapped := &jnode{k: jArr, items: []*jnode{par, v}}
			return replaceNode(root, par, wrapped)
		}
		i := last.index(len(par.items))
		switch {
		case i >= 0 && i < len(par.items):
			if mode != 'i' {
				par.items[i] = v
			}
		case i >= len(par.items) && mode != 'r':
			par.items = append(par.items, v)
		}
	}
	return root
}

// replaceNode swaps old for repl inside root (or returns repl when old is
// root itself).
func replaceNode(root, old, repl *jnode) *jnode {
	if root == old {
		return repl
	}
	var walk func(n *jnode) bool
	walk = func(n *jnode) bool {
		for i, it := range n.items {
			if it == old {
				n.items[i] = repl
				return true
			}
			if walk(it) {
				return true
			}
		}
		return false
	}
	walk(root)
	return root
}

// searchJSON appends the paths (as JSON path text) of every string under n
// that matches the LIKE pattern, in document order.
func searchJSON(n *jnode, pat *likePattern, path string, out []string, one bool) []string {
	if one && len(out) > 0 {
		return out
	}
	switch n.k {
	case jStr:
		if likeMatch(n.s, pat) {
			out = append(out, path)
		}
	case jArr:
		for i, it := range n.items {
			out = searchJSON(it, pat, path+"["+strconv.Itoa(i)+"]", out, one)
		}
	case jObj:
		for i, k := range n.keys {
			out = searchJSON(n.items[i], pat, path+"."+pathKey(k), out, one)
		}
	}
	return out
}

// pathKey is k as a path member: bare when it is a plain identifier, quoted
// otherwise.
func pathKey(k string) string {
	plain := k != ""
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && i > 0)) {
			plain = false
			break
		}
	}
	if plain {
		return k
	}
	return quoteJSON(k)
}
