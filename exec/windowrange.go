package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
)

// RANGE frames with offsets: RANGE BETWEEN a AND b over one numeric ORDER
// BY key, each bound UNBOUNDED, n PRECEDING, CURRENT ROW or n FOLLOWING
// (Window.RangeFrom and RangeTo: -n, 0, +n in the key's direction,
// ±Inf for unbounded). The frame of a row with key k holds the rows of its
// partition whose key lies in [k+RangeFrom, k+RangeTo] (ascending; mirrored
// for descending), so CURRENT ROW means the row's peers. A row whose key is
// NULL has the NULL rows as its frame (bounded ends) or runs to the
// partition's end (unbounded ends), as in MySQL. The rows are sorted by the
// key, so both ends of the frame only move forward and the aggregates of
// windowrows.go slide over them.

// maxExactFloat bounds integer keys compared as float64 without loss.
const maxExactFloat = 1 << 53

// rangeBound prints a RANGE bound in the terms it was written in: the
// offsets are in the key's units (see keyFloats), so a DECIMAL's is
// unscaled and a DATE's or DATETIME's an INTERVAL.
func rangeBound(off float64, from bool, key arrow.DataType) string {
	switch {
	case math.IsInf(off, 0) && from:
		return "UNBOUNDED PRECEDING"
	case math.IsInf(off, 0):
		return "UNBOUNDED FOLLOWING"
	case off == 0:
		return "CURRENT ROW"
	}
	dir := " FOLLOWING"
	if off < 0 {
		off, dir = -off, " PRECEDING"
	}
	text := fmt.Sprintf("%v", off)
	switch t := key.(type) {
	case *arrow.Decimal128Type:
		text = fmt.Sprintf("%v", off/math.Pow10(int(t.Scale)))
	case *arrow.Date32Type:
		text = fmt.Sprintf("INTERVAL %v DAY", off)
	case *arrow.TimestampType:
		text = fmt.Sprintf("INTERVAL %v MICROSECOND", off)
		if math.Mod(off, 1e6) == 0 {
			text = fmt.Sprintf("INTERVAL %v SECOND", off/1e6)
		}
	}
	return text + dir
}

// keyFloats reads the order key as float64s (NaN marks NULL), in the
// units the binder gave the offsets in: a DECIMAL as its unscaled integer,
// a DATE in days, a DATETIME in microseconds, numbers as they are.
func keyFloats(key arrow.Array) ([]float64, error) {
	out := make([]float64, key.Len())
	exact := func(v int64) (float64, error) {
		if v > maxExactFloat || v < -maxExactFloat {
			return 0, errorf(ErrPlan, "RANGE frame: order key %d is too large to compare exactly", v)
		}
		return float64(v), nil
	}
	var err error
	switch a := key.(type) {
	case *array.Decimal128:
		for i := range out {
			if a.IsNull(i) {
				out[i] = math.NaN()
				continue
			}
			v := a.Value(i)
			if !v.FitsInPrecision(18) {
				return nil, errorf(ErrPlan, "RANGE frame: order key %s is too large to compare exactly", v.ToString(0))
			}
			if out[i], err = exact(int64(v.LowBits())); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *array.Date32:
		for i := range out {
			out[i] = math.NaN()
			if a.IsValid(i) {
				out[i] = float64(a.Value(i))
			}
		}
		return out, nil
	case *array.Timestamp:
		mul, div := int64(1), int64(1)
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			mul = 1_000_000
		case arrow.Millisecond:
			mul = 1000
		case arrow.Nanosecond:
			div = 1000
		}
		for i := range out {
			if a.IsNull(i) {
				out[i] = math.NaN()
				continue
			}
			if out[i], err = exact(int64(a.Value(i)) * mul / div); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	get := expr.Getter(key)
	for i := range out {
		switch v := get(i).(type) {
		case nil:
			out[i] = math.NaN()
		case int64:
			if out[i], err = exact(v); err != nil {
				return nil, err
			}
		case float64:
			out[i] = v
		default:
			return nil, errorf(ErrPlan, "RANGE frame with an offset needs a numeric ORDER BY key, not %s", key.DataType())
		}
	}
	return out, nil
}

// peerRange reports whether a FrameRange frame has no offset: its bounds
// are CURRENT ROW (0) or UNBOUNDED (±Inf), so the peer groups decide it
// whatever the keys' types.
func (w *Window) peerRange() bool {
	return (w.RangeFrom == 0 || math.IsInf(w.RangeFrom, -1)) && (w.RangeTo == 0 || math.IsInf(w.RangeTo, 1))
}

// peerFrames are the frames of a RANGE frame without offsets: from the
// partition's start (fromUnb) or the current row's first peer, to the
// partition's end (toUnb) or its last peer.
func peerFrames(newPart, newPeer []bool, fromUnb, toUnb bool) (lo, hi []int) {
	n := len(newPart)
	lo, hi = make([]int, n), make([]int, n)
	ps, peer := 0, 0
	for i := 0; i < n; i++ {
		if newPart[i] {
			ps = i
		}
		if newPeer[i] {
			peer = i
		}
		lo[i] = peer
		if fromUnb {
			lo[i] = ps
		}
	}
	pe, peerEnd := n, n
	for i := n - 1; i >= 0; i-- {
		hi[i] = peerEnd
		if toUnb {
			hi[i] = pe
		}
		if newPeer[i] {
			peerEnd = i
		}
		if newPart[i] {
			pe = i
		}
	}
	return lo, hi
}

// rangeFrames returns every row's frame as [lo, hi), non-decreasing within
// a partition.
func (w *Window) rangeFrames(newPart []bool, key arrow.Array) (lo, hi []int, err error) {
	ks, err := keyFloats(key)
	if err != nil {
		return nil, nil, err
	}
	desc := len(w.OrderBy) > 0 && w.OrderBy[0].Desc
	n := len(newPart)
	lo, hi = make([]int, n), make([]int, n)
	fromUnb, toUnb := math.IsInf(w.RangeFrom, 0), math.IsInf(w.RangeTo, 0)
	for ps := 0; ps < n; {
		pe := ps + 1
		for pe < n && !newPart[pe] {
			pe++
		}
		// The non-NULL keys are one sorted run [ns, ne); NULLs sit before
		// or after it.
		ns, ne := ps, pe
		for ns < pe && math.IsNaN(ks[ns]) {
			ns++
		}
		for ne > ns && math.IsNaN(ks[ne-1]) {
			ne--
		}
		// within reports whether key x is at or past bound b of row i in
		// the sort direction.
		after := func(x, b float64) bool {
			if desc {
				return x <= b
			}
			return x >= b
		}
		l, h := ns, ns
		for i := ps; i < pe; i++ {
			if math.IsNaN(ks[i]) {
				nullStart, nullEnd := ps, ns
				if i >= ne {
					nullStart, nullEnd = ne, pe
				}
				lo[i], hi[i] = nullStart, nullEnd
				if fromUnb {
					lo[i] = ps
				}
				if toUnb {
					hi[i] = pe
				}
				continue
			}
			k := ks[i]
			sign := 1.0
			if desc {
				sign = -1
			}
			if fromUnb {
				lo[i] = ps
			} else {
				b := k + sign*w.RangeFrom
				for l < ne && !after(ks[l], b) {
					l++
				}
				lo[i] = l
			}
			if toUnb {
				hi[i] = pe
			} else {
				b := k + sign*w.RangeTo
				if h < l {
					h = l
				}
				for h < ne && !after(ks[h], b+nextAfter(b, desc)) {
					h++
				}
				hi[i] = h
			}
			if hi[i] < lo[i] {
				hi[i] = lo[i]
			}
		}
		ps = pe
	}
	return lo, hi, nil
}

// nextAfter is the step that turns "at or before b" into "before the next
// value after b" for the scan of the frame's end: keys up to and including
// b belong to the frame.
func nextAfter(b float64, desc bool) float64 {
	if desc {
		return math.Nextafter(b, math.Inf(-1)) - b
	}
	return math.Nextafter(b, math.Inf(1)) - b
}
