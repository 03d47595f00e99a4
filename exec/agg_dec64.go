package exec

import (
	mbits "math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

// SUM and AVG of a DECIMAL expression of +, - and * (Q1's sums of
// l_extendedprice * (1 - l_discount) * (1 + l_tax), Q5's, Q9's, Q10's)
// fold from an expr.Dec64 program: the argument is computed on int64
// lanes into reused buffers and added to each group's int64 lane, with no
// 128-bit array built per batch and the steps several arguments share
// computed once. A batch the program declines (a value beyond int64, or
// a step that overflows) takes the general path, which gives the same
// sums or raises the same error.

// dec64Folder is an accumulator that folds int64-lane DECIMAL values:
// vals and valid are indexed by row, gids by position in sel (nil: every
// row, in order); every |vals[r]| is below 2^bits (64: no bound).
type dec64Folder interface {
	updateI64(gids []uint32, vals []int64, valid []bool, sel []int64, bits int)
}

// laneRoomMax is the room of lanes just settled: every lane stays below
// 2^62 in magnitude while what a batch may add is taken from the room.
const laneRoomMax = 1 << 62

// uncheckedRoom returns how much n values below 2^bits may add to one
// lane, settling every lane first when the room left is short and
// settling costs no more than the batch (few groups), and whether that
// fits the room: the rows then fold with no overflow check.
func (a *decSumAcc) uncheckedRoom(n, bits int) bool {
	if bits+mbits.Len(uint(n)) > 62 {
		return false
	}
	need := uint64(n) << bits
	if need > a.room && len(a.lane) <= n {
		a.settle()
		a.room = laneRoomMax
	}
	if need > a.room {
		return false
	}
	a.room -= need
	return true
}

// dec64Program returns the int64 program of an aggregate's argument, or
// nil when acc does not fold int64 lanes or arg is not such an
// expression.
func dec64Program(a AggCall, acc accumulator, arg expr.Expr) *expr.Dec64 {
	if arg == nil || (a.Func != Sum && a.Func != Avg) || a.Distinct {
		return nil
	}
	switch x := acc.(type) {
	case *decSumAcc:
		if expr.IsLargeInt(x.typ) {
			return nil
		}
	case *avgAcc:
		s, ok := x.sum.(*decSumAcc)
		if !ok || expr.IsLargeInt(s.typ) {
			return nil
		}
	default:
		return nil
	}
	return expr.CompileDec64(arg)
}

func (a *decSumAcc) updateI64(gids []uint32, vals []int64, valid []bool, sel []int64, bits int) {
	a.lane = growTo(a.lane, len(a.s))
	if g, ok := oneGroup(gids); ok && valid == nil {
		a.room = 0
		a.foldI64(g, vals, sel, len(gids))
		return
	}
	lane, seen := a.lane, a.seen
	if a.uncheckedRoom(len(gids), bits) {
		if valid == nil && len(lane) <= smallGroups {
			present := sumSmall(lane, gids, vals, sel)
			for g := range seen[:len(lane)] {
				if present&(1<<g) != 0 {
					seen[g] = true
				}
			}
			return
		}
		if sel == nil {
			vals = vals[:len(gids)]
		}
		for j, g := range gids {
			r := j
			if sel != nil {
				r = int(sel[j])
			}
			if valid != nil && !valid[r] {
				continue
			}
			lane[g] += vals[r]
			seen[g] = true
		}
		return
	}
	a.room = 0 // the checked adds below may leave a lane anywhere
	for j, g := range gids {
		r := j
		if sel != nil {
			r = int(sel[j])
		}
		if valid != nil && !valid[r] {
			continue
		}
		x := vals[r]
		cur := lane[g]
		sum := cur + x
		if addOverflows(cur, x, sum) {
			a.flushLane(g)
			sum = x
		}
		lane[g] = sum
		seen[g] = true
	}
}

// foldI64 adds the n rows sel (nil: the first n) of vals, none NULL, into
// group g.
func (a *decSumAcc) foldI64(g uint32, vals []int64, sel []int64, n int) {
	if n == 0 {
		return
	}
	acc := a.lane[g]
	add := func(x int64) {
		sum := acc + x
		if addOverflows(acc, x, sum) {
			a.add(g, decimal128.FromI64(acc), false)
			sum = x
		}
		acc = sum
	}
	if sel == nil {
		for _, x := range vals[:n] {
			add(x)
		}
	} else {
		for _, r := range sel[:n] {
			add(vals[r])
		}
	}
	a.lane[g] = acc
	a.seen[g] = true
}

func (a *avgAcc) updateI64(gids []uint32, vals []int64, valid []bool, sel []int64, bits int) {
	a.sum.(*decSumAcc).updateI64(gids, vals, valid, sel, bits)
	c := a.count.c
	if valid == nil {
		if g, ok := oneGroup(gids); ok {
			c[g] += int64(len(gids))
			return
		}
		if len(c) <= smallGroups {
			a.count.batch.add(c, gids)
			return
		}
		for _, g := range gids {
			c[g]++
		}
		return
	}
	for j, g := range gids {
		r := j
		if sel != nil {
			r = int(sel[j])
		}
		if valid[r] {
			c[g]++
		}
	}
}

// noDec64 turns the int64-lane path off, for tests comparing it with the
// general one.
var noDec64 bool

// dec64Hook, set by tests, is called for every batch an aggregate folds
// on int64 lanes.
var dec64Hook func()
