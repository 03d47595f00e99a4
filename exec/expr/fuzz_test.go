package expr

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/render"
)

// FuzzCastString feeds arbitrary text to every string→scalar conversion:
// none may panic, and a parsed DATETIME must print and parse back to
// itself.
func FuzzCastString(f *testing.F) {
	for _, s := range []string{"2024-01-02", "2024-01-02 03:04:05.123456", "20240102", "24-1-2", "1e3",
		"-12.50", "  7 ", "true", "99999999999999999999999", "2024/02/29T23:59:59", "0000-00-00", "1.", ".5"} {
		f.Add(s)
	}
	types := []arrow.DataType{Int64T(), Int32T(), Float64T(), DecimalT(10, 2), DecimalT(38, 0), BoolT(), Date32T(), DatetimeT(), arrow.PrimitiveTypes.Uint8}
	f.Fuzz(func(t *testing.T, s string) {
		for _, to := range types {
			_ = castValue(s, StringT(), to, time.UTC)
		}
		if us, ok := parseDatetime(s); ok {
			back, ok2 := parseDatetime(render.FormatDatetime(us, 6))
			if !ok2 || back != us {
				t.Fatalf("%q → %d → %q → %d, %v", s, us, render.FormatDatetime(us, 6), back, ok2)
			}
		}
	})
}

// FuzzLike compares the LIKE matcher with a regexp built from the same
// pattern.
func FuzzLike(f *testing.F) {
	f.Add("abc", "a%c")
	f.Add("a_c", `a\_c`)
	f.Add("héllo", "h_llo")
	f.Add("50%", "50!%")
	f.Add("", "%")
	f.Add("aaa", "%a%a%a%")
	f.Fuzz(func(t *testing.T, s, p string) {
		if !utf8.ValidString(s) || !utf8.ValidString(p) {
			return
		}
		for _, esc := range []rune{'\\', '!'} {
			got := likeMatch(s, compileLike(p, esc))
			re := regexp.MustCompile("(?s)^" + likeToRegexp(p, esc) + "$")
			if want := re.MatchString(s); got != want {
				t.Fatalf("%q LIKE %q ESCAPE %q = %v, regexp says %v", s, p, esc, got, want)
			}
		}
	})
}

func likeToRegexp(p string, esc rune) string {
	var sb strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == esc && i+1 < len(rs):
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return sb.String()
}

// TestLikePercentSegments: patterns of literals and % only take the
// substring search (segs); every pattern over {a, b, %} up to 6 long
// against every string over {a, b} up to 6 long, checked with a regexp,
// plus Q13's pattern, multi-byte characters and an escaped %.
func TestLikePercentSegments(t *testing.T) {
	words := func(alpha string, maxLen int) []string {
		out := []string{""}
		for cur := []string{""}; maxLen > 0; maxLen-- {
			var next []string
			for _, w := range cur {
				for _, r := range alpha {
					next = append(next, w+string(r))
				}
			}
			out = append(out, next...)
			cur = next
		}
		return out
	}
	check := func(s, p string) {
		t.Helper()
		got := likeMatch(s, compileLike(p, '\\'))
		re := regexp.MustCompile("(?s)^" + likeToRegexp(p, '\\') + "$")
		if want := re.MatchString(s); got != want {
			t.Fatalf("%q LIKE %q = %v, regexp says %v", s, p, got, want)
		}
	}
	segPatterns := 0
	strs := words("ab", 6)
	for _, p := range words("ab%", 6) {
		if compileLike(p, '\\').segs != nil {
			segPatterns++
		}
		for _, s := range strs {
			check(s, p)
		}
	}
	if segPatterns == 0 {
		t.Fatal("no pattern took the segment search")
	}
	for _, c := range [][2]string{
		{"carefully special deposits wake requests", "%special%requests%"},
		{"requests are special", "%special%requests%"},
		{"specialrequests", "%special%requests%"},
		{"special requests", "special%requests"},
		{"special requests!", "special%requests"},
		{"héé-é", "h%é%é"},
		{"héé", "h%é%é"},
		{"50% off", `50\%%off`},
		{"50x off", `50\%%off`},
		{"abab", "ab%ab"},
		{"aba", "ab%ba"},
	} {
		check(c[0], c[1])
	}
}
