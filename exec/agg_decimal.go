package exec

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// SUM and AVG over DECIMAL add most values in int64: TPC-H's sums of
// prices and of their products fit, and an int64 addition with a sign
// check costs a fraction of a 128-bit one followed by a 38-digit
// precision test. Each group's int64 lane is added to its 128-bit sum
// (and that sum checked against 38 digits) when the next value would
// overflow the lane, when a value does not fit an int64 itself, and
// before the sum is read (settle). The result is the exact sum either
// way; only the points at which an intermediate sum is tested against 38
// digits differ from adding row by row.

// lane64 returns v as an int64 when its 128 bits are a sign-extended
// int64.
func lane64(v decimal128.Num) (int64, bool) {
	hi, lo := v.HighBits(), v.LowBits()
	if (hi == 0 && lo < 1<<63) || (hi == -1 && lo >= 1<<63) {
		return int64(lo), true
	}
	return 0, false
}

// addOverflows reports whether x+y leaves the int64 range.
func addOverflows(x, y, sum int64) bool {
	return (x >= 0) == (y >= 0) && (sum >= 0) != (x >= 0)
}

// updateLane is update for a DECIMAL (not LARGEINT) sum.
func (a *decSumAcc) updateLane(gids []uint32, d *array.Decimal128, rows int) {
	a.lane = growTo(a.lane, len(a.s))
	a.room = 0
	if g, ok := oneGroup(gids[:rows]); ok {
		a.foldLane(g, d, nil, rows)
		return
	}
	vals := d.Values()
	nulls := d.NullN() > 0
	for i, g := range gids[:rows] {
		if nulls && d.IsNull(i) {
			continue
		}
		a.seen[g] = true
		x, ok := lane64(vals[i])
		if !ok {
			a.add(g, vals[i], false)
			continue
		}
		cur := a.lane[g]
		sum := cur + x
		if addOverflows(cur, x, sum) {
			a.flushLane(g)
			sum = x
		}
		a.lane[g] = sum
	}
}

// foldLane adds the rows sel (nil: the first n) of d into group g, in a
// local int64 until it would overflow.
func (a *decSumAcc) foldLane(g uint32, d *array.Decimal128, sel []int64, n int) {
	a.lane = growTo(a.lane, len(a.s))
	a.room = 0
	vals := d.Values()
	nulls := d.NullN() > 0
	acc, seen := a.lane[g], false
	add := func(v decimal128.Num) {
		seen = true
		x, ok := lane64(v)
		if !ok {
			a.add(g, v, false)
			return
		}
		sum := acc + x
		if addOverflows(acc, x, sum) {
			a.add(g, decimal128.FromI64(acc), false)
			sum = x
		}
		acc = sum
	}
	if sel == nil {
		for i := 0; i < n; i++ {
			if !nulls || d.IsValid(i) {
				add(vals[i])
			}
		}
	} else {
		for _, r := range sel {
			if !nulls || d.IsValid(int(r)) {
				add(vals[r])
			}
		}
	}
	a.lane[g] = acc
	if seen {
		a.seen[g] = true
	}
}

// flushLane adds group g's lane to its 128-bit sum.
func (a *decSumAcc) flushLane(g uint32) {
	if v := a.lane[g]; v != 0 {
		a.lane[g] = 0
		a.add(g, decimal128.FromI64(v), false)
	}
}

// settle adds every lane to its 128-bit sum, before the sums are read.
func (a *decSumAcc) settle() {
	for g := range a.lane {
		a.flushLane(uint32(g))
	}
}
