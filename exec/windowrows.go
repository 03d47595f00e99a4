package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/exec/expr"
)

// ROWS frames with offsets: ROWS BETWEEN a AND b where each bound is
// UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING or UNBOUNDED
// FOLLOWING. Window.RowsFrom and RowsTo hold the bounds as offsets from the
// current row (-n, 0, +n; Unbounded for the unbounded ends). The frame of
// row i is [i+RowsFrom, i+RowsTo] cut to its partition; it may be empty.
// Both ends only move forward as i does, so the aggregates slide: a row
// enters once and leaves once (sum and count add and subtract; min and max
// keep a monotone queue), O(rows) per partition whatever the frame size.

// Unbounded marks an unbounded ROWS frame end (RowsFrom: UNBOUNDED
// PRECEDING, RowsTo: UNBOUNDED FOLLOWING).
const Unbounded = math.MaxInt64

func rowsBound(off int64, from bool) string {
	switch {
	case off == Unbounded && from:
		return "UNBOUNDED PRECEDING"
	case off == Unbounded:
		return "UNBOUNDED FOLLOWING"
	case off == 0:
		return "CURRENT ROW"
	case off < 0:
		return fmt.Sprintf("%d PRECEDING", -off)
	}
	return fmt.Sprintf("%d FOLLOWING", off)
}

func (w *Window) frameString() string {
	switch w.Frame {
	case FrameRows:
		return "ROWS BETWEEN " + rowsBound(w.RowsFrom, true) + " AND " + rowsBound(w.RowsTo, false)
	case FrameRange:
		var key arrow.DataType
		if len(w.OrderBy) > 0 {
			key = w.OrderBy[0].Expr.DataType()
		}
		return "RANGE BETWEEN " + rangeBound(w.RangeFrom, true, key) + " AND " + rangeBound(w.RangeTo, false, key)
	}
	return w.Frame.String()
}

// rowsFrames returns, for every row, its frame as a half-open range [lo,
// hi) with lo <= hi, both non-decreasing within a partition.
func (w *Window) rowsFrames(newPart []bool) (lo, hi []int) {
	n := len(newPart)
	lo, hi = make([]int, n), make([]int, n)
	for ps := 0; ps < n; {
		pe := ps + 1
		for pe < n && !newPart[pe] {
			pe++
		}
		for i := ps; i < pe; i++ {
			l, h := ps, pe // unbounded ends
			if w.RowsFrom != Unbounded {
				l = clampRow(int64(i)+w.RowsFrom, ps, pe)
			}
			if w.RowsTo != Unbounded {
				h = clampRow(int64(i)+w.RowsTo+1, ps, pe)
			}
			lo[i], hi[i] = l, max(h, l)
		}
		ps = pe
	}
	return lo, hi
}

func clampRow(v int64, lo, hi int) int {
	if v < int64(lo) {
		return lo
	}
	if v > int64(hi) {
		return hi
	}
	return int(v)
}

// evalAggRows computes an aggregate call over frames given as [lo, hi)
// per row, non-decreasing within a partition (ROWS and RANGE frames).
func (w *Window) evalAggRows(env *Env, c WindowCall, outT arrow.DataType, arg arrow.Array, newPart []bool, lo, hi []int) (arrow.Array, error) {
	n := len(newPart)
	var get func(int) any
	var argT arrow.DataType
	if arg != nil {
		get = expr.Getter(arg)
		argT = arg.DataType()
	}
	value := func(j int) any {
		if get == nil {
			return true // count(*): every row counts
		}
		return get(j)
	}
	b := array.NewBuilder(env.Mem, outT)
	defer b.Release()
	app := expr.Appender(b)
	var count int64
	var sum any
	var queue []int // min/max: frame rows with monotone values
	add := func(j int, sign int64) error {
		v := value(j)
		if v == nil {
			return nil
		}
		count += sign
		switch c.Func {
		case WinSum, WinAvg:
			switch x := v.(type) {
			case int64:
				old, _ := sum.(int64)
				var r int64
				if sign > 0 {
					r = old + x
					if (old^r)&(x^r) < 0 {
						return errorf(expr.ErrOverflow, "%s(%s): the sum is out of the range of bigint", c.Func, c.Arg)
					}
				} else {
					r = old - x
					if (old^x)&(old^r) < 0 {
						return errorf(expr.ErrOverflow, "%s(%s): the sum is out of the range of bigint", c.Func, c.Arg)
					}
				}
				sum = r
			case float64:
				old, _ := sum.(float64)
				sum = old + float64(sign)*x
			case decimal128.Num:
				old, _ := sum.(decimal128.Num)
				var r decimal128.Num
				if sign > 0 {
					r = old.Add(x)
				} else {
					r = old.Sub(x)
				}
				if !r.FitsInPrecision(38) {
					return errorf(expr.ErrOverflow, "%s(%s): the sum is out of the range of decimal(38)", c.Func, c.Arg)
				}
				sum = r
			}
		case WinMin, WinMax:
			// The queue front is the frame's min (max); a row entering
			// drops the rows before it that can never be the answer again.
			if sign > 0 {
				for len(queue) > 0 {
					cmp := expr.Compare(get(queue[len(queue)-1]), v, argT)
					if (c.Func == WinMin && cmp < 0) || (c.Func == WinMax && cmp > 0) {
						break
					}
					queue = queue[:len(queue)-1]
				}
				queue = append(queue, j)
			}
		}
		return nil
	}
	curLo, curHi := 0, 0
	for i := 0; i < n; i++ {
		if newPart[i] {
			count, sum, queue = 0, nil, queue[:0]
			curLo, curHi = lo[i], lo[i]
		}
		for curHi < hi[i] {
			if err := add(curHi, 1); err != nil {
				return nil, err
			}
			curHi++
		}
		for curLo < lo[i] {
			if err := add(curLo, -1); err != nil {
				return nil, err
			}
			curLo++
		}
		for len(queue) > 0 && queue[0] < curLo {
			queue = queue[1:]
		}
		var v any
		switch c.Func {
		case WinCountStar, WinCount:
			v = count
		case WinSum:
			if count > 0 {
				v = sum
			}
		case WinMin, WinMax:
			if len(queue) > 0 {
				v = get(queue[0])
			}
		case WinAvg:
			if count > 0 {
				switch s := sum.(type) {
				case int64:
					v = float64(s) / float64(count)
				case float64:
					v = s / float64(count)
				case decimal128.Num:
					_, in := decPS(argT)
					_, out := decPS(outT)
					v = decDivRound(s, in, decimal128.FromI64(count), out)
				}
			}
		}
		if c.Func == WinSum || c.Func == WinAvg {
			if count == 0 {
				v = nil
			}
		}
		app(v)
	}
	return b.NewArray(), nil
}

// frameValue is FIRST_VALUE, LAST_VALUE or NTH_VALUE over frames given as
// [lo, hi) per row: the value at the frame's first, last or n-th row,
// counting only non-NULL values under IGNORE NULLS; NULL when there is no
// such row.
func frameValue(env *Env, c WindowCall, outT arrow.DataType, arg arrow.Array, lo, hi []int) arrow.Array {
	get := expr.Getter(arg)
	b := array.NewBuilder(env.Mem, outT)
	defer b.Release()
	app := expr.Appender(b)
	skip := func(j int) bool { return c.IgnoreNulls && arg.IsNull(j) }
	for i := range lo {
		var v any
		switch c.Func {
		case FirstValue, NthValue:
			n := int64(1)
			if c.Func == NthValue {
				n = c.Offset
			}
			for j := lo[i]; j < hi[i]; j++ {
				if skip(j) {
					continue
				}
				if n--; n == 0 {
					v = get(j)
					break
				}
			}
		case LastValue:
			for j := hi[i] - 1; j >= lo[i]; j-- {
				if !skip(j) {
					v = get(j)
					break
				}
			}
		}
		app(v)
	}
	return b.NewArray()
}
