package expr

import (
	"regexp"
	"strings"
	"testing"
)

// TestDorisStringFunctions: examples from Doris's manual pages
// (string-functions: REGEXP_REPLACE, REGEXP_EXTRACT_ALL, FORMAT_NUMBER,
// QUOTE, APPEND_TRAILING_CHAR_IF_ABSENT, PARSE_URL, SUB_REPLACE,
// EXTRACT_URL_PARAMETER, URL_ENCODE) marked "doc", MySQL's manual for
// OVERLAY (= INSERT), the Soundex rules for soundex, the rest by hand.
func TestDorisStringFunctions(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k, s := c["k"], c["s"]
	S := func(v string) Expr { return Str(v) }
	D := func(v string) Expr { return must(Decimal(v)) }
	u := S("https://user:pw@host.com:8080/p/a?x=1&y=2#frag")
	runDorisCases(t, []dorisCase{
		{name: "regexp_replace", args: []Expr{S("a b c"), S(" "), S("-")}, want: "a-b-c"},        // doc
		{name: "regexp_replace", args: []Expr{S("a b c"), S("(b)"), S(`<\1>`)}, want: "a <b> c"}, // doc
		{name: "regexp_replace", args: []Expr{S("abcabc"), S("b"), S("$x")}, want: "a$xca$xc"},   // $ is literal
		{name: "regexp_replace", args: []Expr{s, S("[a-z]"), S("_")}, rows: []string{"___", "H____", "NULL"}},
		{name: "regexp_replace_one", args: []Expr{S("abcabc"), S("b"), S("X")}, want: "aXcabc"},
		{name: "length", args: []Expr{must(Func("regexp_replace", must(Func("repeat", S("ab"), Int(1<<18))), S("(a)b"), S(`\1\1\1`)))}, want: "786432"},
		{name: "regexp_replace_one", args: []Expr{S("abcab"), S("(a)(b)"), S(`\2\1`)}, want: "bacab"},
		{name: "regexp_extract_all", args: []Expr{S("AbCdE"), S("([[:lower:]]+)C([[:lower:]]+)")}, want: "['b']"},                                 // doc
		{name: "regexp_extract_all", args: []Expr{S("AbCdEfCg"), S("([[:lower:]]+)C([[:lower:]]+)")}, want: "['b','f']"},                          // doc
		{name: "regexp_extract_all", args: []Expr{S("abc=111, def=222, ghi=333"), S(`("[^"]+"|\w+)=("[^"]+"|\w+)`)}, want: "['abc','def','ghi']"}, // doc
		{name: "regexp_extract_all", args: []Expr{S("ABC"), S(`(\d+)`)}, want: ""},                                                                // doc
		{name: "regexp_extract_all", args: []Expr{S("abc"), S(`[a-z]`)}, want: ""},
		{name: "regexp_extract_all", args: []Expr{nullS(), S(`([a-z]+)`)}, want: "NULL"}, // doc
		{name: "regexp_extract_or_null", args: []Expr{S("AbCdE"), S("([[:lower:]]+)C([[:lower:]]+)"), Int(2)}, want: "d"},
		{name: "regexp_extract_or_null", args: []Expr{S("AbCdE"), S("([[:lower:]]+)C([[:lower:]]+)"), Int(3)}, want: "NULL"},
		{name: "regexp_extract_or_null", args: []Expr{S("ABCDE"), S("([[:lower:]]+)C"), Int(1)}, want: "NULL"},
		{name: "char", args: []Expr{Int(68), Int(111), Int(114), Int(105), Int(115)}, want: "Doris"},
		{name: "char", args: []Expr{Int(15049882), Int(15179199), Int(14989469)}, want: "多睿丝"}, // UTF-8 E5A49A E79DBF E4B89D
		{name: "char", args: []Expr{Int(65), Null(Int64T()), Int(66)}, want: "AB"},
		{name: "char", args: []Expr{Int(255)}, want: "NULL"},
		{name: "format_number", args: []Expr{Int(1500)}, want: "1.50K"},    // doc
		{name: "format_number", args: []Expr{Int(5000000)}, want: "5.00M"}, // doc
		{name: "format_number", args: []Expr{Int(999)}, want: "999"},       // doc
		{name: "format_number", args: []Expr{Float(-2.5e9)}, want: "-2.50B"},
		{name: "format_number", args: []Expr{Float(1.25e16)}, want: "12.50Q"},
		{name: "money_format", args: []Expr{D("17014116.67")}, want: "17,014,116.67"},
		{name: "money_format", args: []Expr{D("-123.456")}, want: "-123.46"},
		{name: "money_format", args: []Expr{Int(1000)}, want: "1,000.00"},
		{name: "money_format", args: []Expr{Float(-0.125)}, want: "-0.13"},
		{name: "money_format", args: []Expr{Int(-1234567)}, want: "-1,234,567.00"},
		{name: "money_format", args: []Expr{k}, rows: []string{"1.00", "2.00", "3.00"}},
		{name: "soundex", args: []Expr{S("Robert")}, want: "R163"},
		{name: "soundex", args: []Expr{S("Rupert")}, want: "R163"},
		{name: "soundex", args: []Expr{S("Tymczak")}, want: "T522"},
		{name: "soundex", args: []Expr{S("Pfister")}, want: "P236"},
		{name: "soundex", args: []Expr{S("Ashcraft")}, want: "A261"},
		{name: "soundex", args: []Expr{S("Honeyman")}, want: "H555"},
		{name: "soundex", args: []Expr{S("")}, want: ""},
		{name: "levenshtein", args: []Expr{S("kitten"), S("sitting")}, want: "3"},
		{name: "levenshtein", args: []Expr{S(""), S("abc")}, want: "3"},
		{name: "levenshtein", args: []Expr{S("数据库"), S("数据")}, want: "1"},
		{name: "overlay", args: []Expr{S("Quadratic"), Int(3), Int(4), S("What")}, want: "QuWhattic"},
		{name: "overlay", args: []Expr{S("Quadratic"), Int(-1), Int(4), S("What")}, want: "Quadratic"},
		{name: "overlay", args: []Expr{S("Quadratic"), Int(3), Int(100), S("What")}, want: "QuWhat"},
		{name: "sub_replace", args: []Expr{S("this is origin str"), S("NEW-STR"), Int(1)}, want: "tNEW-STRorigin str"}, // doc
		{name: "sub_replace", args: []Expr{S("doris"), S("***"), Int(1), Int(2)}, want: "d***is"},                      // doc
		{name: "sub_replace", args: []Expr{S("abc"), S("x"), Int(5)}, want: "NULL"},
		{name: "count_substrings", args: []Expr{S("a1b1c1d"), S("1")}, want: "3"},
		{name: "count_substrings", args: []Expr{S("aaa"), S("aa")}, want: "1"},
		{name: "count_substrings", args: []Expr{S(",,a,b,c,"), S(",")}, want: "5"},
		{name: "count_substrings", args: []Expr{S("abc"), S("")}, want: "0"},
		{name: "trim_in", args: []Expr{S("  ab  ")}, want: "ab"},
		{name: "trim_in", args: []Expr{S("abcba"), S("ab")}, want: "c"},
		{name: "ltrim_in", args: []Expr{S("abcba"), S("ab")}, want: "cba"},
		{name: "rtrim_in", args: []Expr{S("abcba"), S("ab")}, want: "abc"},
		{name: "replace_empty", args: []Expr{S("abc"), S(""), S("x")}, want: "xaxbxcx"},
		{name: "replace_empty", args: []Expr{S(""), S(""), S("x")}, want: "x"},
		{name: "replace_empty", args: []Expr{S("abc"), S("b"), S("XX")}, want: "aXXc"},
		{name: "append_trailing_char_if_absent", args: []Expr{S("a"), S("c")}, want: "ac"},     // doc
		{name: "append_trailing_char_if_absent", args: []Expr{S("ac"), S("c")}, want: "ac"},    // doc
		{name: "append_trailing_char_if_absent", args: []Expr{S("ac"), S("cd")}, want: "accd"}, // doc
		{name: "quote", args: []Expr{S("hello")}, want: "'hello'"},                             // doc
		{name: "quote", args: []Expr{S("It's a test")}, want: `'It\'s a test'`},                // doc
		{name: "quote", args: []Expr{nullS()}, want: "NULL"},                                   // doc: the word NULL
		{name: "quote", args: []Expr{S("")}, want: "''"},                                       // doc
		{name: "quote", args: []Expr{S(`aaa\`)}, want: `'aaa\\'`},
		{name: "field", args: []Expr{S("b"), S("a"), S("b"), S("c")}, want: "2"},
		{name: "field", args: []Expr{S("d"), S("a"), S("b")}, want: "0"},
		{name: "field", args: []Expr{nullS(), S("a")}, want: "0"},
		{name: "field", args: []Expr{Int(2), Int(1), D("2.0"), Int(3)}, want: "2"},
		{name: "field", args: []Expr{k, Int(3), Int(2), Int(1)}, rows: []string{"3", "2", "1"}},
		{name: "split_by_string", args: []Expr{S("a1b1c1d"), S("1")}, want: `["a", "b", "c", "d"]`},
		{name: "split_by_string", args: []Expr{S(",,,"), S(",")}, want: `["", "", "", ""]`},
		{name: "split_by_string", args: []Expr{S(""), S(",")}, want: `[]`},
		{name: "split_by_string", args: []Expr{S("abc"), S("")}, want: `["a", "b", "c"]`},
		{name: "digital_masking", args: []Expr{S("13812345678")}, want: "138****5678"},                                       // doc
		{name: "digital_masking", args: []Expr{S("123")}, want: "123****123"},                                                // doc
		{name: "digital_masking", args: []Expr{S("13812ṭṛ34678")}, want: "138****4678"},                                      // doc
		{name: "split_by_regexp", args: []Expr{S("abcde"), S("")}, want: `["a", "b", "c", "d", "e"]`},                        // doc
		{name: "split_by_regexp", args: []Expr{S("a12bc23de345f"), S(`\d+`)}, want: `["a", "bc", "de", "f"]`},                // doc
		{name: "split_by_regexp", args: []Expr{S(""), S(",")}, want: `[""]`},                                                 // doc
		{name: "split_by_regexp", args: []Expr{S("hello"), S("xyz")}, want: `["hello"]`},                                     // doc
		{name: "split_by_regexp", args: []Expr{S("a,b,c,d,e"), S(","), Int(3)}, want: `["a", "b", "c,d,e"]`},                 // doc
		{name: "split_by_regexp", args: []Expr{S("1-2-3-4-5"), S("-"), Int(0)}, want: `["1", "2", "3", "4", "5"]`},           // doc: 0 is no limit
		{name: "split_by_regexp", args: []Expr{S("TheQuickBrownFox"), S("[A-Z]")}, want: `["", "he", "uick", "rown", "ox"]`}, // doc
		{name: "split_by_regexp", args: []Expr{S("123abc456def"), S("[a-z]+")}, want: `["123", "456", ""]`},                  // doc
		{name: "uncompress", args: []Expr{must(Func("compress", S("abc")))}, want: "abc"},
		{name: "uncompress", args: []Expr{must(Func("compress", must(Func("repeat", S("xyz"), Int(1000)))))}, want: strings.Repeat("xyz", 1000)},
		{name: "uncompress", args: []Expr{S("\x03\x00\x00\x00\x78\x9c\x4b\x4c\x4a\x06\x00\x02\x4d\x01\x27")}, want: "abc"}, // doc: compress('abc') = 0x03000000789C4B4C4A0600024D0127
		{name: "uncompress", args: []Expr{S("\x03\x00\x00\x00garbage")}, want: "NULL"},
		{name: "compress", args: []Expr{S("")}, want: ""},
		{name: "parse_url", args: []Expr{S("https://doris.apache.org/"), S("HOST")}, want: "doris.apache.org"}, // doc
		{name: "parse_url", args: []Expr{S("https://doris.apache.org/"), nullS()}, want: "NULL"},               // doc
		{name: "parse_url", args: []Expr{u, S("PROTOCOL")}, want: "https"},
		{name: "parse_url", args: []Expr{u, S("path")}, want: "/p/a"},
		{name: "parse_url", args: []Expr{u, S("QUERY")}, want: "x=1&y=2"},
		{name: "parse_url", args: []Expr{u, S("QUERY"), S("y")}, want: "2"},
		{name: "parse_url", args: []Expr{u, S("QUERY"), S("z")}, want: "NULL"},
		{name: "parse_url", args: []Expr{u, S("REF")}, want: "frag"},
		{name: "parse_url", args: []Expr{u, S("AUTHORITY")}, want: "user:pw@host.com:8080"},
		{name: "parse_url", args: []Expr{u, S("FILE")}, want: "/p/a?x=1&y=2"},
		{name: "parse_url", args: []Expr{u, S("USERINFO")}, want: "user:pw"},
		{name: "parse_url", args: []Expr{u, S("PORT")}, want: "8080"},
		{name: "parse_url", args: []Expr{S("not a url"), S("HOST")}, want: "NULL"},
		{name: "extract_url_parameter", args: []Expr{S("http://doris.apache.org?k1=aa&k2=bb&test=cc#999"), S("k2")}, want: "bb"}, // doc
		{name: "extract_url_parameter", args: []Expr{S("http://doris.apache.org?k1=aa&k2=bb&test=cc#999"), S("k9")}, want: ""},
		{name: "url_encode", args: []Expr{S("https://doris.apache.org/zh-CN/docs/sql-manual/")}, want: "https%3A%2F%2Fdoris.apache.org%2Fzh-CN%2Fdocs%2Fsql-manual%2F"}, // doc
		{name: "url_encode", args: []Expr{S("a b*~é")}, want: "a+b*%7E%C3%A9"},
		{name: "url_decode", args: []Expr{S("https%3A%2F%2Fdoris.apache.org%2Fzh-CN")}, want: "https://doris.apache.org/zh-CN"},
		{name: "url_decode", args: []Expr{S("a+b%20c")}, want: "a b c"},
		{name: "url_decode", args: []Expr{S("%zz")}, want: "NULL"},
		{name: "protocol", args: []Expr{S("https://doris.apache.org/")}, want: "https"},
		{name: "protocol", args: []Expr{S("doris.apache.org")}, want: ""},
		{name: "domain", args: []Expr{S("https://doris.apache.org/docs")}, want: "doris.apache.org"},
		{name: "domain", args: []Expr{S("svn+ssh://some.svn-hosting.com:80/repo/trunk")}, want: "some.svn-hosting.com"},
		{name: "domain", args: []Expr{S("www.baidu.com/x")}, want: "www.baidu.com"},
		{name: "domain_without_www", args: []Expr{S("https://www.apache.org/x")}, want: "apache.org"},
		{name: "top_level_domain", args: []Expr{S("https://www.baidu.com.cn")}, want: "cn"},
		{name: "top_level_domain", args: []Expr{S("localhost")}, want: ""},
		{name: "domain", args: []Expr{s}, rows: []string{"abc", "Hello", "NULL"}},
	})
	runErrCases(t, []errCase{
		{"regexp_replace", []Expr{S("a"), S("("), S("b")}, ErrType},
		{"regexp_extract_all", []Expr{S("hello (world) 123"), S("([[:alpha:]+")}, ErrType}, // doc
		{"parse_url", []Expr{S("https://a.b/"), S("FOO")}, ErrType},
		{"levenshtein", []Expr{S("a")}, ErrArity},
		// 2^18 matches × 100 bytes, 2^20 × 17 group copies: refused before
		// anything is built.
		{"regexp_replace", []Expr{must(Func("repeat", S("a"), Int(1<<18))), S("a"), must(Func("repeat", S("b"), Int(100)))}, ErrTooLarge},
		{"regexp_replace", []Expr{must(Func("repeat", S("ab"), Int(1<<20))), S("(a)b"), S(strings.Repeat(`\1`, 17))}, ErrTooLarge},
	})
	// uuid: a fresh version 4 UUID on every row.
	e := must(Func("uuid"))
	rows, err := dorisEval(t, e)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, r := range rows {
		if !re.MatchString(r) {
			t.Errorf("uuid() = %q", r)
		}
	}
	if rows[0] == rows[1] || rows[1] == rows[2] {
		t.Errorf("uuid() repeats: %q", rows)
	}
}
