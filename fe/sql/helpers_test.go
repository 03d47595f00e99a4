package sql

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// dumpTree renders a node as an indented tree of its non-zero fields, so
// golden files show the structure the binder will see (not just the SQL).
func dumpTree(n any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(n), 0)
	return b.String()
}

func isZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.IsNil()
	}
	return v.IsZero()
}

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	if v.Kind() == reflect.Struct && v.Type() == reflect.TypeOf(SelectItem{}) {
		// Show Text only when it differs from the printed expression, to keep
		// golden files short.
		it := v.Interface().(SelectItem)
		if it.Expr != nil && it.Text == it.Expr.String() {
			it.Text = ""
			v = reflect.ValueOf(it)
		}
	}
	ind := strings.Repeat("  ", depth+1)
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Struct:
		b.WriteString(v.Type().Name())
		if flat(v) {
			var parts []string
			for i := 0; i < v.NumField(); i++ {
				if f := v.Field(i); !isZero(f) {
					var fb strings.Builder
					dumpValue(&fb, f, depth+1)
					parts = append(parts, v.Type().Field(i).Name+"="+fb.String())
				}
			}
			b.WriteString("{" + strings.Join(parts, " ") + "}")
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if isZero(f) {
				continue
			}
			sep := ": "
			if f.Kind() == reflect.Slice && f.Type().Elem().Kind() != reflect.String {
				sep = ":"
			}
			fmt.Fprintf(b, "\n%s%s%s", ind, v.Type().Field(i).Name, sep)
			dumpValue(b, f, depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = fmt.Sprintf("%q", v.Index(i).String())
			}
			b.WriteString("[" + strings.Join(parts, " ") + "]")
			return
		}
		if v.Len() == 0 {
			b.WriteString("[]")
			return
		}
		for i := 0; i < v.Len(); i++ {
			fmt.Fprintf(b, "\n%s- ", ind)
			dumpValue(b, v.Index(i), depth+1)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%q", k.String(), v.MapIndex(k).String())
		}
		b.WriteString("{" + strings.Join(parts, " ") + "}")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			b.WriteString(s.String())
			return
		}
		fmt.Fprintf(b, "%v", v.Interface())
	}
}

// stripText returns a copy of n's tree with every SelectItem.Text cleared:
// source text is informational and does not survive printing.
func stripText(n Node) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(n), 0)
	return textLine.ReplaceAllString(b.String(), "")
}

var textLine = regexp.MustCompile(`\n[ \t]*Text: [^\n]*|Text="(?:[^"\\]|\\.)*"`)

// flat reports whether a struct has only scalar, string-slice or map
// fields set, so it fits on one line.
func flat(v reflect.Value) bool {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if isZero(f) {
			continue
		}
		switch f.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Struct:
			return false
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String {
				return false
			}
		}
	}
	return true
}

// checkRoundTrip asserts invariant 2 of doc.go: printing and reparsing gives
// an equal tree, and printing is a fixed point.
func checkRoundTrip(t testing.TB, input string, stmt Statement) {
	t.Helper()
	printed := stmt.String()
	again, err := Parse(printed)
	if err != nil && strings.Contains(err.Error(), "nested too deeply") {
		// Printing may add parentheses, and each counts against maxDepth, so
		// a tree built right at the limit may print deeper than it parsed.
		return
	}
	if err != nil {
		t.Fatalf("round trip: %q printed as %q, which does not parse: %v", input, printed, err)
	}
	if !reflect.DeepEqual(stripText(stmt), stripText(again)) {
		t.Fatalf("round trip: %q printed as %q, which parses to a different tree:\n%s\nwant:\n%s",
			input, printed, dumpTree(again), dumpTree(stmt))
	}
	if p2 := again.String(); p2 != printed {
		t.Fatalf("printing is not a fixed point: %q then %q", printed, p2)
	}
}

// testCase is one block of a data-driven file:
//
//	command
//	input (one or more lines)
//	----
//	expected output (up to the next blank line)
type testCase struct {
	cmd      string
	line     int
	input    string
	expected string
}

func readCases(t *testing.T, path string) []testCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cases []testCase
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "##") {
			i++
			continue
		}
		c := testCase{cmd: strings.TrimSpace(lines[i]), line: i + 1}
		i++
		var in []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		if i >= len(lines) {
			t.Fatalf("%s:%d: missing ----", path, c.line)
		}
		i++
		var out []string
		for i < len(lines) && lines[i] != "" {
			out = append(out, lines[i])
			i++
		}
		c.input = strings.Join(in, "\n")
		c.expected = strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases
}

func writeCases(t *testing.T, path string, cases []testCase) {
	t.Helper()
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "%s\n%s\n----\n%s\n\n", c.cmd, c.input, c.expected)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCase computes the output of one data-driven case.
func runCase(t *testing.T, c testCase) string {
	t.Helper()
	switch c.cmd {
	case "parse":
		stmt, err := Parse(c.input)
		if err != nil {
			return "error: " + err.Error()
		}
		checkRoundTrip(t, c.input, stmt)
		return stmt.String() + "\n" + dumpTree(stmt)
	case "sql":
		// Only the canonical text: for inputs whose tree is shown elsewhere.
		stmt, err := Parse(c.input)
		if err != nil {
			return "error: " + err.Error()
		}
		checkRoundTrip(t, c.input, stmt)
		return stmt.String()
	case "expr":
		e, err := ParseExpr(c.input)
		if err != nil {
			return "error: " + err.Error()
		}
		return e.String() + "\n" + dumpTree(e)
	case "error":
		_, err := Parse(c.input)
		if err == nil {
			t.Fatalf("line %d: %q parsed, want an error", c.line, c.input)
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			return fmt.Sprintf("%s\npos=%d line=%d col=%d", err, se.Pos, se.Line, se.Col)
		}
		return err.Error()
	}
	t.Fatalf("line %d: unknown command %q", c.line, c.cmd)
	return ""
}

// TestDataDriven runs testdata/*.txt. Set INLET_REWRITE=1 to rewrite the
// expected outputs after an intended change, then review the diff.
func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata files: %v", err)
	}
	rewrite := os.Getenv("INLET_REWRITE") != ""
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readCases(t, path)
			for i := range cases {
				c := &cases[i]
				got := strings.TrimRight(runCase(t, *c), "\n")
				if rewrite {
					c.expected = got
					continue
				}
				if got != c.expected {
					t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, c.line, c.cmd, c.input, got, c.expected)
				}
			}
			if rewrite {
				writeCases(t, path, cases)
			}
		})
	}
}
