package regression

import (
	"strings"
	"testing"
)

func TestParseErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unknown directive", "-- query a\nSELECT 1\n-- reslt\n1\n", "x.sql:3: unknown directive"},
		{"no assertion", "-- query a\nSELECT 1\n", "x.sql:1: query a asserts nothing"},
		{"no sql", "-- query a\n-- result\n1\n", "x.sql:1: query a has no SQL"},
		{"duplicate name", "-- statement a\nSET x = 1\n-- statement a\nSET x = 2\n", "x.sql:3: block name \"a\" already used on line 1"},
		{"bad escape", "-- query a\nSELECT 1\n-- result\n\\x\n", "x.sql:4: query a: row: bad escape"},
		{"same-as without ctl", "-- catalog c\n-- query a\nSELECT 1\n-- same-as d\n", "x.sql:4: query a: -- same-as d but its SQL has no ${ctl}"},
		{"ctl without catalog", "-- query a\nSELECT * FROM ${ctl}.t\n-- result\n", "x.sql:1: query a uses ${ctl}"},
		{"unknown placeholder", "-- statement a\nSET x = '${NOPE}'\n", "x.sql:1: statement a: unknown placeholder ${NOPE}"},
		{"error with result", "-- query a\nSELECT 1\n-- error boom\n-- result\n1\n", "x.sql:1: query a: -- error cannot be combined"},
		{"explain without field", "-- query a\nSELECT 1\n-- explain\n1<=2\n", "x.sql:4: query a: explain: \"1<=2\" compares no field"},
		{"explain bad chain", "-- query a\nSELECT 1\n-- explain\nlogRanges<3<pkRanges\n", "middle of a chain must be a field"},
		{"stray text", "SELECT 1\n", "x.sql:1: expected a directive"},
		{"result on statement", "-- statement a\nSET x = 1\n-- result\n", "x.sql:3: -- result belongs to a -- query block"},
		{"empty file", "# nothing\n", "no -- query or -- statement block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.sql", []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestParseAndRewrite(t *testing.T) {
	src := "# c\n-- catalog fluss_required\n-- query a\nSELECT * FROM ${ctl}.db.t\n-- result sorted\n2\n1\n-- explain\n1<=logRanges<=3\nunionRead=yes\n!degraded\n-- same-as fluss_disabled\n\n-- query b\nSELECT 1\n-- result\n\n-- statement c\nSET x = 1\n-- error nope\n"
	s, err := Parse("x.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Blocks) != 3 || s.Blocks[0].Catalog != "fluss_required" || !s.Blocks[0].Result.Sorted ||
		len(s.Blocks[0].Explain) != 3 || s.Blocks[0].SameAs[0] != "fluss_disabled" || s.Blocks[2].Error != "nope" {
		t.Fatalf("parsed %+v", s.Blocks)
	}
	out := string(s.Rewrite(map[*Result][]string{s.Blocks[0].Result: {"7"}, s.Blocks[1].Result: {"1", `\N`}}))
	want := strings.Replace(strings.Replace(src, "-- result sorted\n2\n1\n", "-- result sorted\n7\n", 1), "-- result\n\n", "-- result\n1\n\\N\n\n", 1)
	if out != want {
		t.Fatalf("rewrite:\n%s\nwant:\n%s", out, want)
	}
}

func TestExplainAssertions(t *testing.T) {
	text := "0:VFLUSS_SCAN_NODE\n   partition=1/3\n   flussScan: readMode=default, unionRead=yes, lakeSplits=3, suppressedLakeSplits=1, logRanges=0, pkRanges=0, pkTailRanges=1, mode=disabled(session)\n" +
		"1:VFLUSS_SCAN_NODE\n   partition=2/2\n   flussScan: readMode=log, unionRead=yes, lakeSplits=0, suppressedLakeSplits=0, logRanges=2, pkRanges=0, pkTailRanges=0, mode=auto, degraded=tail-too-large\n"
	for _, c := range []struct {
		a  string
		ok bool
	}{
		{"unionRead=yes", true}, {"lakeSplits=3", true}, {"lakeSplits=2", false},
		{"1<=suppressedLakeSplits<lakeSplits", true}, {"suppressedLakeSplits=lakeSplits", false},
		{"mode=disabled(session)", true}, {"!degraded", true}, {"degraded=tail-too-large", false},
		{"[2] degraded=tail-too-large", true}, {"[2] !degraded", false}, {"[2] partition=2/2", true},
		{"partition=1/3", true}, {"[3] logRanges=0", false}, {"contains readMode=log", true},
		{"!contains pruned type", true}, {"matches lakeSplits=\\d+, suppressed", true}, {"mode<2", false},
	} {
		a, err := parseAssertion(c.a)
		if err != nil {
			t.Fatalf("%s: %v", c.a, err)
		}
		if err := a.Check(text); (err == nil) != c.ok {
			t.Errorf("%s: got %v, want ok=%v", c.a, err, c.ok)
		}
	}
}

func TestEscapeRow(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		cols []*string
		want string
	}{
		{[]*string{s("a"), nil, s("")}, "a\t\\N\t"},
		{[]*string{s("")}, `\E`},
		{[]*string{s("x\ty\\z\n")}, `x\ty\\z\n`},
	} {
		if got := EscapeRow(c.cols); got != c.want {
			t.Errorf("EscapeRow = %q, want %q", got, c.want)
		}
		if err := checkEscapes(c.want); err != nil {
			t.Error(err)
		}
	}
}
