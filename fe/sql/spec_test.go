package sql

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stmtStart matches a line that begins an SQL statement in the product
// spec: an upper-case statement keyword followed by a space.
var stmtStart = regexp.MustCompile(`^(SELECT|SET|SWITCH|USE|CREATE|ALTER|SHOW|EXPLAIN|DESC|DESCRIBE|REFRESH|DROP|INSERT|WITH) `)

// trailingComment strips a "-- ..." comment that follows the statement text
// on the same line.
var trailingComment = regexp.MustCompile(`\s+--.*$`)

// specStatements extracts the SQL statements of the product spec. The spec
// is plain text without code fences, so a statement is recognised by shape:
// a line starting with a statement keyword that ends with ';' (after any
// trailing -- comment), or that ends with '(' or ',' and continues until a
// line ending with ';'. Prose lines that start with a keyword ("SHOW CREATE
// TABLE shows ...") end with '.', so they are not taken.
func specStatements(text string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !stmtStart.MatchString(line) {
			continue
		}
		body := trailingComment.ReplaceAllString(line, "")
		switch {
		case strings.HasSuffix(body, ";"):
			out = append(out, line)
		case strings.HasSuffix(body, "(") || strings.HasSuffix(body, ","):
			stmt := []string{line}
			for i++; i < len(lines); i++ {
				l := strings.TrimSpace(lines[i])
				stmt = append(stmt, l)
				if strings.HasSuffix(trailingComment.ReplaceAllString(l, ""), ";") {
					break
				}
			}
			out = append(out, strings.Join(stmt, "\n"))
		}
	}
	return out
}

// expandSynopsis turns a syntax synopsis into concrete statements: each
// "[X]" becomes both X and nothing, and "{Section}," placeholder lines are
// dropped. Statements without either are returned unchanged.
func expandSynopsis(s string) []string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "{") {
			continue
		}
		kept = append(kept, l)
	}
	s = strings.Join(kept, "\n")
	// Dropping the last placeholders can leave a comma before ")".
	s = danglingComma.ReplaceAllString(s, "\n)")
	i := strings.Index(s, "[")
	if i < 0 {
		return []string{s}
	}
	j := strings.Index(s[i:], "]")
	if j < 0 {
		return []string{s}
	}
	j += i
	var out []string
	out = append(out, expandSynopsis(s[:i]+s[i+1:j]+s[j+1:])...)
	out = append(out, expandSynopsis(s[:i]+s[j+1:])...)
	return out
}

var danglingComma = regexp.MustCompile(`,\s*\n\s*\)`)

// specPath is the product spec the tests check the parser against:
// testdata/fluss-catalog.md, a verbatim copy of the project's seed spec
// (seeds/fluss-catalog.md); refresh the copy when the spec changes.
func specPath(t *testing.T) string {
	t.Helper()
	p := filepath.Join("testdata", "fluss-catalog.md")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("product spec not found: %v", err)
	}
	return p
}

// TestSpecStatementsParse: every SQL statement in the product spec
// (testdata/fluss-catalog.md) parses, round-trips, and has the expected
// statement type.
func TestSpecStatementsParse(t *testing.T) {
	data, err := os.ReadFile(specPath(t))
	if err != nil {
		t.Fatal(err)
	}
	stmts := specStatements(string(data))
	// Statements the spec mentions inline in prose, copied here verbatim.
	stmts = append(stmts,
		"SET GLOBAL enable_jni_heap_admission = true",
		"SELECT * FROM tbl",
		"SET fluss_union_read_mode = ''",
	)
	var n, creates, selects, sets, hinted int
	tables := map[string]bool{}
	for _, raw := range stmts {
		for _, s := range expandSynopsis(raw) {
			parsed, err := ParseAll(s)
			if err != nil {
				t.Errorf("spec statement does not parse:\n%s\n%v", s, err)
				continue
			}
			for _, st := range parsed {
				n++
				checkRoundTrip(t, s, st)
				switch st := st.(type) {
				case *CreateCatalog:
					creates++
					if len(st.Properties) == 0 || st.Properties[0] != (Property{Key: "type", Value: "fluss"}) {
						t.Errorf("%s: first property = %v, want type=fluss", s, st.Properties)
					}
				case *Select:
					selects++
					if st.Hints != nil {
						hinted++
					}
					if ref, ok := st.From.(*TableRef); ok {
						tables[strings.Join(ref.Name, "|")] = true
					}
				case *Set:
					sets++
				}
			}
		}
	}
	// The spec's three ways of reading a tiered table: each name part intact.
	for _, want := range []string{"fluss|db|tbl", "fluss|db|tbl$lake", "fluss|db|tbl$log", "tbl"} {
		if !tables[want] {
			t.Errorf("no SELECT in the spec read table %q; saw %v", want, tables)
		}
	}
	t.Logf("%d statements from the spec parsed (%d CREATE CATALOG, %d SELECT, %d SET)", n, creates, selects, sets)
	// The spec holds at least these; fewer means the extraction broke.
	if creates < 6 || selects < 9 || sets < 6 || hinted < 3 || n < 25 {
		t.Errorf("extracted too few statements: %d total, %d CREATE CATALOG, %d SELECT (%d hinted), %d SET",
			n, creates, selects, hinted, sets)
	}
}

func TestSpecExtraction(t *testing.T) {
	text := "Prose.\nSHOW CREATE TABLE shows columns.\nALTER CATALOG can only set properties; it cannot remove them.\n" +
		"SELECT * FROM t;  -- note\nCREATE CATALOG c PROPERTIES (\n  'a' = 'b'\n);\n"
	got := specStatements(text)
	want := []string{"SELECT * FROM t;  -- note", "CREATE CATALOG c PROPERTIES (\n'a' = 'b'\n);"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := expandSynopsis("A [B] C"); strings.Join(got, "|") != "A B C|A  C" {
		t.Fatalf("expandSynopsis = %q", got)
	}
}
