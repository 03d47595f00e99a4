package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedStatements gathers every input of the data-driven files.
func seedStatements(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			switch strings.TrimSpace(lines[i]) {
			case "parse", "sql", "error", "expr":
				var in []string
				for i++; i < len(lines) && lines[i] != "----"; i++ {
					in = append(in, lines[i])
				}
				out = append(out, strings.Join(in, "\n"))
			}
		}
	}
	return out
}

// FuzzParse checks doc.go invariants 1-3 on arbitrary input: no panic, no
// hang, errors are SyntaxErrors with a position inside the input, and
// anything that parses survives print -> parse unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range seedStatements(f) {
		f.Add(s)
	}
	f.Add(strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300))
	f.Add("SELECT " + strings.Repeat("NOT ", 300) + "1")
	f.Add("SELECT " + strings.Repeat("-", 300) + "1")
	f.Fuzz(func(t *testing.T, s string) {
		stmts, err := ParseAll(s)
		if err != nil {
			if se, ok := err.(*SyntaxError); ok {
				if se.Pos < 0 || se.Pos > len(s) || se.Line < 1 || se.Col < 1 {
					t.Fatalf("bad error position %+v for %q", se, s)
				}
			} else if err != ErrEmptyQuery {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		for _, st := range stmts {
			checkRoundTrip(t, s, st)
		}
	})
}

func TestDepthLimit(t *testing.T) {
	for _, s := range []string{
		"SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"SELECT " + strings.Repeat("NOT ", 5000) + "1",
		"SELECT " + strings.Repeat("- ", 5000) + "1",
		"SELECT " + strings.Repeat("(SELECT ", 5000) + "1" + strings.Repeat(")", 5000),
		"SELECT * FROM " + strings.Repeat("(", 5000) + "t" + strings.Repeat(")", 5000),
		"SELECT CAST(a AS " + strings.Repeat("ARRAY<", 5000) + "INT" + strings.Repeat(">", 5000) + ")",
		"SELECT 1 " + strings.Repeat("UNION (SELECT 1 ", 5000) + strings.Repeat(")", 5000),
	} {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("%.40s...: got %v, want a nesting error", s, err)
		}
	}
	// Nesting that people write is fine: 150 parentheses, 60 subqueries.
	if _, err := Parse("SELECT " + strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150) + ", " + strings.Repeat("(SELECT ", 60) + "1" + strings.Repeat(")", 60)); err != nil {
		t.Fatal(err)
	}
}
