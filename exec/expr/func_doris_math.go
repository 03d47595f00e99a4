package expr

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/zeebo/xxh3"
)

// dorisMathFunc holds the numeric and hash functions of Doris's list.
func dorisMathFunc(name string, args []Expr) (builder, bool) {
	I, F, S := Int64T(), Float64T(), StringT()
	str := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, fn func(v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return strictFunc(name, args, types, ret, func(_ *Env, v []any) any { return fn(v) }), nil
		}
	}
	switch name {
	case "bin":
		// The 64-bit two's complement in binary: bin(-1) is 64 ones.
		return str(1, 1, []arrow.DataType{I}, S, func(v []any) any {
			return strconv.FormatUint(uint64(v[0].(int64)), 2)
		}), true
	case "conv":
		return str(3, 3, []arrow.DataType{S, I, I}, S, func(v []any) any {
			return conv(v[0].(string), v[1].(int64), v[2].(int64))
		}), true
	case "round_bankers":
		return func() (Expr, error) { return roundBankers(name, args) }, true
	case "rand", "random":
		return func() (Expr, error) { return randomFunc(name, args) }, true
	case "width_bucket":
		// The bucket (1..n) of equal-width buckets over [lo, hi) that x
		// falls in; 0 below lo, n+1 at or above hi (Doris manual). Dates
		// count by their instant.
		return func() (Expr, error) {
			if err := arity(name, args, 4, 4); err != nil {
				return nil, err
			}
			cargs := make([]Expr, 4)
			for i, a := range args[:3] {
				t := a.DataType()
				switch {
				case isTemporal(t):
					cargs[i] = a
				case isNumericOrBool(t) || isString(t) || t.ID() == arrow.NULL:
					cargs[i] = coerce(a, F)
				default:
					return nil, errorf(ErrType, "%s: %s is not a number or date", name, TypeName(t))
				}
			}
			cargs[3] = coerce(args[3], I)
			num := func(x any) float64 {
				if f, ok := x.(float64); ok {
					return f
				}
				return float64(wallUs(x))
			}
			return strictFunc(name, cargs, []arrow.DataType{nil}, I, func(_ *Env, v []any) any {
				x, lo, hi, n := num(v[0]), num(v[1]), num(v[2]), v[3].(int64)
				if n <= 0 {
					return errorf(ErrType, "%s: the number of buckets must be positive, got %d", name, n)
				}
				if lo == hi || math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
					return errorf(ErrType, "%s: the bounds must differ", name)
				}
				if lo < hi {
					switch {
					case x < lo:
						return int64(0)
					case x >= hi:
						return n + 1
					}
					return bucketOf((x-lo)/(hi-lo), n)
				}
				// Descending bounds (SQL standard): buckets count down.
				switch {
				case x > lo:
					return int64(0)
				case x <= hi:
					return n + 1
				}
				return bucketOf((lo-x)/(lo-hi), n)
			}), nil
		}, true
	case "normal_cdf":
		// normal_cdf(mean, sd, x): P(X <= x) for X ~ N(mean, sd²); NULL
		// for sd <= 0.
		return func() (Expr, error) {
			if err := arity(name, args, 3, 3); err != nil {
				return nil, err
			}
			if err := numericArgs(name, args); err != nil {
				return nil, err
			}
			return strictFunc(name, args, []arrow.DataType{F}, F, func(_ *Env, v []any) any {
				mean, sd, x := v[0].(float64), v[1].(float64), v[2].(float64)
				if !(sd > 0) || math.IsInf(sd, 0) {
					return nil
				}
				r := 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2))
				if math.IsNaN(r) {
					return nil
				}
				return r
			}), nil
		}, true
	case "bit_shift_left", "bit_shift_right":
		// BIGINT shifts: left drops bits off the top (two's complement),
		// right is logical (zeros in); a negative or >= 64 shift gives 0.
		return withVec(str(2, 2, []arrow.DataType{I}, I, func(v []any) any {
			x, n := v[0].(int64), v[1].(int64)
			if n < 0 || n >= 64 {
				return int64(0)
			}
			if name == "bit_shift_left" {
				return int64(uint64(x) << n)
			}
			return int64(uint64(x) >> n)
		}), shiftKernel(name == "bit_shift_left")), true
	case "murmur_hash3_32", "murmur_hash3_64", "xxhash_32", "xxhash_64":
		// Hashes of the bytes of each argument in turn, each seeded with
		// the hash so far (Doris): murmur3 x86_32 seeded 104729 and
		// Doris's 64-bit murmur3 variant seeded 0; XXH32 and XXH3-64
		// seeded 0. 32-bit results are INT, 64-bit BIGINT, both signed.
		ret := I
		if strings.HasSuffix(name, "32") {
			ret = Int32T()
		}
		return withVec(func() (Expr, error) {
			if err := arity(name, args, 1, -1); err != nil {
				return nil, err
			}
			step := hashStep(name)
			return strictFunc(name, args, []arrow.DataType{S}, ret, func(_ *Env, v []any) any {
				var h uint64
				for i, x := range v {
					h = step(x.(string), h, i == 0)
				}
				if ret.ID() == arrow.INT32 {
					return int64(int32(uint32(h)))
				}
				return int64(h)
			}), nil
		}, hashKernel(name)), true
	}
	return nil, false
}

// hashStep is one argument's step of the hash function name (one of
// murmur_hash3_32/64, xxhash_32/64): the hash of b seeded with h, the hash
// of the arguments before it (first is set for the first argument).
func hashStep(name string) func(b string, h uint64, first bool) uint64 {
	switch name {
	case "murmur_hash3_32":
		return func(b string, h uint64, first bool) uint64 {
			seed := uint32(104729)
			if !first {
				seed = uint32(h)
			}
			return uint64(murmur3x86_32(b, seed))
		}
	case "murmur_hash3_64":
		return func(b string, h uint64, _ bool) uint64 { return murmur3x64_64(b, h) }
	case "xxhash_32":
		return func(b string, h uint64, _ bool) uint64 { return uint64(xxhash32(b, uint32(h))) }
	}
	return func(b string, h uint64, _ bool) uint64 { return xxh3.HashStringSeed(b, h) }
}

// bucketOf is the 1-based bucket of a fraction f in [0, 1) of the range
// split into n buckets, computed without overflowing int64 for any n.
func bucketOf(f float64, n int64) int64 {
	b := math.Floor(f * float64(n))
	if b >= float64(n) || b >= math.MaxInt64/2 {
		return n
	}
	return int64(b) + 1
}

// conv is MySQL's CONV: the longest prefix of s that is a number in base
// from (2..36, sign allowed), written in base |to|; a negative to writes
// it signed, a positive one as its unsigned 64-bit value. Bad bases give
// NULL; no digits give "0".
func conv(s string, from, to int64) any {
	if from < 0 {
		from = -from
	}
	signed := to < 0
	if to < 0 {
		to = -to
	}
	if from < 2 || from > 36 || to < 2 || to > 36 {
		return nil
	}
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var u uint64
	overflow := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d int64
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case c >= 'a' && c <= 'z':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int64(c-'A') + 10
		default:
			d = 99
		}
		if d >= from {
			break
		}
		hi, lo := bits.Mul64(u, uint64(from))
		lo2, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		u = lo2
		if overflow {
			u = math.MaxUint64
		}
	}
	if signed {
		var x int64
		switch {
		case overflow || u > math.MaxInt64:
			x = math.MaxInt64
			if neg {
				x = math.MinInt64
			}
		case neg:
			x = -int64(u)
		default:
			x = int64(u)
		}
		if x < 0 {
			return "-" + strings.ToUpper(strconv.FormatUint(uint64(-(x+1))+1, int(to)))
		}
		return strings.ToUpper(strconv.FormatInt(x, int(to)))
	}
	if neg {
		u = -u
	}
	return strings.ToUpper(strconv.FormatUint(u, int(to)))
}

// roundBankers rounds half to even: integers and decimals exactly, DOUBLE
// on its binary value (round_bankers(2.5) = 2, (3.5) = 4).
func roundBankers(name string, args []Expr) (Expr, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, err
	}
	if err := numericArgs(name, args); err != nil {
		return nil, err
	}
	digits := int64(0)
	if len(args) == 2 {
		l, ok := coerce(args[1], Int64T()).(*Literal)
		if !ok || l.Value == nil {
			return nil, errorf(ErrUnsupported, "%s: the number of digits must be a constant", name)
		}
		digits = l.Value.(int64)
	}
	if digits > 38 || digits < -38 {
		return nil, errorf(ErrType, "%s: %d digits is out of range", name, digits)
	}
	t := args[0].DataType()
	// half rounds q (with remainder r of divisor m) half to even.
	half := func(q, r, m decimal128.Num) decimal128.Num {
		twice := r.Abs().Mul(decimal128.FromI64(2))
		c := twice.Cmp(m)
		_, rem := q.Div(decimal128.FromI64(2))
		odd := rem.Sign() != 0
		if c > 0 || (c == 0 && odd) {
			if r.Sign() < 0 {
				return q.Sub(decimal128.FromI64(1))
			}
			return q.Add(decimal128.FromI64(1))
		}
		return q
	}
	switch {
	case isInt(t) || t.ID() == arrow.BOOL:
		if digits >= 0 {
			return coerce(args[0], Int64T()), nil
		}
		return strictFunc(name, args[:1], []arrow.DataType{Int64T()}, Int64T(), func(_ *Env, v []any) any {
			if -digits > 18 {
				return int64(0)
			}
			m := decimal128.GetScaleMultiplier(int(-digits))
			x := decimal128.FromI64(v[0].(int64))
			q, r := x.Div(m)
			out := half(q, r, m).Mul(m)
			b := out.BigInt()
			if !b.IsInt64() {
				return errorf(ErrOverflow, "%s: result out of BIGINT range", name)
			}
			return b.Int64()
		}), nil
	case isDecimal(t):
		p, s := decimalPS(t)
		ns := int32(max(min(digits, int64(s)), 0))
		outT := DecimalT(clampPrec(p-s+ns+1), ns)
		return strictFunc(name, args[:1], []arrow.DataType{nil}, outT, func(_ *Env, v []any) any {
			x := v[0].(decimal128.Num)
			if int64(s) <= digits {
				return x.IncreaseScaleBy(ns - s)
			}
			drop := int64(s) - digits
			if drop > 38 {
				return decimal128.FromI64(0)
			}
			m := decimal128.GetScaleMultiplier(int(drop))
			q, r := x.Div(m)
			q = half(q, r, m)
			if digits < 0 {
				return q.Mul(decimal128.GetScaleMultiplier(int(-digits)))
			}
			return q.IncreaseScaleBy(ns - int32(digits))
		}), nil
	}
	return strictFunc(name, args[:1], []arrow.DataType{Float64T()}, Float64T(), func(_ *Env, v []any) any {
		p := math.Pow10(int(digits))
		r := math.RoundToEven(v[0].(float64)*p) / p
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil
		}
		return r
	}), nil
}

// randomFunc: rand()/random() in [0, 1); rand(seed) a repeatable sequence
// from a constant seed (one generator per call site, so a statement's rows
// draw successive values); random(a, b) an integer in [a, b].
func randomFunc(name string, args []Expr) (Expr, error) {
	if err := arity(name, args, 0, 2); err != nil {
		return nil, err
	}
	consts := make([]int64, len(args))
	for i, a := range args {
		if err := numericArgs(name, []Expr{a}); err != nil {
			return nil, err
		}
		l, ok := coerce(a, Int64T()).(*Literal)
		if !ok {
			return nil, errorf(ErrUnsupported, "%s: the arguments must be constants", name)
		}
		if l.Value == nil {
			return Null(Float64T()), nil
		}
		consts[i] = l.Value.(int64)
	}
	switch len(args) {
	case 0:
		return &rowFunc{name: name, ret: Float64T(), fn: func(_ *Env, _ []any) any { return rand.Float64() }}, nil
	case 1:
		var mu sync.Mutex
		r := rand.New(rand.NewPCG(uint64(consts[0]), 0x9e3779b97f4a7c15))
		f := &rowFunc{name: name, ret: Float64T(), fn: func(_ *Env, _ []any) any {
			mu.Lock()
			defer mu.Unlock()
			return r.Float64()
		}}
		f.show = func() string { return name + "(" + strconv.FormatInt(consts[0], 10) + ")" }
		return f, nil
	}
	lo, hi := consts[0], consts[1]
	if lo > hi {
		return nil, errorf(ErrType, "%s(%d, %d): the lower bound is above the upper one", name, lo, hi)
	}
	span := uint64(hi - lo)
	f := &rowFunc{name: name, ret: Int64T(), fn: func(_ *Env, _ []any) any {
		if span == math.MaxUint64 {
			return int64(rand.Uint64())
		}
		return lo + int64(rand.Uint64N(span+1))
	}}
	f.show = func() string { return name + "(" + strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + ")" }
	return f, nil
}

// murmur3x86_32 is MurmurHash3's x86 32-bit function (Appleby's reference).
func murmur3x86_32(data string, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := le32(data[4*i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := data[4*n:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// murmur3x64_64 is Doris's 64-bit MurmurHash3 variant: the x64 mixing of
// 8-byte blocks into one lane, finished with fmix64 (Doris's
// murmur_hash3_x64_64, which murmur_hash3_64 calls).
func murmur3x64_64(data string, seed uint64) uint64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h := seed
	n := len(data) / 8
	mix := func(k uint64) uint64 {
		k *= c1
		k = bits.RotateLeft64(k, 31)
		return k * c2
	}
	for i := 0; i < n; i++ {
		h ^= mix(le64(data[8*i:]))
		h = bits.RotateLeft64(h, 27)
		h = h*5 + 0x52dce729
	}
	if tail := data[8*n:]; len(tail) > 0 {
		var k uint64
		for i := len(tail) - 1; i >= 0; i-- {
			k = k<<8 | uint64(tail[i])
		}
		h ^= mix(k)
	}
	h ^= uint64(len(data))
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// xxhash32 is XXH32 (the xxHash specification).
func xxhash32(b string, seed uint32) uint32 {
	const p1, p2, p3, p4, p5 uint32 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
	round := func(acc, in uint32) uint32 {
		acc += in * p2
		acc = bits.RotateLeft32(acc, 13)
		return acc * p1
	}
	n := len(b)
	var h uint32
	i := 0
	if n >= 16 {
		v1, v2, v3, v4 := seed+p1+p2, seed+p2, seed, seed-p1
		for ; i+16 <= n; i += 16 {
			v1 = round(v1, le32(b[i:]))
			v2 = round(v2, le32(b[i+4:]))
			v3 = round(v3, le32(b[i+8:]))
			v4 = round(v4, le32(b[i+12:]))
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + p5
	}
	h += uint32(n)
	for ; i+4 <= n; i += 4 {
		h += le32(b[i:]) * p3
		h = bits.RotateLeft32(h, 17) * p4
	}
	for ; i < n; i++ {
		h += uint32(b[i]) * p5
		h = bits.RotateLeft32(h, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// le32 and le64 read little-endian words from a string without copying it.
func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(le32(s)) | uint64(le32(s[4:]))<<32
}
