package expr

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDorisMathFunctions: examples from Doris's manual pages
// (numeric-functions: ROUND_BANKERS, WIDTH_BUCKET, RANDOM; encrypt-digest:
// MURMUR_HASH3_32/64, XXHASH_32/64) marked "doc", MySQL's manual for CONV,
// the rest by hand.
func TestDorisMathFunctions(t *testing.T) {
	mem := newGo()
	b := testBatch(mem)
	c := cols(b)
	b.Release()
	k, s := c["k"], c["s"]
	S := func(v string) Expr { return Str(v) }
	D := func(v string) Expr { return must(Decimal(v)) }
	dt := func(v string) Expr { return must(Cast(S(v), Date32T())) }
	runDorisCases(t, []dorisCase{
		{name: "bin", args: []Expr{Int(12)}, want: "1100"},
		{name: "bin", args: []Expr{Int(0)}, want: "0"},
		{name: "bin", args: []Expr{Int(-1)}, want: strings.Repeat("1", 64)},
		{name: "bin", args: []Expr{k}, rows: []string{"1", "10", "11"}},
		{name: "conv", args: []Expr{S("a"), Int(16), Int(2)}, want: "1010"},
		{name: "conv", args: []Expr{S("6E"), Int(18), Int(8)}, want: "172"},
		{name: "conv", args: []Expr{Int(-17), Int(10), Int(-18)}, want: "-H"},
		{name: "conv", args: []Expr{S("-17"), Int(10), Int(16)}, want: "FFFFFFFFFFFFFFEF"},
		{name: "conv", args: []Expr{S("zz"), Int(36), Int(10)}, want: "1295"},
		{name: "conv", args: []Expr{S("12x"), Int(10), Int(2)}, want: "1100"},
		{name: "conv", args: []Expr{S("x"), Int(10), Int(10)}, want: "0"},
		{name: "conv", args: []Expr{S("1"), Int(1), Int(10)}, want: "NULL"},
		{name: "conv", args: []Expr{Int(255), Int(10), Int(16)}, want: "FF"},
		{name: "conv", args: []Expr{S("FFFFFFFFFFFFFFFFFFFF"), Int(16), Int(10)}, want: "18446744073709551615"},
		{name: "round_bankers", args: []Expr{D("0.4")}, want: "0"},   // doc
		{name: "round_bankers", args: []Expr{D("-3.5")}, want: "-4"}, // doc
		{name: "round_bankers", args: []Expr{D("-3.4")}, want: "-3"}, // doc
		{name: "round_bankers", args: []Expr{D("2.5")}, want: "2"},
		{name: "round_bankers", args: []Expr{D("10.755"), Int(2)}, want: "10.76"},
		{name: "round_bankers", args: []Expr{D("10.745"), Int(2)}, want: "10.74"},
		{name: "round_bankers", args: []Expr{D("1667.2725"), Int(2)}, want: "1667.27"},   // doc
		{name: "round_bankers", args: []Expr{D("-1667.2725"), Int(2)}, want: "-1667.27"}, // doc
		{name: "round_bankers", args: []Expr{D("1667.2725"), Int(-2)}, want: "1700"},     // doc
		{name: "round_bankers", args: []Expr{Float(2.5)}, want: "2"},
		{name: "round_bankers", args: []Expr{Float(-0.5)}, want: "0"},
		{name: "round_bankers", args: []Expr{Int(25), Int(-1)}, want: "20"},
		{name: "round_bankers", args: []Expr{Int(35), Int(-1)}, want: "40"},
		{name: "round_bankers", args: []Expr{Int(-25), Int(-1)}, want: "-20"},
		{name: "round_bankers", args: []Expr{Int(7)}, want: "7"},
		{name: "width_bucket", args: []Expr{Int(290000), Int(200000), Int(600000), Int(4)}, want: "1"}, // doc
		{name: "width_bucket", args: []Expr{D("399999.99"), Int(200000), Int(600000), Int(4)}, want: "2"},
		{name: "width_bucket", args: []Expr{Int(400000), Int(200000), Int(600000), Int(4)}, want: "3"},
		{name: "width_bucket", args: []Expr{Int(510000), Int(200000), Int(600000), Int(4)}, want: "4"},
		{name: "width_bucket", args: []Expr{Int(610000), Int(200000), Int(600000), Int(4)}, want: "5"},
		{name: "width_bucket", args: []Expr{Int(100), Int(200000), Int(600000), Int(4)}, want: "0"},
		{name: "width_bucket", args: []Expr{dt("2022-11-18"), dt("2023-11-18"), dt("2027-11-18"), Int(4)}, want: "0"}, // doc
		{name: "width_bucket", args: []Expr{dt("2024-11-18"), dt("2023-11-18"), dt("2027-11-18"), Int(4)}, want: "2"}, // doc
		{name: "width_bucket", args: []Expr{dt("2026-11-18"), dt("2023-11-18"), dt("2027-11-18"), Int(4)}, want: "4"}, // doc
		{name: "width_bucket", args: []Expr{dt("2027-11-18"), dt("2023-11-18"), dt("2027-11-18"), Int(4)}, want: "5"}, // doc
		{name: "width_bucket", args: []Expr{Int(9), Int(10), Int(0), Int(5)}, want: "1"},
		{name: "width_bucket", args: []Expr{k, Int(0), Int(4), Int(2)}, rows: []string{"1", "2", "2"}},
		{name: "normal_cdf", args: []Expr{Int(10), Int(9), Int(10)}, want: "0.5"},
		{name: "normal_cdf", args: []Expr{Int(10), Int(0), Int(10)}, want: "NULL"},
		{name: "normal_cdf", args: []Expr{Int(10), Int(-1), Int(10)}, want: "NULL"},
		{name: "bit_shift_left", args: []Expr{Int(1), Int(62)}, want: "4611686018427387904"},
		{name: "bit_shift_left", args: []Expr{Int(1), Int(63)}, want: "-9223372036854775808"},
		{name: "bit_shift_left", args: []Expr{Int(1), Int(64)}, want: "0"},
		{name: "bit_shift_right", args: []Expr{Int(-1), Int(1)}, want: "9223372036854775807"},
		{name: "bit_shift_right", args: []Expr{Int(1024), Int(3)}, want: "128"},
		{name: "bit_shift_left", args: []Expr{k, Int(2)}, rows: []string{"4", "8", "12"}},
		{name: "murmur_hash3_32", args: []Expr{nullS()}, want: "NULL"},                               // doc
		{name: "murmur_hash3_32", args: []Expr{S("hello")}, want: "1321743225"},                      // doc
		{name: "murmur_hash3_32", args: []Expr{S("hello"), S("world")}, want: "984713481"},           // doc
		{name: "murmur_hash3_64", args: []Expr{S("hello")}, want: "-3215607508166160593"},            // doc
		{name: "murmur_hash3_64", args: []Expr{S("hello"), S("world")}, want: "3583109472027628045"}, // doc
		{name: "xxhash_32", args: []Expr{S("hello")}, want: "-83855367"},                             // doc
		{name: "xxhash_32", args: []Expr{S("hello"), S("world")}, want: "-920844969"},                // doc
		{name: "xxhash_64", args: []Expr{S("hello")}, want: "-7685981735718036227"},                  // doc
		{name: "xxhash_64", args: []Expr{S("hello"), S("world")}, want: "7001965798170371843"},       // doc
		{name: "xxhash_64", args: []Expr{s}, rows: []string{must(evalConst(t, "xxhash_64", S("abc"))), must(evalConst(t, "xxhash_64", S("Hello"))), "NULL"}},
	})
	runErrCases(t, []errCase{
		{"width_bucket", []Expr{Int(1), Int(0), Int(10), Int(0)}, ErrType},
		{"width_bucket", []Expr{Int(1), Int(5), Int(5), Int(2)}, ErrType},
		{"random", []Expr{Int(5), Int(1)}, ErrType},
		{"rand", []Expr{k}, ErrUnsupported},
		{"round_bankers", []Expr{Float(1), k}, ErrUnsupported},
	})
	// normal_cdf(0, 1, 1.96) is the familiar 0.9750021048517795.
	if got := must(evalConst(t, "normal_cdf", Int(0), Int(1), Float(1.96))); !near(got, 0.9750021048517795) {
		t.Errorf("normal_cdf(0, 1, 1.96) = %s", got)
	}
	// Randomness: rand() in [0, 1); a seeded rand repeats its sequence
	// from a fresh call site; random(a, b) stays in [a, b].
	seq := func() []string { r, _ := dorisEval(t, must(Func("rand", Int(7)))); return r }
	a1, a2 := seq(), seq()
	if strings.Join(a1, ",") != strings.Join(a2, ",") || a1[0] == a1[1] {
		t.Errorf("rand(7) sequences %q and %q", a1, a2)
	}
	for _, e := range []Expr{must(Func("rand")), must(Func("random", Int(3)))} {
		rows, _ := dorisEval(t, e)
		for _, r := range rows {
			if f, err := strconv.ParseFloat(r, 64); err != nil || f < 0 || f >= 1 {
				t.Errorf("%s gave %q", e, r)
			}
		}
	}
	rows, _ := dorisEval(t, must(Func("random", Int(-20), Int(-10))))
	for _, r := range rows {
		if n, err := strconv.Atoi(r); err != nil || n < -20 || n > -10 {
			t.Errorf("random(-20, -10) gave %q", r)
		}
	}
}

// TestHashReferenceVectors: the published reference values of MurmurHash3
// (x86_32) and xxHash (XXH32).
func TestHashReferenceVectors(t *testing.T) {
	for _, c := range []struct {
		in   string
		seed uint32
		want uint32
	}{{"", 0, 0}, {"", 1, 0x514E28B7}, {"", 0xffffffff, 0x81F16F39}, {"\x00\x00\x00\x00", 0, 0x2362F9DE},
		{"Hello, world!", 1234, 0xFAF6CDB3}, {"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2FA826CD}} {
		if got := murmur3x86_32(c.in, c.seed); got != c.want {
			t.Errorf("murmur3_32(%q, %#x) = %#x, want %#x", c.in, c.seed, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want uint32
	}{{"", 0x02CC5D05}, {"a", 0x550D7456}, {"abc", 0x32D153FF}, {"Nobody inspects the spammish repetition", 0xE2293B2F}} {
		if got := xxhash32(c.in, 0); got != c.want {
			t.Errorf("xxh32(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

func evalConst(t *testing.T, name string, args ...Expr) (string, error) {
	t.Helper()
	e, err := Func(name, args...)
	if err != nil {
		return "", err
	}
	r, err := dorisEval(t, e)
	if err != nil {
		return "", err
	}
	return r[0], nil
}

func near(s string, want float64) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && math.Abs(f-want) < 1e-12
}

// FuzzDorisParsers: the hand-written readers behind the Doris functions
// (ISO dates, TIME literals, CONV digits, URL hosts, regexp replacement
// templates, width_bucket's arithmetic) never panic, and what they accept
// is in range.
func FuzzDorisParsers(f *testing.F) {
	for _, s := range []string{"2023-W01-1", "2024-366", "0522-W53", "-838:59:59.999999", "839:00:00", "zz", "-17",
		"svn+ssh://u@h:80/p", `\1\\$0`, "2023-10", "W", "2023-W", "1:2:3"} {
		f.Add(s, int64(16), int64(-36))
	}
	f.Fuzz(func(t *testing.T, s string, a, b int64) {
		if d, ok := parseISODate(s); ok && (d.Year() < 0 || d.Year() > 10000) {
			t.Fatalf("parseISODate(%q) = %v", s, d)
		}
		if us, ok := parseTimeValue(s); ok && (us > maxTimeUs+usSecond || us < -maxTimeUs-usSecond) {
			t.Fatalf("parseTimeValue(%q) = %d", s, us)
		}
		_ = conv(s, a, b)
		_ = urlHost(s)
		_ = soundex(s)
		_ = formEncode(s)
		_ = parseURLPart(s, "FILE", "", false)
		if re, err := regexp.Compile(`(a)(b)?`); err == nil {
			tmpl := s[:min(len(s), 16)] // a long template times many matches is the caller's bound (replaceBound)
			if replaceBound(re, s, tmpl, a%2 == 0) <= MaxStringBytes {
				_ = regexpReplace(re, s, tmpl, a%2 == 0)
			}
		}
		if n := b; n > 0 {
			if got := bucketOf(float64(a%1000)/1000, n); got < 1 || got > n {
				if a%1000 >= 0 {
					t.Fatalf("bucketOf(%v, %d) = %d", float64(a%1000)/1000, n, got)
				}
			}
		}
	})
}
