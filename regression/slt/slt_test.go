package slt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, c := range []struct {
		typ  byte
		in   string
		null bool
		want string
	}{
		{'I', "", true, "NULL"},
		{'R', "", true, "NULL"},
		{'T', "", true, "NULL"},
		{'T', "", false, "(empty)"},
		{'T', "a\tb", false, "a@b"},
		{'T', "é", false, "@@"}, // two UTF-8 bytes, each outside ' '..'~'
		{'T', "~ x", false, "~ x"},
		{'I', "-17", false, "-17"},
		{'I', "9223372036854775807", false, "9223372036854775807"},
		{'I', "12.9", false, "12"},
		{'I', "-12.9", false, "-12"},
		{'I', "1e3", false, "1000"},
		{'I', "abc", false, "0"},
		{'I', "42abc", false, "42"},
		{'R', "1", false, "1.000"},
		{'R', "2.0005", false, "2.001"}, // the double is 2.000500000000000167…
		{'R', "0.0625", false, "0.062"}, // exact binary tie rounds to even, as C's printf
		{'R', "-0.0001", false, "-0.000"},
		{'R', "-3.5", false, "-3.500"},
		{'R', "1e20", false, "100000000000000000000.000"},
		{'R', "x", false, "0.000"},
	} {
		if got := Render(c.typ, c.in, c.null); got != c.want {
			t.Errorf("Render(%c, %q, %v) = %q, want %q", c.typ, c.in, c.null, got, c.want)
		}
	}
}

func TestArrangeAndHash(t *testing.T) {
	vals := []string{"2", "b", "10", "a", "2", "a"}
	Arrange(vals, 2, "rowsort")
	// Rows compare as strings: "10" < "2".
	if got := strings.Join(vals, " "); got != "10 a 2 a 2 b" {
		t.Errorf("rowsort: %s", got)
	}
	vals = []string{"b", "NULL", "(empty)", "10", "9"}
	Arrange(vals, 1, "valuesort")
	if got := strings.Join(vals, " "); got != "(empty) 10 9 NULL b" {
		t.Errorf("valuesort: %s", got)
	}
	vals = []string{"3", "1"}
	Arrange(vals, 1, "nosort")
	if vals[0] != "3" {
		t.Errorf("nosort moved values")
	}
	// md5sum of printf '1\n2\nNULL\n(empty)\n' and of nothing.
	if got := HashLine([]string{"1", "2", "NULL", "(empty)"}); got != "4 values hashing to ff3497fc9a1f7c72caea40c708dc3126" {
		t.Errorf("hash: %s", got)
	}
	if got := Hash(nil); got != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("empty hash: %s", got)
	}
}

func TestParse(t *testing.T) {
	src := "# header\r\n" +
		"statement ok\r\n" +
		"CREATE TABLE t1(a INTEGER,\n" +
		"# a comment inside a record\n" +
		"  b INTEGER)\n" +
		"   \n" +
		"skipif sqlite # why\n" +
		"onlyif mysql\n" +
		"query IT rowsort label-7\n" +
		"SELECT a,\n" +
		"b FROM t1\n" +
		"----\n" +
		"1\n" +
		"(empty)\n" +
		"\n" +
		"hash-threshold 0\n" +
		"\n" +
		"statement error\n" +
		"DROP TABLE nope\n" +
		"\n" +
		"query R\n" +
		"SELECT 1\n" +
		"\n" +
		"onlyif oracle\n" +
		"halt\n"
	recs, err := ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Kind != Statement || r.ExpectError || r.SQL != "CREATE TABLE t1(a INTEGER,\n  b INTEGER)" || r.Line != 2 {
		t.Errorf("statement: %+v", r)
	}
	q := recs[1]
	if q.Kind != Query || q.Types != "IT" || q.Sort != "rowsort" || q.Label != "label-7" || q.Line != 9 ||
		q.SQL != "SELECT a,\nb FROM t1" || strings.Join(q.Expected, "|") != "1|(empty)" || len(q.Conditions) != 2 {
		t.Errorf("query: %+v", q)
	}
	if !q.Applies("mysql") || q.Applies("sqlite") || q.Applies("postgresql") {
		t.Errorf("conditions: %+v", q.Conditions)
	}
	if r := recs[2]; r.Kind != HashThreshold || r.Threshold != 0 {
		t.Errorf("hash-threshold: %+v", r)
	}
	if r := recs[3]; r.Kind != Statement || !r.ExpectError {
		t.Errorf("statement error: %+v", r)
	}
	if r := recs[4]; r.Kind != Query || r.Sort != "" || len(r.Expected) != 0 {
		t.Errorf("query without results: %+v", r)
	}
	if r := recs[5]; r.Kind != Halt || r.Applies("mysql") {
		t.Errorf("halt: %+v", r)
	}
	for _, bad := range []string{"statement maybe\nSELECT 1\n", "query X\nSELECT 1\n", "query I sideways\nSELECT 1\n", "frobnicate\n", "skipif mysql\n"} {
		if _, err := ParseString(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestSkipList(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "skip.txt")
	os.WriteFile(p, []byte("# c\nevidence/*.test:12 [semantics] why\nselect1.test:3-5 [semantics] range\nx/y.test:* [unsupported] whole\nsql:^CREATE\\sTRIGGER [unsupported] no triggers\nevidence/in*.test:sql:\\bt4\\b [unsupported] t4\n"), 0o644)
	s, err := LoadSkipList(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel  string
		line int
		sql  string
		want string
	}{
		{"evidence/in1.test", 12, "SELECT 1", "[semantics] why"},
		{"evidence/in1.test", 13, "SELECT 1", ""},
		{"select1.test", 4, "SELECT 1", "[semantics] range"},
		{"select1.test", 6, "SELECT 1", ""},
		{"x/y.test", 99, "SELECT 1", "[unsupported] whole"},
		{"a.test", 1, "create trigger t1r1 x", "[unsupported] no triggers"},
		{"evidence/in1.test", 5, "SELECT * FROM t4", "[unsupported] t4"},
		{"evidence/in1.test", 5, "SELECT * FROM t45", ""},
		{"select1.test", 1, "SELECT * FROM t4", ""},
	} {
		if got := s.Match(c.rel, &Record{Line: c.line, SQL: c.sql}); got != c.want {
			t.Errorf("%s:%d %q: %q, want %q", c.rel, c.line, c.sql, got, c.want)
		}
	}
	for _, bad := range []string{"a.test:1\n", "a.test:1 because\n", "a.test 1 [semantics] x\n", "a.test:0 [semantics] x\n", "sql:( [semantics] x\n", "[:sql:x [semantics] x\n"} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := LoadSkipList(p); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

// TestCommittedSkipList keeps the committed list well-formed.
func TestCommittedSkipList(t *testing.T) {
	if _, err := LoadSkipList("skiplist.txt"); err != nil {
		t.Fatal(err)
	}
}
