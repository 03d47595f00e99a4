package expr

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// LARGEINT is Doris's signed 128-bit integer. It is stored as DECIMAL128
// with scale 0 and precision LargeIntPrecision, one digit more than any
// DECIMAL may have, so it is told apart from DECIMAL(38,0): its range is
// the whole int128 range (-2^127 .. 2^127-1), which a 38-digit precision
// check would cut short. Every precision check goes through fitsPrec,
// because decimal128's own tables stop at 38 digits.

// LargeIntPrecision marks a DECIMAL128 type as LARGEINT.
const LargeIntPrecision = 39

// LargeIntT is LARGEINT.
func LargeIntT() arrow.DataType {
	return &arrow.Decimal128Type{Precision: LargeIntPrecision, Scale: 0}
}

// IsLargeInt reports whether t is LARGEINT.
func IsLargeInt(t arrow.DataType) bool {
	d, ok := t.(*arrow.Decimal128Type)
	return ok && d.Precision == LargeIntPrecision && d.Scale == 0
}

// fitsPrec reports whether n fits DECIMAL precision p; every 128-bit value
// fits LARGEINT.
func fitsPrec(n decimal128.Num, p int32) bool {
	if p >= LargeIntPrecision {
		return true
	}
	return n.FitsInPrecision(p)
}

var (
	int128Max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	int128Min = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

// bigFitsInt128 reports whether b is in the LARGEINT range.
func bigFitsInt128(b *big.Int) bool {
	return b.Cmp(int128Max) <= 0 && b.Cmp(int128Min) >= 0
}

// ParseLargeInt parses an optionally signed decimal integer in the LARGEINT
// range; ok is false for anything else (out of range, a fraction, text).
func ParseLargeInt(s string) (decimal128.Num, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " _") {
		return decimal128.Num{}, false
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok || !bigFitsInt128(b) {
		return decimal128.Num{}, false
	}
	return int128FromBig(b), true
}

// int128FromBig converts b, in the int128 range; decimal128.FromBigInt
// cannot take -2^127 (129 bits in sign-magnitude).
func int128FromBig(b *big.Int) decimal128.Num {
	if b.Cmp(int128Min) == 0 {
		return decimal128.New(math.MinInt64, 0)
	}
	return decimal128.FromBigInt(b)
}

// LargeInt is a LARGEINT literal; ok is false outside the int128 range.
func LargeInt(s string) (*Literal, bool) {
	n, ok := ParseLargeInt(s)
	if !ok {
		return nil, false
	}
	return &Literal{Value: n, Type: LargeIntT()}, true
}

// AddOverflows reports whether l+r (or l-r with sub), computed as res,
// wrapped around 128 bits: the operands' signs (for a difference, unlike
// signs) agree and the result's does not.
func AddOverflows(l, r, res decimal128.Num, sub bool) bool {
	ln, rn, resn := l.Sign() < 0, r.Sign() < 0, res.Sign() < 0
	if sub {
		return ln != rn && resn != ln
	}
	return ln == rn && resn != ln
}

// integralArith reports whether an arithmetic result on lt and rt is
// LARGEINT: both operands whole numbers and one of them LARGEINT.
func integralArith(lt, rt arrow.DataType) bool {
	whole := func(t arrow.DataType) bool { return isInt(t) || t.ID() == arrow.BOOL || IsLargeInt(t) || isNull(t) }
	return (IsLargeInt(lt) || IsLargeInt(rt)) && whole(lt) && whole(rt)
}
