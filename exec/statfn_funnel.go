package exec

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// maxFunnelEvents bounds WINDOW_FUNNEL's conditions (one bit each).
const maxFunnelEvents = 64

// The modes of WINDOW_FUNNEL (Doris): DEFAULT; DEDUPLICATION, where an
// earlier step's event between two matched steps ends the chain; FIXED,
// where each next step must be the very next row; INCREASE, where each
// step's time must be later than the previous step's.
const (
	funnelDefault int64 = iota
	funnelDedup
	funnelFixed
	funnelIncrease
)

// funnelModes are the mode names the binder passes (lower case).
var funnelModes = map[string]int64{"default": funnelDefault, "deduplication": funnelDedup, "fixed": funnelFixed, "increase": funnelIncrease}

// funnelAcc is WINDOW_FUNNEL(window, mode, t, c1, ..., cn). Its argument
// is a STRUCT (window seconds, mode name, t, c1..cn);
// a group keeps every row's time and the mask of its conditions. At the
// end the rows are sorted by time and, from each row meeting c1 in turn,
// the chain c1, c2, ... is followed forward: each next step is the first
// later row meeting it, within window seconds of the chain's start (and
// the mode's rule); the result is the longest chain (an INT). Rows with a
// NULL time are skipped; a NULL condition is not met. The partial state
// is (times, masks, window, mode).
type funnelAcc struct {
	valMem
	n      int
	ts     [][]int64
	masks  [][]uint64
	window int64
	mode   int64
}

func (a *funnelAcc) grow(n int) {
	a.ts = growTo(a.ts, n)
	a.masks = growTo(a.masks, n)
}

func (a *funnelAcc) add(g uint32, t int64, mask uint64) {
	a.charge(16)
	a.ts[g] = append(a.ts[g], t)
	a.masks[g] = append(a.masks[g], mask)
}

func (a *funnelAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	win, mode := expr.Getter(st.Field(0)), expr.Getter(st.Field(1))
	tget := expr.Getter(st.Field(2))
	for i, g := range gids[:rows] {
		if !st.IsValid(i) {
			continue
		}
		t, ok := funnelTime(tget(i))
		if !ok {
			continue
		}
		if w, ok := win(i).(int64); ok {
			a.window = w
		}
		if m, ok := mode(i).(string); ok {
			a.mode = funnelModes[m]
		}
		var mask uint64
		for c := 0; c < a.n; c++ {
			e := st.Field(3 + c).(*array.Boolean)
			if e.IsValid(i) && e.Value(i) {
				mask |= 1 << c
			}
		}
		a.add(g, t, mask)
	}
}

// funnelTime reads a DATETIME (or DATE) as microseconds.
func funnelTime(v any) (int64, bool) {
	switch x := v.(type) {
	case arrow.Timestamp:
		return int64(x), true
	case arrow.Date32:
		return int64(x) * 86400e6, true
	case int64:
		return x, true
	}
	return 0, false
}

func (a *funnelAcc) merge(gids []uint32, states []arrow.Array) {
	tsL, maskL := expr.Getter(states[0]), expr.Getter(states[1])
	win, mode := states[2].(*array.Int64), states[3].(*array.Int64)
	for i, g := range gids {
		ts, _ := tsL(i).([]any)
		ms, _ := maskL(i).([]any)
		for k := range ts {
			a.add(g, ts[k].(int64), uint64(ms[k].(int64)))
		}
		if len(ts) > 0 {
			a.window, a.mode = win.Value(i), mode.Value(i)
		}
	}
}

// level is the longest chain of group g.
func (a *funnelAcc) level(g int) int32 {
	ts, ms := a.ts[g], a.masks[g]
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return ts[idx[x]] < ts[idx[y]] })
	t := make([]int64, len(ts))
	m := make([]uint64, len(ts))
	for i, k := range idx {
		t[i], m[i] = ts[k], ms[k]
	}
	best := 0
	for start := 0; start < len(t); start++ {
		if m[start]&1 == 0 {
			continue
		}
		if c := a.chain(t, m, start); c > best {
			if best = c; best == a.n {
				break
			}
		}
	}
	return int32(best)
}

// chain follows the steps from row first (which meets c1).
func (a *funnelAcc) chain(t []int64, m []uint64, first int) int {
	end := t[first] + a.window*1_000_000
	prev, last, row, count := t[first], first, first, 1
	for c := 1; c < a.n; c++ {
		bit := uint64(1) << c
		if a.mode == funnelFixed {
			row++
			if row < len(t) && m[row]&bit != 0 && t[row] <= end {
				count++
				continue
			}
			break
		}
		row++
		for row < len(t) && m[row]&bit == 0 {
			row++
		}
		if row >= len(t) || t[row] > end || (a.mode == funnelIncrease && t[row] <= prev) {
			break
		}
		prev = t[row]
		if a.mode == funnelDedup {
			// An earlier step's event between the last matched row and
			// this one repeats a step: the chain ends before it.
			earlier := bit - 1
			dup := false
			for k := last + 1; k < row; k++ {
				if m[k]&earlier != 0 {
					dup = true
					break
				}
			}
			if dup {
				break
			}
			last = row
		}
		count++
	}
	return count
}

func (a *funnelAcc) result(mem memory.Allocator, n int) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		b.Append(a.level(g))
	}
	return b.NewArray()
}

func (a *funnelAcc) states(mem memory.Allocator, n int) []arrow.Array {
	tb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer tb.Release()
	mb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer mb.Release()
	wb, ob := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer wb.Release()
	defer ob.Release()
	tv, mv := tb.ValueBuilder().(*array.Int64Builder), mb.ValueBuilder().(*array.Int64Builder)
	for g := 0; g < n; g++ {
		tb.Append(true)
		mb.Append(true)
		tv.AppendValues(a.ts[g], nil)
		for _, x := range a.masks[g] {
			mv.Append(int64(x))
		}
		wb.Append(a.window)
		ob.Append(a.mode)
	}
	return []arrow.Array{tb.NewArray(), mb.NewArray(), wb.NewArray(), ob.NewArray()}
}
