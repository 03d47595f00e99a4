package regression

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// A Suite is one parsed suite file.
type Suite struct {
	Path string
	// Requires lists the capabilities (see Env.Caps) the whole file needs.
	Requires []string
	Blocks   []*Block
	lines    []string // the file, for -update
}

// A Block is one `-- query` or `-- statement` block.
type Block struct {
	Kind    string // "query" or "statement"
	Name    string
	Line    int    // line of the directive, 1-based
	Catalog string // value of ${ctl} (the last `-- catalog` before the block)
	SQL     string
	// Requires lists capabilities this block needs on top of the file's.
	Requires []string

	Result *Result // -- result
	Error  string  // -- error <substring>; "" = must succeed
	// Explain holds the assertions on EXPLAIN <SQL>; nil = no EXPLAIN.
	Explain []Assertion
	// Contains are texts the rows (tab-joined, one per line, unescaped)
	// must contain, for long values such as SHOW CREATE TABLE.
	Contains []string
	// SameAs names catalogs whose ${ctl} substitution must give the same
	// rows, compared as multisets.
	SameAs []string
}

// A Result is the expected rows of a query, each the tab-joined escaped
// text of its columns (see EscapeRow).
type Result struct {
	Sorted bool
	Rows   []string
	// first and end delimit the row lines in the file (0-based, end
	// exclusive), for -update.
	first, end int
}

// Assertion is one line of an `-- explain` section.
type Assertion struct {
	Line int
	Text string
	// Scan selects the n-th flussScan line (1-based) for field lookups.
	Scan int
	// Kind is "contains", "!contains", "matches", "absent" or "compare".
	Kind string
	Arg  string         // contains / !contains / absent: the text or field
	Re   *regexp.Regexp // matches
	// compare: Operands[i] Ops[i] Operands[i+1] for each i.
	Operands []Operand
	Ops      []string
}

// An Operand of a comparison is a field of the EXPLAIN text or a literal.
type Operand struct {
	Field string
	Lit   string
}

// Fields names what an explain assertion may read: the flussScan fields in
// the spec's order, then counters printed elsewhere in the scan node.
var Fields = []string{"readMode", "unionRead", "lakeSplits", "suppressedLakeSplits", "logRanges", "pkRanges", "pkTailRanges",
	"mode", "degraded", "partition", "paimonNativeReadSplits"}

func isField(s string) bool {
	for _, f := range Fields {
		if f == s {
			return true
		}
	}
	return false
}

// Placeholders are the ${NAME}s a suite's SQL may use: ctl is the block's
// catalog, the rest come from the environment (Env.Vars).
var Placeholders = []string{"ctl", "BOOTSTRAP", "LAKE_PROPS"}

var placeholderRe = regexp.MustCompile(`\$\{([^}]*)\}`)

// ParseFile reads and parses one suite file.
func ParseFile(path string) (*Suite, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, raw)
}

// Parse parses a suite. Errors name the file and line.
func Parse(path string, raw []byte) (*Suite, error) {
	s := &Suite{Path: path}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		s.lines = append(s.lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := parser{s: s}
	if err := p.run(); err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct {
	s       *Suite
	i       int // next line, 0-based
	catalog string
	names   map[string]int
}

func (p *parser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.s.Path, line, fmt.Sprintf(format, args...))
}

// directive splits "-- word rest" lines; ok is false for other lines.
func directive(line string) (word, rest string, ok bool) {
	if !strings.HasPrefix(line, "--") {
		return "", "", false
	}
	t := strings.TrimSpace(strings.TrimPrefix(line, "--"))
	word, rest, _ = strings.Cut(t, " ")
	return word, strings.TrimSpace(rest), true
}

func isComment(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "#") }

func (p *parser) run() error {
	p.names = map[string]int{}
	for p.i < len(p.s.lines) {
		line := p.s.lines[p.i]
		if strings.TrimSpace(line) == "" || isComment(line) {
			p.i++
			continue
		}
		word, rest, ok := directive(line)
		if !ok {
			return p.errf(p.i+1, "expected a directive (-- query, -- statement, -- catalog, -- requires) or a # comment, got %q", line)
		}
		switch word {
		case "requires":
			if rest == "" {
				return p.errf(p.i+1, "-- requires needs a capability")
			}
			if len(p.s.Blocks) > 0 {
				// After a block it would be ambiguous; blocks say it on
				// their own line instead (see block).
				return p.errf(p.i+1, "-- requires at file level must come before the first block")
			}
			p.s.Requires = append(p.s.Requires, strings.Fields(rest)...)
			p.i++
		case "catalog":
			if rest == "" || strings.ContainsAny(rest, " \t") {
				return p.errf(p.i+1, "-- catalog needs one catalog name")
			}
			p.catalog = rest
			p.i++
		case "query", "statement":
			if err := p.block(word, rest); err != nil {
				return err
			}
		default:
			return p.errf(p.i+1, "unknown directive %q", "-- "+word)
		}
	}
	if len(p.s.Blocks) == 0 {
		return p.errf(len(p.s.lines), "no -- query or -- statement block")
	}
	return nil
}

func (p *parser) block(kind, name string) error {
	b := &Block{Kind: kind, Line: p.i + 1, Catalog: p.catalog}
	fields := strings.Fields(name)
	if len(fields) == 0 {
		return p.errf(b.Line, "-- %s needs a name", kind)
	}
	b.Name = fields[0]
	for _, f := range fields[1:] {
		req, ok := strings.CutPrefix(f, "requires=")
		if !ok || req == "" {
			return p.errf(b.Line, "-- %s %s: unexpected %q (only requires=CAP may follow the name)", kind, b.Name, f)
		}
		b.Requires = append(b.Requires, req)
	}
	if prev, dup := p.names[b.Name]; dup {
		return p.errf(b.Line, "block name %q already used on line %d", b.Name, prev)
	}
	p.names[b.Name] = b.Line
	p.i++
	// SQL up to the first directive.
	var sql []string
	for p.i < len(p.s.lines) {
		if _, _, ok := directive(p.s.lines[p.i]); ok {
			break
		}
		sql = append(sql, p.s.lines[p.i])
		p.i++
	}
	b.SQL = strings.TrimSuffix(strings.TrimSpace(strings.Join(sql, "\n")), ";")
	if strings.TrimSpace(b.SQL) == "" {
		return p.errf(b.Line, "%s %s has no SQL", kind, b.Name)
	}
	for _, m := range placeholderRe.FindAllStringSubmatch(b.SQL, -1) {
		known := false
		for _, ph := range Placeholders {
			known = known || m[1] == ph
		}
		if !known {
			return p.errf(b.Line, "%s %s: unknown placeholder ${%s} (known: %s)", kind, b.Name, m[1], strings.Join(Placeholders, ", "))
		}
		if m[1] == "ctl" && b.Catalog == "" {
			return p.errf(b.Line, "%s %s uses ${ctl} but no -- catalog line precedes it", kind, b.Name)
		}
	}
	// Expectation sections.
	for p.i < len(p.s.lines) {
		line := p.s.lines[p.i]
		if strings.TrimSpace(line) == "" || isComment(line) {
			p.i++
			continue
		}
		word, rest, ok := directive(line)
		if !ok {
			return p.errf(p.i+1, "%s %s: expected -- result, -- contains, -- error, -- explain or -- same-as, got %q", kind, b.Name, line)
		}
		at := p.i + 1
		switch word {
		case "result":
			if kind != "query" {
				return p.errf(at, "-- result belongs to a -- query block")
			}
			if b.Result != nil {
				return p.errf(at, "query %s has two -- result sections", b.Name)
			}
			r := &Result{}
			switch rest {
			case "":
			case "sorted":
				r.Sorted = true
			default:
				return p.errf(at, "-- result takes only the word sorted, got %q", rest)
			}
			p.i++
			r.first = p.i
			for p.i < len(p.s.lines) {
				l := p.s.lines[p.i]
				if _, _, d := directive(l); d || strings.TrimSpace(l) == "" {
					break
				}
				if err := checkEscapes(l); err != nil {
					return p.errf(p.i+1, "query %s: row: %v", b.Name, err)
				}
				r.Rows = append(r.Rows, l)
				p.i++
			}
			r.end = p.i
			b.Result = r
		case "error":
			if rest == "" {
				return p.errf(at, "-- error needs the substring the message must contain")
			}
			if b.Error != "" {
				return p.errf(at, "%s %s has two -- error lines", kind, b.Name)
			}
			b.Error = rest
			p.i++
		case "explain":
			if kind != "query" {
				return p.errf(at, "-- explain belongs to a -- query block")
			}
			if b.Explain != nil {
				return p.errf(at, "query %s has two -- explain sections", b.Name)
			}
			if rest != "" {
				return p.errf(at, "-- explain takes no argument; assertions follow on their own lines")
			}
			p.i++
			b.Explain = []Assertion{}
			for p.i < len(p.s.lines) {
				l := p.s.lines[p.i]
				if _, _, d := directive(l); d || strings.TrimSpace(l) == "" {
					break
				}
				a, err := parseAssertion(strings.TrimSpace(l))
				if err != nil {
					return p.errf(p.i+1, "query %s: explain: %v", b.Name, err)
				}
				a.Line = p.i + 1
				b.Explain = append(b.Explain, a)
				p.i++
			}
			if len(b.Explain) == 0 {
				return p.errf(at, "query %s: -- explain without assertions", b.Name)
			}
		case "contains":
			if kind != "query" {
				return p.errf(at, "-- contains belongs to a -- query block")
			}
			if rest == "" {
				return p.errf(at, "-- contains needs a text")
			}
			b.Contains = append(b.Contains, rest)
			p.i++
		case "same-as":
			if kind != "query" {
				return p.errf(at, "-- same-as belongs to a -- query block")
			}
			if rest == "" || strings.ContainsAny(rest, " \t") {
				return p.errf(at, "-- same-as needs one catalog name")
			}
			if !strings.Contains(b.SQL, "${ctl}") {
				return p.errf(at, "query %s: -- same-as %s but its SQL has no ${ctl} to replace", b.Name, rest)
			}
			if rest == b.Catalog {
				return p.errf(at, "query %s: -- same-as its own catalog %s compares nothing", b.Name, rest)
			}
			b.SameAs = append(b.SameAs, rest)
			p.i++
		case "query", "statement", "catalog", "requires":
			// The next block (or a file-level directive) starts here.
			if err := b.check(p); err != nil {
				return err
			}
			p.s.Blocks = append(p.s.Blocks, b)
			return nil
		default:
			return p.errf(at, "unknown directive %q", "-- "+word)
		}
	}
	if err := b.check(p); err != nil {
		return err
	}
	p.s.Blocks = append(p.s.Blocks, b)
	return nil
}

func (b *Block) check(p *parser) error {
	if b.Kind == "query" && b.Result == nil && b.Error == "" && b.Explain == nil && len(b.SameAs) == 0 && len(b.Contains) == 0 {
		return p.errf(b.Line, "query %s asserts nothing (add -- result, -- contains, -- error, -- explain or -- same-as)", b.Name)
	}
	if b.Error != "" && (b.Result != nil || len(b.SameAs) > 0 || b.Explain != nil || len(b.Contains) > 0) {
		return p.errf(b.Line, "%s %s: -- error cannot be combined with -- result, -- contains, -- explain or -- same-as (write two blocks)", b.Kind, b.Name)
	}
	return nil
}

var opRe = regexp.MustCompile(`<=|>=|!=|=|<|>`)

// parseAssertion reads one explain assertion:
//
//	contains TEXT | !contains TEXT | matches REGEXP | !FIELD
//	[N] FIELD=VALUE | 1<=FIELD<=3 | FIELD<FIELD | ...
//
// [N] picks the N-th flussScan line (default the first).
func parseAssertion(s string) (Assertion, error) {
	a := Assertion{Text: s, Scan: 1}
	if rest, ok := strings.CutPrefix(s, "["); ok {
		n, tail, ok := strings.Cut(rest, "]")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 1 {
			return a, fmt.Errorf("bad scan selector in %q (want [N] with N >= 1)", s)
		}
		a.Scan = k
		s = strings.TrimSpace(tail)
	}
	for _, kw := range []string{"contains ", "!contains ", "matches "} {
		if rest, ok := strings.CutPrefix(s, kw); ok {
			a.Kind = strings.TrimSpace(kw)
			a.Arg = strings.TrimSpace(rest)
			if a.Arg == "" {
				return a, fmt.Errorf("%s needs an argument", a.Kind)
			}
			if a.Kind == "matches" {
				re, err := regexp.Compile(a.Arg)
				if err != nil {
					return a, err
				}
				a.Re = re
			}
			return a, nil
		}
	}
	if f, ok := strings.CutPrefix(s, "!"); ok && isField(f) {
		a.Kind, a.Arg = "absent", f
		return a, nil
	}
	if strings.ContainsAny(s, " \t") {
		return a, fmt.Errorf("%q: a comparison has no spaces (e.g. 1<=logRanges<=3)", s)
	}
	a.Kind = "compare"
	idx := opRe.FindAllStringIndex(s, -1)
	if len(idx) == 0 || len(idx) > 2 {
		return a, fmt.Errorf("%q: want one or two comparisons", s)
	}
	prev := 0
	for _, ix := range idx {
		a.Operands = append(a.Operands, operand(s[prev:ix[0]]))
		a.Ops = append(a.Ops, s[ix[0]:ix[1]])
		prev = ix[1]
	}
	a.Operands = append(a.Operands, operand(s[prev:]))
	hasField := false
	for i, o := range a.Operands {
		if o.Field == "" && o.Lit == "" {
			return a, fmt.Errorf("%q: empty operand", s)
		}
		if o.Field != "" {
			hasField = true
		} else if i > 0 && i < len(a.Operands)-1 {
			return a, fmt.Errorf("%q: the middle of a chain must be a field", s)
		}
	}
	if !hasField {
		return a, fmt.Errorf("%q compares no field (fields: %s)", s, strings.Join(Fields, ", "))
	}
	return a, nil
}

func operand(s string) Operand {
	if isField(s) {
		return Operand{Field: s}
	}
	return Operand{Lit: s}
}

// checkEscapes accepts the escapes EscapeRow writes: \N \E \t \n \\.
func checkEscapes(l string) error {
	for i := 0; i < len(l); i++ {
		if l[i] != '\\' {
			continue
		}
		if i+1 == len(l) || !strings.ContainsRune(`NEtn\`, rune(l[i+1])) {
			return fmt.Errorf("bad escape in %q (allowed: \\N \\E \\t \\n \\\\)", l)
		}
		i++
	}
	return nil
}

// EscapeRow renders a row as a suite line: columns joined by tabs, NULL as
// \N, backslash, tab and newline escaped, and a row of one empty string as
// \E (an empty line would end the section).
func EscapeRow(cols []*string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		if c == nil {
			parts[i] = `\N`
			continue
		}
		parts[i] = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`).Replace(*c)
	}
	line := strings.Join(parts, "\t")
	if line == "" {
		return `\E`
	}
	return line
}

// Rewrite returns the file with the rows of the given results replaced,
// for -update. Results not in the map keep their rows.
func (s *Suite) Rewrite(rows map[*Result][]string) []byte {
	var out bytes.Buffer
	byFirst := map[int]*Result{}
	for r := range rows {
		byFirst[r.first] = r
	}
	for i := 0; i < len(s.lines); {
		if r, ok := byFirst[i]; ok {
			delete(byFirst, i) // an empty section starts and ends at i
			for _, l := range rows[r] {
				out.WriteString(l)
				out.WriteByte('\n')
			}
			i = r.end
			continue
		}
		out.WriteString(s.lines[i])
		out.WriteByte('\n')
		i++
	}
	return out.Bytes()
}
