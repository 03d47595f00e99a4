package sql

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseAll(t *testing.T) {
	stmts, err := ParseAll("SWITCH fluss;\nUSE db; ; SELECT * FROM tbl LIMIT 10; -- done\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stmts {
		got = append(got, s.String())
	}
	want := []string{"SWITCH fluss", "USE db", "SELECT * FROM tbl LIMIT 10"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestEmptyQuery(t *testing.T) {
	for _, s := range []string{"", "   ", ";", " ; ;", "-- only a comment", "/* c */", "# hash"} {
		if _, err := Parse(s); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Parse(%q) = %v, want ErrEmptyQuery", s, err)
		}
		if _, err := ParseAll(s); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("ParseAll(%q) = %v, want ErrEmptyQuery", s, err)
		}
	}
}

func TestSyntaxErrorKind(t *testing.T) {
	_, err := Parse("SELECT FROM")
	if !errors.Is(err, ErrSyntax) {
		t.Fatalf("errors.Is(%v, ErrSyntax) is false", err)
	}
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != 7 || se.Line != 1 || se.Col != 8 || se.Near != "FROM" {
		t.Fatalf("got %#v", se)
	}
	if errors.Is(ErrEmptyQuery, ErrSyntax) {
		t.Fatal("ErrEmptyQuery must not be a syntax error: MySQL answers it with 1065")
	}
}

// TestErrorPositionMultiLine: line and column count from the last newline,
// and Near stops at the end of the line.
func TestErrorPositionMultiLine(t *testing.T) {
	src := "SELECT a\nFROM t\nWHERE a = )\nORDER BY a"
	_, err := Parse(src)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v", err)
	}
	if se.Line != 3 || se.Col != 11 || se.Near != ")" || src[se.Pos] != ')' {
		t.Fatalf("got %+v", se)
	}
}

func TestNearIsTruncatedOnRuneBoundary(t *testing.T) {
	src := "SELECT a FROM t WHERE ) " + strings.Repeat("é", 40)
	_, err := Parse(src)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatal(err)
	}
	if len(se.Near) > 40 || !strings.HasPrefix(se.Near, ") ") || !utf8Valid(se.Near) {
		t.Fatalf("Near = %q", se.Near)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestStringEscapes(t *testing.T) {
	cases := map[string]string{
		`'a''b'`:         "a'b",
		`"a""b"`:         `a"b`,
		`'a\'b'`:         "a'b",
		`'\0\b\n\r\t\Z'`: "\x00\b\n\r\t\x1a",
		`'\%\_'`:         `\%\_`,
		`'\\'`:           `\`,
		`'\q'`:           "q",
		`'a' "b" 'c'`:    "abc",
		`'it''s'`:        "it's",
		`'日本'`:           "日本",
	}
	for in, want := range cases {
		e, err := ParseExpr(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		lit, ok := e.(*Literal)
		if !ok || lit.Kind != LitString || lit.Value != want {
			t.Errorf("%s: got %#v, want string %q", in, e, want)
			continue
		}
		// The printed form decodes to the same value.
		again, err := ParseExpr(e.String())
		if err != nil || again.(*Literal).Value != want {
			t.Errorf("%s printed as %s: %v %v", in, e, again, err)
		}
	}
}

func TestHints(t *testing.T) {
	cases := []struct {
		sql  string
		want map[string]string
	}{
		{"SELECT /*+ SET_VAR(fluss_union_read_mode='required') */ * FROM fluss.db.tbl", map[string]string{"fluss_union_read_mode": "required"}},
		{"SELECT /*+ SET_VAR(max_file_scanners_concurrency=4) */ * FROM fluss.db.tbl", map[string]string{"max_file_scanners_concurrency": "4"}},
		{"SELECT /*+SET_VAR(A=true, b = \"x y\")*/ 1", map[string]string{"a": "true", "b": "x y"}},
		{"SELECT /*+ LEADING(t1 t2) SET_VAR(a=1) */ 1", map[string]string{"a": "1"}},
		{"SELECT /*+ LEADING(t1 t2) */ 1", nil},
		{"SELECT /* not a hint SET_VAR(a=1) */ 1", nil},
		{"/*+ SET_VAR(a=1) */ SELECT 1", nil}, // a hint before SELECT is ignored, as in Doris
	}
	for _, c := range cases {
		st, err := Parse(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := st.(*Select).Hints; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: hints %v, want %v", c.sql, got, c.want)
		}
	}
	_, err := Parse("SELECT /*+ SET_VAR(a='x) */ 1")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != strings.Index("SELECT /*+ SET_VAR(a='x) */ 1", "'x") {
		t.Fatalf("hint error position: %v", err)
	}
}

// TestParseIsConcurrencySafe runs Parse from several goroutines (go test
// -race catches shared state).
func TestParseIsConcurrencySafe(t *testing.T) {
	done := make(chan error)
	for i := 0; i < 4; i++ {
		go func() {
			var err error
			for j := 0; j < 50 && err == nil; j++ {
				_, err = Parse("SELECT a, CAST(b AS ARRAY<ARRAY<INT>>) FROM fluss.db.`tbl$lake` WHERE c IN (1, 2)")
			}
			done <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", "tbl$lake": "`tbl$lake`", "select": "`select`", "a`b": "`a``b`",
		"1a": "`1a`", "": "``", "current_date": "`current_date`", "日本": "`日本`", "my col": "`my col`",
	} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
		if in == "" {
			continue
		}
		e, err := ParseExpr(QuoteIdent(in))
		if err != nil {
			t.Errorf("%s: %v", QuoteIdent(in), err)
			continue
		}
		if c, ok := e.(*ColumnRef); !ok || len(c.Parts) != 1 || c.Parts[0] != in {
			t.Errorf("%s parsed as %#v", QuoteIdent(in), e)
		}
	}
	for _, s := range []string{"", "it's", `back\slash`, "nl\n", "\x00\x1a", "ünï"} {
		e, err := ParseExpr(QuoteString(s))
		if err != nil || e.(*Literal).Value != s {
			t.Errorf("QuoteString(%q) = %s -> %v, %v", s, QuoteString(s), e, err)
		}
	}
}

func TestEnumStrings(t *testing.T) {
	for _, s := range []fmt.Stringer{
		Union, Except, LeftJoin, RightAntiJoin, LitDatetime, ShowBackends, ScopeUser, ObjView, NullsLast,
		NotNull, AggregateKey, AlterCatalogModifyComment, ExplainTree, TxnRollback, FrameRange, UnboundedFollowing,
	} {
		if got := s.String(); got == "" || strings.Contains(got, "?") {
			t.Errorf("%T(%v) has no name: %q", s, s, got)
		}
	}
	if got := JoinKind(200).String(); got != "JoinKind(?)" {
		t.Errorf("out of range: %q", got)
	}
}
