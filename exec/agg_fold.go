package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// selFolder is an accumulator that folds rows straight into group 0, the
// only group of an aggregate without GROUP BY: the rows sel of arg, or
// all of its n rows when sel is nil (arg is nil for COUNT(*)). It reports
// false when arg is not of a type it folds directly; the caller then goes
// through update. Folding keeps the running value in a register and never
// copies the selected rows out of the batch.
type selFolder interface {
	foldSel(arg arrow.Array, sel []int64, n int) bool
}

func (a *countAcc) foldSel(arg arrow.Array, sel []int64, n int) bool {
	if sel != nil {
		n = len(sel)
	}
	if a.star || arg.NullN() == 0 {
		a.c[0] += int64(n)
		return true
	}
	var c int64
	if sel == nil {
		c = int64(n - arg.NullN())
	} else {
		bits, off := validity(arg)
		for _, r := range sel {
			if valid(bits, off, int(r)) {
				c++
			}
		}
	}
	a.c[0] += c
	return true
}

func (a *sumAcc[T]) foldSel(arg arrow.Array, sel []int64, n int) bool {
	switch s := any(a).(type) {
	case *sumAcc[int64]:
		switch v := arg.(type) {
		case *array.Int64:
			foldSumInt(s, v.Int64Values(), arg, sel, n)
		case *array.Int32:
			foldSumInt(s, v.Int32Values(), arg, sel, n)
		case *array.Int16:
			foldSumInt(s, v.Int16Values(), arg, sel, n)
		case *array.Int8:
			foldSumInt(s, v.Int8Values(), arg, sel, n)
		case *array.Uint32:
			foldSumInt(s, v.Uint32Values(), arg, sel, n)
		case *array.Uint16:
			foldSumInt(s, v.Uint16Values(), arg, sel, n)
		case *array.Uint8:
			foldSumInt(s, v.Uint8Values(), arg, sel, n)
		default:
			return false
		}
	case *sumAcc[float64]:
		switch v := arg.(type) {
		case *array.Float64:
			foldSumFloat(s, v.Float64Values(), arg, sel, n)
		case *array.Int64:
			foldSumFloat(s, v.Int64Values(), arg, sel, n)
		case *array.Int32:
			foldSumFloat(s, v.Int32Values(), arg, sel, n)
		case *array.Int16:
			foldSumFloat(s, v.Int16Values(), arg, sel, n)
		case *array.Int8:
			foldSumFloat(s, v.Int8Values(), arg, sel, n)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// foldSumInt is the BIGINT sum with overflow detection (see updateInt) of
// an integer column, each narrower value widened as the cast to BIGINT
// would (no copy of the column), added in the order of the rows.
func foldSumInt[S int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](a *sumAcc[int64], v []S, arg arrow.Array, sel []int64, n int) {
	nulls := arg.NullN() > 0
	x, bad, seen := a.s[0], int64(0), false
	switch {
	case sel == nil && !nulls:
		for _, y := range v[:n] {
			r := x + int64(y)
			bad |= (x ^ r) & (int64(y) ^ r)
			x = r
		}
		seen = n > 0
	case sel == nil:
		// A validity byte at a time: all valid, the eight rows in a
		// tight loop; none, skipped; else bit by bit. Same rows, same
		// order as a row-by-row loop.
		bits, off := validity(arg)
		for i := 0; i < n; {
			if b, ok := validByte(bits, off, i, n); ok {
				switch b {
				case 0:
				case 0xFF:
					for _, y := range v[i : i+8] {
						r := x + int64(y)
						bad |= (x ^ r) & (int64(y) ^ r)
						x = r
					}
					seen = true
				default:
					for j := i; j < i+8; j++ {
						if b&(1<<(j-i)) != 0 {
							y := int64(v[j])
							r := x + y
							bad |= (x ^ r) & (y ^ r)
							x, seen = r, true
						}
					}
				}
				i += 8
				continue
			}
			if valid(bits, off, i) {
				y := int64(v[i])
				r := x + y
				bad |= (x ^ r) & (y ^ r)
				x, seen = r, true
			}
			i++
		}
	case !nulls:
		for _, i := range sel {
			y := int64(v[i])
			r := x + y
			bad |= (x ^ r) & (y ^ r)
			x = r
		}
		seen = len(sel) > 0
	default:
		bits, off := validity(arg)
		for _, i := range sel {
			if valid(bits, off, int(i)) {
				y := int64(v[i])
				r := x + y
				bad |= (x ^ r) & (y ^ r)
				x, seen = r, true
			}
		}
	}
	a.s[0] = x
	if seen {
		a.seen[0] = true
	}
	if bad < 0 {
		a.overflow = true
	}
}

// foldSumFloat is the DOUBLE sum (SUM over a float cast, AVG) of a
// numeric column, each integer converted as the cast to DOUBLE would,
// added in the order of the rows, as update does.
func foldSumFloat[S int8 | int16 | int32 | int64 | float64](a *sumAcc[float64], v []S, arg arrow.Array, sel []int64, n int) {
	nulls := arg.NullN() > 0
	x, seen := a.s[0], false
	switch {
	case sel == nil && !nulls:
		for _, y := range v[:n] {
			x += float64(y)
		}
		seen = n > 0
	case sel == nil:
		// As foldSumInt: a validity byte at a time, rows in order.
		bits, off := validity(arg)
		for i := 0; i < n; {
			if b, ok := validByte(bits, off, i, n); ok {
				switch b {
				case 0:
				case 0xFF:
					for _, y := range v[i : i+8] {
						x += float64(y)
					}
					seen = true
				default:
					for j := i; j < i+8; j++ {
						if b&(1<<(j-i)) != 0 {
							x, seen = x+float64(v[j]), true
						}
					}
				}
				i += 8
				continue
			}
			if valid(bits, off, i) {
				x, seen = x+float64(v[i]), true
			}
			i++
		}
	case !nulls:
		for _, i := range sel {
			x += float64(v[i])
		}
		seen = len(sel) > 0
	default:
		bits, off := validity(arg)
		for _, i := range sel {
			if valid(bits, off, int(i)) {
				x, seen = x+float64(v[i]), true
			}
		}
	}
	a.s[0] = x
	if seen {
		a.seen[0] = true
	}
}

func (a *decSumAcc) foldSel(arg arrow.Array, sel []int64, n int) bool {
	d, ok := arg.(*array.Decimal128)
	if !ok {
		return false
	}
	wide := expr.IsLargeInt(a.typ)
	if !wide {
		a.foldLane(0, d, sel, n)
		return true
	}
	if sel == nil {
		for i := 0; i < n; i++ {
			if d.IsValid(i) {
				a.add(0, d.Value(i), wide)
			}
		}
		return true
	}
	for _, r := range sel {
		if d.IsValid(int(r)) {
			a.add(0, d.Value(int(r)), wide)
		}
	}
	return true
}

func (a *minMaxNum[T]) foldSel(arg arrow.Array, sel []int64, n int) bool {
	v := a.values(arg)
	if arg.NullN() > 0 || !a.seen[0] {
		// The first value seen (and NULLs) take the general loop; the rest
		// of a NULL-free batch the tight ones below.
		x, seen := a.v[0], a.seen[0]
		bits, off := validity(arg)
		j := 0
		for ; j < n && (sel == nil || j < len(sel)); j++ {
			i := j
			if sel != nil {
				i = int(sel[j])
			}
			if !valid(bits, off, i) {
				continue
			}
			if y := v[i]; !seen || (a.isMax && y > x) || (!a.isMax && y < x) {
				x, seen = y, true
			}
			if arg.NullN() == 0 {
				j++
				break
			}
		}
		a.v[0], a.seen[0] = x, seen
		if arg.NullN() > 0 {
			return true
		}
		if sel != nil {
			sel = sel[j:]
		} else {
			v = v[j:n]
		}
	} else if sel == nil {
		v = v[:n]
	}
	// NaN never compares greater or less, as in update: the comparisons
	// are the same, in the same order.
	x := a.v[0]
	switch {
	case sel == nil && a.isMax:
		for _, y := range v {
			if y > x {
				x = y
			}
		}
	case sel == nil:
		for _, y := range v {
			if y < x {
				x = y
			}
		}
	case a.isMax:
		for _, i := range sel {
			if y := v[i]; y > x {
				x = y
			}
		}
	default:
		for _, i := range sel {
			if y := v[i]; y < x {
				x = y
			}
		}
	}
	a.v[0] = x
	return true
}

func (a *avgAcc) foldSel(arg arrow.Array, sel []int64, n int) bool {
	f, ok := a.sum.(selFolder)
	if !ok {
		return false
	}
	switch arg.(type) {
	case *array.Float64, *array.Decimal128, *array.Int64, *array.Int32, *array.Int16, *array.Int8:
	default:
		return false
	}
	// Both halves accept what passed the check above, so neither folds
	// alone.
	if !f.foldSel(arg, sel, n) {
		return false
	}
	return a.count.foldSel(arg, sel, n)
}

// validity is arg's validity bitmap and the bit its row 0 is at (nil: no
// bitmap, every row valid). The folds test bits here instead of calling
// IsValid, a call through the interface for every row.
func validity(arg arrow.Array) ([]byte, int) {
	d := arg.Data()
	if bufs := d.Buffers(); len(bufs) > 0 && bufs[0] != nil && arg.NullN() > 0 {
		return bufs[0].Bytes(), d.Offset()
	}
	return nil, 0
}

// valid reports whether row i is valid in bits (from validity).
func valid(bits []byte, off, i int) bool {
	if bits == nil {
		return true
	}
	k := off + i
	return bits[k>>3]&(1<<(k&7)) != 0
}

// validByte is the validity of rows i..i+7 as one byte (bit j: row i+j)
// when those eight rows are whole within n and start a byte of bits (a
// column with NULLs: bits is not nil); ok false otherwise (the caller
// tests row i alone).
func validByte(bits []byte, off, i, n int) (b byte, ok bool) {
	if k := off + i; k&7 == 0 && i+8 <= n {
		return bits[k>>3], true
	}
	return 0, false
}
