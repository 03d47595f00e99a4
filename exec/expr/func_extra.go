package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"math"
	"math/bits"
	"strings"
	"time"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
)

// extraFunc holds library functions added for Doris's function list
// (fe/bind/testdata/doris_functions.txt): trigonometry and other float
// math, hex/base64/digests, a few string helpers, and date helpers that
// are other functions in another spelling (quarters_add, *_diff, extract).
// Domain errors give NULL, as in Doris.
func extraFunc(name string, args []Expr) (builder, bool) {
	F, I, S := Float64T(), Int64T(), StringT()
	fv := func(v []any, i int) float64 { return v[i].(float64) }
	sv := func(v []any, i int) string { return v[i].(string) }
	// float is a strict function of n float arguments; NaN and ±Inf give NULL.
	float := func(n int, fn func(x []float64) float64) builder {
		return func() (Expr, error) {
			if err := arity(name, args, n, n); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{F}, F, func(_ *Env, v []any) any {
				x := make([]float64, n)
				for i := range x {
					x[i] = fv(v, i)
				}
				r := fn(x)
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return nil
				}
				return r
			}), nil
		}
	}
	f1 := func(fn func(float64) float64) builder { return float(1, func(x []float64) float64 { return fn(x[0]) }) }
	str := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, fn func(v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return strictFunc(name, args, types, ret, func(_ *Env, v []any) any { return fn(v) }), nil
		}
	}
	digest := func(h func() hash.Hash) builder {
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			d := h()
			d.Write([]byte(sv(v, 0)))
			return hex.EncodeToString(d.Sum(nil))
		})
	}
	// alias calls another function with rewritten arguments.
	alias := func(lo, hi int, fn func() (Expr, error)) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return fn()
		}
	}
	switch name {
	case "sin":
		return f1(math.Sin), true
	case "cos":
		return f1(math.Cos), true
	case "tan":
		return f1(math.Tan), true
	case "cot":
		return f1(func(x float64) float64 {
			if t := math.Tan(x); t != 0 {
				return 1 / t
			}
			return math.NaN()
		}), true
	case "asin":
		return f1(math.Asin), true // NaN outside [-1, 1]: NULL
	case "acos":
		return f1(math.Acos), true
	case "atan":
		if len(args) == 2 {
			return float(2, func(x []float64) float64 { return math.Atan2(x[0], x[1]) }), true
		}
		return f1(math.Atan), true
	case "atan2":
		return float(2, func(x []float64) float64 { return math.Atan2(x[0], x[1]) }), true
	case "sinh":
		return f1(math.Sinh), true
	case "cosh":
		return f1(math.Cosh), true
	case "tanh":
		return f1(math.Tanh), true
	case "asinh":
		return f1(math.Asinh), true
	case "acosh":
		return f1(math.Acosh), true
	case "atanh":
		return f1(math.Atanh), true // ±1 give ±Inf: NULL
	case "degrees":
		return f1(func(x float64) float64 { return x * 180 / math.Pi }), true
	case "radians":
		return f1(func(x float64) float64 { return x * math.Pi / 180 }), true
	case "cbrt":
		return f1(math.Cbrt), true
	case "e":
		return alias(0, 0, func() (Expr, error) { return Float(math.E), nil }), true
	case "log":
		if len(args) == 1 { // MySQL: the natural logarithm
			return f1(func(x float64) float64 {
				if x <= 0 {
					return math.NaN()
				}
				return math.Log(x)
			}), true
		}
		return float(2, func(x []float64) float64 {
			b, v := x[0], x[1]
			if b <= 0 || b == 1 || v <= 0 {
				return math.NaN()
			}
			return math.Log(v) / math.Log(b)
		}), true
	case "fmod":
		return float(2, func(x []float64) float64 {
			if x[1] == 0 {
				return math.NaN()
			}
			return math.Mod(x[0], x[1])
		}), true
	case "pmod":
		if len(args) == 2 && isInt(args[0].DataType()) && isInt(args[1].DataType()) {
			return str(2, 2, []arrow.DataType{I}, I, func(v []any) any {
				a, b := v[0].(int64), v[1].(int64)
				if b == 0 {
					return nil
				}
				if b == -1 { // MinInt64 % -1 overflows in Go; the answer is 0
					return int64(0)
				}
				return (a%b + b) % b
			}), true
		}
		return float(2, func(x []float64) float64 {
			if x[1] == 0 {
				return math.NaN()
			}
			return math.Mod(math.Mod(x[0], x[1])+x[1], x[1])
		}), true

	case "bitand", "bitor", "bitxor":
		return str(2, 2, []arrow.DataType{I}, I, func(v []any) any {
			a, b := v[0].(int64), v[1].(int64)
			switch name {
			case "bitand":
				return a & b
			case "bitor":
				return a | b
			}
			return a ^ b
		}), true
	case "bitnot":
		return str(1, 1, []arrow.DataType{I}, I, func(v []any) any { return ^v[0].(int64) }), true
	case "bit_count":
		// The bits of the 64-bit two's complement: bit_count(-1) is 64.
		return str(1, 1, []arrow.DataType{I}, I, func(v []any) any { return int64(bits.OnesCount64(uint64(v[0].(int64)))) }), true
	case "positive":
		return alias(1, 1, func() (Expr, error) {
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return args[0], nil
		}), true
	case "negative":
		return alias(1, 1, func() (Expr, error) {
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return Arith(Sub, Int(0), args[0])
		}), true
	case "mask", "mask_first_n", "mask_last_n":
		// Upper-case letters become X, lower-case x, digits n (mask's
		// optional arguments give other characters: the first of each);
		// mask_first_n / mask_last_n mask only the first / last n.
		lo, hi := 1, 4
		if name != "mask" {
			lo, hi = 2, 2
		}
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			types := []arrow.DataType{S}
			if name != "mask" {
				types = []arrow.DataType{S, I}
			}
			return strictFunc(name, args, types, S, func(_ *Env, v []any) any {
				repl := [3]rune{'X', 'x', 'n'}
				n, first := int64(math.MaxInt64), true
				if name == "mask" {
					for i := 1; i < len(v); i++ {
						if r, _ := utf8DecodeFirst(sv(v, i)); r >= 0 {
							repl[i-1] = r
						}
					}
				} else {
					n, first = v[1].(int64), name == "mask_first_n"
				}
				rs := []rune(sv(v, 0))
				for i, r := range rs {
					pos := int64(i)
					if !first {
						pos = int64(len(rs) - 1 - i)
					}
					if pos >= n {
						continue
					}
					switch {
					case r >= 'A' && r <= 'Z':
						rs[i] = repl[0]
					case r >= 'a' && r <= 'z':
						rs[i] = repl[1]
					case r >= '0' && r <= '9':
						rs[i] = repl[2]
					}
				}
				return string(rs)
			}), nil
		}, true
	case "hex":
		if len(args) == 1 && isInt(args[0].DataType()) {
			// MySQL/Doris: an integer's two's-complement bits, upper case.
			return str(1, 1, []arrow.DataType{I}, S, func(v []any) any {
				return strings.ToUpper(hexUint(uint64(v[0].(int64))))
			}), true
		}
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			s := sv(v, 0)
			if n := 2 * int64(len(s)); n > MaxStringBytes {
				return tooLarge(name, n)
			}
			return strings.ToUpper(hex.EncodeToString([]byte(s)))
		}), true
	case "unhex":
		// Invalid input (odd length, a non-hex digit) gives the empty
		// string, as Doris does.
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			b, err := hex.DecodeString(sv(v, 0))
			if err != nil {
				return ""
			}
			return string(b)
		}), true
	case "to_base64":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			s := sv(v, 0)
			if n := int64(base64.StdEncoding.EncodedLen(len(s))); n > MaxStringBytes {
				return tooLarge(name, n)
			}
			return base64.StdEncoding.EncodeToString([]byte(s))
		}), true
	case "from_base64":
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			b, err := base64.StdEncoding.DecodeString(sv(v, 0))
			if err != nil {
				return nil
			}
			return string(b)
		}), true
	case "md5", "md5sum":
		if name == "md5sum" {
			return str(1, -1, []arrow.DataType{S}, S, func(v []any) any {
				d := md5.New()
				for i := range v {
					d.Write([]byte(sv(v, i)))
				}
				return hex.EncodeToString(d.Sum(nil))
			}), true
		}
		return digest(md5.New), true
	case "sha", "sha1":
		return digest(sha1.New), true
	case "sha2":
		return str(2, 2, []arrow.DataType{S, I}, S, func(v []any) any {
			var d hash.Hash
			switch v[1].(int64) {
			case 224:
				d = sha256.New224()
			case 256:
				d = sha256.New()
			case 384:
				d = sha512.New384()
			case 512:
				d = sha512.New()
			default:
				return nil
			}
			d.Write([]byte(sv(v, 0)))
			return hex.EncodeToString(d.Sum(nil))
		}), true
	case "crc32":
		return str(1, 1, []arrow.DataType{S}, I, func(v []any) any {
			return int64(crc32.ChecksumIEEE([]byte(sv(v, 0))))
		}), true
	case "initcap":
		// Upper-cases the first letter of every run of letters and digits,
		// lower-cases the rest.
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			var b strings.Builder
			start := true
			for _, r := range sv(v, 0) {
				word := unicode.IsLetter(r) || unicode.IsDigit(r)
				switch {
				case word && start:
					b.WriteRune(unicode.ToUpper(r))
				case word:
					b.WriteRune(unicode.ToLower(r))
				default:
					b.WriteRune(r)
				}
				start = !word
			}
			return b.String()
		}), true
	case "elt":
		return func() (Expr, error) {
			if err := arity(name, args, 2, -1); err != nil {
				return nil, err
			}
			// NULL only from the index: a NULL string is returned as NULL
			// only when chosen, so the function is not strict.
			cargs := make([]Expr, len(args))
			cargs[0] = coerce(args[0], I)
			for i, a := range args[1:] {
				cargs[i+1] = coerce(a, S)
			}
			return &rowFunc{name: name, args: cargs, ret: S, fn: func(_ *Env, v []any) any {
				n, ok := v[0].(int64)
				if !ok || n < 1 || n >= int64(len(v)) {
					return nil
				}
				return v[n]
			}}, nil
		}, true
	case "find_in_set":
		return str(2, 2, []arrow.DataType{S}, I, func(v []any) any {
			s, list := sv(v, 0), sv(v, 1)
			if strings.Contains(s, ",") {
				return int64(0)
			}
			for i, item := range strings.Split(list, ",") {
				if item == s {
					return int64(i + 1)
				}
			}
			return int64(0)
		}), true
	case "substring_index":
		return str(3, 3, []arrow.DataType{S, S, I}, S, func(v []any) any {
			return substringIndex(sv(v, 0), sv(v, 1), v[2].(int64))
		}), true
	case "strleft", "strright":
		return alias(2, 2, func() (Expr, error) { return Func(strings.TrimPrefix(name, "str"), args...) }), true
	case "null_or_empty", "not_null_or_empty":
		return alias(1, 1, func() (Expr, error) {
			want := name == "null_or_empty"
			return &rowFunc{name: name, args: []Expr{coerce(args[0], S)}, ret: BoolT(), fn: func(_ *Env, v []any) any {
				s, ok := v[0].(string)
				return (!ok || s == "") == want
			}}, nil
		}), true
	case "bit_length":
		return str(1, 1, []arrow.DataType{S}, I, func(v []any) any { return int64(8 * len(sv(v, 0))) }), true
	case "translate":
		// Each character of from is replaced by the one at the same place
		// in to, or removed when to is shorter; the first occurrence of a
		// repeated character in from wins.
		return str(3, 3, []arrow.DataType{S}, S, func(v []any) any {
			from, to := []rune(sv(v, 1)), []rune(sv(v, 2))
			m := map[rune]rune{}
			for i, r := range from {
				if _, ok := m[r]; ok {
					continue
				}
				if i < len(to) {
					m[r] = to[i]
				} else {
					m[r] = -1
				}
			}
			var b strings.Builder
			for _, r := range sv(v, 0) {
				if t, ok := m[r]; ok {
					if t >= 0 {
						b.WriteRune(t)
					}
					continue
				}
				b.WriteRune(r)
			}
			return b.String()
		}), true

	case "dayname", "monthname":
		return alias(1, 1, func() (Expr, error) {
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, S, func(_ *Env, v []any) any {
				t := wall(v[0])
				if name == "dayname" {
					return t.Weekday().String()
				}
				return t.Month().String()
			}), nil
		}), true
	case "weekofyear":
		return alias(1, 1, func() (Expr, error) {
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				_, w := wall(v[0]).ISOWeek()
				return int64(w)
			}), nil
		}), true
	case "week", "yearweek":
		// MySQL's eight week modes (0, Sunday-first weeks with week 0 before
		// the first Sunday, is the default), which Doris follows.
		return func() (Expr, error) {
			if err := arity(name, args, 1, 2); err != nil {
				return nil, err
			}
			mode := int64(0)
			if len(args) == 2 {
				l, ok := args[1].(*Literal)
				m, isInt := int64(0), false
				if ok {
					m, isInt = l.Value.(int64)
				}
				if !isInt {
					return nil, errorf(ErrUnsupported, "%s: the mode must be an integer constant, not %s", name, args[1])
				}
				mode = m
			}
			b := weekMode(int(mode))
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				t := wall(v[0])
				if name == "week" {
					w, _ := calcWeek(t.Year(), int(t.Month()), t.Day(), b)
					return int64(w)
				}
				w, y := calcWeek(t.Year(), int(t.Month()), t.Day(), b|weekYear)
				return int64(y)*100 + int64(w)
			}), nil
		}, true
	case "microsecond":
		return alias(1, 1, func() (Expr, error) {
			return strictFunc(name, []Expr{temporalArg(args[0])}, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				return int64(wall(v[0]).Nanosecond() / 1000)
			}), nil
		}), true
	case "from_days":
		// Day 1 is 0000-01-01 (see to_days); 719528 is 1970-01-01.
		return str(1, 1, []arrow.DataType{I}, Date32T(), func(v []any) any {
			n := v[0].(int64)
			if n < 1 || n > 3652424 { // 9999-12-31
				return nil
			}
			return arrow.Date32(n - 719528)
		}), true
	case "makedate":
		return str(2, 2, []arrow.DataType{I}, Date32T(), func(v []any) any {
			y, d := v[0].(int64), v[1].(int64)
			if d <= 0 || y < 0 || y > 9999 || d > 366*10000 {
				return nil
			}
			t := time.Date(int(y), 1, int(d), 0, 0, 0, 0, time.UTC)
			if t.Year() > 9999 {
				return nil
			}
			return dateOf(t)
		}), true
	case "utc_timestamp":
		return alias(0, 0, func() (Expr, error) {
			return &rowFunc{name: name, ret: &arrow.TimestampType{Unit: arrow.Second}, fn: func(env *Env, _ []any) any {
				return fromWall(env.Now.UTC().Truncate(time.Second))
			}}, nil
		}), true
	case "quarters_add", "quarters_sub":
		return alias(2, 2, func() (Expr, error) {
			n, err := Arith(Mul, coerce(args[1], I), Int(3))
			if err != nil {
				return nil, err
			}
			return Func("months_"+strings.TrimPrefix(name, "quarters_"), args[0], n)
		}), true
	case "years_diff", "months_diff", "weeks_diff", "days_diff", "hours_diff", "minutes_diff",
		"seconds_diff", "microseconds_diff":
		// X_diff(end, start) = TIMESTAMPDIFF(X, start, end).
		return alias(2, 2, func() (Expr, error) {
			unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(name, "_diff"), "s"))
			return Func("timestampdiff", Str(unit), args[1], args[0])
		}), true
	case "extract":
		// EXTRACT(unit FROM x) arrives as extract('UNIT', x).
		return alias(2, 2, func() (Expr, error) {
			var unit string
			l, ok := args[0].(*Literal)
			if ok {
				unit, ok = l.Value.(string)
			}
			if !ok {
				return nil, errorf(ErrType, "extract: the unit must be a keyword, got %s", args[0])
			}
			switch u := strings.ToUpper(unit); u {
			case "YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND":
				return Func(strings.ToLower(u), args[1])
			default:
				return nil, errorf(ErrUnsupported, "extract: unit %s", unit)
			}
		}), true
	}
	return nil, false
}

func hexUint(u uint64) string {
	const digits = "0123456789abcdef"
	if u == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for u > 0 {
		i--
		b[i] = digits[u&15]
		u >>= 4
	}
	return string(b[i:])
}

// substringIndex is MySQL's SUBSTRING_INDEX: the part of s before the
// count-th delim (from the left when count > 0, from the right when < 0).
func substringIndex(s, delim string, count int64) string {
	if delim == "" || count == 0 {
		return ""
	}
	if count > 0 {
		i := 0
		for k := int64(0); k < count; k++ {
			j := strings.Index(s[i:], delim)
			if j < 0 {
				return s
			}
			i += j + len(delim)
		}
		return s[:i-len(delim)]
	}
	end := len(s)
	for k := int64(0); k < -count; k++ {
		j := strings.LastIndex(s[:end], delim)
		if j < 0 {
			return s
		}
		end = j
	}
	return s[end+len(delim):]
}

// utf8DecodeFirst is the first rune of s, or -1 when s is empty.
func utf8DecodeFirst(s string) (rune, int) {
	for _, r := range s {
		return r, 1
	}
	return -1, 0
}
